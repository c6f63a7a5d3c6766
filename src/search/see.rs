//! Static exchange evaluation: what a capture wins or loses once both sides have recaptured on its
//! square with their least valuable pieces for as long as it pays, ignoring pins and checks.

use shakmaty::{Bitboard, Board, Color, Move, Role};

use super::params::ORDERING_VALUE_CP;

/// Value of a role for exchanges and for move ordering, in centipawns.
#[inline]
pub fn role_value(role: Role) -> i32 {
    ORDERING_VALUE_CP[role as usize - 1]
}

/// The material `m` (a move of the side to move on `board`) gains for its side, in centipawns
/// ([`role_value`] units), after the best sequence of recaptures on its target square.
pub fn see(board: &Board, m: Move) -> i32 {
    let Some(from) = m.from() else {
        return 0;
    };
    let to = m.to();
    let Some(mut side) = board.color_at(from) else {
        return 0;
    };
    let mut occupied = board.occupied() ^ Bitboard::from_square(from);
    if let Move::EnPassant { to, .. } = m {
        // The captured pawn stands beside the target square, behind it from the mover's side.
        let behind = match side {
            Color::White => to.offset(-8),
            Color::Black => to.offset(8),
        };
        if let Some(square) = behind {
            occupied ^= Bitboard::from_square(square);
        }
    }
    // gains[d]: what the side making capture d has gained if the exchange stopped after it.
    let mut gains = [0i32; 32];
    let promotion_gain = m
        .promotion()
        .map_or(0, |role| role_value(role) - role_value(Role::Pawn));
    gains[0] = m.capture().map_or(0, role_value) + promotion_gain;
    // The piece now standing on the target square, which the next capture takes.
    let mut on_square = m.promotion().unwrap_or(m.role());
    let mut depth = 0;
    loop {
        side = !side;
        let attackers = board.attacks_to(to, side, occupied) & occupied;
        let Some((square, role)) = least_valuable(board, attackers) else {
            break;
        };
        if depth + 1 >= gains.len() {
            break;
        }
        depth += 1;
        gains[depth] = role_value(on_square) - gains[depth - 1];
        // Neither side can do better by going on: stop counting.
        if (-gains[depth - 1]).max(gains[depth]) < 0 {
            break;
        }
        if role == Role::King
            && (board.attacks_to(to, !side, occupied ^ Bitboard::from_square(square)) & occupied)
                .any()
        {
            // The king may not capture into a defended square.
            depth -= 1;
            break;
        }
        on_square = role;
        occupied ^= Bitboard::from_square(square);
    }
    while depth > 0 {
        gains[depth - 1] = -(-gains[depth - 1]).max(gains[depth]);
        depth -= 1;
    }
    gains[0]
}

/// The least valuable piece among `attackers` (a set of one side's pieces), with its role.
fn least_valuable(board: &Board, attackers: Bitboard) -> Option<(shakmaty::Square, Role)> {
    Role::ALL.into_iter().find_map(|role| {
        (attackers & board.by_role(role))
            .first()
            .map(|square| (square, role))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::parse_fen;
    use shakmaty::{Position as _, Square};

    fn see_of(fen: &str, from: Square, to: Square) -> i32 {
        let board = parse_fen(fen).unwrap();
        let m = board
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == Some(from) && m.to() == to && m.promotion() != Some(Role::Knight))
            .unwrap();
        see(board.board(), m)
    }

    #[test]
    fn exchanges() {
        // An undefended pawn: a pawn won.
        assert_eq!(
            see_of("4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1", Square::D1, Square::D5),
            100
        );
        // A pawn defended by a pawn, taken by a rook: a rook for a pawn.
        assert_eq!(
            see_of("4k3/8/4p3/3p4/8/8/8/3RK3 w - - 0 1", Square::D1, Square::D5),
            -400
        );
        // Pawn takes a defended knight: a knight for a pawn.
        assert_eq!(
            see_of(
                "4k3/4p3/3n4/4P3/8/8/8/4K3 w - - 0 1",
                Square::E5,
                Square::D6
            ),
            220
        );
        // Rook takes a pawn defended by a rook, backed by a second rook behind it (x-ray):
        // R x p, r x R, R x r: pawn + rook - rook = a pawn.
        assert_eq!(
            see_of(
                "3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1",
                Square::D2,
                Square::D5
            ),
            100
        );
        // A quiet move to an attacked square loses the piece.
        assert_eq!(
            see_of("4k3/8/4p3/8/8/8/8/3RK3 w - - 0 1", Square::D1, Square::D5),
            -500
        );
        // The king may not recapture on a defended square: Q x d7 wins the rook... the queen
        // is defended by the bishop, so Kxd7 is not possible.
        assert_eq!(
            see_of("4k3/3r4/8/1B6/8/8/8/3QK3 w - - 0 1", Square::D1, Square::D7),
            500
        );
    }
}
