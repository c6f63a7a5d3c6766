//! Perft: counts the leaf nodes of the legal move tree, through the same make-move path the search
//! uses, so a wrong count means a bug the search would have too.

use shakmaty::{CastlingMode, Move, Position as _};

use crate::error::Error;
use crate::limits::MAX_DEPTH;
use crate::position::Position;

/// Leaf nodes `depth` plies below the current position (1 at depth 0). Bulk-counts the last ply.
pub fn perft(position: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = position.board().legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut total = 0;
    for m in moves {
        position.push(m);
        total += perft(position, depth - 1);
        position.pop();
    }
    total
}

/// Perft divided by root move, in the order of the legal moves: each move with the leaf nodes
/// `depth - 1` plies below it (`depth` at least 1), as UCI's `go perft` prints them.
pub fn divide(position: &mut Position, depth: u32) -> Vec<(Move, u64)> {
    let depth = depth.max(1);
    let mut counts = Vec::new();
    for m in position.board().legal_moves() {
        position.push(m);
        counts.push((m, perft(position, depth - 1)));
        position.pop();
    }
    counts
}

/// Perft of a FEN of standard chess; depth 0 to [`MAX_DEPTH`].
pub fn perft_fen(fen: &str, depth: i64) -> Result<u64, Error> {
    perft_fen_in(fen, depth, CastlingMode::Standard)
}

/// [`perft_fen`] of a FEN read in castling `mode` (standard chess or Chess960).
pub fn perft_fen_in(fen: &str, depth: i64, mode: CastlingMode) -> Result<u64, Error> {
    if !(0..=MAX_DEPTH as i64).contains(&depth) {
        return Err(Error::argument(
            "depth",
            depth,
            format!("must be between 0 and {MAX_DEPTH}"),
        ));
    }
    let mut position = Position::from_fen_in(fen, mode)?;
    Ok(perft(&mut position, depth as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::START_FEN;

    #[test]
    fn start_position() {
        let expected = [1, 20, 400, 8902, 197_281];
        for (depth, nodes) in expected.into_iter().enumerate() {
            assert_eq!(perft_fen(START_FEN, depth as i64).unwrap(), nodes);
        }
        assert!(perft_fen(START_FEN, -1).is_err());
    }

    #[test]
    fn divide_sums_to_perft() {
        let mut position = Position::from_fen(START_FEN).unwrap();
        let counts = divide(&mut position, 3);
        assert_eq!(counts.len(), 20);
        let e4 = position.parse_uci("e2e4").unwrap();
        assert!(counts.contains(&(e4, 600)));
        assert_eq!(counts.iter().map(|&(_, nodes)| nodes).sum::<u64>(), 8902);
    }
}
