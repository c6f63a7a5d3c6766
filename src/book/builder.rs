//! Building Polyglot books from PGN games, weighted like the reference `polyglot make-book`.
//!
//! Every game counts once for each of its first `max_ply` moves: the move of the side that played
//! it scores 2 when that side won, 1 for a draw (and for an unknown result, `*`, as Polyglot does)
//! and 0 for a loss. A book entry's weight is that score summed over the games; entries played in
//! fewer than `min_games` games, or never scoring, are dropped. Like Polyglot, when a move has
//! been counted 16384 times, every move of its position has its counts halved, which keeps weights
//! within 16 bits on any input. Unlike Polyglot, a broken game (an illegal move or a bad FEN tag
//! among the plies used) is skipped and counted instead of ending the build, a `[FEN]` tag is
//! honoured, and ties within a position are ordered by move so that the output is reproducible.
//!
//! PGN is read by the `pgn-reader` crate: comments, variations, NAGs and bad bytes are skipped.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use pgn_reader::{KnownOutcome, Outcome, RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Move, Position as _};

use super::{ENTRY_BYTES, encode_move};
use crate::error::Error;
use crate::position::polyglot_key;

/// Polyglot halves a position's counts once one of its moves reaches this many games.
const COUNT_MAX: u32 = 16_384;

/// How many broken games are described in a report (all of them are counted).
const MAX_REPORTED_PROBLEMS: usize = 20;

/// Progress is reported after about this many bytes of PGN.
const PROGRESS_INTERVAL_BYTES: u64 = 256 * 1024;

/// What goes into a book.
/// Plies of each game a book is built from when none is said.
pub const DEFAULT_BUILD_MAX_PLY: u32 = 16;
/// Games a move needs to enter a built book when none is said (Polyglot's `-min-game` default).
pub const DEFAULT_BUILD_MIN_GAMES: u32 = 3;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Only the first `max_ply` moves of each game are used.
    pub max_ply: u32,
    /// Moves played in fewer games are left out.
    pub min_games: u32,
}

impl Default for BuildOptions {
    /// [`DEFAULT_BUILD_MAX_PLY`] plies, [`DEFAULT_BUILD_MIN_GAMES`] games.
    fn default() -> Self {
        BuildOptions {
            max_ply: DEFAULT_BUILD_MAX_PLY,
            min_games: DEFAULT_BUILD_MIN_GAMES,
        }
    }
}

impl BuildOptions {
    pub fn validate(&self) -> Result<(), Error> {
        if self.min_games == 0 {
            return Err(Error::argument("min_games", 0, "must be at least 1"));
        }
        Ok(())
    }
}

/// How a build went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// Games read, broken ones included.
    pub games: u64,
    /// Games skipped because of an illegal or unreadable move or FEN among the plies used.
    pub broken_games: u64,
    /// The first few broken games, described.
    pub problems: Vec<String>,
    /// Distinct positions and entries written.
    pub positions: usize,
    pub entries: usize,
    /// Bytes of PGN read.
    pub bytes: u64,
}

/// Where a build stands, for a progress bar.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    pub bytes_read: u64,
    pub total_bytes: u64,
    pub games: u64,
}

/// One book entry before it is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RawEntry {
    pub key: u64,
    pub raw_move: u16,
    pub weight: u16,
}

#[derive(Copy, Clone, Debug)]
struct Tally {
    raw_move: u16,
    games: u32,
    score: u32,
}

/// Collects games, then gives the book's entries.
#[derive(Default)]
pub struct BookBuilder {
    options: BuildOptions,
    tallies: HashMap<u64, Vec<Tally>>,
}

impl BookBuilder {
    pub fn new(options: BuildOptions) -> BookBuilder {
        BookBuilder {
            options,
            tallies: HashMap::new(),
        }
    }

    /// Counts one game: `moves` (legal, in order) played from `start`, which `winner` won (`None`
    /// for a draw or an unknown result). Moves beyond `max_ply` are ignored.
    pub fn add_game(&mut self, start: &Chess, moves: &[Move], winner: Option<Color>) {
        let mut position = start.clone();
        for &m in moves.iter().take(self.options.max_ply as usize) {
            let score = match winner {
                Some(color) if color == position.turn() => 2,
                Some(_) => 0,
                None => 1,
            };
            self.count(polyglot_key(&position), encode_move(m), score);
            position.play_unchecked(m);
        }
    }

    fn count(&mut self, key: u64, raw_move: u16, score: u32) {
        let moves = self.tallies.entry(key).or_default();
        let index = match moves.iter().position(|t| t.raw_move == raw_move) {
            Some(index) => index,
            None => {
                moves.push(Tally {
                    raw_move,
                    games: 0,
                    score: 0,
                });
                moves.len() - 1
            }
        };
        moves[index].games += 1;
        moves[index].score += score;
        if moves[index].games >= COUNT_MAX {
            for tally in moves.iter_mut() {
                tally.games = tally.games.div_ceil(2);
                tally.score = tally.score.div_ceil(2);
            }
        }
    }

    /// The entries kept, sorted as a Polyglot book must be: by key, then heaviest first, then by
    /// move.
    pub fn entries(&self) -> Vec<RawEntry> {
        let mut entries: Vec<RawEntry> = self
            .tallies
            .iter()
            .flat_map(|(&key, moves)| {
                moves
                    .iter()
                    .filter(|t| t.games >= self.options.min_games && t.score > 0)
                    .map(move |t| RawEntry {
                        key,
                        raw_move: t.raw_move,
                        // At most 2 * COUNT_MAX thanks to the halving.
                        weight: t.score.min(u32::from(u16::MAX)) as u16,
                    })
            })
            .collect();
        entries.sort_by_key(|e| (e.key, std::cmp::Reverse(e.weight), e.raw_move));
        entries
    }

    /// Reads every game of a PGN stream, calling `progress` now and then (it returns `false` to
    /// cancel, and then this returns `Ok(false)`). `report` receives the counts.
    pub fn add_pgn(
        &mut self,
        input: impl Read,
        report: &mut BuildReport,
        progress: &mut dyn FnMut(Progress) -> bool,
        total_bytes: u64,
    ) -> io::Result<bool> {
        let counter = Arc::new(AtomicU64::new(0));
        let mut reader = Reader::new(CountingReader {
            inner: input,
            count: Arc::clone(&counter),
        });
        let start_bytes = report.bytes;
        let mut visitor = GameVisitor {
            max_ply: self.options.max_ply as usize,
            game: 0,
        };
        let mut reported_at = 0;
        visitor.game = report.games;
        while let Some(game) = reader.read_game(&mut visitor)? {
            report.games += 1;
            match game {
                Ok(game) => self.add_game(&game.start, &game.moves, game.winner),
                Err(problem) => {
                    report.broken_games += 1;
                    if report.problems.len() < MAX_REPORTED_PROBLEMS {
                        report.problems.push(problem);
                    }
                }
            }
            let read = counter.load(Ordering::Relaxed);
            report.bytes = start_bytes + read;
            if read - reported_at >= PROGRESS_INTERVAL_BYTES {
                reported_at = read;
                let now = Progress {
                    bytes_read: report.bytes,
                    total_bytes,
                    games: report.games,
                };
                if !progress(now) {
                    return Ok(false);
                }
            }
        }
        report.bytes = start_bytes + counter.load(Ordering::Relaxed);
        Ok(true)
    }
}

/// Writes `entries` (sorted) as a Polyglot book at `path`, through a temporary file renamed into
/// place, so a failed write never leaves a half-written book.
pub fn write_book(path: &Path, entries: &[RawEntry]) -> Result<(), Error> {
    let shown = path.display().to_string();
    let io_error = |error: io::Error| Error::File {
        path: shown.clone(),
        message: error.to_string(),
    };
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".{}.partial", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let written = (|| {
        let mut out = BufWriter::new(File::create(&temporary)?);
        for entry in entries {
            let mut bytes = [0u8; ENTRY_BYTES];
            bytes[0..8].copy_from_slice(&entry.key.to_be_bytes());
            bytes[8..10].copy_from_slice(&entry.raw_move.to_be_bytes());
            bytes[10..12].copy_from_slice(&entry.weight.to_be_bytes());
            out.write_all(&bytes)?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(io_error)
}

/// Builds a book from PGN files into `output`. `progress` is called now and then; when it returns
/// `false` the build stops, nothing is written and `Ok(None)` is returned.
pub fn build_book(
    inputs: &[PathBuf],
    output: &Path,
    options: BuildOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Option<BuildReport>, Error> {
    options.validate()?;
    if inputs.is_empty() {
        return Err(Error::argument("pgn", "[]", "give at least one PGN file"));
    }
    let file_error = |path: &Path, error: io::Error| Error::File {
        path: path.display().to_string(),
        message: error.to_string(),
    };
    let mut files = Vec::with_capacity(inputs.len());
    let mut total_bytes = 0;
    for path in inputs {
        let file = File::open(path).map_err(|e| file_error(path, e))?;
        let length = file.metadata().map_err(|e| file_error(path, e))?.len();
        if file.metadata().is_ok_and(|m| m.is_dir()) {
            return Err(file_error(path, io::Error::other("is a directory")));
        }
        total_bytes += length;
        files.push((path, file));
    }
    let mut builder = BookBuilder::new(options);
    let mut report = BuildReport::default();
    for (path, file) in files {
        let finished = builder
            .add_pgn(file, &mut report, progress, total_bytes)
            .map_err(|e| file_error(path, e))?;
        if !finished {
            return Ok(None);
        }
    }
    let entries = builder.entries();
    write_book(output, &entries)?;
    report.entries = entries.len();
    report.positions = entries.chunk_by(|a, b| a.key == b.key).count();
    let _ = progress(Progress {
        bytes_read: report.bytes,
        total_bytes,
        games: report.games,
    });
    Ok(Some(report))
}

struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buffer)?;
        self.count.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

/// A game as the builder uses it: where it starts, its first moves and who won.
struct Game {
    start: Chess,
    moves: Vec<Move>,
    winner: Option<Color>,
}

/// The tags that matter.
#[derive(Default)]
struct Tags {
    fen: Option<Result<Chess, String>>,
    result: Option<Outcome>,
    variant: Option<String>,
}

/// The movetext being read: where it started, the position reached, the moves so far, the first
/// problem met.
struct Movetext {
    start: Chess,
    position: Chess,
    moves: Vec<Move>,
    result: Option<Outcome>,
    problem: Option<String>,
}

/// Reads games into [`Game`]s, or a description of what is wrong with them.
struct GameVisitor {
    max_ply: usize,
    /// Number of the game being read (1-based once reading starts).
    game: u64,
}

impl Visitor for GameVisitor {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = Result<Game, String>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Tags> {
        self.game += 1;
        ControlFlow::Continue(Tags::default())
    }

    fn tag(
        &mut self,
        tags: &mut Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        match name {
            b"FEN" => {
                let text = value.decode_utf8_lossy().into_owned();
                let position = Fen::from_ascii(text.as_bytes())
                    .map_err(|e| e.to_string())
                    .and_then(|fen| {
                        fen.into_position(CastlingMode::Standard)
                            .map_err(|e| e.to_string())
                    })
                    .map_err(|reason| format!("bad FEN tag '{text}': {reason}"));
                tags.fen = Some(position);
            }
            b"Result" => tags.result = Outcome::from_ascii(value.as_bytes()).ok(),
            b"Variant" => {
                let variant = value.decode_utf8_lossy().into_owned();
                if !["", "standard", "chess", "from position"]
                    .contains(&variant.to_ascii_lowercase().as_str())
                {
                    tags.variant = Some(variant);
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<Self::Output, Movetext> {
        let game = self.game;
        if let Some(variant) = tags.variant {
            return ControlFlow::Break(Err(format!(
                "game {game}: variant '{variant}' is not standard chess"
            )));
        }
        let position = match tags.fen {
            Some(Ok(position)) => position,
            Some(Err(problem)) => {
                return ControlFlow::Break(Err(format!("game {game}: {problem}")));
            }
            None => Chess::default(),
        };
        ControlFlow::Continue(Movetext {
            start: position.clone(),
            position,
            moves: Vec::with_capacity(self.max_ply),
            result: tags.result,
            problem: None,
        })
    }

    fn san(&mut self, movetext: &mut Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if movetext.problem.is_some() || movetext.moves.len() >= self.max_ply {
            return ControlFlow::Continue(());
        }
        match san_plus.san.to_move(&movetext.position) {
            Ok(m) => {
                movetext.position.play_unchecked(m);
                movetext.moves.push(m);
            }
            Err(error) => {
                movetext.problem = Some(format!(
                    "game {}: move {} '{san_plus}' is {error} in '{}'",
                    self.game,
                    movetext.moves.len() / 2 + 1,
                    Fen::from_position(&movetext.position, shakmaty::EnPassantMode::Legal)
                ));
            }
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, movetext: &mut Movetext, outcome: Outcome) -> ControlFlow<Self::Output> {
        // The Result tag decides, as in Polyglot; the movetext's own result is the fallback.
        movetext.result.get_or_insert(outcome);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Movetext) -> Self::Output {
        if let Some(problem) = movetext.problem {
            return Err(problem);
        }
        let winner = match movetext.result {
            Some(Outcome::Known(KnownOutcome::Decisive { winner })) => Some(winner),
            _ => None,
        };
        Ok(Game {
            start: movetext.start,
            moves: movetext.moves,
            winner,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(position: &Chess, sans: &[&str]) -> Vec<Move> {
        let mut position = position.clone();
        sans.iter()
            .map(|san| {
                let m = san
                    .parse::<shakmaty::san::San>()
                    .unwrap()
                    .to_move(&position)
                    .unwrap();
                position.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn weights_count_wins_and_draws_for_the_side_that_moved() {
        let start = Chess::default();
        let mut builder = BookBuilder::new(BuildOptions {
            max_ply: 2,
            min_games: 1,
        });
        let line = moves(&start, &["e4", "e5"]);
        builder.add_game(&start, &line, Some(Color::White));
        builder.add_game(&start, &line, None);
        let entries = builder.entries();
        // e4: 2 (win) + 1 (draw); e5: 0 (loss) + 1 (draw).
        let weights: Vec<u16> = entries.iter().map(|e| e.weight).collect();
        assert_eq!(entries.len(), 2);
        assert!(weights.contains(&3) && weights.contains(&1), "{weights:?}");
    }

    #[test]
    fn counts_are_halved_at_polyglots_limit() {
        let start = Chess::default();
        let mut builder = BookBuilder::new(BuildOptions {
            max_ply: 1,
            min_games: 1,
        });
        let e4 = moves(&start, &["e4"]);
        let d4 = moves(&start, &["d4"]);
        builder.add_game(&start, &d4, None);
        for _ in 0..COUNT_MAX {
            builder.add_game(&start, &e4, Some(Color::White));
        }
        let tallies = &builder.tallies[&polyglot_key(&start)];
        let e4_tally = tallies
            .iter()
            .find(|t| t.raw_move == encode_move(e4[0]))
            .unwrap();
        let d4_tally = tallies
            .iter()
            .find(|t| t.raw_move == encode_move(d4[0]))
            .unwrap();
        assert_eq!((e4_tally.games, e4_tally.score), (COUNT_MAX / 2, COUNT_MAX));
        assert_eq!((d4_tally.games, d4_tally.score), (1, 1));
    }
}
