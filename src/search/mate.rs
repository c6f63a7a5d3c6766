//! Mate proofs: a full-width AND/OR search, beside the selective one, for the short mates that
//! pruning can hide. The selective steps trade exactness for depth (a sacrifice that mates can look
//! lost to a pruned reply, a quiet mating check can be reduced or pruned as a late move), so on
//! its own a search of depth `2N - 1` can miss a mate in `N` moves (which step hid which mate of
//! the suite was not traced). The proof
//! tries every move of the mating side and every reply of the other, so a mate in `N` moves,
//! `N` up to [`MATE_PROOF_MAX_PLIES`]` / 2 + 1`, is found by the iteration of depth `2N - 1`
//! whatever the switches (with the selective steps off the search finds it itself, and no proof
//! runs).
//!
//! It is cheap because a position without a short mate is refuted at once: one reply of the
//! defender that escapes ends a node, and on its last move the mating side tries only checks.
//! Measured against the engine without it: +19 Elo (95% -7..+44, 300 games at 5 s + 0.05 s,
//! docs/benchmarks-history.md, "Mate proofs"), so the promise costs no measurable strength.

use shakmaty::{Chess, Move, MoveList, Position as _};

use super::context::Context;
use super::params::MATE_PROOF_MAX_PLIES;
use super::report::Line;
use super::see::role_value;
use crate::score::Score;

/// The root moves proven to mate so far in one search, with the plies proofs have covered.
#[derive(Default)]
pub(super) struct MateProofs {
    /// Each proven root move's shortest mate (score and line), in the order found.
    pub(super) lines: Vec<Line>,
    /// Mates up to this many plies have been looked for.
    plies_done: i32,
}

impl MateProofs {
    /// `lines` (one per root move, best first) with every proven mate put in place of a weaker
    /// line for the same move, or added, best first again and at most `wanted` long.
    pub(super) fn merge_into(&self, lines: &mut Vec<Line>, wanted: usize) {
        for proven in &self.lines {
            match lines.iter_mut().find(|line| line.pv[0] == proven.pv[0]) {
                Some(line) if line.score < proven.score => *line = proven.clone(),
                Some(_) => {}
                None => lines.push(proven.clone()),
            }
        }
        lines.sort_by_key(|line| std::cmp::Reverse(line.score));
        lines.truncate(wanted);
    }
}

impl Context<'_> {
    /// Looks for mates of the root side within `depth` plies (odd depths up to
    /// [`MATE_PROOF_MAX_PLIES`]; other depths add nothing), trying the shorter ones first, among
    /// `root_moves` not yet proven, until `wanted` root moves are proven. Stopping keeps what was
    /// proven before.
    pub(super) fn prove_mates(
        &mut self,
        proofs: &mut MateProofs,
        depth: u32,
        root_moves: &[Move],
        wanted: usize,
    ) {
        let depth = depth as i32;
        // Without the selective steps the search is exact to its depth and finds these mates
        // itself; the textbook searches (minimax, plain alpha-beta) stay what they are.
        if depth % 2 == 0 || depth > MATE_PROOF_MAX_PLIES || !self.switches.selective() {
            return;
        }
        while proofs.plies_done < depth && proofs.lines.len() < wanted {
            let plies = proofs.plies_done + 1 + proofs.plies_done % 2;
            for &m in root_moves {
                if proofs.lines.len() >= wanted {
                    break;
                }
                if proofs.lines.iter().any(|line| line.pv[0] == m) {
                    continue;
                }
                self.pv.clear(0);
                self.position.push(m);
                let mated = self.is_mated_within(plies - 1);
                self.position.pop();
                if self.stopped {
                    return;
                }
                if mated {
                    self.pv.update(0, m);
                    let pv = self.pv.line(0).to_vec();
                    debug_assert_eq!(pv.len(), plies as usize, "a mate line's length: {pv:?}");
                    proofs.lines.push(Line {
                        score: Score::mate_in(plies as usize),
                        pv,
                    });
                }
            }
            proofs.plies_done = plies;
        }
    }

    /// Whether the side to move mates within `plies` (odd) plies, whatever the replies. Its
    /// mating line, when it does, is left in the PV table at this ply.
    fn mates_within(&mut self, plies: i32) -> bool {
        let ply = self.position.ply();
        self.pv.clear(ply);
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.should_stop() || self.is_draw_before_moves() || self.position.is_fifty_move_limit()
        {
            return false;
        }
        let board = self.position.board();
        let mut moves = board.legal_moves();
        // On the last move only a check can mate; before it, checks and captures first.
        if plies == 1 {
            moves.retain(|m| gives_check(board, *m));
        } else {
            order_attacks(board, &mut moves);
        }
        for m in moves {
            self.position.push(m);
            let mated = self.is_mated_within(plies - 1);
            self.position.pop();
            if self.stopped {
                return false;
            }
            if mated {
                self.pv.update(ply, m);
                return true;
            }
        }
        false
    }

    /// Whether the side to move is checkmated now or within `plies` (even) plies whatever it
    /// plays. Its longest defence, when it is, is left in the PV table at this ply.
    fn is_mated_within(&mut self, plies: i32) -> bool {
        let ply = self.position.ply();
        self.pv.clear(ply);
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.should_stop() {
            return false;
        }
        let board = self.position.board();
        let mut moves = board.legal_moves();
        if moves.is_empty() {
            return board.is_check();
        }
        if plies == 0 || self.is_draw_before_moves() || self.position.is_fifty_move_limit() {
            return false;
        }
        // Captures first: they escape most often. The longest defence becomes the line shown:
        // each reply's shortest mate is found.
        moves.sort_by_key(|m| -m.capture().map_or(0, role_value));
        let mut longest: Option<(i32, Vec<Move>)> = None;
        for m in moves {
            self.position.push(m);
            let mut mate_after = None;
            for reply_plies in (1..plies).step_by(2) {
                if self.mates_within(reply_plies) {
                    mate_after = Some(reply_plies);
                    break;
                }
                if self.stopped {
                    break;
                }
            }
            self.position.pop();
            let Some(reply_plies) = mate_after else {
                // This reply escapes (or the search stopped): no proof here.
                return false;
            };
            if longest
                .as_ref()
                .is_none_or(|(plies, _)| reply_plies > *plies)
            {
                self.pv.update(ply, m);
                longest = Some((reply_plies, self.pv.line(ply).to_vec()));
            }
        }
        if let Some((_, line)) = longest {
            self.pv.set(ply, &line);
        }
        true
    }

    /// Draws the proof must respect before a move is played: a repetition (as the search judges
    /// one) and material that cannot mate.
    fn is_draw_before_moves(&self) -> bool {
        self.position.is_repetition() || self.position.is_insufficient_material()
    }
}

/// Checks first, then captures of the most valuable pieces, then the rest (stable). Each move's
/// key is computed once: whether it gives check costs a copy of the board.
fn order_attacks(board: &Chess, moves: &mut MoveList) {
    moves.sort_by_cached_key(|m| {
        let check = gives_check(board, *m);
        let capture = m.capture().map_or(0, role_value);
        (!check, -capture)
    });
}

/// Whether `m` gives check.
fn gives_check(board: &Chess, m: Move) -> bool {
    let mut after = board.clone();
    after.play_unchecked(m);
    after.is_check()
}
