//! The network's inputs: one for each (piece, square), 768 in all, seen from each side.
//!
//! From a side's *perspective* the board is turned so that side plays up the board (Black's
//! squares are flipped vertically) and its own pieces come first: the input of a piece is
//! `side * 384 + role * 64 + square`, `side` 0 for the perspective's own pieces and 1 for the
//! opponent's, `role` 0 (pawn) to 5 (king). This is the "Chess768" layout of bullet and most
//! engines' first networks.

use shakmaty::{Board, Color, Piece, Square};

/// Inputs per perspective: 2 sides x 6 roles x 64 squares.
pub const INPUTS: usize = 768;

/// The input of `piece` on `square` seen from `perspective`.
#[inline]
pub fn index(perspective: Color, piece: Piece, square: Square) -> usize {
    let (side, square) = match perspective {
        Color::White => (usize::from(piece.color == Color::Black), square),
        Color::Black => (
            usize::from(piece.color == Color::White),
            square.flip_vertical(),
        ),
    };
    side * 384 + (piece.role as usize - 1) * 64 + square as usize
}

/// The active inputs of `board` from `perspective` (at most 32), in no particular order.
pub fn active(board: &Board, perspective: Color) -> impl Iterator<Item = usize> + '_ {
    board
        .iter()
        .map(move |(square, piece)| index(perspective, piece, square))
}

/// What changed on the board between two positions: inputs switched on and off, each given as
/// (piece, square). A move changes at most 4 (castling, a capture with promotion).
#[derive(Default, Debug, Clone)]
pub struct Delta {
    pub added: arrayvec::ArrayVec<(Piece, Square), 4>,
    pub removed: arrayvec::ArrayVec<(Piece, Square), 4>,
}

impl Delta {
    /// The pieces that differ between `before` and `after`, or `None` when more than four
    /// squares changed on either side (then the caller refreshes from scratch).
    pub fn between(before: &Board, after: &Board) -> Option<Delta> {
        let mut delta = Delta::default();
        for color in Color::ALL {
            for role in shakmaty::Role::ALL {
                let piece = Piece { color, role };
                let was = before.by_piece(piece);
                let is = after.by_piece(piece);
                for square in was & !is {
                    delta.removed.try_push((piece, square)).ok()?;
                }
                for square in is & !was {
                    delta.added.try_push((piece, square)).ok()?;
                }
            }
        }
        Some(delta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

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
}
