//! How a search is told to the GUI: an `info` line per line of each iteration ([`Reporter`]),
//! then how the move was chosen and `bestmove` ([`report_decision`]).

use std::io::Write;
use std::sync::Mutex;

use shakmaty::CastlingMode;

use crate::position::move_to_uci_in;
use crate::score::ScoreKind;
use crate::search::{Decision, Line, SearchInfo, SearchObserver};

/// Writes one line and flushes (a GUI waits for it).
pub(super) fn send<W: Write>(out: &Mutex<W>, line: &str) {
    let mut out = out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Prints the search's progress as `info` lines.
pub(super) struct Reporter<'a, W: Write> {
    pub(super) out: &'a Mutex<W>,
    /// How castling moves are written: standard chess or Chess960.
    pub(super) mode: CastlingMode,
    /// The depth and lines of the last iteration printed, so the decision does not print them
    /// again.
    pub(super) reported: Option<(u32, Vec<Line>)>,
}

impl<W: Write> SearchObserver for Reporter<'_, W> {
    fn on_iteration(&mut self, info: &SearchInfo) -> bool {
        for line in info_lines(info, self.mode) {
            send(self.out, &line);
        }
        self.reported = Some((info.depth, info.lines.clone()));
        true
    }
}

/// One `info` line per principal variation, its moves written for castling `mode`.
fn info_lines(info: &SearchInfo, mode: CastlingMode) -> Vec<String> {
    info.lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let score = uci_score(line.score);
            let pv: Vec<String> = line.pv.iter().map(|m| move_to_uci_in(*m, mode)).collect();
            format!(
                "info depth {} seldepth {} multipv {} score {} nodes {} nps {} hashfull {} tbhits {} time {} pv {}",
                info.depth,
                info.seldepth,
                index + 1,
                score,
                info.nodes,
                info.nps(),
                info.hashfull,
                info.tbhits,
                info.elapsed.as_millis(),
                pv.join(" ")
            )
        })
        .collect()
}

/// A score as UCI writes it: `cp N` or `mate N` (moves; negative when mated).
fn uci_score(score: crate::score::Score) -> String {
    match score.kind() {
        ScoreKind::Centipawns(cp) => format!("cp {cp}"),
        ScoreKind::Mate(moves) => format!("mate {moves}"),
    }
}

/// Prints how the move was chosen, then `bestmove`. A search's lines are printed only when they
/// say something the last iteration's `info` lines (`reported`: its depth and lines) did not: a
/// search stopped before its first iteration ended, a mate proven after the last one, or a level's
/// choice of another line than the best. Moves are written for castling `mode`.
pub(super) fn report_decision<W: Write>(
    out: &Mutex<W>,
    decision: &Decision,
    reported: Option<&(u32, Vec<Line>)>,
    mode: CastlingMode,
) {
    let move_to_uci = |m| move_to_uci_in(m, mode);
    let ponder = match decision {
        Decision::Book(book) => {
            let uci = move_to_uci(book.entry.chess_move);
            send(
                out,
                &format!("info string book move {uci} weight {}", book.entry.weight),
            );
            None
        }
        Decision::Tablebase(tablebase) => {
            let root = &tablebase.root;
            let score = uci_score(root.score);
            let uci = move_to_uci(root.chess_move);
            send(
                out,
                &format!("info depth 1 score {score} tbhits {} pv {uci}", root.probes),
            );
            send(
                out,
                &format!("info string tablebase wdl {} dtz {}", root.wdl, root.dtz),
            );
            None
        }
        Decision::Search(info) => {
            if let Some(error) = &info.tablebase_error {
                send(out, &format!("info string tablebases off: {error}"));
            }
            let already_said = reported.is_some_and(|(depth, lines)| {
                *depth == info.depth && lines.starts_with(&info.lines)
            });
            if !already_said {
                for line in info_lines(info, mode) {
                    send(out, &line);
                }
            }
            info.ponder()
        }
    };
    match (decision.best_move(), ponder) {
        (Some(best), Some(ponder)) => send(
            out,
            &format!(
                "bestmove {} ponder {}",
                move_to_uci(best),
                move_to_uci(ponder)
            ),
        ),
        (Some(best), None) => send(out, &format!("bestmove {}", move_to_uci(best))),
        (None, _) => send(out, "bestmove 0000"),
    }
}
