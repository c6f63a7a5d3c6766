//! The search: a long-lived [`Searcher`] (transposition table, history, opening book, tablebases)
//! and, for each call, a `Context` holding everything that lives only as long as one search. The
//! one way in is [`Searcher::think`] with a [`SearchRequest`]: the book first, then the
//! tablebases, then iterative deepening (`deepening.rs`, on several threads: `smp.rs`) over the
//! root search (`negamax.rs`), which hands the horizon to the quiescence search
//! (`quiescence.rs`); short mates are proven in full width beside it (`mate.rs`).

mod context;
mod deepening;
mod mate;
mod negamax;
pub mod ordering;
pub mod params;
mod probcut;
mod pv;
mod quiescence;
mod report;
mod request;
pub mod see;
mod smp;
mod switches;
mod tablebase;

use std::sync::Arc;
use std::time::Instant;

use crate::book::choice::BookPlayer;
use crate::error::Error;
use crate::eval::Evaluation;
use crate::limits::StopFlag;
use crate::position::{Position, move_to_uci};
use crate::tablebase::Tablebases;
use crate::transposition::TranspositionTable;
use ordering::History;

pub use report::{
    BookMove, Decision, Line, SearchInfo, SearchObserver, SearchStats, Silent, TablebaseMove,
};
pub use request::{
    DEFAULT_HASH_MB, DEFAULT_THREADS, MAX_MULTIPV, MAX_THREADS, SearchRequest, check_multipv,
    check_threads,
};
pub use switches::SearchSwitches;

/// The engine's long-lived search state. One search at a time (`&mut self`).
pub struct Searcher {
    table: TranspositionTable,
    history: History,
    book: Option<BookPlayer>,
    tablebase: Option<Arc<Tablebases>>,
    switches: SearchSwitches,
    /// Threads per search (lazy SMP), at least 1.
    threads: usize,
    evaluation: Evaluation,
}

impl Searcher {
    /// A searcher with a transposition table of `hash_mb` megabytes.
    pub fn new(hash_mb: usize) -> Result<Searcher, Error> {
        Ok(Searcher {
            table: TranspositionTable::new(hash_mb)?,
            history: History::default(),
            book: None,
            tablebase: None,
            switches: SearchSwitches::default(),
            threads: DEFAULT_THREADS,
            evaluation: Evaluation::default(),
        })
    }

    /// How positions are evaluated: the compiled-in network unless set.
    pub fn set_evaluation(&mut self, evaluation: Evaluation) {
        self.evaluation = evaluation;
    }

    pub fn evaluation(&self) -> &Evaluation {
        &self.evaluation
    }

    /// Searches with `threads` threads (lazy SMP: they share the transposition table); at
    /// least 1, at most [`MAX_THREADS`].
    pub fn set_threads(&mut self, threads: usize) -> Result<(), Error> {
        self.threads = check_threads(i64::try_from(threads).unwrap_or(i64::MAX))?;
        Ok(())
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Turns parts of the search on or off (for study; the defaults play best).
    pub fn set_switches(&mut self, switches: SearchSwitches) {
        self.switches = switches;
    }

    pub fn switches(&self) -> SearchSwitches {
        self.switches
    }

    /// The endgame tablebases probed at the root and in the search (`None`: none).
    pub fn set_tablebase(&mut self, tablebase: Option<Arc<Tablebases>>) {
        self.tablebase = tablebase;
    }

    pub fn tablebase(&self) -> Option<&Tablebases> {
        self.tablebase.as_deref()
    }

    /// The tablebases, shared (to hand them to another searcher).
    pub fn tablebase_handle(&self) -> Option<Arc<Tablebases>> {
        self.tablebase.clone()
    }

    /// The opening book [`Searcher::think`] consults before it searches (`None`: no book).
    pub fn set_book(&mut self, book: Option<BookPlayer>) {
        self.book = book;
    }

    pub fn book(&self) -> Option<&BookPlayer> {
        self.book.as_ref()
    }

    /// The one way into the search: what the engine makes of `position` (its current position;
    /// the moves before it count for repetitions) as `request` asks, once the request is checked
    /// ([`SearchRequest::validate`]). The book's move (only with `use_book`, and never in
    /// Chess960), else the tablebases' move (for a single line), else a search of `multipv` lines
    /// whose root never tries an excluded move (and searches `candidates` lines when more). A
    /// tablebase that cannot be read is no error: the search goes on without it and says why
    /// ([`SearchInfo::tablebase_error`]). `stop` may be raised by another thread (the caller
    /// resets it before); `observer` follows the iterations and can end the search.
    pub fn think(
        &mut self,
        position: &mut Position,
        request: &SearchRequest,
        stop: &StopFlag,
        observer: &mut dyn SearchObserver,
    ) -> Result<Decision, Error> {
        request.validate()?;
        let options = request;
        let excluded = options.excluded.as_slice();
        let started = Instant::now();
        // Polyglot books hold standard chess only.
        if options.use_book
            && position.castling_mode() == shakmaty::CastlingMode::Standard
            && let Some(entry) = self
                .book
                .as_mut()
                .and_then(|book| book.choose(position.board(), excluded))
        {
            return Ok(Decision::Book(BookMove {
                entry,
                elapsed: started.elapsed(),
            }));
        }
        let mut tablebase_error = None;
        if options.multipv == 1
            && let Some(tablebase) = &self.tablebase
        {
            // Repetitions after the root are judged as in the search: threefold with the history.
            position.set_root();
            match tablebase.root_move(position, excluded) {
                Ok(Some(root)) => {
                    return Ok(Decision::Tablebase(TablebaseMove {
                        root,
                        elapsed: started.elapsed(),
                    }));
                }
                Ok(None) => {}
                Err(error) => tablebase_error = Some(error.to_string()),
            }
        }
        let lines = options.multipv.max(options.candidates);
        let mut info =
            self.search_lines(position, &options.limits, lines, excluded, stop, observer)?;
        if info.tablebase_error.is_none() {
            info.tablebase_error = tablebase_error;
        }
        Ok(Decision::Search(info))
    }

    /// Transposition table size in megabytes.
    pub fn hash_mb(&self) -> usize {
        self.table.megabytes()
    }

    /// Forgets everything learnt in the previous game.
    pub fn new_game(&mut self) {
        self.table.clear();
        self.history.clear();
    }
}

/// The best move at `depth` for the last position of the game `fen` + `moves` (UCI), in UCI notation;
/// `None` when there is no legal move. A one-shot search with its own transposition table and no
/// book; see [`select_move_observed`] for one that consults a book first.
pub fn select_move<S: AsRef<str>>(
    fen: &str,
    moves: &[S],
    depth: i64,
) -> Result<Option<String>, Error> {
    let decision = select_move_observed(
        fen,
        moves,
        shakmaty::CastlingMode::Standard,
        depth,
        None,
        None,
        &mut Silent,
    )?;
    Ok(decision.best_move().map(move_to_uci))
}

/// [`select_move`] that plays from `book` when the position is in it, probes `tablebase`, and
/// reports the search to `observer`, which can end it early: [`Searcher::think`] on a fresh
/// searcher whose table fits the depth ([`params::select_move_hash_mb`]). The game is read in
/// castling `mode` (standard chess or Chess960, where the book is never consulted).
pub fn select_move_observed<S: AsRef<str>>(
    fen: &str,
    moves: &[S],
    mode: shakmaty::CastlingMode,
    depth: i64,
    book: Option<BookPlayer>,
    tablebase: Option<Arc<Tablebases>>,
    observer: &mut dyn SearchObserver,
) -> Result<Decision, Error> {
    let depth = crate::limits::check_depth(depth)?;
    let mut position = Position::from_fen_and_moves_in(fen, moves, mode)?;
    let mut searcher = Searcher::new(params::select_move_hash_mb(depth))?;
    searcher.set_book(book);
    searcher.set_tablebase(tablebase);
    let request = SearchRequest {
        use_book: true,
        ..SearchRequest::depth(depth)
    };
    searcher.think(&mut position, &request, &StopFlag::new(), observer)
}

#[cfg(test)]
mod tests {
    use shakmaty::Position as _;

    use super::*;
    use crate::eval::nnue::default_network;

    /// The evaluations the table remembers are the ones computing them again gives (undamped),
    /// with either evaluation, so reading them back changes nothing but the time.
    #[test]
    fn the_tables_remembered_evaluations_equal_fresh_ones() {
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10";
        for evaluation in [
            Evaluation::classic(),
            Evaluation::Network(default_network()),
        ] {
            let mut searcher = Searcher::new(16).unwrap();
            searcher.set_evaluation(evaluation.clone());
            let mut position = Position::from_fen(fen).unwrap();
            let request = SearchRequest::depth(6);
            searcher
                .think(&mut position, &request, &StopFlag::new(), &mut Silent)
                .unwrap();
            // Positions one and two plies from the root.
            let mut checked = 0;
            let root = position.board().clone();
            for first in root.legal_moves() {
                let mut child = root.clone();
                child.play_unchecked(first);
                let grandchildren = child.legal_moves().into_iter().map(|second| {
                    let mut grandchild = child.clone();
                    grandchild.play_unchecked(second);
                    grandchild
                });
                for board in std::iter::once(child.clone()).chain(grandchildren) {
                    let key = crate::position::polyglot_key(&board);
                    let Some(remembered) = searcher.table.probe(key).and_then(|entry| entry.eval)
                    else {
                        continue;
                    };
                    let fresh = match &evaluation {
                        Evaluation::Classic(weights) => {
                            crate::eval::classic::evaluate_with(&board, weights).value()
                        }
                        Evaluation::Network(network) => network
                            .evaluate(&board)
                            .clamp(-context::MAX_NETWORK_CP, context::MAX_NETWORK_CP),
                    };
                    assert_eq!(remembered, fresh, "{evaluation:?}: {}", board.board());
                    checked += 1;
                }
            }
            assert!(checked > 50, "only {checked} remembered evaluations found");
        }
    }
}
