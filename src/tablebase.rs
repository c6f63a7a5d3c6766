//! Syzygy endgame tablebases through shakmaty-syzygy: WDL inside the search, DTZ at the root.
//!
//! [`Tablebases::open`] takes one directory or several (a path list like `a:b`); tables are opened
//! lazily on the first probe. A position the tables do not cover (castling rights, more pieces than
//! the largest table, a missing table) is a miss, `Ok(None)`, never an error; a table that cannot be
//! read or is corrupt is an [`Error::Tablebase`] naming it.
//!
//! WDL values follow python-chess's `chess.syzygy`: from the side to move, assuming the position was
//! reached by a capture or pawn move (so the 50-move counter is zero): 2 win, 1 win that the 50-move
//! rule turns into a draw (cursed), 0 draw, -1 loss saved by the 50-move rule (blessed), -2 loss.
//! DTZ is the distance in plies to the next capture or pawn move (or mate) with best play, signed
//! like WDL, as the tables store it (possibly rounded to moves where the tables round).

use std::path::{Path, PathBuf};

use shakmaty::{Chess, Move, Position as _};
use shakmaty_syzygy::{SyzygyError, Tablebase};

pub use shakmaty_syzygy::Wdl;

use crate::error::Error;
use crate::position::Position;
use crate::score::{MAX_PLY, Score};

/// The environment variable that names the tablebase directories when no path is given.
pub const SYZYGY_PATH_ENV: &str = "FERROCHESS_SYZYGY_PATH";

/// The move chosen at the root from the tables, and what they say of it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RootMove {
    pub chess_move: Move,
    /// The outcome with best play from the root, counting its 50-move clock: 2 win, 1 a win the
    /// 50-move rule turns into a draw, 0 draw, -1 a loss it saves, -2 loss.
    pub wdl: i32,
    /// Plies from the root to the next zeroing move (capture, pawn move or mate) along this move,
    /// signed like `wdl` (0 for a draw).
    pub dtz: i32,
    /// The score the search would give it: a mate in one, a tablebase win or loss, or a draw.
    pub score: Score,
    /// Positions probed to choose it.
    pub probes: u64,
}

/// A set of Syzygy tables for standard chess.
pub struct Tablebases {
    tables: Tablebase<Chess>,
    directories: Vec<PathBuf>,
}

impl std::fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebases")
            .field("directories", &self.directories)
            .field("max_pieces", &self.max_pieces())
            .finish()
    }
}

impl Tablebases {
    /// Adds the tables of every directory in `paths`, a path list separated like `PATH` (`a:b` on
    /// Unix, `a;b` on Windows). A missing directory, or one without any Syzygy table, is an error
    /// naming it.
    pub fn open(paths: &str) -> Result<Tablebases, Error> {
        let directories: Vec<PathBuf> = std::env::split_paths(paths)
            .filter(|path| !path.as_os_str().is_empty())
            .collect();
        if directories.is_empty() {
            return Err(Error::argument(
                "syzygy_path",
                format!("'{paths}'"),
                "names no directory",
            ));
        }
        let mut tables = Tablebase::new();
        for directory in &directories {
            let file_error = |message: String| Error::File {
                path: directory.display().to_string(),
                message,
            };
            if !directory.is_dir() {
                let message = match std::fs::metadata(directory) {
                    Err(error) => error.to_string(),
                    Ok(_) => "not a directory".to_string(),
                };
                return Err(file_error(message));
            }
            let added = add_tables(&mut tables, directory)?;
            if added == 0 {
                return Err(file_error(
                    "contains no Syzygy tables (*.rtbw, *.rtbz files)".to_string(),
                ));
            }
        }
        Ok(Tablebases {
            tables,
            directories,
        })
    }

    /// The directories the tables were read from.
    pub fn directories(&self) -> &[PathBuf] {
        &self.directories
    }

    /// The largest number of pieces (kings included) of a loaded table.
    pub fn max_pieces(&self) -> usize {
        self.tables.max_pieces()
    }

    /// Whether the tables could hold `position`: no castling rights and few enough pieces.
    pub fn covers(&self, position: &Chess) -> bool {
        !position.castles().any() && position.board().occupied().count() <= self.max_pieces()
    }

    /// WDL of `position`, as if reached by a zeroing move; `None` when the tables do not hold it.
    /// A position with one piece more than the tables is answered when every capture of that
    /// piece leads into them and one of them is best (as python-chess does).
    pub fn wdl(&self, position: &Chess) -> Result<Option<Wdl>, Error> {
        miss_as_none(self.tables.probe_wdl_after_zeroing(position))
    }

    /// DTZ of `position` in plies; `None` when the tables do not hold it (see [`Tablebases::wdl`]).
    pub fn dtz(&self, position: &Chess) -> Result<Option<i32>, Error> {
        let dtz = miss_as_none(self.tables.probe_dtz(position))?;
        Ok(dtz.map(|dtz| dtz.ignore_rounding().0))
    }

    /// The best move of the game's current position by the tables, honouring its 50-move clock:
    /// the quickest zeroing move that still wins, a move that holds the draw, or the slowest loss.
    /// `None` when the tables do not cover the position or every legal move is excluded.
    pub fn root_move(
        &self,
        position: &mut Position,
        excluded: &[Move],
    ) -> Result<Option<RootMove>, Error> {
        let board = position.board().clone();
        if !self.covers(&board) {
            return Ok(None);
        }
        // Clamped before it becomes an i32 (a FEN may give any u32); past 100 all are alike.
        let halfmoves = board.halfmoves().min(1000) as i32;
        let mut best: Option<(i32, RootMove)> = None;
        let mut probes = 0;
        for m in board.legal_moves() {
            if excluded.contains(&m) {
                continue;
            }
            position.push(m);
            let outcome = self.move_outcome(position, m);
            position.pop();
            let Some((dtz, mate)) = outcome? else {
                return Ok(None);
            };
            probes += 1;
            let (rank, wdl) = rank(dtz, mate, halfmoves);
            let score = match wdl {
                _ if mate => Score::mate_in(1),
                2 => Score::tb_win_in(dtz.unsigned_abs() as usize),
                -2 => Score::tb_loss_in(dtz.unsigned_abs() as usize),
                _ => Score::DRAW,
            };
            let candidate = RootMove {
                chess_move: m,
                wdl,
                dtz,
                score,
                probes: 0,
            };
            if best.is_none_or(|(best_rank, _)| rank > best_rank) {
                best = Some((rank, candidate));
            }
        }
        Ok(best.map(|(_, root)| RootMove { probes, ..root }))
    }

    /// DTZ in plies from the position before `m` (just played on `position`), counting `m`, and
    /// whether `m` mates; `None` on a miss.
    fn move_outcome(&self, position: &Position, m: Move) -> Result<Option<(i32, bool)>, Error> {
        let after = position.board();
        if after.is_checkmate() {
            return Ok(Some((1, true)));
        }
        if position.is_repetition() || after.is_stalemate() || after.is_insufficient_material() {
            return Ok(Some((0, false)));
        }
        if m.is_zeroing() {
            let Some(wdl) = miss_as_none(self.tables.probe_wdl_after_zeroing(after))? else {
                return Ok(None);
            };
            // The opponent's WDL after our zeroing move, turned into our DTZ: zeroing now.
            let dtz = match -wdl {
                Wdl::Win => 1,
                Wdl::CursedWin => 101,
                Wdl::Draw => 0,
                Wdl::BlessedLoss => -101,
                Wdl::Loss => -1,
            };
            return Ok(Some((dtz, false)));
        }
        let Some(theirs) = miss_as_none(self.tables.probe_dtz(after))? else {
            return Ok(None);
        };
        let ours = -theirs.ignore_rounding().0;
        Ok(Some((ours + ours.signum(), false)))
    }
}

/// Adds the table files of `directory`; a file that cannot be added (a size no table can have,
/// unreadable metadata) is an error naming it. Returns the number of tables added.
fn add_tables(tables: &mut Tablebase<Chess>, directory: &Path) -> Result<usize, Error> {
    let file_error = |path: &Path, message: String| Error::File {
        path: path.display().to_string(),
        message,
    };
    let entries = std::fs::read_dir(directory).map_err(|e| file_error(directory, e.to_string()))?;
    let mut added = 0;
    for entry in entries {
        let path = entry
            .map_err(|e| file_error(directory, e.to_string()))?
            .path();
        let is_table = path
            .extension()
            .is_some_and(|ext| ext == "rtbw" || ext == "rtbz");
        if !is_table {
            continue;
        }
        match tables.add_file(&path) {
            Ok(()) => added += 1,
            // Not a table name (like "notes.rtbw"): not ours to judge.
            Err(error) if error.kind() == std::io::ErrorKind::InvalidInput => {}
            Err(error) if error.kind() == std::io::ErrorKind::InvalidData => {
                return Err(Error::Tablebase {
                    message: format!("'{}' is truncated or corrupt ({error})", path.display()),
                });
            }
            Err(error) => return Err(file_error(&path, error.to_string())),
        }
    }
    Ok(added)
}

/// How good a root move is (higher is better) and its WDL, from its DTZ (plies, counting the move)
/// and the root's 50-move clock. A win must zero within the 50-move rule to count as a win.
fn rank(dtz: i32, mate: bool, halfmoves: i32) -> (i32, i32) {
    const CERTAIN: i32 = 4 * MAX_PLY as i32 * 100;
    if mate {
        return (2 * CERTAIN, 2);
    }
    match dtz {
        // Quicker wins first.
        d if d > 0 && d + halfmoves <= 100 => (CERTAIN - d, 2),
        // A win the 50-move rule takes away: a draw, unless the opponent errs.
        d if d > 0 => (CERTAIN / 2 - d, 1),
        0 => (0, 0),
        // A loss the 50-move rule saves: a draw, the longer the safer.
        d if -d + halfmoves > 100 => (-CERTAIN / 2 - d, -1),
        // A certain loss: the slowest.
        d => (-CERTAIN - d, -2),
    }
}

/// A position the tables do not hold is a miss, not an error.
fn miss_as_none<T>(result: Result<T, SyzygyError>) -> Result<Option<T>, Error> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(
            SyzygyError::Castling | SyzygyError::TooManyPieces | SyzygyError::MissingTable { .. },
        ) => Ok(None),
        Err(error @ SyzygyError::ProbeFailed { .. }) => Err(Error::Tablebase {
            message: error.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_wins_by_speed_losses_by_length_and_respect_the_fifty_move_rule() {
        assert!(rank(3, false, 0).0 > rank(9, false, 0).0);
        assert!(rank(1, true, 0).0 > rank(1, false, 0).0);
        assert_eq!(
            rank(30, false, 80).1,
            1,
            "zeroing after 110 plies is too late"
        );
        assert_eq!(rank(20, false, 80).1, 2);
        assert!(rank(30, false, 80).0 > rank(0, false, 80).0);
        assert!(rank(0, false, 0).0 > rank(-5, false, 0).0);
        assert!(
            rank(-9, false, 0).0 > rank(-3, false, 0).0,
            "the slowest loss"
        );
        assert_eq!(rank(-30, false, 80).1, -1, "the 50-move rule saves it");
        assert!(rank(-30, false, 80).0 > rank(-90, false, 0).0);
    }

    #[test]
    fn a_missing_directory_is_named() {
        let error = Tablebases::open("/nonexistent/syzygy").unwrap_err();
        assert!(matches!(error, Error::File { .. }), "{error}");
        assert!(error.to_string().contains("/nonexistent/syzygy"));
        assert!(matches!(
            Tablebases::open(""),
            Err(Error::InvalidArgument { .. })
        ));
    }
}
