//! The hand-crafted evaluation, from the side to move's point of view: off by default (the
//! network of [`super::nnue`] plays), kept as [`Evaluation::Classic`](super::Evaluation::Classic)
//! for study and comparison.
//!
//! Material plus piece-square tables (PeSTO), the positional terms of [`terms`] (pawn structure,
//! passed pawns, mobility, king safety, piece terms; weights in [`weights`], fitted to
//! Stockfish's scores of positions from real games), all tapered between middlegame and endgame
//! by the material left on the board, and a tempo bonus for the side to move. The positional
//! terms gained +47 Elo (95% +4..+91) against material and tables alone, 150 games at 2 s +
//! 0.02 s (BENCHMARKS.md).
//!
//! Every number comes from a [`ClassicWeights`]: [`evaluate`] and [`breakdown`] read the default
//! ones ([`DEFAULT_WEIGHTS`]), [`evaluate_with`] and [`breakdown_with`] any others, and
//! [`tune`] fits them to games' results (Texel's method).

pub mod pst;
pub mod tapered;
pub mod terms;
pub mod tune;
pub mod weights;

pub use tapered::Tapered;
pub use weights::{ClassicWeights, DEFAULT_WEIGHTS, TEMPO_CP};

use shakmaty::{Chess, Color, Position as _, Role};

use crate::score::Score;

/// How far the game is from the endgame: the sum of the phase weights of the pieces on the board.
pub fn phase(board: &Chess) -> i32 {
    Role::ALL
        .into_iter()
        .map(|role| {
            pst::PHASE_WEIGHT[role as usize - 1] * board.board().by_role(role).count() as i32
        })
        .sum()
}

/// Material and piece placement under `weights`, from White's point of view.
#[inline]
pub fn material_and_placement(board: &Chess, weights: &ClassicWeights) -> Tapered {
    let mut total = Tapered::default();
    for color in Color::ALL {
        let sign = if color == Color::White { 1 } else { -1 };
        let ours = board.board().by_color(color);
        for role in Role::ALL {
            for square in board.board().by_role(role) & ours {
                total += weights.placed(color, role, square) * sign;
            }
        }
    }
    total
}

/// The evaluation taken apart, for people who study it: each term from White's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Breakdown {
    /// 0 (kings and pawns) to [`pst::MAX_PHASE`] (all pieces): how the terms are blended.
    pub phase: i32,
    /// Piece values.
    pub material: Tapered,
    /// Piece-square bonuses (where the pieces stand).
    pub placement: Tapered,
    /// Doubled, isolated, backward, supported and side-by-side pawns.
    pub pawn_structure: Tapered,
    /// Passed pawns: by rank, blocked, and how near each king is to the square in front.
    pub passed_pawns: Tapered,
    /// Squares the pieces reach.
    pub mobility: Tapered,
    /// Attacks on the king's neighbourhood, its pawn shelter, open files beside it.
    pub king_safety: Tapered,
    /// Bishop pair, rooks on open files, pieces attacked by pawns, knight outposts.
    pub pieces: Tapered,
    /// The tempo bonus, from White's point of view (the weights' tempo, negated when Black is to
    /// move).
    pub tempo: i32,
}

impl Breakdown {
    /// The evaluation from White's point of view: the terms summed and blended by the phase.
    pub fn white(&self) -> i32 {
        let total = self.material
            + self.placement
            + self.pawn_structure
            + self.passed_pawns
            + self.mobility
            + self.king_safety
            + self.pieces;
        total.blend(self.phase) + self.tempo
    }
}

/// The terms of the default evaluation of `board` (their blend is what [`evaluate`] returns, for
/// White).
pub fn breakdown(board: &Chess) -> Breakdown {
    breakdown_with(board, &DEFAULT_WEIGHTS)
}

/// The terms of the evaluation of `board` under `weights` (their blend is what
/// [`evaluate_with`] returns, for White).
pub fn breakdown_with(board: &Chess, weights: &ClassicWeights) -> Breakdown {
    let mut material = Tapered::default();
    for color in Color::ALL {
        let sign = if color == Color::White { 1 } else { -1 };
        for role in Role::ALL {
            let count =
                (board.board().by_role(role) & board.board().by_color(color)).count() as i32;
            material += weights.material()[role as usize - 1] * (sign * count);
        }
    }
    let both = material_and_placement(board, weights);
    let placement = Tapered {
        middlegame: both.middlegame - material.middlegame,
        endgame: both.endgame - material.endgame,
    };
    let mut groups = terms::ByGroup::new(weights.terms());
    terms::add_terms(board.board(), &mut groups);
    Breakdown {
        phase: phase(board),
        material,
        placement,
        pawn_structure: groups.pawn_structure,
        passed_pawns: groups.passed_pawns,
        mobility: groups.mobility,
        king_safety: groups.king_safety,
        pieces: groups.pieces,
        tempo: match board.turn() {
            Color::White => weights.tempo(),
            Color::Black => -weights.tempo(),
        },
    }
}

/// The default evaluation of `board` in centipawns for the side to move.
pub fn evaluate(board: &Chess) -> Score {
    evaluate_with(board, &DEFAULT_WEIGHTS)
}

/// The evaluation of `board` under `weights`, in centipawns for the side to move.
#[inline]
pub fn evaluate_with(board: &Chess, weights: &ClassicWeights) -> Score {
    let mut total = terms::Total {
        weights: weights.terms(),
        sum: material_and_placement(board, weights),
    };
    terms::add_terms(board.board(), &mut total);
    let white = total.sum.blend(phase(board));
    Score::centipawns(
        match board.turn() {
            Color::White => white,
            Color::Black => -white,
        } + weights.tempo(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::{START_FEN, parse_fen};

    #[test]
    fn start_position_is_balanced_but_for_the_move() {
        let board = parse_fen(START_FEN).unwrap();
        assert_eq!(evaluate(&board), Score::centipawns(TEMPO_CP));
        assert_eq!(phase(&board), pst::MAX_PHASE);
    }

    #[test]
    fn symmetric_positions_score_opposite_for_each_side() {
        let white =
            parse_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3").unwrap();
        let black =
            parse_fen("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3").unwrap();
        assert_eq!(evaluate(&white), evaluate(&black));
    }

    #[test]
    fn the_breakdown_adds_up_to_the_evaluation() {
        for fen in [
            START_FEN,
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3",
            "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
        ] {
            let board = parse_fen(fen).unwrap();
            let parts = breakdown(&board);
            let white = parts.white();
            let expected = if board.turn() == Color::White {
                white
            } else {
                -white
            };
            assert_eq!(evaluate(&board).value(), expected, "{fen}");
        }
        let queen = breakdown(&parse_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap());
        assert_eq!(
            (queen.material.middlegame, queen.material.endgame),
            (1025, 936)
        );
    }

    #[test]
    fn other_weights_change_the_evaluation_and_its_breakdown() {
        let board = parse_fen("4k3/8/8/8/8/8/3N4/4K3 w - - 0 1").unwrap();
        let mut material = *DEFAULT_WEIGHTS.material();
        material[Role::Knight as usize - 1] = Tapered {
            middlegame: 100,
            endgame: 100,
        };
        let mut terms = *DEFAULT_WEIGHTS.terms();
        terms[weights::MOBILITY] = Tapered::default();
        let weights = ClassicWeights::new(material, *DEFAULT_WEIGHTS.tables(), terms, 0).unwrap();
        let parts = breakdown_with(&board, &weights);
        assert_eq!(
            parts.material,
            Tapered {
                middlegame: 100,
                endgame: 100
            }
        );
        assert_eq!(parts.mobility, Tapered::default());
        assert_eq!(parts.tempo, 0);
        assert_eq!(evaluate_with(&board, &weights).value(), parts.white());
        assert_eq!(
            evaluate(&board).value() - evaluate_with(&board, &weights).value(),
            breakdown(&board).white() - parts.white()
        );
        assert!(evaluate_with(&board, &weights).value() < evaluate(&board).value() - 150);
        assert_eq!(breakdown_with(&board, &DEFAULT_WEIGHTS), breakdown(&board));
    }

    #[test]
    fn extra_queen_is_winning() {
        let board = parse_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
        assert!(evaluate(&board).value() > 800);
        let board = parse_fen("4k3/8/8/8/8/8/8/3QK3 b - - 0 1").unwrap();
        assert!(evaluate(&board).value() < -800);
    }
}
