//! The positional terms beyond material and piece-square tables: pawn structure, passed pawns,
//! mobility, king safety and piece terms.
//!
//! Each term counts a feature of one side and hands the count, signed (White +, Black -), to a
//! [`Sink`] with the index of its weight in [`TERMS`](weights::TERMS). The search's sink sums the
//! weights ([`Total`]), the breakdown's sums them by group ([`ByGroup`]), the tuner's records the
//! counts ([`Trace`]): one description of the features serves all three.

use shakmaty::{Bitboard, Board, Color, File, Rank, Role, Square, attacks};

use super::tapered::Tapered;
use super::weights::{self, COUNT, Group};

/// Receives the features of a position: `count` times weight `index`, from White's point of view.
pub trait Sink {
    fn add(&mut self, index: usize, count: i32);
}

/// The sum of the features weighted by `weights`, added to `sum`.
#[derive(Copy, Clone, Debug)]
pub struct Total<'a> {
    pub weights: &'a [Tapered; COUNT],
    pub sum: Tapered,
}

impl Sink for Total<'_> {
    #[inline]
    fn add(&mut self, index: usize, count: i32) {
        self.sum += self.weights[index] * count;
    }
}

/// The features weighted by `weights`, summed by [`Group`].
#[derive(Copy, Clone, Debug)]
pub struct ByGroup<'a> {
    pub weights: &'a [Tapered; COUNT],
    pub pawn_structure: Tapered,
    pub passed_pawns: Tapered,
    pub mobility: Tapered,
    pub king_safety: Tapered,
    pub pieces: Tapered,
}

impl<'a> ByGroup<'a> {
    /// Every group at zero.
    pub fn new(weights: &'a [Tapered; COUNT]) -> ByGroup<'a> {
        ByGroup {
            weights,
            pawn_structure: Tapered::default(),
            passed_pawns: Tapered::default(),
            mobility: Tapered::default(),
            king_safety: Tapered::default(),
            pieces: Tapered::default(),
        }
    }
}

impl Sink for ByGroup<'_> {
    fn add(&mut self, index: usize, count: i32) {
        let total = match weights::group(index) {
            Group::PawnStructure => &mut self.pawn_structure,
            Group::PassedPawns => &mut self.passed_pawns,
            Group::Mobility => &mut self.mobility,
            Group::KingSafety => &mut self.king_safety,
            Group::Pieces => &mut self.pieces,
        };
        *total += self.weights[index] * count;
    }
}

/// The features themselves: White's count minus Black's for each weight (for the tuner).
#[derive(Clone, Debug)]
pub struct Trace(pub [i32; COUNT]);

impl Default for Trace {
    fn default() -> Trace {
        Trace([0; COUNT])
    }
}

impl Sink for Trace {
    fn add(&mut self, index: usize, count: i32) {
        self.0[index] += count;
    }
}

/// Files beside each file.
const ADJACENT_FILES: [Bitboard; 8] = {
    let mut masks = [Bitboard(0); 8];
    let mut file = 0;
    while file < 8 {
        let column = 0x0101_0101_0101_0101u64 << file;
        let mut mask = 0;
        if file > 0 {
            mask |= column >> 1;
        }
        if file < 7 {
            mask |= column << 1;
        }
        masks[file] = Bitboard(mask);
        file += 1;
    }
    masks
};

/// The ranks strictly ahead of `rank` for `color`.
fn ranks_ahead(color: Color, rank: Rank) -> Bitboard {
    let rank = rank as u32;
    Bitboard(match color {
        Color::White if rank >= 7 => 0,
        Color::White => u64::MAX << (8 * (rank + 1)),
        Color::Black if rank == 0 => 0,
        Color::Black => u64::MAX >> (64 - 8 * rank),
    })
}

/// The squares `color`'s pawns attack.
fn pawn_attacks(color: Color, pawns: Bitboard) -> Bitboard {
    let not_a = !Bitboard::from_file(File::A);
    let not_h = !Bitboard::from_file(File::H);
    match color {
        Color::White => (pawns & not_a).shift(7) | (pawns & not_h).shift(9),
        Color::Black => (pawns & not_a).shift(-9) | (pawns & not_h).shift(-7),
    }
}

/// The square in front of `square` for `color` (none on the last rank).
fn stop_square(color: Color, square: Square) -> Option<Square> {
    square.offset(match color {
        Color::White => 8,
        Color::Black => -8,
    })
}

/// Hands every positional feature of `board` to `sink`.
pub fn add_terms<S: Sink>(board: &Board, sink: &mut S) {
    let occupied = board.occupied();
    let pawns = board.pawns();
    for color in Color::ALL {
        let sign = match color {
            Color::White => 1,
            Color::Black => -1,
        };
        let us = board.by_color(color);
        let them = board.by_color(!color);
        let our_pawns = pawns & us;
        let their_pawns = pawns & them;
        let our_pawn_attacks = pawn_attacks(color, our_pawns);
        let their_pawn_attacks = pawn_attacks(!color, their_pawns);
        let Some(our_king) = board.king_of(color) else {
            continue;
        };
        let their_king = board.king_of(!color);

        // Pawn structure and passed pawns.
        for square in our_pawns {
            let file_mask = Bitboard::from_file(square.file());
            let beside = ADJACENT_FILES[square.file() as usize];
            let ahead = ranks_ahead(color, square.rank());
            let relative_rank = color.relative_rank(square.rank()) as i32;
            let stop = stop_square(color, square);
            if (our_pawns & file_mask & ahead).any() {
                sink.add(weights::DOUBLED_PAWN, sign);
            }
            if (our_pawns & beside).is_empty() {
                sink.add(weights::ISOLATED_PAWN, sign);
            } else if (our_pawns & beside & !ahead).is_empty()
                && stop.is_some_and(|stop| their_pawn_attacks.contains(stop))
            {
                sink.add(weights::BACKWARD_PAWN, sign);
            }
            if our_pawn_attacks.contains(square) {
                sink.add(weights::SUPPORTED_PAWN, sign);
            }
            if (our_pawns & beside & Bitboard::from_rank(square.rank())).any() {
                sink.add(weights::PHALANX_PAWN, sign);
            }
            if (their_pawns & (file_mask | beside) & ahead).is_empty()
                && (our_pawns & file_mask & ahead).is_empty()
            {
                sink.add(weights::PASSED_PAWN + relative_rank as usize, sign);
                if let Some(stop) = stop {
                    if occupied.contains(stop) {
                        sink.add(weights::PASSED_PAWN_BLOCKED, sign);
                    }
                    let scale = (relative_rank - 2).max(0);
                    sink.add(
                        weights::PASSED_PAWN_OWN_KING,
                        sign * scale * our_king.distance(stop) as i32,
                    );
                    if let Some(their_king) = their_king {
                        sink.add(
                            weights::PASSED_PAWN_THEIR_KING,
                            sign * scale * their_king.distance(stop) as i32,
                        );
                    }
                }
            }
        }

        // Mobility and attacks on the enemy king's zone.
        let reachable = !us & !their_pawn_attacks;
        let their_king_zone =
            their_king.map_or(Bitboard(0), |king| attacks::king_attacks(king).with(king));
        for (offset, role) in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .into_iter()
            .enumerate()
        {
            for square in board.by_role(role) & us {
                let targets = match role {
                    Role::Knight => attacks::knight_attacks(square),
                    Role::Bishop => attacks::bishop_attacks(square, occupied),
                    Role::Rook => attacks::rook_attacks(square, occupied),
                    _ => attacks::queen_attacks(square, occupied),
                };
                sink.add(
                    weights::MOBILITY + offset,
                    sign * (targets & reachable).count() as i32,
                );
                let zone = (targets & their_king_zone).count() as i32;
                if zone > 0 {
                    sink.add(weights::KING_ZONE_ATTACK + offset, sign * zone);
                }
            }
        }

        // The own king's shelter.
        let king_files =
            Bitboard::from_file(our_king.file()) | ADJACENT_FILES[our_king.file() as usize];
        let king_rank = Bitboard::from_rank(our_king.rank());
        let two_ahead = match color {
            Color::White => king_rank.shift(8) | king_rank.shift(16),
            Color::Black => king_rank.shift(-8) | king_rank.shift(-16),
        };
        sink.add(
            weights::KING_SHELTER_PAWN,
            sign * (our_pawns & king_files & two_ahead).count() as i32,
        );
        let open = [-1, 0, 1]
            .into_iter()
            .filter_map(|offset| our_king.file().offset(offset))
            .filter(|&file| (our_pawns & Bitboard::from_file(file)).is_empty())
            .count() as i32;
        sink.add(weights::KING_OPEN_FILE, sign * open);

        // Pieces.
        if (board.bishops() & us).more_than_one() {
            sink.add(weights::BISHOP_PAIR, sign);
        }
        for square in board.rooks() & us {
            let file_mask = Bitboard::from_file(square.file());
            if (our_pawns & file_mask).is_empty() {
                if (their_pawns & file_mask).is_empty() {
                    sink.add(weights::ROOK_OPEN_FILE, sign);
                } else {
                    sink.add(weights::ROOK_SEMI_OPEN_FILE, sign);
                }
            }
        }
        let threatened = our_pawn_attacks & them & !pawns & !board.kings();
        sink.add(weights::THREAT_BY_PAWN, sign * threatened.count() as i32);
        for square in board.knights() & us {
            let relative_rank = color.relative_rank(square.rank()) as u32;
            if (3..=5).contains(&relative_rank)
                && our_pawn_attacks.contains(square)
                && (their_pawns
                    & ADJACENT_FILES[square.file() as usize]
                    & ranks_ahead(color, square.rank()))
                .is_empty()
            {
                sink.add(weights::KNIGHT_OUTPOST, sign);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use shakmaty::Position as _;

    fn trace(fen: &str) -> [i32; COUNT] {
        let mut trace = Trace::default();
        add_terms(parse_fen(fen).unwrap().board(), &mut trace);
        trace.0
    }

    #[test]
    fn masks() {
        assert_eq!(ADJACENT_FILES[0], Bitboard::from_file(File::B));
        assert_eq!(
            ranks_ahead(Color::White, Rank::Seventh),
            Bitboard::from_rank(Rank::Eighth)
        );
        assert_eq!(
            ranks_ahead(Color::Black, Rank::Second),
            Bitboard::from_rank(Rank::First)
        );
        assert!(ranks_ahead(Color::White, Rank::Eighth).is_empty());
        assert!(ranks_ahead(Color::Black, Rank::First).is_empty());
        assert_eq!(
            pawn_attacks(Color::White, Bitboard::from_square(Square::A2)),
            Bitboard::from_square(Square::B3)
        );
        assert_eq!(
            pawn_attacks(Color::Black, Bitboard::from_square(Square::H7)),
            Bitboard::from_square(Square::G6)
        );
    }

    #[test]
    fn start_position_features_cancel() {
        let start = trace(crate::position::START_FEN);
        assert!(start.iter().all(|&count| count == 0), "{start:?}");
    }

    #[test]
    fn pawn_features() {
        // White: doubled and isolated a-pawns, a passed d-pawn on the sixth; Black: an h-pawn.
        let counts = trace("4k3/8/3P4/8/8/P7/P7/4K2n w - - 0 1");
        assert_eq!(counts[weights::DOUBLED_PAWN], 1);
        assert_eq!(counts[weights::ISOLATED_PAWN], 3);
        assert_eq!(counts[weights::PASSED_PAWN + 5], 1);
        assert_eq!(
            counts[weights::PASSED_PAWN + 2],
            1,
            "the front a-pawn is passed"
        );
        assert_eq!(
            counts[weights::PASSED_PAWN + 1],
            0,
            "the rear a-pawn is not"
        );
        // Stop square d7: own king 6 away, theirs 1; rank bonus 5 - 2 = 3.
        assert_eq!(counts[weights::PASSED_PAWN_OWN_KING], 6 * 3);
        assert_eq!(counts[weights::PASSED_PAWN_THEIR_KING], 3);
    }

    #[test]
    fn piece_features() {
        // White's rook behind its e-pawn, Black's two bishops, a White knight outpost on d5
        // defended by e4, and a Black knight on f6 attacked by the g5-pawn.
        let counts = trace("1b2k1b1/p7/5n2/3N2P1/4P3/8/8/4RK2 w - - 0 1");
        assert_eq!(
            counts[weights::ROOK_OPEN_FILE],
            0,
            "e4 stands on the e-file"
        );
        assert_eq!(counts[weights::ROOK_SEMI_OPEN_FILE], 0);
        assert_eq!(counts[weights::BISHOP_PAIR], -1);
        assert_eq!(counts[weights::KNIGHT_OUTPOST], 1);
        assert_eq!(counts[weights::THREAT_BY_PAWN], 1);
        let counts = trace("4k3/p7/8/8/8/8/8/R3K3 w - - 0 1");
        assert_eq!(
            counts[weights::ROOK_SEMI_OPEN_FILE],
            1,
            "a7 is Black's: semi-open"
        );
        let counts = trace("4k3/p7/8/8/8/8/8/1R2K3 w - - 0 1");
        assert_eq!(counts[weights::ROOK_OPEN_FILE], 1);
    }

    #[test]
    fn king_features() {
        // White castled short behind f2, g2, h3; Black's king on e8 without pawns.
        let counts = trace("4k3/8/8/8/8/7P/5PP1/6K1 w - - 0 1");
        assert_eq!(counts[weights::KING_SHELTER_PAWN], 3);
        assert_eq!(
            counts[weights::KING_OPEN_FILE],
            -3,
            "d, e and f files open for Black"
        );
        // A White queen on e2 looking at the Black king's zone (d8..f7) along the e-file: e7, e8.
        let counts = trace("4k3/8/8/8/8/8/4Q3/4K3 b - - 0 1");
        assert_eq!(counts[weights::KING_ZONE_ATTACK + 3], 2);
    }
}
