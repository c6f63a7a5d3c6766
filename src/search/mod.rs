//! The search: a long-lived [`Searcher`] (transposition table, history, opening book) and, for each
//! call, a [`Context`] holding everything that lives only as long as one search. [`Searcher::play`]
//! consults the book first, then searches; iterative deepening drives the root search (in
//! `negamax.rs`), which hands the horizon to the quiescence search.

mod mate;
mod negamax;
pub mod ordering;
pub mod params;
mod pv;
mod quiescence;
pub mod see;

use std::time::{Duration, Instant};

use shakmaty::{Color, Move, Position as _};

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
use mate::MateProofs;
use ordering::{History, Killers};
use params::{
    ASPIRATION_MAX_CP, ASPIRATION_MIN_DEPTH, ASPIRATION_WINDOW_CP, CHECK_INTERVAL_NODES,
    POLL_INTERVAL_NODES, TIME_STABILITY_FACTOR,
};
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

/// Most threads one search may use.
pub const MAX_THREADS: usize = 256;

/// The engine's long-lived search state. One search at a time (`&mut self`).
pub struct Searcher {
    table: TranspositionTable,
    history: History,
    book: Option<BookPlayer>,
    tablebase: Option<Arc<Tablebases>>,
    /// For the choices of weakened levels.
    random: Random,
    switches: SearchSwitches,
    /// Threads per search (lazy SMP), at least 1.
    threads: usize,
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
    /// Selective search, on top of alpha-beta: null-move, reverse futility, futility and late
    /// move pruning, late move and internal iterative reductions, and the quiescence search's
    /// static-exchange pruning. These trade exactness for depth (off, alpha-beta without
    /// quiescence returns exactly the minimax score: the quiescence search's delta pruning
    /// belongs to alpha-beta; on, the engine plays far better).
    pub pruning: bool,
}

impl SearchSwitches {
    /// Whether the selective steps run (they need alpha-beta).
    #[inline]
    pub fn selective(&self) -> bool {
        self.alpha_beta && self.pruning
    }
}

impl Default for SearchSwitches {
    fn default() -> Self {
        SearchSwitches {
            alpha_beta: true,
            quiescence: true,
            move_ordering: true,
            transposition_table: true,
            pruning: true,
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
            threads: 1,
        })
    }

    /// Searches with `threads` threads (lazy SMP: they share the transposition table); at
    /// least 1, at most [`MAX_THREADS`].
    pub fn set_threads(&mut self, threads: usize) -> Result<(), Error> {
        if !(1..=MAX_THREADS).contains(&threads) {
            return Err(Error::argument(
                "threads",
                threads,
                format!("must be between 1 and {MAX_THREADS}"),
            ));
        }
        self.threads = threads;
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
        let root_moves: Vec<Move> = legal
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
        let root_restricted = root_moves.len() < legal.len();
        let shared = Shared::default();
        // Lazy SMP: helper threads search the same root with their own position and history,
        // sharing only the transposition table, until the main thread is done.
        let helpers = if root_moves.len() > 1 {
            self.threads - 1
        } else {
            0
        };
        let helper_states: Vec<(Position, History)> = (0..helpers)
            .map(|_| (position.clone(), self.history.clone()))
            .collect();
        let table = &self.table;
        let history = &mut self.history;
        let tablebase = self.tablebase.as_deref();
        let switches = self.switches;
        let info = std::thread::scope(|scope| {
            for (index, (mut position, mut history)) in helper_states.into_iter().enumerate() {
                let (shared, root_moves) = (&shared, root_moves.clone());
                let max_nodes = limits.nodes;
                let max_depth = limits.depth.unwrap_or(MAX_DEPTH);
                scope.spawn(move || {
                    let mut observer = Silent;
                    let mut context = Context::new(
                        &mut position,
                        table,
                        &mut history,
                        (stop, shared),
                        TimeManager::new(&SearchLimits::default(), Color::White),
                        max_nodes,
                        tablebase,
                        switches,
                        root_restricted,
                        &mut observer,
                    );
                    context.helper = true;
                    context.help(root_moves, max_depth, index + 1);
                });
            }
            let time = TimeManager::new(limits, position.board().turn());
            let mut context = Context::new(
                position,
                table,
                history,
                (stop, &shared),
                time,
                limits.nodes,
                tablebase,
                switches,
                root_restricted,
                observer,
            );
            // The helpers stop when the main thread is done, even if it unwinds from a panic
            // (the scope waits for them before passing the panic on).
            let _finish = RaiseOnDrop(&shared.finished);
            context.iterate(root_moves, limits, multipv)
        });
        Ok(info)
    }
}

/// Raises its flag when dropped.
struct RaiseOnDrop<'a>(&'a StopFlag);

impl Drop for RaiseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// What the threads of one search share besides the transposition table.
#[derive(Default)]
struct Shared {
    /// Raised when the main thread is done: the helpers stop.
    finished: StopFlag,
    /// Nodes searched by the helpers so far (added in batches of [`CHECK_INTERVAL_NODES`]).
    helper_nodes: AtomicU64,
}

impl<'a> Context<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        position: &'a mut Position,
        table: &'a TranspositionTable,
        history: &'a mut History,
        (stop, shared): (&'a StopFlag, &'a Shared),
        time: TimeManager,
        max_nodes: Option<u64>,
        tablebase: Option<&'a Tablebases>,
        switches: SearchSwitches,
        root_restricted: bool,
        observer: &'a mut dyn SearchObserver,
    ) -> Context<'a> {
        Context {
            position,
            table,
            history,
            killers: Killers::default(),
            pv: PvTable::default(),
            stop,
            shared,
            helper: false,
            time,
            max_nodes,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            tablebase,
            switches,
            tbhits: 0,
            tablebase_error: None,
            root_restricted,
            root_best: None,
            stats: SearchStats::default(),
            observer,
        }
    }

    /// A helper thread's iterative deepening: the main thread's, without reports or time limits,
    /// odd helpers one ply deeper (so the threads spread over two depths), until stopped.
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
            }
        }
    }

    /// The main thread's iterative deepening over `root_moves` within `limits`, `multipv` lines,
    /// reporting each iteration to the observer.
    fn iterate(
        &mut self,
        mut root_moves: Vec<Move>,
        limits: &SearchLimits,
        multipv: usize,
    ) -> SearchInfo {
        let context = self;
        let mut info = context.info(0, Vec::new());
        if root_moves.is_empty() {
            return info;
        }
        // A single legal move under a clock needs no thought beyond a score.
        let forced = root_moves.len() == 1 && limits.movetime.is_none() && context.time.is_timed();
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH);
        let lines_wanted = multipv.min(root_moves.len());

        // Iterations in a row that kept the same best move, which sets the time spent (against
        // a fixed share of the clock: +40 Elo, 95% +3..+77; measured as in negamax.rs).
        let mut stable_iterations = 0;
        let mut last_best = None;
        let mut proofs = MateProofs::default();
        for depth in 1..=max_depth {
            // Short mates proven in full width, which the selective search may not see yet.
            context.prove_mates(&mut proofs, depth, &root_moves, lines_wanted);
            if context.stopped {
                break;
            }
            let mut lines: Vec<Line> = Vec::with_capacity(lines_wanted);
            let mut excluded: Vec<Move> = Vec::with_capacity(lines_wanted);
            while lines.len() < lines_wanted {
                // Aspiration: one line, deep enough, starts from a window around the last
                // iteration's score (+21 Elo, 95% -7..+49, over 300 games; measured as in
                // negamax.rs).
                let previous = (lines_wanted == 1 && depth >= ASPIRATION_MIN_DEPTH)
                    .then(|| info.lines.first().map(|line| line.score))
                    .flatten();
                match context.search_root_aspirated(depth as i32, &root_moves, &excluded, previous)
                {
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
            proofs.merge_into(&mut lines, lines_wanted);
            // Search the best moves first next time.
            let ranked: Vec<Move> = lines.iter().map(|line| line.pv[0]).collect();
            root_moves.sort_by_key(|m| ranked.iter().position(|r| r == m).unwrap_or(usize::MAX));
            info = context.info(depth, lines);
            if !context.observer.on_iteration(&info) {
                break;
            }
            let best_move = info.lines[0].pv[0];
            stable_iterations = if last_best == Some(best_move) {
                stable_iterations + 1
            } else {
                0
            };
            last_best = Some(best_move);
            let time_factor =
                TIME_STABILITY_FACTOR[stable_iterations.min(TIME_STABILITY_FACTOR.len() - 1)];
            let best = info.lines[0].score;
            let mate_found = match (best.kind(), limits.mate) {
                (ScoreKind::Mate(moves), Some(wanted)) => moves > 0 && moves as u32 <= wanted,
                _ => false,
            };
            if mate_found
                || forced
                || context.stop.is_stopped()
                || context.time.soft_limit_reached(time_factor)
                || context.out_of_nodes()
            {
                break;
            }
        }

        if !proofs.lines.is_empty() {
            // Stopped after a proof but before its iteration ended: the proof holds.
            proofs.merge_into(&mut info.lines, lines_wanted);
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
        info
    }
}

/// Everything one search owns while it runs.
struct Context<'a> {
    position: &'a mut Position,
    table: &'a TranspositionTable,
    history: &'a mut History,
    killers: Killers,
    pv: PvTable,
    stop: &'a StopFlag,
    shared: &'a Shared,
    /// A helper thread of a lazy SMP search (see [`Context::help`]).
    helper: bool,
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
        let checkpoint = self.nodes.is_multiple_of(CHECK_INTERVAL_NODES);
        if self.helper && checkpoint {
            self.shared
                .helper_nodes
                .fetch_add(CHECK_INTERVAL_NODES, Ordering::Relaxed);
        }
        if !self.stopped
            && (self.out_of_nodes()
                || (checkpoint
                    && (self.stop.is_stopped()
                        || self.shared.finished.is_stopped()
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
        self.max_nodes.is_some_and(|max| self.total_nodes() >= max)
    }

    /// Nodes searched by all threads: this one's exactly, the helpers' to a batch.
    #[inline]
    fn total_nodes(&self) -> u64 {
        if self.helper {
            self.nodes
        } else {
            self.nodes + self.shared.helper_nodes.load(Ordering::Relaxed)
        }
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

    /// [`Context::search_root`] with a full window, or, given the last iteration's score, first
    /// with a window of [`ASPIRATION_WINDOW_CP`] around it, widened on the failing side (doubling
    /// each time) until the score falls inside.
    fn search_root_aspirated(
        &mut self,
        depth: i32,
        root_moves: &[Move],
        excluded: &[Move],
        previous: Option<Score>,
    ) -> Option<(Score, Vec<Move>)> {
        let full = (-Score::INFINITE, Score::INFINITE);
        let Some(previous) = previous
            .filter(|score| self.switches.alpha_beta && !score.is_mate() && !score.is_tablebase())
        else {
            return self.search_root(depth, root_moves, excluded, full);
        };
        let mut delta = ASPIRATION_WINDOW_CP;
        let mut alpha = Score::centipawns(previous.value() - delta);
        let mut beta = Score::centipawns(previous.value() + delta);
        loop {
            let result = self.search_root(depth, root_moves, excluded, (alpha, beta));
            if self.stopped {
                return result;
            }
            delta *= 2;
            let widen = |score: i32| {
                if delta > ASPIRATION_MAX_CP {
                    None
                } else {
                    Some(Score::centipawns(score))
                }
            };
            match result {
                // Failed low: every move is at most alpha.
                None => alpha = widen(alpha.value() - delta).unwrap_or(full.0),
                // Failed high: the best move is at least beta.
                Some((score, _)) if score >= beta => {
                    beta = widen(beta.value() + delta).unwrap_or(full.1);
                }
                found => return found,
            }
        }
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
            nodes: self.total_nodes(),
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
