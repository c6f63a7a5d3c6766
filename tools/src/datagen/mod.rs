//! Self-play training data for the network ([`ferrochess::eval::nnue`]): the engine plays itself
//! from random openings at a fixed number of nodes a move, and the quiet positions of its games are
//! written with the search's score and the game's result, one a line, `FEN | score | result`: the
//! score in centipawns and the result (`1.0`, `0.5` or `0.0`) both from White's side, the text
//! format bullet reads. The rules are those of `datagen.py`, which made the shared self-play data
//! (its README there describes them), on native threads.
//!
//! Files: thread `t` of a run with seed `s` appends its games to `OUTPUT/s-t.txt` and keeps its
//! count in `OUTPUT/s-t.progress`. A game's lines are written in one append when it ends, so a
//! run stopped at any moment (even killed) leaves only whole games; running it again counts what
//! the files hold and goes on with new games: each game's seed comes from the run's seed, the
//! thread and the game's number, and the numbers already played are never played again
//! (`files.rs` reads them back).
//!
//! ```no_run
//! use ferrochess_tools::datagen::{DatagenConfig, Target, run};
//! use ferrochess::limits::StopFlag;
//!
//! let config = DatagenConfig::new("target/datagen", Target::Positions(100_000));
//! let done = run(&config, &StopFlag::new(), &mut |progress| eprintln!("{progress}")).unwrap();
//! assert!(done.positions >= 100_000);
//! ```

mod files;

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ferrochess::Error;
use ferrochess::eval::Evaluation;
use ferrochess::limits::{SearchLimits, StopFlag};
use ferrochess::position::Position;
use ferrochess::random::Random;
use ferrochess::score::Score;
use ferrochess::search::{SearchRequest, Searcher, Silent, check_threads};
use ferrochess::transposition::check_hash_mb;
use shakmaty::{Chess, Color, Position as _};

use files::{ThreadState, file_error, other_threads, thread_paths};

/// Nodes searched for each move when none are asked for.
pub const DEFAULT_NODES: u64 = 5_000;
/// Uniformly random legal plies that open each game.
pub const DEFAULT_RANDOM_PLIES: usize = 8;
/// A game is kept only if the first search scores its opening within this many centipawns.
pub const DEFAULT_OPENING_SCORE_LIMIT_CP: i32 = 300;
/// A score at least this large (in centipawns, or a mate) for the same side...
pub const DEFAULT_ADJUDICATION_CP: i32 = 1_500;
/// ...this many plies in a row wins the game for that side.
pub const DEFAULT_ADJUDICATION_PLIES: u32 = 4;
/// A game still going after this many plies (the opening's included) is a draw.
pub const DEFAULT_MAX_PLIES: usize = 400;
/// Transposition table of each thread's searcher, in megabytes.
pub const DEFAULT_HASH_MB_PER_THREAD: usize = 16;
/// How often [`run`] reports its progress.
pub const DEFAULT_REPORT_INTERVAL: Duration = Duration::from_secs(10);
/// How often [`run`]'s own thread looks at the stop flag and the clock while the games go on.
const POLL_INTERVAL: Duration = Duration::from_millis(50);

/// When a run stops: once the files of its seed hold this many positions or games (counting
/// earlier runs). The threads finish the games they are playing, so a run ends a little past it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Positions(u64),
    Games(u64),
}

/// Everything a data generation run is asked for. [`DatagenConfig::new`] gives the defaults;
/// the fields are public to change them.
#[derive(Clone, Debug)]
pub struct DatagenConfig {
    /// The directory the files go to (created if missing).
    pub output: PathBuf,
    pub target: Target,
    /// Nodes searched for each move, at least 1.
    pub nodes: u64,
    pub random_plies: usize,
    /// Largest |score| of the first search (centipawns) for which the game is played on.
    pub opening_score_limit: i32,
    /// Adjudication: |score| (centipawns; a mate always counts) for the same side...
    pub adjudication_score: i32,
    /// ...for this many plies in a row (at least 1).
    pub adjudication_plies: u32,
    /// Longest game in plies, the opening's included (at least 1); a draw when reached.
    pub max_plies: usize,
    /// Games played at once, each on its own thread with its own single-threaded searcher.
    pub threads: usize,
    /// Each searcher's transposition table, in megabytes.
    pub hash_mb: usize,
    pub seed: u64,
    /// What the games are played with.
    pub evaluation: Evaluation,
    /// How often the progress callback of [`run`] is called.
    pub report_interval: Duration,
}

impl DatagenConfig {
    /// The defaults (those of the shared self-play data), on every core, with seed 1.
    pub fn new(output: impl Into<PathBuf>, target: Target) -> DatagenConfig {
        DatagenConfig {
            output: output.into(),
            target,
            nodes: DEFAULT_NODES,
            random_plies: DEFAULT_RANDOM_PLIES,
            opening_score_limit: DEFAULT_OPENING_SCORE_LIMIT_CP,
            adjudication_score: DEFAULT_ADJUDICATION_CP,
            adjudication_plies: DEFAULT_ADJUDICATION_PLIES,
            max_plies: DEFAULT_MAX_PLIES,
            threads: std::thread::available_parallelism().map_or(1, |cores| cores.get()),
            hash_mb: DEFAULT_HASH_MB_PER_THREAD,
            seed: 1,
            evaluation: Evaluation::default(),
            report_interval: DEFAULT_REPORT_INTERVAL,
        }
    }

    /// Checks every field; the error names the offending one and quotes its value.
    pub fn validate(&self) -> Result<(), Error> {
        if self.nodes == 0 {
            return Err(Error::argument("nodes", 0, "must be at least 1"));
        }
        check_threads(i64::try_from(self.threads).unwrap_or(i64::MAX))?;
        check_hash_mb(i64::try_from(self.hash_mb).unwrap_or(i64::MAX))?;
        if self.adjudication_plies == 0 {
            return Err(Error::argument(
                "adjudication_plies",
                0,
                "must be at least 1",
            ));
        }
        if self.max_plies == 0 {
            return Err(Error::argument("max_plies", 0, "must be at least 1"));
        }
        Ok(())
    }
}

/// A game's result from White's side.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    Draw,
    BlackWins,
}

impl GameResult {
    fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// As the data files write it: `1.0`, `0.5` or `0.0`.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1.0",
            GameResult::Draw => "0.5",
            GameResult::BlackWins => "0.0",
        }
    }
}

/// One kept position: its FEN and the search's score in centipawns from White's side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrainingPosition {
    pub fen: String,
    pub score: i32,
}

/// A finished game: its kept positions in game order, its result and its length in plies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub positions: Vec<TrainingPosition>,
    pub result: GameResult,
    pub plies: usize,
}

impl Game {
    /// The game's lines, `FEN | score | result` each.
    pub fn to_text(&self) -> String {
        let result = self.result.as_str();
        self.positions
            .iter()
            .map(|position| format!("{} | {} | {result}\n", position.fen, position.score))
            .collect()
    }
}

/// What became of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Played {
    Finished(Game),
    /// Not kept: the opening ended the game, or its first search scored it beyond the limit.
    Discarded,
    /// The stop flag was raised before the game ended.
    Stopped,
}

/// Plays the game of `game_seed` with `searcher` (its table is cleared first) by the rules of
/// `config`; `stop` ends it early ([`Played::Stopped`]). The same seed and configuration play
/// the same game.
pub fn play_game(
    searcher: &mut Searcher,
    config: &DatagenConfig,
    game_seed: u64,
    stop: &StopFlag,
) -> Result<Played, Error> {
    let mut random = Random::seeded(game_seed);
    let mut position = Position::from_board(Chess::default());
    for _ in 0..config.random_plies {
        let moves = position.board().legal_moves();
        if moves.is_empty() {
            return Ok(Played::Discarded);
        }
        position.push(moves[random.index(moves.len())]);
        position.set_root();
    }
    if game_end(&position).is_some() {
        return Ok(Played::Discarded);
    }
    searcher.new_game();
    let request = SearchRequest {
        limits: SearchLimits {
            nodes: Some(config.nodes),
            ..SearchLimits::default()
        },
        ..SearchRequest::default()
    };
    let mut kept = Vec::new();
    // Plies in a row the score has been decisive, positive for White, negative for Black.
    let mut streak: i64 = 0;
    let mut first_search = true;
    let result = loop {
        if let Some(result) = game_end(&position) {
            break result;
        }
        if position.game_ply() >= config.max_plies {
            break GameResult::Draw;
        }
        let decision = searcher.think(&mut position, &request, stop, &mut Silent)?;
        if stop.is_stopped() {
            return Ok(Played::Stopped);
        }
        // With no book and no tablebases every decision is a search with a line.
        let Some(line) = decision
            .into_search()
            .and_then(|info| info.lines.into_iter().next())
        else {
            return Ok(Played::Discarded);
        };
        let board = position.board();
        let white = match board.turn() {
            Color::White => line.score,
            Color::Black => -line.score,
        };
        let decisive = is_decisive(white);
        if first_search {
            first_search = false;
            if decisive || white.value().abs() > config.opening_score_limit {
                return Ok(Played::Discarded);
            }
        }
        if decisive || white.value().abs() >= config.adjudication_score {
            let sign = i64::from(white.value().signum());
            streak = if streak * sign >= 0 {
                streak + sign
            } else {
                sign
            };
            if streak.unsigned_abs() >= u64::from(config.adjudication_plies) {
                break if streak > 0 {
                    GameResult::WhiteWins
                } else {
                    GameResult::BlackWins
                };
            }
        } else {
            streak = 0;
        }
        let best = line.pv[0];
        if !decisive && !board.is_check() && !best.is_capture() && !best.is_promotion() {
            kept.push(TrainingPosition {
                fen: position.fen(),
                score: white.value(),
            });
        }
        position.push(best);
        // The game so far is history: a position repeats only at its third occurrence.
        position.set_root();
    };
    Ok(Played::Finished(Game {
        positions: kept,
        result,
        plies: position.game_ply(),
    }))
}

/// A mate or a tablebase win or loss: never written, always adjudicated.
fn is_decisive(score: Score) -> bool {
    score.is_mate() || score.is_tablebase()
}

/// How the game stands by the rules: checkmate, stalemate, insufficient material, threefold
/// repetition or the fifty-move rule (checkmate first); `None` while it goes on.
fn game_end(position: &Position) -> Option<GameResult> {
    let board = position.board();
    if board.is_checkmate() {
        return Some(GameResult::win_for(!board.turn()));
    }
    let drawn = board.is_stalemate()
        || position.is_insufficient_material()
        || position.is_repetition()
        || position.is_fifty_move_limit();
    drawn.then_some(GameResult::Draw)
}

/// The seed of game `game` of thread `thread` in a run seeded `seed`: every triple its own.
pub fn game_seed(seed: u64, thread: usize, game: u64) -> u64 {
    let per_thread = Random::seeded(seed).next_u64() ^ thread as u64;
    let per_game = Random::seeded(per_thread).next_u64() ^ game;
    Random::seeded(per_game).next_u64()
}

/// Where a run stands, counting earlier runs into the same files.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Games kept and positions written, this run's and earlier runs'.
    pub games: u64,
    pub positions: u64,
    /// Of them, this run's.
    pub new_games: u64,
    pub new_positions: u64,
    /// Games this run did not keep ([`Played::Discarded`]).
    pub discarded: u64,
    /// Since this run began.
    pub elapsed: Duration,
}

impl Progress {
    /// This run's positions per second.
    pub fn positions_per_second(&self) -> f64 {
        self.new_positions as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} games, {} positions ({} games, {} positions this run, {} discarded), {:.0} \
             positions/s, {:.0} s",
            self.games,
            self.positions,
            self.new_games,
            self.new_positions,
            self.discarded,
            self.positions_per_second(),
            self.elapsed.as_secs_f64()
        )
    }
}

/// Plays games on `config.threads` threads into `config.output` until the target is reached (or
/// `stop` is raised: the games in progress are dropped, to be played again by the next run),
/// calling `report` every `config.report_interval` and once at the end, with what it returns.
pub fn run(
    config: &DatagenConfig,
    stop: &StopFlag,
    report: &mut dyn FnMut(&Progress),
) -> Result<Progress, Error> {
    config.validate()?;
    let output = &config.output;
    fs::create_dir_all(output).map_err(|error| file_error(output, error))?;
    let mut states = Vec::with_capacity(config.threads);
    for thread in 0..config.threads {
        states.push(ThreadState::load(output, config.seed, thread)?);
    }
    let counts = Counts::default();
    for state in &states {
        counts.add(state);
    }
    // Files of threads beyond this run's count towards the target but are not played on.
    for thread in other_threads(output, config.seed, config.threads)? {
        counts.add(&ThreadState::load(output, config.seed, thread)?);
    }
    let (earlier_games, earlier_positions) = (counts.games(), counts.positions());
    let started = Instant::now();
    let snapshot = |counts: &Counts| Progress {
        games: counts.games(),
        positions: counts.positions(),
        new_games: counts.games() - earlier_games,
        new_positions: counts.positions() - earlier_positions,
        discarded: counts.discarded.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
    };
    // Raised on `stop` or when a thread fails; the search polls it.
    let halt = StopFlag::new();
    let results = std::thread::scope(|scope| {
        let handles: Vec<_> = states
            .into_iter()
            .enumerate()
            .map(|(thread, state)| {
                let (counts, halt) = (&counts, &halt);
                scope.spawn(move || {
                    let result = play_games(config, thread, state, counts, halt);
                    if result.is_err() {
                        halt.stop();
                    }
                    result
                })
            })
            .collect();
        let mut last_report = Instant::now();
        while !handles.iter().all(|handle| handle.is_finished()) {
            if stop.is_stopped() {
                halt.stop();
            }
            std::thread::sleep(POLL_INTERVAL);
            if last_report.elapsed() >= config.report_interval {
                report(&snapshot(&counts));
                last_report = Instant::now();
            }
        }
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect::<Vec<_>>()
    });
    results.into_iter().collect::<Result<(), Error>>()?;
    let progress = snapshot(&counts);
    report(&progress);
    Ok(progress)
}

/// The totals every thread adds to.
#[derive(Debug, Default)]
struct Counts {
    games: AtomicU64,
    positions: AtomicU64,
    discarded: AtomicU64,
}

impl Counts {
    fn add(&self, state: &ThreadState) {
        self.games.fetch_add(state.games, Ordering::Relaxed);
        self.positions.fetch_add(state.positions, Ordering::Relaxed);
    }

    fn games(&self) -> u64 {
        self.games.load(Ordering::Relaxed)
    }

    fn positions(&self) -> u64 {
        self.positions.load(Ordering::Relaxed)
    }

    fn reached(&self, target: Target) -> bool {
        match target {
            Target::Positions(positions) => self.positions() >= positions,
            Target::Games(games) => self.games() >= games,
        }
    }
}

/// One thread's games, until the target is reached or `halt` is raised.
fn play_games(
    config: &DatagenConfig,
    thread: usize,
    mut state: ThreadState,
    counts: &Counts,
    halt: &StopFlag,
) -> Result<(), Error> {
    let mut searcher = Searcher::new(config.hash_mb)?;
    searcher.set_evaluation(config.evaluation.clone());
    let (data_path, progress_path) = thread_paths(&config.output, config.seed, thread);
    let mut data = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&data_path)
        .map_err(|error| file_error(&data_path, error))?;
    while !halt.is_stopped() && !counts.reached(config.target) {
        let seed = game_seed(config.seed, thread, state.next_game);
        match play_game(&mut searcher, config, seed, halt)? {
            Played::Stopped => break,
            Played::Discarded => {
                counts.discarded.fetch_add(1, Ordering::Relaxed);
            }
            Played::Finished(game) => {
                // One write of whole lines: a run killed now leaves the game whole or absent.
                data.write_all(game.to_text().as_bytes())
                    .and_then(|()| data.flush())
                    .map_err(|error| file_error(&data_path, error))?;
                let written = game.positions.len() as u64;
                state.games += 1;
                state.positions += written;
                counts.games.fetch_add(1, Ordering::Relaxed);
                counts.positions.fetch_add(written, Ordering::Relaxed);
            }
        }
        state.next_game += 1;
        state.save(&progress_path)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use ferrochess::position::parse_fen;

    use super::files::testing::TemporaryDirectory;
    use super::*;

    fn tiny_config(output: &Path, games: u64) -> DatagenConfig {
        DatagenConfig {
            nodes: 200,
            threads: 1,
            hash_mb: 1,
            seed: 7,
            evaluation: Evaluation::classic(),
            ..DatagenConfig::new(output, Target::Games(games))
        }
    }

    fn read_lines(output: &Path) -> Vec<String> {
        let text = fs::read_to_string(output.join("7-0.txt")).unwrap();
        text.lines().map(str::to_string).collect()
    }

    /// Every line is `FEN | score | result`: a legal position whose side to move is not in
    /// check, a centipawn score short of the decisive bands, a result from White's side.
    fn check_line(line: &str) {
        let fields: Vec<&str> = line.split(" | ").collect();
        assert_eq!(fields.len(), 3, "{line}");
        let board = parse_fen(fields[0]).unwrap_or_else(|error| panic!("{line}: {error}"));
        assert!(!board.is_check(), "{line}");
        let score: i32 = fields[1].parse().unwrap();
        assert!(!is_decisive(Score::centipawns(score)), "{line}");
        assert!(["1.0", "0.5", "0.0"].contains(&fields[2]), "{line}");
    }

    #[test]
    fn a_tiny_run_writes_whole_games_of_well_formed_lines_and_resumes() {
        let directory = TemporaryDirectory::new("datagen");
        let output = directory.0.as_path();
        let mut reports = 0;
        let first = run(&tiny_config(output, 2), &StopFlag::new(), &mut |_| {
            reports += 1
        })
        .unwrap();
        assert!(first.games >= 2 && reports >= 1, "{first}");
        let lines = read_lines(output);
        assert_eq!(lines.len() as u64, first.positions);
        assert!(!lines.is_empty());
        lines.iter().for_each(|line| check_line(line));

        // The same command again finds its target reached and writes nothing.
        let again = run(&tiny_config(output, 2), &StopFlag::new(), &mut |_| {}).unwrap();
        assert_eq!((again.new_games, again.positions), (0, first.positions));
        assert_eq!(read_lines(output), lines);

        // A larger target goes on with new games after the ones written.
        let more = run(&tiny_config(output, 4), &StopFlag::new(), &mut |_| {}).unwrap();
        assert!(more.games >= 4 && more.new_games >= 2, "{more}");
        let all = read_lines(output);
        assert_eq!(all.len() as u64, more.positions);
        assert_eq!(all[..lines.len()], lines[..]);
        let added = &all[lines.len()..];
        assert!(!added.is_empty());
        added.iter().for_each(|line| check_line(line));
        assert!(
            added.iter().all(|line| !lines.contains(line)),
            "a game repeated"
        );
    }

    #[test]
    fn games_have_their_own_seeds_and_openings_replay() {
        let seeds: Vec<u64> = (0..4)
            .flat_map(|thread| (0..100).map(move |game| game_seed(1, thread, game)))
            .collect();
        let mut distinct = seeds.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), seeds.len());
        assert_ne!(game_seed(1, 0, 0), game_seed(2, 0, 0));
        let mut random = Random::seeded(9);
        assert!((0..1000).all(|_| random.index(20) < 20));
    }

    #[test]
    fn a_raised_stop_flag_drops_the_game() {
        let config = tiny_config(Path::new("unused"), 1);
        let mut searcher = Searcher::new(1).unwrap();
        let stop = StopFlag::new();
        stop.stop();
        let played = play_game(&mut searcher, &config, game_seed(7, 0, 0), &stop).unwrap();
        assert!(
            matches!(played, Played::Stopped | Played::Discarded),
            "{played:?}"
        );
    }

    #[test]
    fn bad_settings_name_their_field() {
        let mut config = DatagenConfig::new("unused", Target::Games(1));
        config.nodes = 0;
        assert!(config.validate().unwrap_err().to_string().contains("nodes"));
        config.nodes = 1;
        config.threads = 0;
        assert!(
            config
                .validate()
                .unwrap_err()
                .to_string()
                .contains("threads")
        );
    }
}
