//! Lazy SMP: helper threads search the same root as the main thread, each with its own position
//! and history, sharing only the transposition table, until the main thread is done. The move
//! played is then chosen among every thread's last completed iteration by a vote weighted by
//! depth and score ([`choose_thread`]), as Stockfish chooses, so that a helper's deeper or
//! better result can be played (what that is worth in games is not yet measured apart).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use shakmaty::{Color, Move, Position as _};

use super::Searcher;
use super::context::{Context, Scope, Shared};
use super::deepening::is_legal_line;
use super::ordering::History;
use super::params::{ASPIRATION_MIN_DEPTH, THREAD_VOTE_OFFSET_CP};
use super::report::{Line, SearchInfo, SearchObserver, Silent};
use crate::error::Error;
use crate::eval::classic;
use crate::limits::{MAX_DEPTH, SearchLimits, StopFlag, TimeManager};
use crate::position::Position;
use crate::score::Score;

/// Raises its flag when dropped.
struct RaiseOnDrop<'a>(&'a StopFlag);

impl Drop for RaiseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

impl Searcher {
    /// Searches `position` (its current position becomes the root) within `limits`, `multipv`
    /// lines, never trying a root move in `excluded` (excluding every legal move is an error:
    /// there would be nothing to play), on [`Searcher::threads`] threads, reporting to
    /// `observer`, which can also end the search. `stop` may be raised by another thread; the
    /// caller resets it before the search (a flag raised earlier ends this search at once).
    pub(super) fn search_lines(
        &mut self,
        position: &mut Position,
        limits: &SearchLimits,
        multipv: usize,
        excluded: &[Move],
        stop: &StopFlag,
        observer: &mut dyn SearchObserver,
    ) -> Result<SearchInfo, Error> {
        let legal = position.board().legal_moves();
        let root_moves: Vec<Move> = legal
            .iter()
            .filter(|m| !excluded.contains(m))
            .copied()
            .collect();
        if root_moves.is_empty() && !legal.is_empty() {
            let shown: Vec<String> = excluded.iter().map(|m| position.move_to_uci(*m)).collect();
            return Err(Error::argument(
                "exclude_moves",
                shown.join(" "),
                format!("excludes every legal move of '{}'", position.fen()),
            ));
        }
        position.set_root();
        self.table.new_search();
        let root_restricted = root_moves.len() < legal.len();
        let helpers = if root_moves.len() > 1 {
            self.threads - 1
        } else {
            0
        };
        let shared = Shared {
            completed: Mutex::new(vec![None; helpers]),
            ..Shared::default()
        };
        let helper_states: Vec<(Position, History)> = (0..helpers)
            .map(|_| (position.clone(), self.history.clone()))
            .collect();
        let scope = Scope {
            table: &self.table,
            stop,
            shared: &shared,
            tablebase: self.tablebase.as_deref(),
            switches: self.switches,
            network: self.evaluation.network(),
            classic: self
                .evaluation
                .classic_weights()
                .unwrap_or(&classic::DEFAULT_WEIGHTS),
            root_restricted,
            max_nodes: limits.nodes,
        };
        let history = &mut self.history;
        let mut info = std::thread::scope(|threads| {
            for (index, (mut position, mut history)) in helper_states.into_iter().enumerate() {
                let root_moves = root_moves.clone();
                let max_depth = limits.depth.unwrap_or(MAX_DEPTH);
                threads.spawn(move || {
                    let mut observer = Silent;
                    let untimed = TimeManager::new(&SearchLimits::default(), Color::White);
                    let mut context =
                        Context::new(scope, &mut position, &mut history, untimed, &mut observer);
                    context.helper = true;
                    context.help(root_moves, max_depth, index + 1);
                });
            }
            let time = TimeManager::new(limits, position.board().turn());
            let mut context = Context::new(scope, position, history, time, observer);
            // The helpers stop when the main thread is done, even if it unwinds from a panic
            // (the scope waits for them before passing the panic on).
            let _finish = RaiseOnDrop(&shared.finished);
            context.iterate(root_moves, limits, multipv)
        });
        // A search to a fixed depth (or for a mate) answers with the main thread's iteration of
        // that depth, and several lines are all the main thread's.
        if multipv == 1 && limits.depth.is_none() && limits.mate.is_none() {
            let completed = shared
                .completed
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner);
            let helpers: Vec<&(u32, u32, Line)> = completed.iter().flatten().collect();
            let mut threads = vec![(info.depth, info.lines.first())];
            threads.extend(helpers.iter().map(|(depth, _, line)| (*depth, Some(line))));
            let chosen = choose_thread(&threads);
            if chosen > 0 {
                let (depth, seldepth, line) = helpers[chosen - 1];
                info.depth = *depth;
                info.seldepth = *seldepth;
                info.lines = vec![line.clone()];
            }
        }
        Ok(info)
    }
}

/// Which thread's result to play, given each thread's last completed iteration (its depth and
/// best line; the main thread first, `None` when it completed none): Stockfish's vote. Each
/// thread's value is `(score - lowest score + offset) x depth` ([`THREAD_VOTE_OFFSET_CP`]), and
/// each move gets the values of the threads that chose it; the thread whose move has the most
/// wins. On a tie (threads agreeing on the move, say), the thread of the higher value wins if its
/// line is longer than two moves, else the earlier thread (the main thread first) stays. A mate
/// or a tablebase win is never given up for a better-voted move, among decisive scores the best
/// score wins (the shortest win, the longest defence), and a move a thread sees losing by force
/// is never chosen by votes.
pub(super) fn choose_thread(threads: &[(u32, Option<&Line>)]) -> usize {
    let decisive = |score: Score| score.is_mate() || score.is_tablebase();
    let lowest = threads
        .iter()
        .filter_map(|(_, line)| line.map(|line| i64::from(line.score.value())))
        .min()
        .unwrap_or(0);
    let value = |depth: u32, line: &Line| {
        let weight = i64::from(line.score.value()) - lowest + i64::from(THREAD_VOTE_OFFSET_CP);
        weight * i64::from(depth)
    };
    let mut votes: HashMap<Move, i64> = HashMap::new();
    for &(depth, line) in threads {
        if let Some(line) = line {
            *votes.entry(line.pv[0]).or_default() += value(depth, line);
        }
    }
    // A thread's value for the tie-break, counted only for a line longer than two moves.
    let tie_value = |depth: u32, line: &Line| value(depth, line) * i64::from(line.pv.len() > 2);
    let mut best: Option<(usize, u32, &Line)> = None;
    for (index, &(depth, line)) in threads.iter().enumerate() {
        let Some(line) = line else { continue };
        let better = match best {
            None => true,
            Some((_, _, chosen)) if decisive(chosen.score) => line.score > chosen.score,
            Some((_, chosen_depth, chosen)) => {
                let losing = decisive(line.score) && line.score < Score::DRAW;
                let (mine, theirs) = (votes[&line.pv[0]], votes[&chosen.pv[0]]);
                (decisive(line.score) && line.score > Score::DRAW)
                    || (!losing
                        && (mine > theirs
                            || (mine == theirs
                                && tie_value(depth, line) > tie_value(chosen_depth, chosen))))
            }
        };
        if better {
            best = Some((index, depth, line));
        }
    }
    best.map_or(0, |(index, _, _)| index)
}

impl Context<'_> {
    /// A helper thread's iterative deepening: the main thread's, without reports or time limits,
    /// odd helpers starting a ply deeper, until stopped. Each completed iteration is published in
    /// [`Shared::completed`](super::context::Shared) for the vote.
    fn help(&mut self, mut root_moves: Vec<Move>, max_depth: u32, index: usize) {
        let mut previous = None;
        for depth in 1 + (index as u32 % 2)..=max_depth {
            let result = self.search_root_aspirated(depth as i32, &root_moves, &[], previous);
            if self.stopped {
                break;
            }
            if let Some((score, pv)) = result {
                previous = (depth >= ASPIRATION_MIN_DEPTH).then_some(score);
                if let Some(position) = root_moves.iter().position(|&m| m == pv[0]) {
                    root_moves[..=position].rotate_right(1);
                }
                let line = Line {
                    score,
                    pv: self.complete_line(pv, depth as usize),
                };
                debug_assert!(
                    is_legal_line(self.position.board(), &line.pv),
                    "a helper's illegal line {:?} at depth {depth}",
                    line.pv
                );
                let seldepth = self.seldepth.max(depth as usize) as u32;
                let mut completed = self
                    .shared
                    .completed
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                completed[index - 1] = Some((depth, seldepth, line));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{Chess, Position as _, uci::UciMove};

    use super::*;
    use crate::search::{Decision, SearchRequest, Searcher};

    /// A line of one move from the start position (`uci`), scored `score`.
    fn line(uci: &str, score: Score) -> Line {
        let m = uci
            .parse::<UciMove>()
            .unwrap()
            .to_move(&Chess::default())
            .unwrap();
        Line { score, pv: vec![m] }
    }

    fn cp(value: i32) -> Score {
        Score::centipawns(value)
    }

    #[test]
    fn the_vote_weighs_depth_and_score() {
        let (main, deeper_better) = (line("e2e4", cp(30)), line("d2d4", cp(45)));
        // Alone, or agreeing, the main thread's result stands (a tie goes to it).
        assert_eq!(choose_thread(&[(12, Some(&main))]), 0);
        assert_eq!(choose_thread(&[(12, Some(&main)), (12, Some(&main))]), 0);
        // A helper a ply deeper with a better score: (45 - 30 + 7) x 13 against 7 x 12.
        assert_eq!(
            choose_thread(&[(12, Some(&main)), (13, Some(&deeper_better))]),
            1
        );
        // A ply deeper but 100 cp worse: 7 x 13 against (100 + 7) x 12.
        let deeper_worse = line("d2d4", cp(-70));
        assert_eq!(
            choose_thread(&[(12, Some(&main)), (13, Some(&deeper_worse))]),
            0
        );
        // Two threads on one move outvote a third on another that scored a little better.
        let third = line("d2d4", cp(34));
        assert_eq!(
            choose_thread(&[(12, Some(&main)), (12, Some(&main)), (12, Some(&third))]),
            0
        );
        // Agreeing on the move, the deeper thread's line is reported if it is longer than two
        // moves (Stockfish's tie-break), so its depth and ponder move are the ones shown.
        let long = |m: &Line| {
            let mut pv = m.pv.clone();
            let mut after = Chess::default();
            after.play_unchecked(pv[0]);
            for uci in ["e7e5", "g1f3"] {
                let next = uci.parse::<UciMove>().unwrap().to_move(&after).unwrap();
                after.play_unchecked(next);
                pv.push(next);
            }
            Line { score: m.score, pv }
        };
        let deeper_long = long(&main);
        assert_eq!(
            choose_thread(&[(12, Some(&main)), (14, Some(&deeper_long))]),
            1
        );
        assert_eq!(
            choose_thread(&[(14, Some(&deeper_long)), (12, Some(&long(&main)))]),
            0
        );
        let deeper_short = line("e2e4", cp(30));
        assert_eq!(
            choose_thread(&[(12, Some(&main)), (14, Some(&deeper_short))]),
            0
        );
        // A main thread stopped inside its first iteration (depth 0) has no say.
        assert_eq!(
            choose_thread(&[(0, Some(&main)), (3, Some(&deeper_worse))]),
            1
        );
        assert_eq!(choose_thread(&[(0, None), (3, Some(&deeper_worse))]), 1);
        assert_eq!(choose_thread(&[(0, None)]), 0);
    }

    #[test]
    fn a_forced_win_is_kept_and_a_forced_loss_never_chosen_by_votes() {
        let mate_in_3 = line("e2e4", Score::mate_in(5));
        let mate_in_2 = line("d2d4", Score::mate_in(3));
        let deep_cp = line("g1f3", cp(900));
        // The main thread's mate is not given up for a deeper, better-voted evaluation...
        assert_eq!(
            choose_thread(&[(8, Some(&mate_in_3)), (30, Some(&deep_cp))]),
            0
        );
        // ...but for a shorter mate, and a helper's mate beats an evaluation.
        assert_eq!(
            choose_thread(&[(8, Some(&mate_in_3)), (6, Some(&mate_in_2))]),
            1
        );
        assert_eq!(
            choose_thread(&[(20, Some(&deep_cp)), (6, Some(&mate_in_2))]),
            1
        );
        let tablebase_win = line("d2d4", Score::tb_win_in(20));
        assert_eq!(
            choose_thread(&[(20, Some(&deep_cp)), (6, Some(&tablebase_win))]),
            1
        );
        // A move a helper sees mated is not chosen however deep, even over a shallow main line.
        let mated = line("d2d4", Score::mated_in(4));
        let shallow = line("e2e4", cp(-300));
        assert_eq!(choose_thread(&[(1, Some(&shallow)), (40, Some(&mated))]), 0);
        // Among losses the longest defence is played.
        let mated_later = line("g1f3", Score::mated_in(10));
        assert_eq!(
            choose_thread(&[(9, Some(&mated)), (5, Some(&mated_later))]),
            1
        );
    }

    /// Two threads under a clock: the move played and its line are legal and agree, whichever
    /// thread's result was chosen; at a fixed depth the main thread's iteration of that depth
    /// answers.
    #[test]
    fn two_threads_answer_with_a_legal_line() {
        let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 9";
        let mut searcher = Searcher::new(16).unwrap();
        searcher.set_threads(2).unwrap();
        for limits in [
            SearchLimits {
                movetime: Some(std::time::Duration::from_millis(300)),
                ..SearchLimits::default()
            },
            SearchLimits::depth(9),
        ] {
            let mut position = Position::from_fen(fen).unwrap();
            let request = SearchRequest {
                limits: limits.clone(),
                ..SearchRequest::default()
            };
            let decision = searcher
                .think(&mut position, &request, &StopFlag::new(), &mut Silent)
                .unwrap();
            let Decision::Search(info) = decision else {
                panic!("not a search: {decision:?}")
            };
            assert_eq!(info.lines.len(), 1);
            let mut board = position.board().clone();
            for &m in &info.lines[0].pv {
                assert!(board.is_legal(m), "{m:?} in {limits:?}");
                board.play_unchecked(m);
            }
            assert!(info.depth > 0 && info.seldepth >= info.depth);
            if limits.depth.is_some() {
                assert_eq!(info.depth, 9);
            }
        }
    }
}
