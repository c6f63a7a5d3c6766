//! The float network the trainer fits (of a [`Shape`]): the inputs of a [`Sample`] from both
//! sides, the forward pass and the gradient of the loss (see the [`super`] module's documentation
//! for the architecture and the loss).

use ferrochess::eval::nnue::Activation;
use ferrochess::eval::nnue::features::{KingLayout, View};
use rayon::prelude::*;
use shakmaty::{Color, Piece, Role, Square};

use super::data::{Sample, sigmoid};
use super::shape::{Layers, Shape};

/// How a sample's pieces become the network's inputs, from both perspectives, as
/// `features::View` numbers them in the network's king layout.
pub(crate) struct Inputs {
    king: KingLayout,
}

impl Inputs {
    pub(crate) fn new(king: KingLayout) -> Inputs {
        Inputs { king }
    }

    /// Fills `us` and `them` with the sample's active inputs; returns how many there are.
    #[inline]
    pub(crate) fn inputs(
        &self,
        sample: &Sample,
        us: &mut [u16; 32],
        them: &mut [u16; 32],
    ) -> usize {
        let code = |count: usize| (sample.pieces[count / 2] >> (4 * (count % 2))) & 15;
        let turn = if sample.turn == 0 {
            Color::White
        } else {
            Color::Black
        };
        // The kings' squares first (codes 5 and 11), for the views.
        let mut kings = [Square::A1; 2];
        if self.king != KingLayout::Plain {
            let mut bits = sample.occupancy;
            let mut count = 0;
            while bits != 0 {
                let square = bits.trailing_zeros();
                bits &= bits - 1;
                match code(count) {
                    5 => kings[0] = Square::new(square),
                    11 => kings[1] = Square::new(square),
                    _ => {}
                }
                count += 1;
            }
        }
        let view = |color: Color| {
            let king = match color {
                Color::White => kings[0],
                Color::Black => kings[1],
            };
            View::new(self.king, color, king)
        };
        let (ours, theirs) = (view(turn), view(!turn));
        let mut bits = sample.occupancy;
        let mut count = 0;
        while bits != 0 {
            let square = Square::new(bits.trailing_zeros());
            bits &= bits - 1;
            let code = code(count);
            let piece = Piece {
                color: if code < 6 { Color::White } else { Color::Black },
                role: Role::ALL[usize::from(code % 6)],
            };
            us[count] = ours.index(piece, square) as u16;
            them[count] = theirs.index(piece, square) as u16;
            count += 1;
        }
        count
    }
}

/// A thread's working memory for one position.
pub(crate) struct Scratch {
    us_inputs: [u16; 32],
    them_inputs: [u16; 32],
    /// The accumulators before the activation, then (backward) their gradients.
    us: Vec<f32>,
    them: Vec<f32>,
}

impl Scratch {
    pub(crate) fn new(hidden: usize) -> Scratch {
        Scratch {
            us_inputs: [0; 32],
            them_inputs: [0; 32],
            us: vec![0.0; hidden],
            them: vec![0.0; hidden],
        }
    }
}

/// The hidden layer's activation, in float (1.0 is `QA` in the engine).
#[inline]
pub(crate) fn activate(activation: Activation, x: f32) -> f32 {
    let clipped = x.clamp(0.0, 1.0);
    match activation {
        Activation::ClippedRelu => clipped,
        Activation::SquaredClippedRelu => clipped * clipped,
    }
}

/// The derivative of [`activate`] (0 where it clips).
#[inline]
fn activation_slope(activation: Activation, x: f32) -> f32 {
    let inside = x > 0.0 && x < 1.0;
    match activation {
        Activation::ClippedRelu => f32::from(u8::from(inside)),
        Activation::SquaredClippedRelu => {
            if inside {
                2.0 * x
            } else {
                0.0
            }
        }
    }
}

/// `bias` plus the rows of `weights` named by `inputs`.
#[inline]
fn accumulate(weights: &[f32], bias: &[f32], inputs: &[u16], out: &mut [f32]) {
    let hidden = bias.len();
    out.copy_from_slice(bias);
    for &input in inputs {
        let row = &weights[usize::from(input) * hidden..][..hidden];
        for (value, weight) in out.iter_mut().zip(row) {
            *value += weight;
        }
    }
}

/// `sum(act(values) * weights)`, in 16 lanes so that it vectorises.
#[inline]
fn activated_dot(activation: Activation, values: &[f32], weights: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 16];
    for (values, weights) in values.chunks_exact(16).zip(weights.chunks_exact(16)) {
        for lane in 0..16 {
            lanes[lane] += activate(activation, values[lane]) * weights[lane];
        }
    }
    lanes.iter().sum()
}

/// The float network's output for `sample` (`400 x` this is centipawns); leaves the
/// accumulators and inputs in `scratch`. Returns (output, bucket, active inputs).
pub(crate) fn forward(
    shape: &Shape,
    network: &Layers<&[f32]>,
    table: &Inputs,
    sample: &Sample,
    scratch: &mut Scratch,
) -> (f32, usize, usize) {
    let count = table.inputs(sample, &mut scratch.us_inputs, &mut scratch.them_inputs);
    let (weights, bias) = (network.feature_weights, network.feature_bias);
    accumulate(weights, bias, &scratch.us_inputs[..count], &mut scratch.us);
    accumulate(
        weights,
        bias,
        &scratch.them_inputs[..count],
        &mut scratch.them,
    );
    let bucket = shape.architecture().bucket(count);
    let row = &network.output_weights[bucket * 2 * shape.hidden..][..2 * shape.hidden];
    let (ours, theirs) = row.split_at(shape.hidden);
    let output = network.output_bias[bucket]
        + activated_dot(shape.activation, &scratch.us, ours)
        + activated_dot(shape.activation, &scratch.them, theirs);
    (output, bucket, count)
}

/// Overwrites `gradient` with the gradient of the loss summed over `positions`; returns that
/// summed loss.
pub(crate) fn batch_gradient(
    shape: &Shape,
    parameters: &[f32],
    table: &Inputs,
    positions: impl Iterator<Item = Sample>,
    wdl: f32,
    gradient: &mut [f32],
) -> f64 {
    gradient.fill(0.0);
    let network = shape.split(parameters);
    let gradient = shape.split_mut(gradient);
    let hidden = shape.hidden;
    let mut scratch = Scratch::new(hidden);
    let mut loss = 0.0f64;
    for sample in positions {
        let (output, bucket, count) = forward(shape, &network, table, &sample, &mut scratch);
        let prediction = sigmoid(output);
        let error = prediction - sample.target(wdl);
        loss += f64::from(error * error);
        let slope = 2.0 * error * prediction * (1.0 - prediction);
        gradient.output_bias[bucket] += slope;
        let row = &network.output_weights[bucket * 2 * hidden..][..2 * hidden];
        let row_gradient = &mut gradient.output_weights[bucket * 2 * hidden..][..2 * hidden];
        let (ours, theirs) = row.split_at(hidden);
        let (ours_gradient, theirs_gradient) = row_gradient.split_at_mut(hidden);
        // The accumulators become their own gradients.
        for (values, weights, weights_gradient) in [
            (&mut scratch.us, ours, ours_gradient),
            (&mut scratch.them, theirs, theirs_gradient),
        ] {
            for ((value, weight), weight_gradient) in values
                .iter_mut()
                .zip(weights)
                .zip(weights_gradient.iter_mut())
            {
                *weight_gradient += slope * activate(shape.activation, *value);
                *value = slope * weight * activation_slope(shape.activation, *value);
            }
        }
        for (bias, (us, them)) in gradient
            .feature_bias
            .iter_mut()
            .zip(scratch.us.iter().zip(&scratch.them))
        {
            *bias += us + them;
        }
        for (inputs, values) in [
            (&scratch.us_inputs[..count], &scratch.us),
            (&scratch.them_inputs[..count], &scratch.them),
        ] {
            for &input in inputs {
                let row = &mut gradient.feature_weights[usize::from(input) * hidden..][..hidden];
                for (weight, value) in row.iter_mut().zip(values) {
                    *weight += value;
                }
            }
        }
    }
    loss
}

/// The float network's outputs for `samples` (`400 x` centipawns), computed in parallel.
pub(crate) fn outputs(
    shape: &Shape,
    parameters: &[f32],
    table: &Inputs,
    samples: &[Sample],
) -> Vec<f32> {
    let network = shape.split(parameters);
    samples
        .par_iter()
        .map_init(
            || Scratch::new(shape.hidden),
            |scratch, sample| forward(shape, &network, table, sample, scratch).0,
        )
        .collect()
}

/// Mean squared difference between `sigmoid(output)` and the targets.
pub(crate) fn mean_loss(outputs: &[f32], samples: &[Sample], wdl: f32) -> f64 {
    let total: f64 = outputs
        .iter()
        .zip(samples)
        .map(|(&output, sample)| f64::from((sigmoid(output) - sample.target(wdl)).powi(2)))
        .sum();
    total / samples.len() as f64
}

#[cfg(test)]
mod tests {
    use ferrochess::eval::nnue::features;
    use shakmaty::Position as _;

    use super::super::testing::{boards_and_samples, shape, trained_looking};
    use super::*;

    #[test]
    fn a_sample_has_the_inputs_of_its_board_from_each_side_and_the_side_to_move_s_labels() {
        for king in KingLayout::ALL {
            let table = Inputs::new(king);
            for (board, sample) in boards_and_samples() {
                let (mut us, mut them) = ([0; 32], [0; 32]);
                let count = table.inputs(&sample, &mut us, &mut them);
                for (inputs, perspective) in [(&mut us, board.turn()), (&mut them, !board.turn())] {
                    let mut expected: Vec<u16> = features::active(board.board(), king, perspective)
                        .map(|input| input as u16)
                        .collect();
                    expected.sort_unstable();
                    inputs[..count].sort_unstable();
                    assert_eq!(inputs[..count], expected[..], "{king:?}");
                }
            }
        }
        let samples = boards_and_samples();
        assert_eq!((samples[0].1.score, samples[0].1.result), (150, 2));
        assert_eq!((samples[2].1.score, samples[2].1.result), (50, 0));
    }

    #[test]
    fn the_gradient_is_the_slope_of_the_summed_loss() {
        for (activation, king) in [
            (Activation::SquaredClippedRelu, KingLayout::Plain),
            (Activation::ClippedRelu, KingLayout::Plain),
            (Activation::SquaredClippedRelu, KingLayout::Mirrored4),
            (Activation::ClippedRelu, KingLayout::Mirrored4),
        ] {
            let shape = shape(king, activation, 16);
            let trainer = trained_looking(shape, 7);
            let table = Inputs::new(shape.king);
            let samples: Vec<Sample> = boards_and_samples().into_iter().map(|(_, s)| s).collect();
            let loss = |parameters: &[f32]| {
                let mut scratch = vec![0.0; shape.parameters()];
                let positions = samples.iter().copied();
                batch_gradient(&shape, parameters, &table, positions, 0.3, &mut scratch)
            };
            let mut gradient = vec![0.0; shape.parameters()];
            let positions = samples.iter().copied();
            batch_gradient(
                &shape,
                &trainer.parameters,
                &table,
                positions,
                0.3,
                &mut gradient,
            );
            let (mut checked, mut kinks) = (0, 0);
            let here = loss(&trainer.parameters);
            for index in (0..shape.parameters()).filter(|&index| gradient[index] != 0.0) {
                let step = 1e-3;
                let mut moved = trainer.parameters.clone();
                moved[index] += step;
                let above = loss(&moved);
                moved[index] -= 2.0 * step;
                let below = loss(&moved);
                let slope = ((above - below) / (2.0 * f64::from(step))) as f32;
                // Where a step crosses the activation's clip (an accumulator within the step of
                // 0 or 1), the loss has a kink: the slopes on either side differ and neither is
                // the gradient's. Those parameters are counted, not checked.
                let right = ((above - here) / f64::from(step)) as f32;
                let left = ((here - below) / f64::from(step)) as f32;
                if (right - left).abs() > 1e-3 + 0.05 * slope.abs() {
                    kinks += 1;
                    continue;
                }
                assert!(
                    (slope - gradient[index]).abs() <= 1e-3 + 0.02 * slope.abs(),
                    "{activation:?} {king:?} parameter {index}: gradient {}, slope {slope}",
                    gradient[index]
                );
                checked += 1;
            }
            assert!(checked > 500, "only {checked} parameters have a gradient");
            assert!(
                kinks * 50 < checked,
                "{kinks} kinks in {checked} parameters"
            );
        }
    }
}
