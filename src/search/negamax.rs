//! The main search: negamax with alpha-beta, a transposition table, a check extension and
//! singular extensions.
//!
//! The Elo written beside a step is what removing it cost in self-play: the engine against itself
//! without the step, 150 to 200 games at 2 s + 0.02 s per game, with its 95% interval
//! (docs/benchmarks-history.md, "Search and evaluation steps"). The steps marked "issue 19's
//! bundle" came together, with the network as the evaluation: the continuation and correction
//! histories, the improving rule, the table's score as an estimate, static exchange pruning,
//! history in the late move reductions and the quiescence search's use of the table. Together they
//! gained +96 Elo (95% +72..+122) over the search without them, 300 games at 5 s + 0.05 s
//! (docs/benchmarks-history.md, "Search steps with the network"). Singular extensions (step 14e,
//! "issue 19's second bundle"), with the evaluation shrunk as the 50-move rule nears
//! (`Context::evaluate`), gained +20 (95% -5..+44) in 300 games at 5 s + 0.05 s
//! (docs/benchmarks-history.md, "The second round"). ProbCut (Step 12b), the null move's larger
//! reduction far above beta and a ply more of late move reduction when not improving ("issue 19's
//! third bundle") gained +17 (95% -3..+36) in 400 games at 5 s + 0.05 s
//! (docs/benchmarks-history.md, "The third round"). The capture history, the cut nodes' larger
//! late move reductions (and after a capture as the table's move) and history pruning ("issue
//! 37's bundle") gained +30 (95% +3..+57) in 200 games at 5 s + 0.05 s
//! (docs/benchmarks-history.md, "Issue 37").

use arrayvec::ArrayVec;
use shakmaty::{Chess, Move, Position as _, Role};

use super::context::Context;
use super::ordering::{PieceTo, is_quiet, pick_next, score_moves};
use super::params::{
    CAPTURES_REMEMBERED, QUIETS_REMEMBERED, futility_margin_cp, futility_max_depth, history_bonus,
    history_pruning_margin, history_pruning_max_depth, iir_min_depth, late_move_reduction,
    lmp_base_moves, lmp_max_depth, lmr_cut_node, lmr_history_divisor, lmr_min_depth, lmr_min_moves,
    null_move_base_reduction, null_move_depth_divisor, null_move_eval_divisor_cp,
    null_move_eval_max_reduction, null_move_min_depth, probcut_margin_cp, probcut_min_depth,
    probcut_reduction, reverse_futility_margin_cp, reverse_futility_max_depth,
    see_capture_margin_cp, see_pruning_max_depth, see_quiet_margin_cp,
    singular_margin_cp_per_depth, singular_min_depth, singular_tt_depth_margin,
};
use super::see::see;
use crate::score::{MAX_PLY, Score};
use crate::transposition::{Bound, PackedMove};

impl Context<'_> {
    /// The value of the current position searched `depth` plies deep (plus extensions), within the
    /// window `alpha..beta`, from the side to move's point of view (fail-soft). A `cut_node` is a
    /// null-window node expected to fail high (a reduced late move, or every other node below
    /// one): its late moves are reduced more.
    pub(super) fn negamax(
        &mut self,
        mut depth: i32,
        mut alpha: Score,
        mut beta: Score,
        cut_node: bool,
    ) -> Score {
        self.debug_check_node(alpha, beta);
        let ply = self.position.ply();
        self.pv.clear(ply);

        // Step 1. Count the node, look at the clock and the stop flag now and then.
        self.nodes += 1;
        if self.should_stop() {
            return Score::DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }

        // Step 2. Draws that need no move generation: repetition and insufficient material.
        if self.position.is_repetition() || self.position.is_insufficient_material() {
            return Score::DRAW;
        }

        // A singular extension's search of this node's other moves (Step 14e): the steps that
        // stand for the whole position (the table's result, tablebases, pruning by the static
        // evaluation, storing) are left out.
        let excluded = self.frames[ply].excluded;

        // Step 2b. A repetition is in reach: the side to move holds at least a draw, whatever the
        // transposition table (blind to the game's history) says about the moves below.
        if self.switches.alpha_beta
            && ply > 0
            && excluded.is_none()
            && alpha < Score::DRAW
            && self.position.has_upcoming_repetition()
        {
            alpha = Score::DRAW;
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 3. Mate distance pruning: no line from here beats a mate already found closer to the
        // root.
        if self.switches.alpha_beta {
            alpha = alpha.max(Score::mated_in(ply));
            beta = beta.min(Score::mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 4. Check extension: a side in check is searched one ply deeper, so a check at the
        // horizon is never mistaken for a quiet position.
        let in_check = self.position.board().is_check();
        if in_check {
            depth += 1;
        }

        // Step 5. At the horizon, resolve captures with the quiescence search.
        if depth <= 0 {
            if !self.switches.quiescence {
                return self.evaluate();
            }
            return self.quiescence(alpha, beta);
        }

        // Step 6. Transposition table: a deep enough stored result with a fitting bound ends the
        // node.
        let key = self.position.key();
        let entry = if self.switches.transposition_table && excluded.is_none() {
            self.table.probe(key)
        } else {
            None
        };
        let tt_move = entry.map_or(PackedMove::NONE, |e| e.best_move);
        if let Some(entry) = entry {
            self.stats.tt_hits += 1;
            if entry.depth >= depth {
                let score = entry.score.from_tt(ply);
                if entry.bound.settles(score, alpha, beta) {
                    return score;
                }
            }
        }

        // Step 6b. Internal iterative reduction: a node the table knows no move for is likely
        // new to the search and poorly ordered: search it a ply shallower. (With late move
        // pruning, Step 14a: +68 Elo, 95% +33..+105.)
        let selective = self.switches.selective();
        if selective && depth >= iir_min_depth() && tt_move.is_none() && excluded.is_none() {
            depth -= 1;
        }

        // Step 7. Generate moves; none is checkmate or stalemate. Stalemate is a draw, never a
        // loss.
        let mut moves = self.position.board().legal_moves();
        if moves.is_empty() {
            return if in_check {
                Score::mated_in(ply)
            } else {
                Score::DRAW
            };
        }

        // Step 8. Endgame tablebases, right after a capture or pawn move (where WDL is exact under
        // the 50-move rule): a win or loss scores in its band below the mates, cursed wins and
        // blessed losses next to a draw (`tablebase.rs`).
        if excluded.is_none()
            && let Some(score) = self.probe_tablebase(ply)
        {
            if self.switches.transposition_table {
                self.table.store(
                    key,
                    PackedMove::NONE,
                    score.to_tt(ply),
                    depth,
                    Bound::Exact,
                    None,
                );
            }
            return score;
        }

        // Step 9. The 50-move rule, once checkmate on the last move has been ruled out.
        if self.position.is_fifty_move_limit() {
            return Score::DRAW;
        }

        // Step 10. The static evaluation, for the pruning steps below (not in check, where every
        // evasion must be searched, and only with the selective search switched on), corrected
        // by what searches found it missed in this pawn structure (correction history). The
        // position is improving when that beats the evaluation two plies before. A table
        // score whose bound lies beyond it is a better estimate still. (Issue 19's bundle.)
        let alpha_beta = self.switches.alpha_beta;
        let pv_node = beta.value() - alpha.value() > 1;
        // The table remembers the evaluation of a position searched before (undamped: the clock
        // is not in the key), which spares computing it again.
        let static_value = if in_check || !selective {
            None
        } else {
            Some(self.static_value(entry.and_then(|entry| entry.eval)))
        };
        let raw_eval = static_value.map(|value| self.damped(value));
        let corrected_eval = raw_eval.map(|raw| self.corrected(raw));
        self.frames[ply].eval = corrected_eval;
        let improving = corrected_eval.is_some_and(|eval| {
            ply >= 2
                && self.frames[ply - 2]
                    .eval
                    .is_some_and(|before| eval > before)
        });
        let static_eval = corrected_eval.map(|eval| match entry {
            Some(entry) => {
                let score = entry.score.from_tt(ply);
                let beyond = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score > eval,
                    Bound::Upper => score < eval,
                };
                if beyond && !score.is_mate() && !score.is_tablebase() {
                    score
                } else {
                    eval
                }
            }
            None => eval,
        });

        // Step 11. Reverse futility pruning: far enough above beta at a shallow non-PV node, the
        // side to move keeps its advantage whatever it plays; a ply less margin when improving.
        // (+56 Elo, 95% +17..+97; the improving rule in issue 19's bundle.)
        if let Some(eval) = static_eval
            && !pv_node
            && excluded.is_none()
            && depth <= reverse_futility_max_depth()
            && !beta.is_mate()
            && !beta.is_tablebase()
            && eval.value() - reverse_futility_margin_cp() * (depth - i32::from(improving))
                >= beta.value()
        {
            return eval;
        }

        // Step 12. Null-move pruning: if passing the move still fails high on a shallower search,
        // a real move will too. Not twice in a row, and not with only pawns left (zugzwang).
        // (+49 Elo, 95% +13..+86.) The further the evaluation stands above beta, the shallower
        // (issue 19's third bundle).
        if let Some(eval) = static_eval
            && !pv_node
            && ply > 0
            && excluded.is_none()
            && depth >= null_move_min_depth()
            && eval >= beta
            && !self.position.is_after_null()
            && has_pieces(self.position.board())
        {
            let reduction = null_move_base_reduction()
                + depth / null_move_depth_divisor()
                + ((eval.value() - beta.value()) / null_move_eval_divisor_cp())
                    .min(null_move_eval_max_reduction());
            self.frames[ply].moved = None;
            self.position.push_null();
            let score = -self.negamax(depth - 1 - reduction, -beta, -beta + 1, false);
            self.position.pop();
            if self.stopped {
                return Score::DRAW;
            }
            if score >= beta {
                // A mate found after passing is not proven: report beta instead.
                return if score.is_mate() || score.is_tablebase() {
                    beta
                } else {
                    score
                };
            }
        }

        // Step 12b. ProbCut: a capture that wins enough material (static exchange) is searched
        // with a window well above beta, first by the quiescence search, then a few plies
        // shallower; if it stays above, a full-depth search would beat beta as well
        // (`probcut.rs`; issue 19's third bundle).
        if let Some(eval) = static_eval
            && !pv_node
            && ply > 0
            && excluded.is_none()
            && depth >= probcut_min_depth()
            && !beta.is_mate()
            && !beta.is_tablebase()
        {
            let probcut_beta = Score::centipawns(beta.value() + probcut_margin_cp());
            let table_disagrees = entry.is_some_and(|entry| {
                entry.depth > depth - probcut_reduction() && entry.score.from_tt(ply) < probcut_beta
            });
            if !table_disagrees
                && let Some(score) = self.probcut(depth, cut_node, probcut_beta, eval, &moves, key)
            {
                return score;
            }
        }

        // Step 13. Order: TT move, captures not losing material by MVV-LVA, killers, history
        // (butterfly and continuation), losing captures. (Static exchange evaluation here and in
        // the quiescence search: +16 Elo, 95% -11..+43, over 300 games.)
        let side = self.position.board().turn();
        let killers = self.killers.get(ply);
        let previous = self.previous_moves(ply);
        let mut scores = score_moves(
            self.position.board().board(),
            &moves,
            tt_move,
            killers,
            self.history,
            side,
            &previous,
        );

        // Step 14e's candidate: the table's move, when its entry is deep enough and says the
        // node is worth at least its score.
        let singular_candidate = entry.filter(|entry| {
            selective
                && ply > 0
                && excluded.is_none()
                && depth >= singular_min_depth()
                && entry.depth >= depth - singular_tt_depth_margin()
                && entry.bound != Bound::Upper
                && !entry.score.from_tt(ply).is_mate()
                && !entry.score.from_tt(ply).is_tablebase()
                && ply < 2 * self.root_depth.max(1) as usize
        });

        // Step 14. Search each move; a move that reaches beta cuts the node off.
        let original_alpha = alpha;
        let mut best_score = -Score::INFINITE;
        let mut best_move = None;
        let mut quiets_tried: ArrayVec<Move, QUIETS_REMEMBERED> = ArrayVec::new();
        let mut captures_tried: ArrayVec<Move, CAPTURES_REMEMBERED> = ArrayVec::new();
        // The table's move is a capture: the quiet moves after it are likely worse, and reduced
        // more (known once it is searched, first when the moves are ordered).
        let mut tt_capture = false;
        let mut searched = 0usize;
        for index in 0..moves.len() {
            if self.switches.move_ordering {
                pick_next(&mut moves, &mut scores, index);
            }
            let m = moves[index];
            if excluded == Some(m) {
                continue;
            }
            let quiet = is_quiet(m);
            if !quiet && !tt_move.is_none() && PackedMove::new(m) == tt_move {
                tt_capture = true;
            }
            // A quiet move's history (butterfly and continuation), for the pruning and the
            // reductions below.
            let quiet_history = if quiet {
                self.history.quiet_score(side, m, &previous)
            } else {
                0
            };
            // Step 14a. Late move pruning: at a shallow non-PV node, once enough quiet moves
            // have failed, the later ones (ordered last by history) are skipped, half as many
            // when not improving. (With internal iterative reduction, Step 6b: +68 Elo, 95%
            // +33..+105; the improving rule in issue 19's bundle.)
            if static_eval.is_some()
                && !pv_node
                && quiet
                && depth <= lmp_max_depth()
                && quiets_tried.len()
                    >= (lmp_base_moves() + depth * depth) as usize / (2 - usize::from(improving))
                && !best_score.is_mate()
            {
                continue;
            }
            // Step 14a'. History pruning: at a shallow non-PV node, a quiet move after the first
            // whose history is bad enough for the depth is skipped (issue 37's bundle).
            if static_eval.is_some()
                && !pv_node
                && quiet
                && searched > 0
                && depth <= history_pruning_max_depth()
                && !best_score.is_mate()
                && !killers.contains(&Some(m))
                && quiet_history < -history_pruning_margin() * depth
            {
                continue;
            }
            // Step 14b. Static exchange pruning: at a shallow non-PV node, a move after the
            // first that loses too much material on its square is skipped. (Issue 19's bundle.)
            if static_eval.is_some()
                && !pv_node
                && searched > 0
                && depth <= see_pruning_max_depth()
                && !best_score.is_mate()
                && !matches!(m, Move::Castle { .. })
            {
                let threshold = if quiet {
                    -see_quiet_margin_cp() * depth * depth
                } else {
                    -see_capture_margin_cp() * depth
                };
                if see(self.position.board().board(), m) < threshold {
                    continue;
                }
            }
            // Step 14e. Singular extension: when every other move, searched to half the depth,
            // stays clearly below the table's score, the table's move is the only good one and
            // is searched a ply deeper. When they reach beta anyway, several moves refute the
            // line and the node is cut off (multi-cut); when the table's score alone reaches
            // beta, its move is searched a ply shallower. (Issue 19's second bundle.)
            let mut extension = 0;
            if let Some(entry) = singular_candidate
                && PackedMove::new(m) == tt_move
            {
                let tt_score = entry.score.from_tt(ply);
                let singular_beta =
                    Score::centipawns(tt_score.value() - singular_margin_cp_per_depth() * depth);
                self.frames[ply].excluded = Some(m);
                let score =
                    self.negamax((depth - 1) / 2, singular_beta - 1, singular_beta, cut_node);
                self.frames[ply].excluded = None;
                self.pv.clear(ply);
                if self.stopped {
                    return Score::DRAW;
                }
                if score < singular_beta {
                    extension = 1;
                } else if singular_beta >= beta {
                    return singular_beta;
                } else if tt_score >= beta {
                    extension = -1;
                }
            }
            self.frames[ply].moved = Some(PieceTo::new(side, m));
            self.position.push(m);
            let gives_check = self.position.board().is_check();
            // Step 14c. Futility pruning: at the frontier, a quiet move that gives no check and
            // cannot lift the evaluation to alpha is skipped. (+21 Elo, 95% -20..+62.)
            if let Some(eval) = static_eval
                && !pv_node
                && quiet
                && !gives_check
                && searched > 0
                && depth <= futility_max_depth()
                && !best_score.is_mate()
                && eval.value() + futility_margin_cp() * depth <= alpha.value()
            {
                self.position.pop();
                continue;
            }
            // Step 14d. The first move with the full window; the others with a null window first
            // (principal variation search, +168 Elo, 95% +130..+211), late quiet moves also
            // shallower (late move reductions, +63 Elo, 95% +26..+102), each searched again, deeper
            // and then with the full window, when it beats alpha.
            let new_depth = depth - 1 + extension;
            let score = if searched == 0 || !alpha_beta {
                let (child_alpha, child_beta) = self.child_window(alpha, beta);
                -self.negamax(new_depth, child_alpha, child_beta, !pv_node && !cut_node)
            } else {
                let reduction = if selective
                    && depth >= lmr_min_depth()
                    && searched >= lmr_min_moves() as usize
                    && quiet
                    && !in_check
                    && !gives_check
                {
                    let mut r = late_move_reduction(depth, searched);
                    if pv_node || killers.contains(&Some(m)) {
                        r -= 1;
                    }
                    // A position that is not improving is reduced a ply more (issue 19's third
                    // bundle).
                    if !improving {
                        r += 1;
                    }
                    // At a node expected to fail high, or whose table move is a capture, the
                    // quiet moves are reduced more (issue 37's bundle).
                    if cut_node {
                        r += lmr_cut_node();
                    }
                    if tt_capture {
                        r += 1;
                    }
                    // A move with a good history is reduced less, a bad one more (issue 19's
                    // bundle).
                    r -= quiet_history / lmr_history_divisor();
                    r.clamp(0, new_depth - 1)
                } else {
                    0
                };
                let mut score = -self.negamax(
                    new_depth - reduction,
                    -alpha - 1,
                    -alpha,
                    reduction > 0 || !cut_node,
                );
                if score > alpha && reduction > 0 && !self.stopped {
                    score = -self.negamax(new_depth, -alpha - 1, -alpha, !cut_node);
                }
                if score > alpha && score < beta && !self.stopped {
                    score = -self.negamax(new_depth, -beta, -alpha, false);
                }
                score
            };
            self.position.pop();
            if self.stopped {
                return Score::DRAW;
            }
            searched += 1;
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = Some(m);
                    alpha = score;
                    self.pv.update(ply, m);
                    if score >= beta && alpha_beta {
                        self.stats.cutoffs += 1;
                        // Step 15. Remember the refutation: a quiet move gets the killer and a
                        // history bonus, and the quiet moves that did not cut a malus; a capture
                        // gets a capture history bonus. Either way the captures tried before it
                        // get a capture history malus (issue 37's bundle).
                        let bonus = history_bonus(depth);
                        if quiet {
                            self.killers.add(ply, m);
                            self.history.update(side, m, &previous, bonus);
                            for &tried in &quiets_tried {
                                self.history.update(side, tried, &previous, -bonus);
                            }
                        } else {
                            self.history.update_capture(side, m, bonus);
                        }
                        for &tried in &captures_tried {
                            self.history.update_capture(side, tried, -bonus);
                        }
                        break;
                    }
                }
            }
            // Past QUIETS_REMEMBERED quiet moves (CAPTURES_REMEMBERED captures) the malus stops.
            if quiet {
                let _ = quiets_tried.try_push(m);
            } else {
                let _ = captures_tried.try_push(m);
            }
        }
        // Under a singular extension's search, no move left means the other moves are no better
        // than the window's bottom.
        if excluded.is_some() && best_score == -Score::INFINITE {
            return alpha;
        }
        // Step 16. Store the result with its bound.
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if self.switches.transposition_table && excluded.is_none() {
            let packed = best_move.map_or(PackedMove::NONE, PackedMove::new);
            self.table.store(
                key,
                packed,
                best_score.to_tt(ply),
                depth,
                bound,
                static_value,
            );
        }
        // Step 17. Correction history: when a quiet (or no) best move shows where the static
        // evaluation stood, learn how far it missed in this pawn structure. (Issue 19's bundle.)
        if let (Some(raw), Some(eval)) = (raw_eval, corrected_eval)
            && excluded.is_none()
            && best_move.is_none_or(is_quiet)
            && !best_score.is_mate()
            && !best_score.is_tablebase()
            && !(bound == Bound::Lower && best_score <= eval)
            && !(bound == Bound::Upper && best_score >= eval)
        {
            let board = self.position.board();
            self.history.update_correction(
                board.board(),
                side,
                depth,
                raw.value(),
                best_score.value(),
            );
        }
        best_score
    }
}

/// Whether the side to move has a piece besides its king and pawns (else a null move could be
/// the only way out of a zugzwang).
fn has_pieces(board: &Chess) -> bool {
    let ours = board.board().by_color(board.turn());
    let pawns_and_king = board.board().by_role(Role::Pawn) | board.board().by_role(Role::King);
    (ours & !pawns_and_king).any()
}
