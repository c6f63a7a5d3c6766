//! ProbCut (the main search's Step 12b): at a non-PV node deep enough, a capture that wins
//! enough material is searched with a window well above beta; if it stays above, a full-depth
//! search would beat beta as well, and the node is cut off.

use arrayvec::ArrayVec;
use shakmaty::{Move, Position as _};

use super::context::Context;
use super::ordering::{PieceTo, is_quiet, mvv_lva};
use super::params::probcut_reduction;
use super::see::see;
use crate::score::Score;
use crate::transposition::{Bound, PackedMove};

impl Context<'_> {
    /// ProbCut's search (Step 12b): the captures and promotions of `moves` whose static exchange
    /// gains at least `probcut_beta` less the static evaluation, best first by MVV-LVA, each
    /// searched with the null window at `probcut_beta`, by the quiescence search and then
    /// [`PROBCUT_REDUCTION`](super::params::PROBCUT_REDUCTION) plies shallower than `depth`. The first that stays at or above it
    /// is stored as a lower bound and its score returned.
    pub(super) fn probcut(
        &mut self,
        depth: i32,
        cut_node: bool,
        probcut_beta: Score,
        eval: Score,
        moves: &shakmaty::MoveList,
        key: u64,
    ) -> Option<Score> {
        let ply = self.position.ply();
        let side = self.position.board().turn();
        let threshold = probcut_beta.value() - eval.value();
        let mut candidates: ArrayVec<(i32, Move), 256> = moves
            .iter()
            .filter(|m| !is_quiet(**m) && see(self.position.board().board(), **m) >= threshold)
            .map(|&m| (mvv_lva(m), m))
            .collect();
        candidates.sort_unstable_by_key(|&(score, _)| std::cmp::Reverse(score));
        for (_, m) in candidates {
            self.frames[ply].moved = Some(PieceTo::new(side, m));
            self.position.push(m);
            let mut score = -self.quiescence(-probcut_beta, -probcut_beta + 1);
            if score >= probcut_beta && !self.stopped {
                score = -self.negamax(
                    depth - probcut_reduction(),
                    -probcut_beta,
                    -probcut_beta + 1,
                    !cut_node,
                );
            }
            self.position.pop();
            if self.stopped {
                return Some(Score::DRAW);
            }
            if score >= probcut_beta {
                if self.switches.transposition_table {
                    self.table.store(
                        key,
                        PackedMove::new(m),
                        score.to_tt(ply),
                        depth - probcut_reduction() + 1,
                        Bound::Lower,
                        None,
                    );
                }
                return Some(score);
            }
        }
        None
    }
}
