//! The accumulators: for each perspective, the hidden layer before its activation, updated as
//! moves are made instead of recomputed.
//!
//! [`Accumulators`] is a stack beside the search's [`Position`], one entry per ply from the
//! root. An entry remembers the key of the position it was computed for; evaluating a position
//! walks back to the nearest ply whose entry still matches its position (usually the parent) and
//! brings the entries forward from there, adding and subtracting the weight rows of the pieces
//! that the move between them changed ([`Delta::of_move`]); a perspective whose king changed its bucket or
//! its mirroring (a king layout other than plain, see [`super::features`]) is computed again
//! from scratch instead. Moves the search tried and took back leave
//! stale entries above the current ply; their keys no longer match, so they are never used. In
//! debug builds (`cargo test`) every evaluation is checked against a refresh from scratch.

use shakmaty::{Board, Color, Piece, Position as _, Square};

use super::features::{self, Delta, KingLayout, View};
use super::network::Network;
use super::simd;
use crate::position::Position;
use crate::score::MAX_PLY;

/// One accumulator stack: `MAX_PLY + 1` entries of two perspectives of `hidden` values each.
pub struct Accumulators {
    hidden: usize,
    /// Entry `ply`, perspective `color`: `values[(2 * ply + color) * hidden..][..hidden]`.
    values: Vec<i16>,
    /// The key of the position each entry holds, `None` for an entry never computed.
    keys: Vec<Option<u64>>,
}

impl Accumulators {
    /// An empty stack for `network`.
    pub fn new(network: &Network) -> Accumulators {
        let hidden = network.architecture().hidden;
        Accumulators {
            hidden,
            values: vec![0; (MAX_PLY + 1) * 2 * hidden],
            keys: vec![None; MAX_PLY + 1],
        }
    }

    /// The evaluation of `position`'s current position for the side to move, in centipawns.
    pub fn evaluate(&mut self, network: &Network, position: &Position) -> i32 {
        let ply = position.ply();
        let board = position.board();
        if ply > MAX_PLY {
            // Never in a search (its stacks end at MAX_PLY); kept correct all the same.
            let mut scratch = Accumulators::new(network);
            scratch.refresh(network, 0, board.board(), position.key());
            return scratch.output(network, 0, board);
        }
        self.update(network, position);
        let value = self.output(network, ply, board);
        #[cfg(debug_assertions)]
        {
            let mut fresh = Accumulators::new(network);
            fresh.refresh(network, 0, board.board(), position.key());
            debug_assert_eq!(
                self.entry(ply, Color::White),
                fresh.entry(0, Color::White),
                "incremental accumulator diverged at ply {ply}: {}",
                position.fen()
            );
            debug_assert_eq!(self.entry(ply, Color::Black), fresh.entry(0, Color::Black));
        }
        value
    }

    /// Brings the entry of the current ply up to date from the nearest matching one below it.
    fn update(&mut self, network: &Network, position: &Position) {
        let ply = position.ply();
        let mut base = ply;
        while self.keys[base] != Some(position.key_at(base)) {
            if base == 0 {
                self.refresh(network, 0, position.board_at(0).board(), position.key_at(0));
                break;
            }
            base -= 1;
        }
        for next in base + 1..=ply {
            let before = position.board_at(next - 1);
            let after = position.board_at(next).board();
            let delta = if position.is_null_at(next) {
                Some(Delta::NONE)
            } else {
                position
                    .moved_at(next)
                    .and_then(|m| Delta::of_move(before.turn(), m))
            };
            match delta {
                Some(delta) => self.apply(network, next, &delta, after),
                None => self.refresh(network, next, after, 0),
            }
            self.keys[next] = Some(position.key_at(next));
        }
    }

    /// Entry `ply` computed from scratch for `board`.
    fn refresh(&mut self, network: &Network, ply: usize, board: &Board, key: u64) {
        for color in Color::ALL {
            self.refresh_perspective(network, ply, board, color);
        }
        self.keys[ply] = Some(key);
    }

    /// Perspective `color` of entry `ply` computed from scratch for `board`.
    fn refresh_perspective(&mut self, network: &Network, ply: usize, board: &Board, color: Color) {
        let hidden = self.hidden;
        let start = (2 * ply + color as usize) * hidden;
        let entry = &mut self.values[start..start + hidden];
        let rows: arrayvec::ArrayVec<&[i16], 64> =
            features::active(board, network.architecture().king, color)
                .map(|input| &network.feature_weights[input * hidden..(input + 1) * hidden])
                .collect();
        simd::update(network.isa(), entry, &network.feature_bias, &rows, &[]);
    }

    /// Entry `ply` from entry `ply - 1` and what the move between them changed, `delta`; the
    /// board after it is `after`.
    #[inline]
    fn apply(&mut self, network: &Network, ply: usize, delta: &Delta, after: &Board) {
        let hidden = self.hidden;
        let king = network.architecture().king;
        for color in Color::ALL {
            // Only a king's move can change its side's view (its mirroring or its bucket).
            let view = View::of(king, color, after);
            if king != KingLayout::Plain
                && let Some(from) = delta.king_from(color)
                && View::new(king, color, from) != view
            {
                self.refresh_perspective(network, ply, after, color);
                continue;
            }
            let (below, above) = self.values.split_at_mut(2 * ply * hidden);
            let offset = color as usize * hidden;
            let parent = &below[2 * (ply - 1) * hidden + offset..][..hidden];
            let entry = &mut above[offset..offset + hidden];
            let row = |&(piece, square): &(Piece, Square)| {
                let input = view.index(piece, square);
                &network.feature_weights[input * hidden..(input + 1) * hidden]
            };
            let mut added: [&[i16]; 2] = [&[], &[]];
            for (slot, piece) in added.iter_mut().zip(delta.added()) {
                *slot = row(piece);
            }
            let mut removed: [&[i16]; 2] = [&[], &[]];
            for (slot, piece) in removed.iter_mut().zip(delta.removed()) {
                *slot = row(piece);
            }
            // One pass: entry = parent + rows added - rows removed.
            simd::update(
                network.isa(),
                entry,
                parent,
                &added[..delta.added().len()],
                &removed[..delta.removed().len()],
            );
        }
    }

    pub(super) fn entry(&self, ply: usize, color: Color) -> &[i16] {
        let start = (2 * ply + color as usize) * self.hidden;
        &self.values[start..start + self.hidden]
    }

    fn output(&self, network: &Network, ply: usize, board: &shakmaty::Chess) -> i32 {
        let turn = board.turn();
        let bucket = network.bucket(board.board().occupied().count());
        network.output(self.entry(ply, turn), self.entry(ply, !turn), bucket)
    }
}
