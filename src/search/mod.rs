//! The search: a long-lived [`Searcher`] (transposition table, history, opening book) and, for each
//! call, a [`Context`] holding everything that lives only as long as one search. [`Searcher::play`]
//! consults the book first, then searches; iterative deepening drives the root search (in
//! `negamax.rs`), which hands the horizon to the quiescence search.

mod negamax;
pub mod ordering;
pub mod params;
mod pv;
mod quiescence;

use std::time::{Duration, Instant};

use shakmaty::{Move, Position as _};

use std::sync::Arc;

use crate::book::BookEntry;
use crate::book::choice::{BookPlayer, Random};
use crate::error::Error;
use crate::eval;
use crate::level::Level;
use crate::limits::{MAX_DEPTH, SearchLimits, StopFlag, TimeManager};
use crate::position::{Position, move_to_uci, polyglot_key};
use crate::score::{Score, ScoreKind};
use crate::tablebase::{RootMove, Tablebases};
use crate::transposition::{PackedMove, TranspositionTable};
use ordering::{History, Killers};
use params::{CHECK_INTERVAL_NODES, POLL_INTERVAL_NODES};
use pv::PvTable;

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
}

/// What the search knows after an iteration (or at its end).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// Last completed nominal depth.
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

    /// Polled every [`params::POLL_INTERVAL_NODES`] nodes; returning `true` ends the search as the
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

/// How [`Searcher::play`] chose its move.
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

/// The engine's long-lived search state. One search at a time (`&mut self`).
pub struct Searcher {
    table: TranspositionTable,
    history: History,
    book: Option<BookPlayer>,
    tablebase: Option<Arc<Tablebases>>,
    /// For the choices of weakened levels.
    random: Random,
    switches: SearchSwitches,
}

/// Parts of the search that can be switched off, to see what each is worth (all on by default).
/// With everything off the search is the plain minimax of the textbooks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SearchSwitches {
    /// Alpha-beta pruning (off: every move is searched with a full window, nothing is cut off;
    /// mate distance pruning, stand-pat cut-offs and delta pruning go too).
    pub alpha_beta: bool,
    /// The quiescence search at the horizon (off: the static evaluation there, mid-exchange or not).
    pub quiescence: bool,
    /// Move ordering: TT move, MVV-LVA, killers, history (off: the order moves are generated in).
    pub move_ordering: bool,
    /// The transposition table (off: never probed nor stored to).
    pub transposition_table: bool,
}

impl Default for SearchSwitches {
    fn default() -> Self {
        SearchSwitches {
            alpha_beta: true,
            quiescence: true,
            move_ordering: true,
            transposition_table: true,
        }
    }
}

/// What [`Searcher::think`] is asked for, besides the position and the limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThinkOptions {
    /// Lines to search (at least 1). A level searches as many as it chooses from.
    pub multipv: usize,
    /// Root moves never played nor searched.
    pub excluded: Vec<Move>,
    /// Play from the book when it has a move.
    pub use_book: bool,
    /// Weaken the play to this level (`None`: full strength).
    pub level: Option<Level>,
}

impl Default for ThinkOptions {
    fn default() -> Self {
        ThinkOptions {
            multipv: 1,
            excluded: Vec::new(),
            use_book: false,
            level: None,
        }
    }
}

impl Searcher {
    /// A searcher with a transposition table of `hash_mb` megabytes.
    pub fn new(hash_mb: usize) -> Result<Searcher, Error> {
        Ok(Searcher {
            table: TranspositionTable::new(hash_mb)?,
            history: History::default(),
            book: None,
            tablebase: None,
            random: Random::from_entropy(),
            switches: SearchSwitches::default(),
        })
    }

    /// Turns parts of the search on or off (for study; the defaults play best).
    pub fn set_switches(&mut self, switches: SearchSwitches) {
        self.switches = switches;
    }

    pub fn switches(&self) -> SearchSwitches {
        self.switches
    }

    /// Makes the weakened levels' choices reproducible (the book has its own seed).
    pub fn set_seed(&mut self, seed: Option<u64>) {
        self.random = seed.map_or_else(Random::from_entropy, Random::seeded);
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

    /// The opening book [`Searcher::play`] consults before it searches (`None`: no book).
    pub fn set_book(&mut self, book: Option<BookPlayer>) {
        self.book = book;
    }

    pub fn book(&self) -> Option<&BookPlayer> {
        self.book.as_ref()
    }

    /// Chooses the move to play in `position`: from the book when it has one (and it is not in
    /// `excluded`), else from the tablebases when they cover the position, else by a search within
    /// `limits`, whose root never tries a move in `excluded`.
    pub fn play(
        &mut self,
        position: &mut Position,
        limits: &SearchLimits,
        excluded: &[Move],
        stop: &StopFlag,
        observer: &mut dyn SearchObserver,
    ) -> Result<Decision, Error> {
        let options = ThinkOptions {
            excluded: excluded.to_vec(),
            use_book: true,
            ..ThinkOptions::default()
        };
        self.think(position, limits, &options, stop, observer)
    }

    /// What the engine makes of `position`: the book's move (only with `use_book`), else the
    /// tablebases' move (for a single line), else a search of `multipv` lines. A tablebase that
    /// cannot be read is no error: the search goes on without it and says why
    /// ([`SearchInfo::tablebase_error`]). With a level, the search is capped by it and its line
    /// to play is chosen by it and put first.
    pub fn think(
        &mut self,
        position: &mut Position,
        limits: &SearchLimits,
        options: &ThinkOptions,
        stop: &StopFlag,
        observer: &mut dyn SearchObserver,
    ) -> Result<Decision, Error> {
        limits.validate()?;
        let excluded = options.excluded.as_slice();
        let started = Instant::now();
        if options.use_book
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
        let (limits, multipv) = match &options.level {
            Some(level) => (level.cap(limits), options.multipv.max(level.candidates)),
            None => (limits.clone(), options.multipv),
        };
        let mut info =
            self.search_excluding(position, &limits, multipv, excluded, stop, observer)?;
        if let Some(level) = &options.level
            && !info.lines.is_empty()
        {
            let chosen = level.choose(&info.lines, &mut self.random);
            let line = info.lines.remove(chosen);
            info.lines.insert(0, line);
            info.lines.truncate(options.multipv);
        }
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

    /// Searches `position` (its current position is the root) within `limits`, reporting to
    /// `observer`, which can also end the search.
    /// `multipv` lines are searched (at least 1). `stop` may be raised by another thread; the caller
    /// resets it before the search (a flag raised earlier ends this search at once).
    pub fn search(
        &mut self,
        position: &mut Position,
        limits: &SearchLimits,
        multipv: usize,
        stop: &StopFlag,
        observer: &mut dyn SearchObserver,
    ) -> Result<SearchInfo, Error> {
        self.search_excluding(position, limits, multipv, &[], stop, observer)
    }

    /// [`Searcher::search`] whose root never tries a move in `excluded`. Excluding every legal
    /// move is an error (there would be nothing to play).
    pub fn search_excluding(
        &mut self,
        position: &mut Position,
        limits: &SearchLimits,
        multipv: usize,
        excluded: &[Move],
        stop: &StopFlag,
        observer: &mut dyn SearchObserver,
    ) -> Result<SearchInfo, Error> {
        limits.validate()?;
        if multipv == 0 {
            return Err(Error::argument("multipv", 0, "must be at least 1"));
        }
        let legal = position.board().legal_moves();
        let mut root_moves: Vec<Move> = legal
            .iter()
            .filter(|m| !excluded.contains(m))
            .copied()
            .collect();
        if root_moves.is_empty() && !legal.is_empty() {
            let shown: Vec<String> = excluded.iter().map(|m| move_to_uci(*m)).collect();
            return Err(Error::argument(
                "exclude_moves",
                shown.join(" "),
                format!("excludes every legal move of '{}'", position.fen()),
            ));
        }
        position.set_root();
        self.table.new_search();
        let time = TimeManager::new(limits, position.board().turn());
        let mut context = Context {
            position,
            table: &mut self.table,
            history: &mut self.history,
            killers: Killers::default(),
            pv: PvTable::default(),
            stop,
            time,
            max_nodes: limits.nodes,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            tablebase: self.tablebase.as_deref(),
            switches: self.switches,
            tbhits: 0,
            tablebase_error: None,
            root_restricted: root_moves.len() < legal.len(),
            root_best: None,
            stats: SearchStats::default(),
            observer,
        };
        let mut info = context.info(0, Vec::new());
        if root_moves.is_empty() {
            return Ok(info);
        }
        // A single legal move under a clock needs no thought beyond a score.
        let forced = root_moves.len() == 1 && limits.movetime.is_none() && context.time.is_timed();
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH);
        let lines_wanted = multipv.min(root_moves.len());

        for depth in 1..=max_depth {
            let mut lines: Vec<Line> = Vec::with_capacity(lines_wanted);
            let mut excluded: Vec<Move> = Vec::with_capacity(lines_wanted);
            while lines.len() < lines_wanted {
                match context.search_root(depth as i32, &root_moves, &excluded) {
                    Some((score, pv)) if !context.stopped => {
                        excluded.push(pv[0]);
                        let pv = context.complete_line(pv, depth as usize);
                        lines.push(Line { score, pv });
                    }
                    _ => break,
                }
            }
            if context.stopped {
                break;
            }
            lines.sort_by_key(|line| std::cmp::Reverse(line.score));
            // Search the best moves first next time.
            let ranked: Vec<Move> = lines.iter().map(|line| line.pv[0]).collect();
            root_moves.sort_by_key(|m| ranked.iter().position(|r| r == m).unwrap_or(usize::MAX));
            info = context.info(depth, lines);
            if !context.observer.on_iteration(&info) {
                break;
            }
            let best = info.lines[0].score;
            let mate_found = match (best.kind(), limits.mate) {
                (ScoreKind::Mate(moves), Some(wanted)) => moves > 0 && moves as u32 <= wanted,
                _ => false,
            };
            if mate_found
                || forced
                || context.stop.is_stopped()
                || context.time.soft_limit_reached()
                || context.out_of_nodes()
            {
                break;
            }
        }

        if info.lines.is_empty() {
            // Stopped inside the first iteration: the best root move found so far, else the first.
            let (m, score) = context
                .root_best
                .unwrap_or_else(|| (root_moves[0], context.evaluate()));
            info = context.info(0, vec![Line { score, pv: vec![m] }]);
        } else {
            let lines = std::mem::take(&mut info.lines);
            info = context.info(info.depth, lines);
        }
        Ok(info)
    }
}

/// Everything one search owns while it runs.
struct Context<'a> {
    position: &'a mut Position,
    table: &'a mut TranspositionTable,
    history: &'a mut History,
    killers: Killers,
    pv: PvTable,
    stop: &'a StopFlag,
    time: TimeManager,
    max_nodes: Option<u64>,
    nodes: u64,
    seldepth: usize,
    /// Set once a limit is hit; every node then returns at once and its score is ignored.
    stopped: bool,
    /// Some legal root moves are left out, so the root's result is not the position's value.
    root_restricted: bool,
    /// Probed after zeroing moves; `None` without tables, or once a table failed to be read.
    tablebase: Option<&'a Tablebases>,
    switches: SearchSwitches,
    tbhits: u64,
    tablebase_error: Option<String>,
    /// Best root move of the iteration in progress, for a search stopped during its first iteration.
    root_best: Option<(Move, Score)>,
    stats: SearchStats,
    observer: &'a mut dyn SearchObserver,
}

impl Context<'_> {
    /// Whether the search must end now: stop flag, node limit, hard time limit or the observer.
    #[inline]
    fn should_stop(&mut self) -> bool {
        if !self.stopped
            && (self.out_of_nodes()
                || (self.nodes.is_multiple_of(CHECK_INTERVAL_NODES)
                    && (self.stop.is_stopped()
                        || self.time.hard_limit_reached()
                        || (self.nodes.is_multiple_of(POLL_INTERVAL_NODES)
                            && self.observer.interrupted()))))
        {
            self.stopped = true;
        }
        self.stopped
    }

    #[inline]
    fn out_of_nodes(&self) -> bool {
        self.max_nodes.is_some_and(|max| self.nodes >= max)
    }

    /// `line` (from the root) lengthened, up to `length` moves, by the moves the transposition
    /// table stores for the positions it reaches: the triangular PV stops where a table hit ended
    /// a node early. Stops at a missing or illegal move, the end of the game or a repetition.
    fn complete_line(&self, mut line: Vec<Move>, length: usize) -> Vec<Move> {
        if !self.switches.transposition_table {
            return line;
        }
        let mut board = self.position.board().clone();
        let mut seen = vec![polyglot_key(&board)];
        for &m in &line {
            board.play_unchecked(m);
            seen.push(polyglot_key(&board));
        }
        while line.len() < length {
            let Some(entry) = self.table.probe(*seen.last().expect("not empty")) else {
                break;
            };
            let Some(m) = board
                .legal_moves()
                .into_iter()
                .find(|&m| !entry.best_move.is_none() && PackedMove::new(m) == entry.best_move)
            else {
                break;
            };
            board.play_unchecked(m);
            let key = polyglot_key(&board);
            if seen.contains(&key) {
                break;
            }
            seen.push(key);
            line.push(m);
        }
        line
    }

    /// The window to search a child with: the negated `alpha..beta`, or the full window when
    /// alpha-beta is off (then nothing is ever cut off).
    #[inline]
    fn child_window(&self, alpha: Score, beta: Score) -> (Score, Score) {
        if self.switches.alpha_beta {
            (-beta, -alpha)
        } else {
            (-Score::INFINITE, Score::INFINITE)
        }
    }

    #[inline]
    fn evaluate(&self) -> Score {
        eval::evaluate(self.position.board())
    }

    fn info(&self, depth: u32, lines: Vec<Line>) -> SearchInfo {
        SearchInfo {
            depth,
            seldepth: self.seldepth.max(depth as usize) as u32,
            nodes: self.nodes,
            elapsed: self.time.elapsed(),
            hashfull: self.table.hashfull(),
            tbhits: self.tbhits,
            lines,
            stats: self.stats.clone(),
            tablebase_error: self.tablebase_error.clone(),
        }
    }
}

/// A one-shot fixed-depth search of `position` with a fresh engine whose table has `hash_mb` MB.
pub fn search_to_depth(
    position: &mut Position,
    hash_mb: usize,
    depth: u32,
    observer: &mut dyn SearchObserver,
) -> Result<SearchInfo, Error> {
    let mut searcher = Searcher::new(hash_mb)?;
    searcher.search(
        position,
        &SearchLimits::depth(depth),
        1,
        &StopFlag::new(),
        observer,
    )
}

/// The best move at `depth` for the last position of the game `fen` + `moves` (UCI), in UCI notation;
/// `None` when there is no legal move. A one-shot search with its own transposition table and no
/// book; see [`select_move_observed`] for one that consults a book first.
pub fn select_move<S: AsRef<str>>(
    fen: &str,
    moves: &[S],
    depth: i64,
) -> Result<Option<String>, Error> {
    let decision = select_move_observed(fen, moves, depth, None, None, &mut Silent)?;
    Ok(decision.best_move().map(move_to_uci))
}

/// [`select_move`] that plays from `book` when the position is in it, probes `tablebase`, and
/// reports the search to `observer`, which can end it early.
pub fn select_move_observed<S: AsRef<str>>(
    fen: &str,
    moves: &[S],
    depth: i64,
    book: Option<BookPlayer>,
    tablebase: Option<Arc<Tablebases>>,
    observer: &mut dyn SearchObserver,
) -> Result<Decision, Error> {
    let depth = crate::limits::check_depth(depth)?;
    let mut position = Position::from_fen_and_moves(fen, moves)?;
    let mut searcher = Searcher::new(params::select_move_hash_mb(depth))?;
    searcher.set_book(book);
    searcher.set_tablebase(tablebase);
    searcher.play(
        &mut position,
        &SearchLimits::depth(depth),
        &[],
        &StopFlag::new(),
        observer,
    )
}
