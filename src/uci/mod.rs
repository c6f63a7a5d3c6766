//! The UCI protocol: how chess GUIs and match tools talk to the engine.
//!
//! [`run`] reads commands from any `BufRead` and answers on any `Write`, so tests drive it with
//! strings; the native binary (`ferrochess-uci`) and `ferrochess uci` run it on stdin and stdout.
//! A `go` searches on its own thread, so `stop`, `ponderhit` and `isready` are answered while it
//! runs. Supported: `uci`, `isready`, `ucinewgame`, `setoption` (see [`options`]), `position
//! startpos|fen ... [moves ...]`, `go` with `depth`, `nodes`, `movetime`, `wtime`, `btime`, `winc`,
//! `binc`, `movestogo`, `mate`, `infinite`, `ponder`, then `stop`, `ponderhit`, `quit`, `bench`,
//! `go perft N` (Stockfish's: the leaf nodes below each root move, then `Nodes searched: N`),
//! and `levels` (not UCI: each level's settings, Elo and calibration fingerprint as `info string`
//! lines, which `ferrochess_tools.calibrate` reads; see [`level_line`]), and in a build with the
//! `tune` feature `tunables` (not UCI: the search's tunables as OpenBench's SPSA input lines,
//! which `ferrochess_tools.spsa` reads) and a spin option per tunable.
//! With `UCI_Chess960` positions are read in Chess960 castling mode (Shredder-FEN or X-FEN
//! castling rights) and castling moves are read and written as the king taking its own rook
//! (`e1h1`); the opening book, which holds standard chess only, is not consulted.
//! A command it cannot use is answered with an `info string` and changes nothing.

pub mod options;
mod report;

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use shakmaty::Position as _;

use crate::book::Book;
use crate::book::choice::{BookOptions, BookPlayer};
use crate::eval::Evaluation;
use crate::eval::nnue::DEFAULT_NETWORK_NAME;
use crate::level::{LEVELS, Level, Player};
use crate::limits::{MAX_DEPTH, SearchLimits, StopFlag, TimeManager};
use crate::position::{Position, START_FEN};
use crate::search::{SearchRequest, Searcher};
use crate::tablebase::{SYZYGY_PATH_ENV, Tablebases};
use options::{Changed, DEFAULT_EVAL_FILE, EVALUATION_CLASSIC, Options};
use report::{Reporter, report_decision, send};

/// Runs the protocol until `quit` or the end of the input. A line that is not UTF-8 is read with
/// its bad bytes replaced (and then is most likely an unknown command): it never ends the loop.
pub fn run<R: BufRead, W: Write + Send + 'static>(mut input: R, output: W) -> io::Result<()> {
    let mut uci = Uci::new(output);
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if !uci.handle(&String::from_utf8_lossy(&line)) {
            break;
        }
    }
    uci.stop_search();
    Ok(())
}

type Output<W> = Arc<Mutex<W>>;

struct Uci<W: Write + Send + 'static> {
    out: Output<W>,
    searcher: Arc<Mutex<Searcher>>,
    stop: StopFlag,
    /// Set while a `go ponder` waits for `ponderhit` (then the clock starts) or `stop`.
    pondering: Arc<Mutex<Option<SearchLimits>>>,
    running: Option<JoinHandle<()>>,
    /// The running search waits for `stop` (`go infinite` or `go ponder`).
    running_unbounded: bool,
    /// Counts the `go`s, so that a `ponderhit` timer never stops a later search.
    generation: Arc<AtomicU64>,
    position: Position,
    options: Options,
}

impl<W: Write + Send + 'static> Uci<W> {
    fn new(output: W) -> Self {
        let mut options = Options::default();
        if let Ok(path) = std::env::var(SYZYGY_PATH_ENV) {
            options.syzygy_path = path;
        }
        let searcher = Searcher::new(options.hash_mb).expect("the default table can be allocated");
        let mut uci = Uci {
            out: Arc::new(Mutex::new(output)),
            searcher: Arc::new(Mutex::new(searcher)),
            stop: StopFlag::new(),
            pondering: Arc::new(Mutex::new(None)),
            running: None,
            running_unbounded: false,
            generation: Arc::new(AtomicU64::new(0)),
            position: Position::from_fen(START_FEN).expect("the start position is valid"),
            options,
        };
        uci.load_book();
        uci.load_tablebase();
        uci
    }

    fn say(&self, line: &str) {
        send(&self.out, line);
    }

    fn searcher(&self) -> MutexGuard<'_, Searcher> {
        self.searcher
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Handles one command; `false` after `quit`.
    fn handle(&mut self, line: &str) -> bool {
        let line = line.trim();
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        match command {
            "" => {}
            "uci" => {
                self.say(&format!("id name ferrochess {}", env!("CARGO_PKG_VERSION")));
                self.say("id author the ferrochess developers");
                for option in self.options.declarations().lines() {
                    self.say(option);
                }
                self.say("uciok");
            }
            "isready" => self.say("readyok"),
            "ucinewgame" => {
                self.wait_search();
                self.searcher().new_game();
            }
            "setoption" => {
                self.wait_search();
                let previous = self.options.clone();
                match self.options.set(rest) {
                    Ok(Changed::Hash) => self.resize(),
                    Ok(Changed::Threads) => {
                        let threads = self.options.threads;
                        // In range: the option was checked against MAX_THREADS.
                        let _ = self.searcher().set_threads(threads);
                    }
                    Ok(Changed::Book) => self.load_book(),
                    Ok(Changed::Tablebase) => self.load_tablebase(),
                    Ok(Changed::Evaluation) => {
                        if !self.load_evaluation() {
                            // The engine plays on as before, and its options say so.
                            self.options = previous;
                        }
                    }
                    Ok(Changed::CastlingMode) => self.change_castling_mode(),
                    Ok(Changed::Nothing) => {}
                    Err(message) => self.say(&format!("info string {message}")),
                }
            }
            "position" => {
                self.wait_search();
                self.set_position(rest);
            }
            "go" => self.go(rest),
            "stop" => self.stop_search(),
            "ponderhit" => self.ponderhit(),
            "levels" => {
                self.say(&format!("info string network {DEFAULT_NETWORK_NAME}"));
                for level in LEVELS.iter() {
                    self.say(&level_line(level));
                }
            }
            "bench" => {
                self.wait_search();
                let evaluation = self.searcher().evaluation().clone();
                match crate::bench::run(crate::bench::BENCH_DEPTH, &evaluation) {
                    Ok(report) => {
                        self.say(&format!("info string {} positions", report.positions));
                        self.say(&format!("Bench: {}", report.nodes));
                        self.say(&format!("nodes/s {}", report.nps()));
                    }
                    Err(error) => self.say(&format!("info string error: {error}")),
                }
            }
            #[cfg(feature = "tune")]
            "tunables" => {
                for tunable in crate::search::params::TUNABLES {
                    self.say(&tunable.openbench_line());
                }
            }
            "quit" => return false,
            _ => self.say(&format!("info string unknown command: {line}")),
        }
        true
    }

    /// Stops a running search (its `bestmove` is printed) and waits for it.
    fn stop_search(&mut self) {
        self.stop.stop();
        self.join_search();
    }

    /// Waits for a running search to end by its limits, as a GUI that sends `position` or `go`
    /// while the engine thinks expects; a search that only `stop` ends is stopped.
    fn wait_search(&mut self) {
        if self.running_unbounded {
            self.stop.stop();
        }
        self.join_search();
    }

    fn join_search(&mut self) {
        if let Some(running) = self.running.take() {
            let _ = running.join();
        }
        self.running_unbounded = false;
        *self.pondering.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    fn resize(&mut self) {
        let hash = self.options.hash_mb;
        let mut searcher = self.searcher();
        match Searcher::new(hash) {
            Ok(mut fresh) => {
                fresh.set_book(searcher.book().map(|player| {
                    BookPlayer::new(player.shared_book(), player.options.clone(), None)
                }));
                fresh.set_tablebase(searcher.tablebase_handle());
                let _ = fresh.set_threads(searcher.threads());
                fresh.set_evaluation(searcher.evaluation().clone());
                *searcher = fresh;
            }
            Err(error) => {
                drop(searcher);
                self.say(&format!("info string error: {error}"));
            }
        }
    }

    fn load_book(&mut self) {
        let name = self.options.book_file.trim().to_string();
        let player = if name.is_empty() || name == "<empty>" {
            Ok(None)
        } else {
            Book::open_named(&name)
                .map(|book| Some(BookPlayer::new(book, BookOptions::default(), None)))
        };
        match player {
            Ok(player) => self.searcher().set_book(player),
            Err(error) => self.say(&format!("info string error: {error}")),
        }
    }

    /// The evaluation the options ask for: the hand-crafted one, the compiled-in network, or
    /// the network in `EvalFile`. A file that cannot be used changes nothing and says why
    /// (`false`).
    fn load_evaluation(&mut self) -> bool {
        let file = self.options.eval_file.trim();
        let evaluation = if self.options.evaluation == EVALUATION_CLASSIC {
            Ok(Evaluation::classic())
        } else if file.is_empty() || file == DEFAULT_EVAL_FILE {
            Ok(Evaluation::default())
        } else {
            Evaluation::from_file(std::path::Path::new(file))
        };
        match evaluation {
            Ok(evaluation) => {
                self.say(&format!("info string evaluation {}", evaluation.name()));
                self.searcher().set_evaluation(evaluation);
                true
            }
            Err(error) => {
                self.say(&format!("info string error: {error}"));
                false
            }
        }
    }

    fn load_tablebase(&mut self) {
        let path = self.options.syzygy_path.trim().to_string();
        if path.is_empty() {
            self.searcher().set_tablebase(None);
            return;
        }
        match Tablebases::open(&path) {
            Ok(tables) => {
                let pieces = tables.max_pieces();
                self.searcher().set_tablebase(Some(Arc::new(tables)));
                self.say(&format!("info string tablebases up to {pieces} pieces"));
            }
            Err(error) => self.say(&format!("info string error: {error}")),
        }
    }

    /// Reads the current game again in the castling mode `UCI_Chess960` now asks for; a game
    /// that cannot be standard chess gives way to the start position.
    fn change_castling_mode(&mut self) {
        let mode = self.options.castling_mode();
        if self.position.castling_mode() == mode {
            return;
        }
        self.position = match self.position.with_castling_mode(mode) {
            Ok(position) => position,
            Err(error) => {
                self.say(&format!(
                    "info string error: {error}; the game is the start position now"
                ));
                Position::from_fen_in(START_FEN, mode).expect("the start position is valid")
            }
        };
    }

    fn set_position(&mut self, arguments: &str) {
        let (setup, moves) = match arguments.split_once("moves") {
            Some((setup, moves)) => (setup.trim(), moves.split_whitespace().collect::<Vec<_>>()),
            None => (arguments.trim(), Vec::new()),
        };
        let fen = if setup == "startpos" {
            START_FEN
        } else if let Some(fen) = setup.strip_prefix("fen") {
            fen.trim()
        } else {
            self.say(&format!(
                "info string error: position needs startpos or fen: '{arguments}'"
            ));
            return;
        };
        match Position::from_fen_and_moves_in(fen, &moves, self.options.castling_mode()) {
            Ok(position) => self.position = position,
            Err(error) => self.say(&format!("info string error: {error}")),
        }
    }

    fn go(&mut self, arguments: &str) {
        self.wait_search();
        if let Some(depth) = arguments.trim().strip_prefix("perft") {
            self.perft(depth.trim());
            return;
        }
        let (limits, infinite, ponder) = match parse_go(arguments, self.options.move_overhead_ms) {
            Ok(parsed) => parsed,
            Err(message) => {
                self.say(&format!("info string error: {message}"));
                return;
            }
        };
        // Only a `go` that plays a game (clocks or a move time, one line) may answer from the
        // book; one that asks for analysis (infinite, or depth, nodes or mate alone, or several
        // lines) always searches, so a GUI's analysis pane gets scores and lines.
        let plays_a_game = limits.movetime.is_some()
            || limits.white_clock.is_some()
            || limits.black_clock.is_some();
        // Pondering and `go infinite` search without limits until `ponderhit` or `stop`.
        let request = SearchRequest {
            limits: if ponder {
                SearchLimits::default()
            } else {
                limits.clone()
            },
            multipv: self.options.multipv,
            excluded: Vec::new(),
            use_book: self.options.own_book
                && plays_a_game
                && self.options.multipv == 1
                && !infinite
                && !ponder,
            ..SearchRequest::default()
        };
        let strength = self.options.strength();
        let wait_for_stop = infinite || ponder || limits.is_infinite();
        self.running_unbounded = wait_for_stop;
        if ponder {
            *self.pondering.lock().unwrap_or_else(|p| p.into_inner()) = Some(limits);
        }
        let mut position = self.position.clone();
        let searcher = Arc::clone(&self.searcher);
        let out = Arc::clone(&self.out);
        let stop = self.stop.clone();
        let pondering = Arc::clone(&self.pondering);
        self.generation.fetch_add(1, Ordering::SeqCst);
        stop.reset();
        self.running = Some(thread::spawn(move || {
            let mut searcher = searcher
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let mut observer = Reporter {
                out: &out,
                mode: position.castling_mode(),
                reported: None,
            };
            // A level's choices differ from game to game, as a person's do.
            let mut player = Player::new(None);
            let decision = player.think(
                &mut searcher,
                &mut position,
                &request,
                strength.as_ref(),
                &stop,
                &mut observer,
            );
            // UCI: after `go infinite` (or while pondering) bestmove waits for stop or ponderhit.
            while wait_for_stop
                && !stop.is_stopped()
                && pondering.lock().map(|p| p.is_some()).unwrap_or(false) == ponder
            {
                thread::sleep(Duration::from_millis(1));
            }
            match decision {
                Ok(decision) => {
                    report_decision(&out, &decision, observer.reported.as_ref(), observer.mode)
                }
                Err(error) => {
                    send(&out, &format!("info string error: {error}"));
                    send(&out, "bestmove 0000");
                }
            }
        }));
    }

    /// `go perft N`, as Stockfish answers it: `move: nodes` for each legal move (in the current
    /// castling mode's notation), a blank line, then `Nodes searched: N`. It runs to the end
    /// before the next command is read.
    fn perft(&mut self, depth: &str) {
        let depth = match depth.parse::<u32>() {
            Ok(depth) if (1..=MAX_DEPTH).contains(&depth) => depth,
            _ => {
                self.say(&format!(
                    "info string error: go perft needs a depth from 1 to {MAX_DEPTH}: '{depth}'"
                ));
                return;
            }
        };
        let mut position = self.position.clone();
        let mut total = 0;
        for (m, nodes) in crate::perft::divide(&mut position, depth) {
            self.say(&format!("{}: {nodes}", position.move_to_uci(m)));
            total += nodes;
        }
        self.say("");
        self.say(&format!("Nodes searched: {total}"));
    }

    /// The opponent played the expected move: the search goes on, now against the clock.
    fn ponderhit(&mut self) {
        let limits = self
            .pondering
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let Some(limits) = limits else {
            return;
        };
        let side = self.position.board().turn();
        let budget = TimeManager::new(&limits, side).budget();
        let stop = self.stop.clone();
        let generation = Arc::clone(&self.generation);
        let this_search = generation.load(Ordering::SeqCst);
        match budget {
            Some(budget) => {
                thread::spawn(move || {
                    thread::sleep(budget);
                    if generation.load(Ordering::SeqCst) == this_search {
                        stop.stop();
                    }
                });
            }
            None if limits.is_infinite() => {}
            None => stop.stop(),
        }
    }
}

/// The limits of `go ...`, whether it is `infinite`, and whether it is `ponder`. The move overhead
/// (time the GUI and the pipe take) goes with the limits; the time manager takes it off the clock.
fn parse_go(arguments: &str, overhead_ms: u64) -> Result<(SearchLimits, bool, bool), String> {
    let mut limits = SearchLimits {
        move_overhead: Some(Duration::from_millis(overhead_ms)),
        ..SearchLimits::default()
    };
    let mut infinite = false;
    let mut ponder = false;
    let mut tokens = arguments.split_whitespace();
    while let Some(token) = tokens.next() {
        let mut number = |name: &str| -> Result<u64, String> {
            let value = tokens
                .next()
                .ok_or_else(|| format!("go {name} needs a value"))?;
            // Clocks may be negative after a flag fall; treat them as zero.
            let parsed: i64 = value
                .parse()
                .map_err(|_| format!("go {name}: '{value}' is not a number"))?;
            Ok(parsed.max(0) as u64)
        };
        let millis = |ms: u64| Duration::from_millis(ms);
        // Numbers a GUI may send out of range (0, or beyond a bound) are brought into it: a
        // limit of 0 means as little as possible.
        let at_least_one = |n: u64| n.clamp(1, u64::from(u32::MAX)) as u32;
        match token {
            "depth" => limits.depth = Some(number(token)?.clamp(1, u64::from(MAX_DEPTH)) as u32),
            "nodes" => limits.nodes = Some(number(token)?.max(1)),
            "movetime" => limits.movetime = Some(millis(number(token)?)),
            "wtime" => limits.white_clock = Some(millis(number(token)?)),
            "btime" => limits.black_clock = Some(millis(number(token)?)),
            "winc" => limits.white_increment = Some(millis(number(token)?)),
            "binc" => limits.black_increment = Some(millis(number(token)?)),
            "movestogo" => limits.moves_to_go = Some(at_least_one(number(token)?)),
            "mate" => limits.mate = Some(at_least_one(number(token)?)),
            "infinite" => infinite = true,
            "ponder" => ponder = true,
            // searchmoves and unknown words: not supported, ignored like most engines do.
            _ => {}
        }
    }
    Ok((limits, infinite, ponder))
}

/// The `levels` command's line for `level`: `info string level N elo E low L high H games G
/// calibration measured|stale fingerprint HEX depth D nodes N candidates C window W temperature
/// T name NAME` (`none` for an absent interval end or cap; the name last, as it may hold spaces).
/// The fingerprint is the one a calibration of this level with the compiled-in network records.
pub fn level_line(level: &Level) -> String {
    let or_none = |value: Option<String>| value.unwrap_or_else(|| "none".to_string());
    let strength = &level.strength;
    format!(
        "info string level {} elo {} low {} high {} games {} calibration {} fingerprint {:016x} \
         depth {} nodes {} candidates {} window {} temperature {} name {}",
        level.number,
        level.elo,
        or_none(level.elo_low.map(|e| e.to_string())),
        or_none(level.elo_high.map(|e| e.to_string())),
        level.games,
        level.calibration.name(),
        strength.fingerprint(DEFAULT_NETWORK_NAME),
        or_none(strength.max_depth.map(|d| d.to_string())),
        or_none(strength.max_nodes.map(|n| n.to_string())),
        strength.candidates,
        strength.window,
        strength.temperature,
        level.name
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_passes_the_clocks_whole_and_the_overhead_beside_them() {
        let (limits, infinite, ponder) =
            parse_go("wtime 3000 btime 2000 winc 10 movestogo 0 depth 99", 40).unwrap();
        assert_eq!(limits.white_clock, Some(Duration::from_millis(3_000)));
        assert_eq!(limits.black_clock, Some(Duration::from_millis(2_000)));
        assert_eq!(limits.white_increment, Some(Duration::from_millis(10)));
        assert_eq!(limits.move_overhead, Some(Duration::from_millis(40)));
        // A GUI's out-of-range numbers are brought into range, not refused.
        assert_eq!(limits.moves_to_go, Some(1));
        assert_eq!(limits.depth, Some(MAX_DEPTH));
        assert!(!infinite && !ponder);
        let (limits, infinite, _) = parse_go("infinite", 40).unwrap();
        assert!(infinite && limits.is_infinite());
    }
}
