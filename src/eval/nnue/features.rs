//! The network's inputs: one for each (piece, square), 768 in all, seen from each side, and
//! optionally one such set per *king bucket*.
//!
//! From a side's *perspective* the board is turned so that side plays up the board (Black's
//! squares are flipped vertically) and its own pieces come first: the input of a piece is
//! `side * 384 + role * 64 + square`, `side` 0 for the perspective's own pieces and 1 for the
//! opponent's, `role` 0 (pawn) to 5 (king). This is the "Chess768" layout of bullet and most
//! engines' first networks ([`KingLayout::Plain`]).
//!
//! A [`KingLayout`] other than `Plain` makes the inputs depend on where the perspective's own king
//! stands, as most engines' later networks do: with the king on the e to h files the board is
//! also mirrored left to right (so the king is always on the a to d files and a kingside castled
//! king looks like a queenside one), and the king's square picks one of a few *buckets*, each
//! with its own 768 inputs. A king move that changes the mirroring or the bucket changes every
//! input of that perspective, so its accumulator is computed again from scratch
//! ([`super::Accumulators`]).

use shakmaty::{Board, CastlingSide, Color, Move, Piece, Role, Square};

/// Inputs per perspective and king bucket: 2 sides x 6 roles x 64 squares.
pub const INPUTS: usize = 768;

/// How the perspective's own king shapes the inputs: the number written in a network file's
/// header (see [`super::network`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KingLayout {
    /// The 768 inputs whatever the king's square (file format 1's only layout).
    Plain = 0,
    /// Mirrored left to right with the king on the e to h files; one bucket.
    Mirrored = 1,
    /// Mirrored, and four buckets by the king's (mirrored) square: on the first rank the a and b
    /// files, the c and d files; the second rank; the third to eighth ranks.
    Mirrored4 = 2,
}

/// [`KingLayout::Mirrored4`]'s bucket of a king on the a to d files, by `rank * 4 + file`.
const MIRRORED_4_BUCKETS: [u8; 32] = [
    0, 0, 1, 1, //
    2, 2, 2, 2, //
    3, 3, 3, 3, //
    3, 3, 3, 3, //
    3, 3, 3, 3, //
    3, 3, 3, 3, //
    3, 3, 3, 3, //
    3, 3, 3, 3, //
];

impl KingLayout {
    /// Every layout, in the order of their numbers.
    pub const ALL: [KingLayout; 3] = [
        KingLayout::Plain,
        KingLayout::Mirrored,
        KingLayout::Mirrored4,
    ];

    /// The layout a file's header names, if any.
    pub fn from_number(number: u32) -> Option<KingLayout> {
        KingLayout::ALL
            .into_iter()
            .find(|layout| *layout as u32 == number)
    }

    /// The layout's name, as the trainer's `--king-layout` takes it.
    pub fn name(self) -> &'static str {
        match self {
            KingLayout::Plain => "plain",
            KingLayout::Mirrored => "mirrored",
            KingLayout::Mirrored4 => "mirrored4",
        }
    }

    /// The layout called `name` (see [`KingLayout::name`]).
    pub fn from_name(name: &str) -> Option<KingLayout> {
        KingLayout::ALL
            .into_iter()
            .find(|layout| layout.name() == name)
    }

    /// King buckets, each with [`INPUTS`] inputs.
    pub fn buckets(self) -> usize {
        match self {
            KingLayout::Plain | KingLayout::Mirrored => 1,
            KingLayout::Mirrored4 => 4,
        }
    }

    /// Inputs per perspective: [`INPUTS`] per king bucket.
    pub fn inputs(self) -> usize {
        INPUTS * self.buckets()
    }
}

/// How one perspective numbers the inputs, given where its king stands: a square transform
/// and the first input of the king's bucket.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct View {
    perspective: Color,
    /// XOR-ed into a square: 56 flips it vertically (Black's view), 7 mirrors it left to right.
    flip: u8,
    /// The bucket's first input, `bucket * INPUTS`.
    offset: u16,
}

impl View {
    /// The view of `perspective` whose own king stands on `king` (any square for `Plain`).
    #[inline]
    pub fn new(layout: KingLayout, perspective: Color, king: Square) -> View {
        let vertical = if perspective == Color::White { 0 } else { 56 };
        if layout == KingLayout::Plain {
            return View {
                perspective,
                flip: vertical,
                offset: 0,
            };
        }
        let seen = king as u8 ^ vertical;
        let mirror = if seen & 7 >= 4 { 7 } else { 0 };
        let seen = seen ^ mirror;
        let bucket = match layout {
            KingLayout::Mirrored4 => MIRRORED_4_BUCKETS[usize::from((seen >> 3) * 4 + (seen & 7))],
            _ => 0,
        };
        View {
            perspective,
            flip: vertical ^ mirror,
            offset: u16::from(bucket) * INPUTS as u16,
        }
    }

    /// The view of `perspective` on `board` (whose king of that colour is looked up; a board
    /// without one, which no legal position is, counts it on a1).
    #[inline]
    pub fn of(layout: KingLayout, perspective: Color, board: &Board) -> View {
        let king = board.king_of(perspective).unwrap_or(Square::A1);
        View::new(layout, perspective, king)
    }

    /// The input of `piece` on `square` in this view.
    #[inline]
    pub fn index(&self, piece: Piece, square: Square) -> usize {
        let side = usize::from(piece.color != self.perspective);
        usize::from(self.offset)
            + side * 384
            + (piece.role as usize - 1) * 64
            + usize::from(square as u8 ^ self.flip)
    }
}

/// The active inputs of `board` from `perspective` in `layout` (at most 32), in no particular
/// order.
pub fn active(
    board: &Board,
    layout: KingLayout,
    perspective: Color,
) -> impl Iterator<Item = usize> + '_ {
    let view = View::of(layout, perspective, board);
    board
        .iter()
        .map(move |(square, piece)| view.index(piece, square))
}

/// What a move changes on the board: inputs switched on and off, each given as (piece,
/// square). A move switches at most two on (castling) and two off (castling, a capture).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Delta {
    pieces: [(Piece, Square); 4],
    /// `pieces[..added]` are switched on...
    added: u8,
    /// ...and `pieces[2..2 + removed]` off.
    removed: u8,
}

impl Delta {
    /// Nothing changed (a null move).
    pub const NONE: Delta = Delta {
        pieces: [(
            Piece {
                color: Color::White,
                role: shakmaty::Role::Pawn,
            },
            Square::A1,
        ); 4],
        added: 0,
        removed: 0,
    };

    fn on(&mut self, piece: Piece, square: Square) {
        self.pieces[usize::from(self.added)] = (piece, square);
        self.added += 1;
    }

    fn off(&mut self, piece: Piece, square: Square) {
        self.pieces[2 + usize::from(self.removed)] = (piece, square);
        self.removed += 1;
    }

    /// What `mover` playing `m` changes, or `None` for a move that adds a piece from outside
    /// the board (`Move::Put`, never in chess; the caller computes from scratch).
    #[inline]
    pub fn of_move(mover: Color, m: Move) -> Option<Delta> {
        let ours = |role| Piece { color: mover, role };
        let theirs = |role| Piece {
            color: !mover,
            role,
        };
        let mut delta = Delta::NONE;
        match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => {
                delta.off(ours(role), from);
                delta.on(ours(promotion.unwrap_or(role)), to);
                if let Some(captured) = capture {
                    delta.off(theirs(captured), to);
                }
            }
            Move::EnPassant { from, to } => {
                delta.off(ours(Role::Pawn), from);
                delta.on(ours(Role::Pawn), to);
                delta.off(
                    theirs(Role::Pawn),
                    Square::from_coords(to.file(), from.rank()),
                );
            }
            Move::Castle { king, rook } => {
                let side = if rook < king {
                    CastlingSide::QueenSide
                } else {
                    CastlingSide::KingSide
                };
                // In Chess960 a piece may end where one started: its row is added and
                // subtracted, which leaves the sum as it should be.
                delta.off(ours(Role::King), king);
                delta.off(ours(Role::Rook), rook);
                delta.on(ours(Role::King), side.king_to(mover));
                delta.on(ours(Role::Rook), side.rook_to(mover));
            }
            Move::Put { .. } => return None,
        }
        Some(delta)
    }

    /// The pieces switched on.
    #[inline]
    pub fn added(&self) -> &[(Piece, Square)] {
        &self.pieces[..usize::from(self.added)]
    }

    /// The pieces switched off.
    #[inline]
    pub fn removed(&self) -> &[(Piece, Square)] {
        &self.pieces[2..2 + usize::from(self.removed)]
    }

    /// The square the king of `color` left, if this move moved it (its view may have changed).
    #[inline]
    pub fn king_from(&self, color: Color) -> Option<Square> {
        self.removed()
            .iter()
            .find(|(piece, _)| piece.role == Role::King && piece.color == color)
            .map(|&(_, square)| square)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The input of `piece` on `square` seen from `perspective` in the plain layout.
    fn index(perspective: Color, piece: Piece, square: Square) -> usize {
        View::new(KingLayout::Plain, perspective, Square::A1).index(piece, square)
    }

    #[test]
    fn each_side_sees_its_own_pieces_first_from_its_own_side_of_the_board() {
        let white_king = Piece {
            color: Color::White,
            role: Role::King,
        };
        let black_king = Piece {
            color: Color::Black,
            role: Role::King,
        };
        // The white king on e1 seen by White is the black king on e8 seen by Black.
        assert_eq!(
            index(Color::White, white_king, Square::E1),
            index(Color::Black, black_king, Square::E8)
        );
        assert_eq!(index(Color::White, white_king, Square::E1), 5 * 64 + 4);
        assert_eq!(
            index(Color::Black, white_king, Square::E1),
            384 + 5 * 64 + 60
        );
        let last = Piece {
            color: Color::White,
            role: Role::King,
        };
        assert_eq!(index(Color::Black, last, Square::H1), INPUTS - 1);
    }

    fn piece(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    #[test]
    fn a_mirrored_layout_sees_a_king_on_the_e_to_h_files_as_on_the_a_to_d_files() {
        let board = |fen: &str| {
            use shakmaty::Position as _;
            crate::position::parse_fen(fen).unwrap().board().clone()
        };
        // The same position mirrored left to right: the same inputs in a mirrored layout.
        let kingside = board("6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1");
        let queenside = board("1k6/ppp5/8/8/8/8/PPP5/1K6 w - - 0 1");
        for layout in [KingLayout::Mirrored, KingLayout::Mirrored4] {
            for color in Color::ALL {
                let mut a: Vec<usize> = active(&kingside, layout, color).collect();
                let mut b: Vec<usize> = active(&queenside, layout, color).collect();
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b, "{layout:?} {color:?}");
            }
            // Not in the plain layout.
            let a: Vec<usize> = active(&kingside, KingLayout::Plain, Color::White).collect();
            let b: Vec<usize> = active(&queenside, KingLayout::Plain, Color::White).collect();
            assert_ne!(a, b);
        }
        // Each side sees its king on the first rank: for Black too the board is flipped.
        let white = View::new(KingLayout::Mirrored, Color::White, Square::G1);
        let black = View::new(KingLayout::Mirrored, Color::Black, Square::G8);
        assert_eq!(
            white.index(piece(Color::White, Role::King), Square::G1),
            black.index(piece(Color::Black, Role::King), Square::G8)
        );
        assert_eq!(
            white.index(piece(Color::White, Role::King), Square::G1),
            5 * 64 + 1
        );
    }

    /// The net change of every (piece, square) between two boards: +1 on, -1 off.
    fn board_difference(before: &Board, after: &Board) -> Vec<(Piece, Square, i32)> {
        let mut changes = Vec::new();
        for square in Square::ALL {
            let (was, is) = (before.piece_at(square), after.piece_at(square));
            if was != is {
                changes.extend(was.map(|piece| (piece, square, -1)));
                changes.extend(is.map(|piece| (piece, square, 1)));
            }
        }
        changes.sort_by_key(|&(piece, square, sign)| {
            (square as u8, piece.color as u8, piece.role as u8, sign)
        });
        changes
    }

    /// [`Delta`]'s pieces, what cancels out removed, in [`board_difference`]'s order.
    fn net(delta: &Delta) -> Vec<(Piece, Square, i32)> {
        let mut changes: Vec<(Piece, Square, i32)> = Vec::new();
        let signed = delta.added().iter().map(|&(p, s)| (p, s, 1));
        for (piece, square, sign) in signed.chain(delta.removed().iter().map(|&(p, s)| (p, s, -1)))
        {
            match changes
                .iter()
                .position(|&(p, s, _)| p == piece && s == square)
            {
                Some(i) if changes[i].2 == -sign => {
                    changes.remove(i);
                }
                _ => changes.push((piece, square, sign)),
            }
        }
        changes.sort_by_key(|&(piece, square, sign)| {
            (square as u8, piece.color as u8, piece.role as u8, sign)
        });
        changes
    }

    #[test]
    fn a_moves_delta_is_what_changes_on_the_board() {
        use shakmaty::fen::Fen;
        use shakmaty::{CastlingMode, Chess, Position as _};
        let positions = [
            // Castling both ways for both sides, en passant, promotions with and without a capture.
            (
                "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
                CastlingMode::Standard,
            ),
            ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", CastlingMode::Standard),
            ("4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 2", CastlingMode::Standard),
            (
                "1n2k3/P7/8/8/8/8/1p6/R3K3 w Q - 0 1",
                CastlingMode::Standard,
            ),
            (
                "1n2k3/P7/8/8/8/8/1p6/R3K3 b Q - 0 1",
                CastlingMode::Standard,
            ),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                CastlingMode::Standard,
            ),
            // Chess960: the king castles onto the rook's square, or stays where it is.
            (
                "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1",
                CastlingMode::Chess960,
            ),
            ("rk5r/8/8/8/8/8/8/RK5R w AHah - 0 1", CastlingMode::Chess960),
            (
                "2r1k2r/8/8/8/8/8/8/2R1K2R w CHch - 0 1",
                CastlingMode::Chess960,
            ),
        ];
        let mut castles = 0;
        for (fen, mode) in positions {
            let board: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(mode)
                .unwrap_or_else(|error| panic!("{fen}: {error}"));
            for m in board.legal_moves() {
                castles += usize::from(m.is_castle());
                let mut after = board.clone();
                after.play_unchecked(m);
                let delta = Delta::of_move(board.turn(), m).expect("a chess move");
                assert_eq!(
                    net(&delta),
                    board_difference(board.board(), after.board()),
                    "{fen}: {m}"
                );
                for color in Color::ALL {
                    if delta.king_from(color).is_none() {
                        assert_eq!(
                            board.board().king_of(color),
                            after.board().king_of(color),
                            "{fen}: {m}"
                        );
                    }
                }
            }
        }
        assert!(castles >= 8, "only {castles} castling moves checked");
    }

    #[test]
    fn mirrored4_buckets_follow_the_kings_rank_and_file() {
        let bucket =
            |color, king| View::new(KingLayout::Mirrored4, color, king).offset as usize / INPUTS;
        assert_eq!(bucket(Color::White, Square::A1), 0);
        assert_eq!(bucket(Color::White, Square::H1), 0);
        assert_eq!(bucket(Color::White, Square::C1), 1);
        assert_eq!(bucket(Color::White, Square::E1), 1);
        assert_eq!(bucket(Color::White, Square::E2), 2);
        assert_eq!(bucket(Color::White, Square::E3), 3);
        assert_eq!(bucket(Color::Black, Square::G8), 0);
        assert_eq!(bucket(Color::Black, Square::D8), 1);
        assert_eq!(bucket(Color::Black, Square::D7), 2);
        assert_eq!(bucket(Color::Black, Square::D1), 3);
        // Every input of every view is below the layout's count.
        for layout in KingLayout::ALL {
            for color in Color::ALL {
                for king in Square::ALL {
                    let view = View::new(layout, color, king);
                    for square in Square::ALL {
                        for role in Role::ALL {
                            for side in Color::ALL {
                                assert!(view.index(piece(side, role), square) < layout.inputs());
                            }
                        }
                    }
                }
            }
            assert_eq!(KingLayout::from_number(layout as u32), Some(layout));
            assert_eq!(KingLayout::from_name(layout.name()), Some(layout));
        }
    }
}
