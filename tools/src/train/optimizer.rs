//! The optimiser: AdamW on batches split between the threads, the learning rate's cosine, each
//! epoch's shuffle, and the quantisation into the network the engine reads.

use std::f32::consts::PI;

use ferrochess::eval::nnue::Network;
use ferrochess::random::{Random, mix};
use rayon::prelude::*;

use super::data::Sample;
use super::network::{Inputs, batch_gradient};
use super::options::Options;
use super::quantisation::{OUTPUT_WEIGHT_LIMIT, QA, QB, SCALE, WEIGHT_LIMIT};
use super::shape::Shape;

/// The learning rate at the end of the cosine, as a share of `--lr`.
pub(crate) const FINAL_RATE_SHARE: f32 = 0.01;

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const EPSILON: f32 = 1e-8;

/// The parameters, AdamW's moments and how far training has gone.
pub(crate) struct Trainer {
    pub(crate) shape: Shape,
    pub(crate) parameters: Vec<f32>,
    pub(crate) first_moment: Vec<f32>,
    pub(crate) second_moment: Vec<f32>,
    pub(crate) steps: u64,
    pub(crate) epochs_done: usize,
    /// One gradient buffer per thread.
    gradients: Vec<Vec<f32>>,
}

impl Trainer {
    pub(crate) fn new(shape: Shape, seed: u64, threads: usize) -> Trainer {
        let parameters = shape.initial(&mut Random::seeded(seed));
        let count = parameters.len();
        Trainer {
            shape,
            parameters,
            first_moment: vec![0.0; count],
            second_moment: vec![0.0; count],
            steps: 0,
            epochs_done: 0,
            gradients: vec![vec![0.0; count]; threads],
        }
    }

    /// A trainer that starts from `network`'s weights, its quantised values over their scales
    /// (which quantise back to the same values), with fresh optimiser moments and no step taken:
    /// `--init`, to go on training a network on new data. The network must have `shape`.
    pub(crate) fn from_network(
        shape: Shape,
        network: &Network,
        threads: usize,
    ) -> Result<Trainer, String> {
        let theirs = network.architecture();
        if theirs != shape.architecture() {
            return Err(format!(
                "{} is {} wide with {} output buckets, the {:?} king layout, {:?}, scales {}, {} \
                 and {}; the run asks for {} wide with {} buckets, {:?}, {:?} (QA {QA}, QB {QB}, \
                 scale {})",
                network.name(),
                theirs.hidden,
                theirs.buckets,
                theirs.king,
                theirs.activation,
                theirs.qa,
                theirs.qb,
                theirs.scale,
                shape.hidden,
                shape.buckets,
                shape.king,
                shape.activation,
                SCALE,
            ));
        }
        let mut trainer = Trainer::new(shape, 0, threads);
        let (feature_weights, feature_bias, output_weights, output_bias) = network.parts();
        let layers = shape.split_mut(&mut trainer.parameters);
        let scaled = |to: &mut [f32], from: &[i16], scale: i32| {
            for (parameter, &value) in to.iter_mut().zip(from) {
                *parameter = f32::from(value) / scale as f32;
            }
        };
        scaled(layers.feature_weights, feature_weights, QA);
        scaled(layers.feature_bias, feature_bias, QA);
        scaled(layers.output_weights, output_weights, QB);
        for (parameter, &value) in layers.output_bias.iter_mut().zip(output_bias) {
            *parameter = value as f32 / (QA * QB) as f32;
        }
        Ok(trainer)
    }

    /// One optimiser step on the positions `batch` names; returns their summed loss.
    pub(crate) fn step(
        &mut self,
        batch: &[u32],
        samples: &[Sample],
        table: &Inputs,
        options: &Options,
    ) -> f64 {
        let per_thread = batch.len().div_ceil(self.gradients.len());
        let (shape, parameters) = (&self.shape, &self.parameters);
        let losses: Vec<f64> = batch
            .par_chunks(per_thread)
            .zip(self.gradients.par_iter_mut())
            .map(|(part, gradient)| {
                let positions = part.iter().map(|&index| samples[index as usize]);
                batch_gradient(shape, parameters, table, positions, options.wdl, gradient)
            })
            .collect();
        self.steps += 1;
        let rate = learning_rate(options, self.steps, samples.len());
        self.apply_gradient(
            losses.len(),
            1.0 / batch.len() as f32,
            rate,
            options.weight_decay,
        );
        for weight in self.shape.split_mut(&mut self.parameters).output_weights {
            *weight = weight.clamp(-OUTPUT_WEIGHT_LIMIT, OUTPUT_WEIGHT_LIMIT);
        }
        losses.iter().sum()
    }

    /// AdamW with the sum of the first `used` gradient buffers times `scale`, then the clip;
    /// the parameters are split between the threads. Each parameter's gradient is summed in the
    /// buffers' order, so the result does not depend on how the work is split.
    fn apply_gradient(&mut self, used: usize, scale: f32, rate: f32, weight_decay: f32) {
        let threads = self.gradients.len();
        let chunk = self.parameters.len().div_ceil(threads).next_multiple_of(16);
        let steps = i32::try_from(self.steps).unwrap_or(i32::MAX);
        let corrections = (
            1.0 / (1.0 - BETA1.powi(steps)),
            1.0 / (1.0 - BETA2.powi(steps)),
        );
        let decay = 1.0 - rate * weight_decay;
        let (summed, others) = self.gradients.split_at_mut(1);
        let others = &others[..used - 1];
        self.parameters
            .par_chunks_mut(chunk)
            .zip(self.first_moment.par_chunks_mut(chunk))
            .zip(self.second_moment.par_chunks_mut(chunk))
            .zip(summed[0].par_chunks_mut(chunk))
            .enumerate()
            .for_each(|(index, (((parameters, first), second), gradient))| {
                for other in others {
                    for (sum, value) in gradient.iter_mut().zip(&other[index * chunk..]) {
                        *sum += value;
                    }
                }
                for (((parameter, first), second), gradient) in parameters
                    .iter_mut()
                    .zip(first.iter_mut())
                    .zip(second.iter_mut())
                    .zip(gradient.iter())
                {
                    let gradient = gradient * scale;
                    *first = BETA1 * *first + (1.0 - BETA1) * gradient;
                    *second = BETA2 * *second + (1.0 - BETA2) * gradient * gradient;
                    let step =
                        *first * corrections.0 / ((*second * corrections.1).sqrt() + EPSILON);
                    *parameter =
                        (*parameter * decay - rate * step).clamp(-WEIGHT_LIMIT, WEIGHT_LIMIT);
                }
            });
    }

    /// The network quantised as the engine reads it.
    pub(crate) fn quantised(&self) -> Result<Network, String> {
        let layers = self.shape.split(&self.parameters);
        let scaled = |weights: &[f32], scale: i32| -> Vec<i16> {
            weights
                .iter()
                .map(|w| (w * scale as f32).round() as i16)
                .collect()
        };
        Network::from_parts(
            self.shape.architecture(),
            scaled(layers.feature_weights, QA),
            scaled(layers.feature_bias, QA),
            scaled(layers.output_weights, QB),
            layers
                .output_bias
                .iter()
                .map(|b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
        )
    }
}

/// The rate for step `step` (from 1): a cosine from `--lr` down to `FINAL_RATE_SHARE` of it.
pub(crate) fn learning_rate(options: &Options, step: u64, positions: usize) -> f32 {
    let total = (options.epochs * positions.div_ceil(options.batch)) as f32;
    let progress = ((step - 1) as f32 / total).min(1.0);
    let share = FINAL_RATE_SHARE + (1.0 - FINAL_RATE_SHARE) * 0.5 * (1.0 + (PI * progress).cos());
    options.rate * share
}

/// The training positions' order in epoch `epoch`: a shuffle that depends on nothing else.
pub(crate) fn epoch_order(count: usize, seed: u64, epoch: usize) -> Vec<u32> {
    let mut random = Random::seeded(mix(seed ^ mix(epoch as u64)));
    let mut order: Vec<u32> = (0..count as u32).collect();
    for last in (1..count).rev() {
        order.swap(last, random.index(last + 1));
    }
    order
}

#[cfg(test)]
mod tests {
    use ferrochess::eval::nnue::Activation;
    use ferrochess::eval::nnue::features::KingLayout;

    use super::super::network::{Scratch, forward};
    use super::super::quantisation::SCALE;
    use super::super::testing::{boards_and_samples, shape, trained_looking};
    use super::*;

    /// The parameters rounded to what the quantised network holds, back in float.
    fn dequantised(shape: Shape, parameters: &[f32]) -> Vec<f32> {
        let mut rounded = parameters.to_vec();
        let layers = shape.split_mut(&mut rounded);
        let scales = [QA, QA, QB, QA * QB].map(|scale| scale as f32);
        for (part, scale) in [
            layers.feature_weights,
            layers.feature_bias,
            layers.output_weights,
            layers.output_bias,
        ]
        .into_iter()
        .zip(scales)
        {
            part.iter_mut()
                .for_each(|w| *w = (*w * scale).round() / scale);
        }
        rounded
    }

    #[test]
    fn the_engine_evaluates_the_written_network_as_the_float_one_with_its_rounded_weights() {
        for (activation, king) in [
            (Activation::SquaredClippedRelu, KingLayout::Plain),
            (Activation::ClippedRelu, KingLayout::Mirrored4),
        ] {
            let shape = shape(king, activation, 64);
            let trainer = trained_looking(shape, 11);
            let network = Network::from_bytes(&trainer.quantised().unwrap().to_bytes()).unwrap();
            let table = Inputs::new(shape.king);
            let rounded = dequantised(shape, &trainer.parameters);
            let (exact, rounded) = (shape.split(&trainer.parameters), shape.split(&rounded));
            let mut scratch = Scratch::new(shape.hidden);
            for (board, sample) in boards_and_samples() {
                let mut centipawns =
                    |layers| forward(&shape, layers, &table, &sample, &mut scratch).0 * SCALE;
                let (float, rounded) = (centipawns(&exact), centipawns(&rounded));
                let quantised = network.evaluate(&board) as f32;
                // The integer inference truncates twice, each time by less than a centipawn.
                assert!(
                    (rounded - quantised).abs() < 2.0,
                    "{activation:?}: rounded weights {rounded}, quantised {quantised}"
                );
                // Output weights as large as +-1 make rounding cost tens of centipawns at most.
                assert!(
                    (float - quantised).abs() < 60.0,
                    "{activation:?}: {float}, {quantised}"
                );
            }
        }
    }

    #[test]
    fn a_trainer_started_from_a_network_writes_that_network_back() {
        for (activation, king) in [
            (Activation::SquaredClippedRelu, KingLayout::Mirrored),
            (Activation::ClippedRelu, KingLayout::Mirrored4),
        ] {
            let shape = shape(king, activation, 32);
            let bytes = trained_looking(shape, 5).quantised().unwrap().to_bytes();
            let network = Network::from_bytes(&bytes).unwrap();
            let started = Trainer::from_network(shape, &network, 2).unwrap();
            assert_eq!(started.quantised().unwrap().to_bytes(), bytes);
            assert_eq!((started.steps, started.epochs_done), (0, 0));
            assert!(started.first_moment.iter().all(|&m| m == 0.0));
        }
        // The compiled-in network too: its weights survive the trip into float and back.
        let default = ferrochess::eval::nnue::default_network();
        let architecture = default.architecture();
        let shape = Shape {
            king: architecture.king,
            hidden: architecture.hidden,
            buckets: architecture.buckets,
            activation: architecture.activation,
        };
        let started = Trainer::from_network(shape, &default, 1).unwrap();
        assert_eq!(started.quantised().unwrap().to_bytes(), default.to_bytes());
    }

    #[test]
    fn a_network_of_another_shape_is_refused_by_name() {
        let theirs = shape(KingLayout::Mirrored, Activation::SquaredClippedRelu, 32);
        let network = trained_looking(theirs, 5).quantised().unwrap();
        for ours in [
            shape(KingLayout::Mirrored, Activation::SquaredClippedRelu, 64),
            shape(KingLayout::Plain, Activation::SquaredClippedRelu, 32),
            shape(KingLayout::Mirrored, Activation::ClippedRelu, 32),
            Shape {
                buckets: 4,
                ..theirs
            },
        ] {
            let error = Trainer::from_network(ours, &network, 1).err().unwrap();
            assert!(error.starts_with(&network.name()), "{error}");
            assert!(error.contains("32 wide with 8 output buckets"), "{error}");
        }
    }

    #[test]
    fn weights_at_the_clip_still_load() {
        let shape = Shape {
            king: KingLayout::Mirrored4,
            hidden: 32,
            buckets: 8,
            activation: Activation::SquaredClippedRelu,
        };
        let mut trainer = Trainer::new(shape, 3, 1);
        trainer.parameters.fill(-WEIGHT_LIMIT);
        for weight in shape.split_mut(&mut trainer.parameters).output_weights {
            *weight = -OUTPUT_WEIGHT_LIMIT;
        }
        assert!(trainer.quantised().is_ok());
        trainer.parameters.fill(WEIGHT_LIMIT);
        for weight in shape.split_mut(&mut trainer.parameters).output_weights {
            *weight = OUTPUT_WEIGHT_LIMIT;
        }
        assert!(trainer.quantised().is_ok());
    }

    #[test]
    fn an_epoch_s_order_is_a_permutation_fixed_by_the_seed_and_the_epoch() {
        let order = epoch_order(1000, 1, 4);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<u32>>());
        assert_eq!(order, epoch_order(1000, 1, 4));
        assert_ne!(order, epoch_order(1000, 1, 5));
        assert_ne!(order, epoch_order(1000, 2, 4));
    }
}
