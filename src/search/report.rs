//! What a search reports: its lines and counters ([`SearchInfo`]), how the move was chosen
//! ([`Decision`]), and the observer that follows it while it runs ([`SearchObserver`]).

use std::time::Duration;

use shakmaty::Move;

use crate::book::BookEntry;
use crate::score::Score;
use crate::tablebase::RootMove;

/// One line of a (multi-)PV result.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// From the side to move's point of view.
    pub score: Score,
    /// Starts with the move this line recommends; never empty.
    pub pv: Vec<Move>,
}

/// Counters of one search, for users who study how the search behaves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Nodes visited by the quiescence search (included in the total).
    pub quiescence_nodes: u64,
    /// Beta cut-offs in the main search.
    pub cutoffs: u64,
    /// Transposition table probes that found the position.
    pub tt_hits: u64,
    /// Static evaluations computed (by the network or the hand-crafted evaluation); those the
    /// transposition table remembered are not computed again.
    pub evaluations: u64,
}

/// What the search knows after an iteration (or at its end).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// Last completed nominal depth (at the end of a search on several threads, that of the
    /// thread whose line is played: it may be below the last iteration reported).
    pub depth: u32,
    /// Deepest ply reached, quiescence included.
    pub seldepth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
    /// Permille of the transposition table used by this search.
    pub hashfull: u32,
    /// Tablebase probes that found their position.
    pub tbhits: u64,
    /// Best first: one line per requested PV (fewer when there are fewer legal moves).
    pub lines: Vec<Line>,
    pub stats: SearchStats,
    /// Why the tablebases stopped being probed in this search (a table could not be read), if
    /// they did: the search went on without them.
    pub tablebase_error: Option<String>,
}

impl SearchInfo {
    /// The move to play: the first move of the best line; `None` only when the side to move has no
    /// legal move (checkmate or stalemate).
    pub fn best_move(&self) -> Option<Move> {
        self.lines.first().map(|line| line.pv[0])
    }

    /// The reply the search expects to the best move.
    pub fn ponder(&self) -> Option<Move> {
        self.lines.first().and_then(|line| line.pv.get(1).copied())
    }

    /// Nodes per second.
    pub fn nps(&self) -> u64 {
        let micros = self.elapsed.as_micros().max(1);
        (self.nodes as u128 * 1_000_000 / micros) as u64
    }
}

/// What the caller of a search learns while it runs, and how it can end it early.
pub trait SearchObserver {
    /// Called after each completed iteration; returning `false` ends the search.
    fn on_iteration(&mut self, _info: &SearchInfo) -> bool {
        true
    }

    /// Polled every [`POLL_INTERVAL_NODES`](super::params::POLL_INTERVAL_NODES) nodes; returning `true` ends the search as the
    /// stop flag does (for example on Ctrl-C).
    fn interrupted(&mut self) -> bool {
        false
    }
}

/// A move played from the opening book.
#[derive(Clone, Debug, PartialEq)]
pub struct BookMove {
    pub entry: BookEntry,
    /// Time taken to look it up.
    pub elapsed: Duration,
}

/// A move chosen by the endgame tablebases at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct TablebaseMove {
    pub root: RootMove,
    /// Time taken by the probes.
    pub elapsed: Duration,
}

/// How [`Searcher::think`](super::Searcher::think) chose its move.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// From the opening book, without a search.
    Book(BookMove),
    /// From the endgame tablebases, without a search.
    Tablebase(TablebaseMove),
    /// By a search.
    Search(SearchInfo),
}

impl Decision {
    /// The move to play; `None` only when the side to move has no legal move.
    pub fn best_move(&self) -> Option<Move> {
        match self {
            Decision::Book(book) => Some(book.entry.chess_move),
            Decision::Tablebase(tablebase) => Some(tablebase.root.chess_move),
            Decision::Search(info) => info.best_move(),
        }
    }

    /// The search's report, when the move came from a search.
    pub fn into_search(self) -> Option<SearchInfo> {
        match self {
            Decision::Search(info) => Some(info),
            _ => None,
        }
    }
}

/// An observer that observes nothing.
pub struct Silent;

impl SearchObserver for Silent {}

/// A closure observes the iterations.
impl<F: FnMut(&SearchInfo) -> bool> SearchObserver for F {
    fn on_iteration(&mut self, info: &SearchInfo) -> bool {
        self(info)
    }
}
