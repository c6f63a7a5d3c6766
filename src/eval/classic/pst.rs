//! Piece values and piece-square tables for a tapered evaluation.
//!
//! The numbers are Ronald Friederich's PeSTO / RofChade values as published on
//! the Chess Programming Wiki page "PeSTO's Evaluation Function"
//! (<https://www.chessprogramming.org/PeSTO%27s_Evaluation_Function>).
//! They are published numeric facts, reproduced here under fair use of those
//! numbers; the code around them is our own.
//!
//! They are the defaults of [`ClassicWeights`](super::weights::ClassicWeights) ([`MATERIAL`],
//! [`TABLES`]), which the evaluation reads; [`middlegame`] and [`endgame`] give the default
//! value (material plus square bonus) of a piece on a square. The game phase that blends the
//! middlegame and endgame sums is fixed: [`PHASE_WEIGHT`] and [`MAX_PHASE`].

use shakmaty::{Color, Role, Square};

/// Game phase weight of each role (Pawn..King), total 24 at the start position.
pub const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Phase of the start position: all minor pieces, rooks and queens present.
pub const MAX_PHASE: i32 = 24;

/// Middlegame material value of each role (Pawn..King).
const MG_MATERIAL: [i32; 6] = [82, 337, 365, 477, 1025, 0];

/// Endgame material value of each role (Pawn..King).
const EG_MATERIAL: [i32; 6] = [94, 281, 297, 512, 936, 0];

/// The material value of `role`: (middlegame, endgame).
pub const fn material(role: Role) -> (i32, i32) {
    (
        MG_MATERIAL[role as usize - 1],
        EG_MATERIAL[role as usize - 1],
    )
}

// Each square table below is written as the board is seen from White: the
// first line is rank 8 (a8..h8) and the last line is rank 1 (a1..h1). Entry
// `i` of a table therefore belongs to the shakmaty square `i ^ 56` for White.

/// Middlegame pawn bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const MG_PAWN: [i32; 64] = [
       0,    0,    0,    0,    0,    0,    0,    0,
      98,  134,   61,   95,   68,  126,   34,  -11,
      -6,    7,   26,   31,   65,   56,   25,  -20,
     -14,   13,    6,   21,   23,   12,   17,  -23,
     -27,   -2,   -5,   12,   17,    6,   10,  -25,
     -26,   -4,   -4,  -10,    3,    3,   33,  -12,
     -35,   -1,  -20,  -23,  -15,   24,   38,  -22,
       0,    0,    0,    0,    0,    0,    0,    0,
];

/// Endgame pawn bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const EG_PAWN: [i32; 64] = [
       0,    0,    0,    0,    0,    0,    0,    0,
     178,  173,  158,  134,  147,  132,  165,  187,
      94,  100,   85,   67,   56,   53,   82,   84,
      32,   24,   13,    5,   -2,    4,   17,   17,
      13,    9,   -3,   -7,   -7,   -8,    3,   -1,
       4,    7,   -6,    1,    0,   -5,   -1,   -8,
      13,    8,    8,   10,   13,    0,    2,   -7,
       0,    0,    0,    0,    0,    0,    0,    0,
];

/// Middlegame knight bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const MG_KNIGHT: [i32; 64] = [
    -167,  -89,  -34,  -49,   61,  -97,  -15, -107,
     -73,  -41,   72,   36,   23,   62,    7,  -17,
     -47,   60,   37,   65,   84,  129,   73,   44,
      -9,   17,   19,   53,   37,   69,   18,   22,
     -13,    4,   16,   13,   28,   19,   21,   -8,
     -23,   -9,   12,   10,   19,   17,   25,  -16,
     -29,  -53,  -12,   -3,   -1,   18,  -14,  -19,
    -105,  -21,  -58,  -33,  -17,  -28,  -19,  -23,
];

/// Endgame knight bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const EG_KNIGHT: [i32; 64] = [
     -58,  -38,  -13,  -28,  -31,  -27,  -63,  -99,
     -25,   -8,  -25,   -2,   -9,  -25,  -24,  -52,
     -24,  -20,   10,    9,   -1,   -9,  -19,  -41,
     -17,    3,   22,   22,   22,   11,    8,  -18,
     -18,   -6,   16,   25,   16,   17,    4,  -18,
     -23,   -3,   -1,   15,   10,   -3,  -20,  -22,
     -42,  -20,  -10,   -5,   -2,  -20,  -23,  -44,
     -29,  -51,  -23,  -15,  -22,  -18,  -50,  -64,
];

/// Middlegame bishop bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const MG_BISHOP: [i32; 64] = [
     -29,    4,  -82,  -37,  -25,  -42,    7,   -8,
     -26,   16,  -18,  -13,   30,   59,   18,  -47,
     -16,   37,   43,   40,   35,   50,   37,   -2,
      -4,    5,   19,   50,   37,   37,    7,   -2,
      -6,   13,   13,   26,   34,   12,   10,    4,
       0,   15,   15,   15,   14,   27,   18,   10,
       4,   15,   16,    0,    7,   21,   33,    1,
     -33,   -3,  -14,  -21,  -13,  -12,  -39,  -21,
];

/// Endgame bishop bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const EG_BISHOP: [i32; 64] = [
     -14,  -21,  -11,   -8,   -7,   -9,  -17,  -24,
      -8,   -4,    7,  -12,   -3,  -13,   -4,  -14,
       2,   -8,    0,   -1,   -2,    6,    0,    4,
      -3,    9,   12,    9,   14,   10,    3,    2,
      -6,    3,   13,   19,    7,   10,   -3,   -9,
     -12,   -3,    8,   10,   13,    3,   -7,  -15,
     -14,  -18,   -7,   -1,    4,   -9,  -15,  -27,
     -23,   -9,  -23,   -5,   -9,  -16,   -5,  -17,
];

/// Middlegame rook bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const MG_ROOK: [i32; 64] = [
      32,   42,   32,   51,   63,    9,   31,   43,
      27,   32,   58,   62,   80,   67,   26,   44,
      -5,   19,   26,   36,   17,   45,   61,   16,
     -24,  -11,    7,   26,   24,   35,   -8,  -20,
     -36,  -26,  -12,   -1,    9,   -7,    6,  -23,
     -45,  -25,  -16,  -17,    3,    0,   -5,  -33,
     -44,  -16,  -20,   -9,   -1,   11,   -6,  -71,
     -19,  -13,    1,   17,   16,    7,  -37,  -26,
];

/// Endgame rook bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const EG_ROOK: [i32; 64] = [
      13,   10,   18,   15,   12,   12,    8,    5,
      11,   13,   13,   11,   -3,    3,    8,    3,
       7,    7,    7,    5,    4,   -3,   -5,   -3,
       4,    3,   13,    1,    2,    1,   -1,    2,
       3,    5,    8,    4,   -5,   -6,   -8,  -11,
      -4,    0,   -5,   -1,   -7,  -12,   -8,  -16,
      -6,   -6,    0,    2,   -9,   -9,  -11,   -3,
      -9,    2,    3,   -1,   -5,  -13,    4,  -20,
];

/// Middlegame queen bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const MG_QUEEN: [i32; 64] = [
     -28,    0,   29,   12,   59,   44,   43,   45,
     -24,  -39,   -5,    1,  -16,   57,   28,   54,
     -13,  -17,    7,    8,   29,   56,   47,   57,
     -27,  -27,  -16,  -16,   -1,   17,   -2,    1,
      -9,  -26,   -9,  -10,   -2,   -4,    3,   -3,
     -14,    2,  -11,   -2,   -5,    2,   14,    5,
     -35,   -8,   11,    2,    8,   15,   -3,    1,
      -1,  -18,   -9,   10,  -15,  -25,  -31,  -50,
];

/// Endgame queen bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const EG_QUEEN: [i32; 64] = [
      -9,   22,   22,   27,   27,   19,   10,   20,
     -17,   20,   32,   41,   58,   25,   30,    0,
     -20,    6,    9,   49,   47,   35,   19,    9,
       3,   22,   24,   45,   57,   40,   57,   36,
     -18,   28,   19,   47,   31,   34,   39,   23,
     -16,  -27,   15,    6,    9,   17,   10,    5,
     -22,  -23,  -30,  -16,  -16,  -23,  -36,  -32,
     -33,  -28,  -22,  -43,   -5,  -32,  -20,  -41,
];

/// Middlegame king bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const MG_KING: [i32; 64] = [
     -65,   23,   16,  -15,  -56,  -34,    2,   13,
      29,   -1,  -20,   -7,   -8,   -4,  -38,  -29,
      -9,   24,    2,  -16,  -20,    6,   22,  -22,
     -17,  -20,  -12,  -27,  -30,  -25,  -14,  -36,
     -49,   -1,  -27,  -39,  -46,  -44,  -33,  -51,
     -14,  -14,  -22,  -46,  -44,  -30,  -15,  -27,
       1,    7,   -8,  -64,  -43,  -16,    9,    8,
     -15,   36,   12,  -54,    8,  -28,   24,   14,
];

/// Endgame king bonus, White's view, first line = rank 8, last = rank 1.
#[rustfmt::skip]
const EG_KING: [i32; 64] = [
     -74,  -35,  -18,  -18,  -11,   15,    4,  -17,
     -12,   17,   14,   17,   17,   38,   23,   11,
      10,   17,   23,   15,   20,   45,   44,   13,
      -8,   22,   24,   27,   26,   33,   26,    3,
     -18,   -4,   21,   24,   27,   23,    9,  -11,
     -19,   -3,   11,   21,   23,   16,    7,   -9,
     -27,  -11,    4,   13,   14,    4,   -5,  -17,
     -53,  -34,  -21,  -11,  -28,  -14,  -24,  -43,
];

/// Square tables of one phase, indexed by role (Pawn..King).
type RoleTables = [[i32; 64]; 6];

/// Combined material + square values, indexed `[color][role][square]` with
/// `color as usize` (Black = 0, White = 1), `role as usize - 1` and shakmaty's
/// square index (a1 = 0, ..., h8 = 63).
type Combined = [[[i32; 64]; 6]; 2];

const MG_SQUARES: RoleTables = [MG_PAWN, MG_KNIGHT, MG_BISHOP, MG_ROOK, MG_QUEEN, MG_KING];
const EG_SQUARES: RoleTables = [EG_PAWN, EG_KNIGHT, EG_BISHOP, EG_ROOK, EG_QUEEN, EG_KING];

/// XOR mask that mirrors a square vertically (a1 <-> a8): `sq ^ 56`.
const FLIP_RANK: usize = 0b11_1000;

/// Builds the combined table from material values and White's-view tables.
///
/// A table entry `i` (rank 8 first) sits on square `i ^ 56` for White. Black's
/// value on a square is White's value on the vertically mirrored square, which
/// lands on entry `i` itself.
const fn combine(material: &[i32; 6], squares: &RoleTables) -> Combined {
    let mut out = [[[0; 64]; 6]; 2];
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            let value = material[role] + squares[role][sq ^ FLIP_RANK];
            out[Color::White as usize][role][sq] = value;
            out[Color::Black as usize][role][sq ^ FLIP_RANK] = value;
            sq += 1;
        }
        role += 1;
    }
    out
}

/// PeSTO's piece values as (middlegame, endgame) pairs (Pawn..King): the default of
/// [`ClassicWeights`](super::weights::ClassicWeights)'s material.
pub const MATERIAL: [(i32, i32); 6] = {
    let mut out = [(0, 0); 6];
    let mut role = 0;
    while role < 6 {
        out[role] = (MG_MATERIAL[role], EG_MATERIAL[role]);
        role += 1;
    }
    out
};

/// The square bonuses as (middlegame, endgame) pairs, indexed `[role][square]` (Pawn..King;
/// shakmaty's square index from White's side, a1 = 0, b1 = 1, ..., h8 = 63, the order python-chess
/// numbers squares in): the default of [`ClassicWeights`](super::weights::ClassicWeights)'s
/// tables.
pub const TABLES: [[(i32, i32); 64]; 6] = {
    let mut out = [[(0, 0); 64]; 6];
    let mut role = 0;
    while role < 6 {
        let mut square = 0;
        while square < 64 {
            // Entry `i` of a written table (rank 8 first) belongs to square `i ^ 56`.
            out[role][square] = (
                MG_SQUARES[role][square ^ FLIP_RANK],
                EG_SQUARES[role][square ^ FLIP_RANK],
            );
            square += 1;
        }
        role += 1;
    }
    out
};

static MIDDLEGAME: Combined = combine(&MG_MATERIAL, &MG_SQUARES);
static ENDGAME: Combined = combine(&EG_MATERIAL, &EG_SQUARES);

/// Middlegame value (material + square bonus) in centipawns of a piece of
/// `color` and `role` on `square`, from that piece's owner's point of view
/// (positive = good for the owner).
#[inline]
#[must_use]
pub fn middlegame(color: Color, role: Role, square: Square) -> i32 {
    MIDDLEGAME[color as usize][role as usize - 1][square as usize]
}

/// Endgame value (material + square bonus) in centipawns of a piece of
/// `color` and `role` on `square`, from that piece's owner's point of view
/// (positive = good for the owner).
#[inline]
#[must_use]
pub fn endgame(color: Color, role: Role, square: Square) -> i32 {
    ENDGAME[color as usize][role as usize - 1][square as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Board, File, Rank};

    #[test]
    fn phase_weights_sum_to_max_phase_at_start() {
        let board = Board::default();
        let phase: i32 = board
            .iter()
            .map(|(_, piece)| PHASE_WEIGHT[piece.role as usize - 1])
            .sum();
        assert_eq!(phase, MAX_PHASE);
    }

    #[test]
    fn mirrored_pawns_are_equal() {
        assert_eq!(
            middlegame(Color::White, Role::Pawn, Square::E2),
            middlegame(Color::Black, Role::Pawn, Square::E7)
        );
        assert_eq!(
            endgame(Color::White, Role::Pawn, Square::E2),
            endgame(Color::Black, Role::Pawn, Square::E7)
        );
    }

    #[test]
    fn every_square_mirrors_between_colours() {
        for role in Role::ALL {
            for sq in Square::ALL {
                let mirrored = sq.flip_vertical();
                assert_eq!(
                    middlegame(Color::White, role, sq),
                    middlegame(Color::Black, role, mirrored)
                );
                assert_eq!(
                    endgame(Color::White, role, sq),
                    endgame(Color::Black, role, mirrored)
                );
            }
        }
    }

    #[test]
    fn start_position_is_balanced() {
        let board = Board::default();
        let mut mg = [0; 2];
        let mut eg = [0; 2];
        for (sq, piece) in board {
            mg[piece.color as usize] += middlegame(piece.color, piece.role, sq);
            eg[piece.color as usize] += endgame(piece.color, piece.role, sq);
        }
        assert_eq!(mg[0], mg[1]);
        assert_eq!(eg[0], eg[1]);
    }

    #[test]
    fn central_knight_beats_corner_knight() {
        assert!(
            middlegame(Color::White, Role::Knight, Square::D4)
                > middlegame(Color::White, Role::Knight, Square::A1)
        );
        assert!(
            middlegame(Color::Black, Role::Knight, Square::D5)
                > middlegame(Color::Black, Role::Knight, Square::A8)
        );
    }

    #[test]
    fn spot_checks_against_published_tables() {
        // mg_knight_table, first entry (a8 from White's view).
        assert_eq!(
            middlegame(Color::White, Role::Knight, Square::A8),
            337 - 167
        );
        // eg_pawn_table, second line, first entry (a7 from White's view).
        assert_eq!(endgame(Color::White, Role::Pawn, Square::A7), 94 + 178);
        // mg_king_table, last line, second entry (b1 from White's view).
        assert_eq!(middlegame(Color::White, Role::King, Square::B1), 36);
        // eg_king_table, last entry (h1 from White's view) seen by Black on h8.
        assert_eq!(endgame(Color::Black, Role::King, Square::H8), -43);
        // mg_rook_table, seventh line, last entry (h2 from White's view).
        assert_eq!(middlegame(Color::White, Role::Rook, Square::H2), 477 - 71);
        // eg_queen_table, fourth line, fifth entry (e5 from White's view).
        assert_eq!(endgame(Color::White, Role::Queen, Square::E5), 936 + 57);
    }

    #[test]
    fn paired_tables_hold_the_same_numbers() {
        for role in Role::ALL {
            let index = role as usize - 1;
            assert_eq!(MATERIAL[index], material(role));
            for square in Square::ALL {
                let bonus = TABLES[index][square as usize];
                assert_eq!(
                    middlegame(Color::White, role, square),
                    MATERIAL[index].0 + bonus.0
                );
                assert_eq!(
                    endgame(Color::White, role, square),
                    MATERIAL[index].1 + bonus.1
                );
            }
        }
    }

    #[test]
    fn white_view_layout_matches_square_indices() {
        // The written lines run from rank 8 down to rank 1, each from a to h.
        let ranks = Rank::ALL.into_iter().rev();
        for (line, rank) in MG_BISHOP.chunks_exact(8).zip(ranks) {
            for (&bonus, file) in line.iter().zip(File::ALL) {
                let sq = Square::from_coords(file, rank);
                assert_eq!(middlegame(Color::White, Role::Bishop, sq), 365 + bonus);
            }
        }
    }
}
