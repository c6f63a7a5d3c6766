//! The float network's [`Shape`] (king layout, hidden neurons, output buckets, activation) and
//! how its parameters are laid out in one vector ([`Layers`]).

use ferrochess::eval::nnue::features::KingLayout;
use ferrochess::eval::nnue::{Activation, Architecture};
use ferrochess::random::Random;

use super::quantisation::{QA, QB, SCALE};

/// The network's size and activation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub king: KingLayout,
    /// Neurons of the hidden layer, a multiple of 16.
    pub hidden: usize,
    /// Output buckets (by the number of pieces).
    pub buckets: usize,
    pub activation: Activation,
}

impl Shape {
    pub fn architecture(&self) -> Architecture {
        Architecture {
            king: self.king,
            hidden: self.hidden,
            buckets: self.buckets,
            activation: self.activation,
            qa: QA,
            qb: QB,
            scale: SCALE as i32,
        }
    }

    /// How many floats the parameters take, laid out as `W1 | b1 | w2 | b2`.
    pub fn parameters(&self) -> usize {
        self.king.inputs() * self.hidden
            + self.hidden
            + self.buckets * 2 * self.hidden
            + self.buckets
    }

    /// The four parts of a parameter (or gradient) vector.
    pub(crate) fn split<'a>(&self, all: &'a [f32]) -> Layers<&'a [f32]> {
        let (feature_weights, rest) = all.split_at(self.king.inputs() * self.hidden);
        let (feature_bias, rest) = rest.split_at(self.hidden);
        let (output_weights, output_bias) = rest.split_at(self.buckets * 2 * self.hidden);
        Layers {
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        }
    }

    pub(crate) fn split_mut<'a>(&self, all: &'a mut [f32]) -> Layers<&'a mut [f32]> {
        let (feature_weights, rest) = all.split_at_mut(self.king.inputs() * self.hidden);
        let (feature_bias, rest) = rest.split_at_mut(self.hidden);
        let (output_weights, output_bias) = rest.split_at_mut(self.buckets * 2 * self.hidden);
        Layers {
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        }
    }

    /// The initial parameters (see the module's documentation).
    pub(crate) fn initial(&self, random: &mut Random) -> Vec<f32> {
        let mut all = vec![0.0; self.parameters()];
        let layers = self.split_mut(&mut all);
        let feature_limit = 1.0 / 32f32.sqrt();
        layers
            .feature_weights
            .iter_mut()
            .for_each(|w| *w = random.uniform(feature_limit));
        let output_limit = 1.0 / (2.0 * self.hidden as f32).sqrt();
        layers
            .output_weights
            .iter_mut()
            .for_each(|w| *w = random.uniform(output_limit));
        all
    }
}

/// The parts of the network: `W1` (768 rows of N per king bucket), `b1`, `w2` (a row of 2N per
/// output bucket), `b2`.
pub(crate) struct Layers<S> {
    pub(crate) feature_weights: S,
    pub(crate) feature_bias: S,
    pub(crate) output_weights: S,
    pub(crate) output_bias: S,
}
