//! The principal variation: a triangular table of the best line found below each ply.

use shakmaty::Move;

use crate::score::MAX_PLY;

/// `lines[ply]` holds the best line from the node at `ply`, filled as the search backs up.
pub struct PvTable {
    lines: Vec<Vec<Move>>,
}

impl Default for PvTable {
    fn default() -> Self {
        PvTable {
            lines: (0..=MAX_PLY).map(|_| Vec::with_capacity(MAX_PLY)).collect(),
        }
    }
}

impl PvTable {
    /// Forgets the line at `ply` (on entering a node).
    #[inline]
    pub fn clear(&mut self, ply: usize) {
        self.lines[ply].clear();
    }

    /// `best` became the best move at `ply`: its line is `best` followed by the child's line.
    #[inline]
    pub fn update(&mut self, ply: usize, best: Move) {
        let (head, tail) = self.lines.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(best);
        line.extend_from_slice(&tail[0]);
    }

    /// Puts `line` back as the best line at `ply` (kept aside while other moves were searched).
    pub fn set(&mut self, ply: usize, line: &[Move]) {
        self.lines[ply].clear();
        self.lines[ply].extend_from_slice(line);
    }

    /// The best line from `ply`.
    pub fn line(&self, ply: usize) -> &[Move] {
        &self.lines[ply]
    }
}
