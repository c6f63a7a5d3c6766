//! Perft: counts the leaf nodes of the legal move tree, through the same make-move path the search
//! uses, so a wrong count means a bug the search would have too.

use shakmaty::Position as _;

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

/// Perft of a FEN; depth 0 to [`MAX_DEPTH`].
pub fn perft_fen(fen: &str, depth: i64) -> Result<u64, Error> {
    if !(0..=MAX_DEPTH as i64).contains(&depth) {
        return Err(Error::argument(
            "depth",
            depth,
            format!("must be between 0 and {MAX_DEPTH}"),
        ));
    }
    let mut position = Position::from_fen(fen)?;
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
}
