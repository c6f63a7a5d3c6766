//! A middlegame and an endgame value, blended by the game phase: the shape of every number of the
//! hand-crafted evaluation.

use super::pst::MAX_PHASE;

/// A middlegame and an endgame value, in centipawns, from White's point of view.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tapered {
    pub middlegame: i32,
    pub endgame: i32,
}

impl Tapered {
    /// Blends the two values: `phase` runs from 0 (bare kings and pawns) to [`MAX_PHASE`].
    pub fn blend(self, phase: i32) -> i32 {
        let phase = phase.min(MAX_PHASE);
        (self.middlegame * phase + self.endgame * (MAX_PHASE - phase)) / MAX_PHASE
    }
}

impl std::ops::Add for Tapered {
    type Output = Tapered;
    #[inline]
    fn add(self, other: Tapered) -> Tapered {
        Tapered {
            middlegame: self.middlegame + other.middlegame,
            endgame: self.endgame + other.endgame,
        }
    }
}

impl std::ops::AddAssign for Tapered {
    #[inline]
    fn add_assign(&mut self, other: Tapered) {
        *self = *self + other;
    }
}

impl std::ops::Mul<i32> for Tapered {
    type Output = Tapered;
    #[inline]
    fn mul(self, count: i32) -> Tapered {
        Tapered {
            middlegame: self.middlegame * count,
            endgame: self.endgame * count,
        }
    }
}
