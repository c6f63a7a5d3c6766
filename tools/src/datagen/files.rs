//! The files of a data generation run, made to be resumed: thread `t` of a run with seed `s`
//! appends whole games to `OUTPUT/s-t.txt` and records its count in `OUTPUT/s-t.progress`; on
//! start each thread's files are read back (and repaired after a run that was killed) to know
//! where it stands.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use ferrochess::Error;

/// The data file and the progress file of one thread.
pub(super) fn thread_paths(output: &Path, seed: u64, thread: usize) -> (PathBuf, PathBuf) {
    (
        output.join(format!("{seed}-{thread}.txt")),
        output.join(format!("{seed}-{thread}.progress")),
    )
}

/// The threads numbered `threads` or more that left files of `seed` in `output`.
pub(super) fn other_threads(output: &Path, seed: u64, threads: usize) -> Result<Vec<usize>, Error> {
    let prefix = format!("{seed}-");
    let mut found = Vec::new();
    for entry in fs::read_dir(output).map_err(|error| file_error(output, error))? {
        let name = entry
            .map_err(|error| file_error(output, error))?
            .file_name();
        let thread = name
            .to_str()
            .and_then(|name| name.strip_prefix(&prefix))
            .and_then(|rest| rest.strip_suffix(".txt").or(rest.strip_suffix(".progress")))
            .and_then(|number| number.parse::<usize>().ok());
        if let Some(thread) = thread
            && thread >= threads
            && !found.contains(&thread)
        {
            found.push(thread);
        }
    }
    found.sort_unstable();
    Ok(found)
}

/// What one thread's files record: the number of its next game (every game before it was played:
/// kept, discarded or written empty), its games kept and the lines of its data file.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct ThreadState {
    pub(super) next_game: u64,
    pub(super) games: u64,
    pub(super) positions: u64,
}

impl ThreadState {
    /// Reads thread `thread`'s files (none yet: a fresh start). The data file is the judge of
    /// the positions: a trailing partial line is cut off, and lines beyond the progress file's
    /// count are a game written but not yet recorded when the run was stopped, counted now.
    pub(super) fn load(output: &Path, seed: u64, thread: usize) -> Result<ThreadState, Error> {
        let (data_path, progress_path) = thread_paths(output, seed, thread);
        let recorded = match fs::read_to_string(&progress_path) {
            Ok(text) => Some(ThreadState::parse(&text).ok_or_else(|| {
                Error::File {
                    path: progress_path.display().to_string(),
                    message: "not a progress file (expected lines 'next_game N', 'games N', \
                          'positions N')"
                        .to_string(),
                }
            })?),
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            Err(error) => return Err(file_error(&progress_path, error)),
        };
        let lines = count_whole_lines(&data_path)?;
        match recorded {
            None if lines == 0 => Ok(ThreadState::default()),
            None => Err(Error::File {
                path: data_path.display().to_string(),
                message: format!(
                    "holds {lines} positions but its progress file '{}' is missing, so the games \
                     already played are unknown (move the file away or use another seed)",
                    progress_path.display()
                ),
            }),
            Some(state) if lines > state.positions => Ok(ThreadState {
                next_game: state.next_game + 1,
                games: state.games + 1,
                positions: lines,
            }),
            Some(state) => Ok(ThreadState {
                positions: lines,
                ..state
            }),
        }
    }

    fn parse(text: &str) -> Option<ThreadState> {
        let mut state = ThreadState::default();
        let mut seen = 0;
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let (key, value) = line.split_once(' ')?;
            let value: u64 = value.trim().parse().ok()?;
            match key {
                "next_game" => state.next_game = value,
                "games" => state.games = value,
                "positions" => state.positions = value,
                _ => return None,
            }
            seen += 1;
        }
        (seen == 3).then_some(state)
    }

    /// Writes the progress file through a temporary file renamed into place.
    pub(super) fn save(&self, path: &Path) -> Result<(), Error> {
        let text = format!(
            "next_game {}\ngames {}\npositions {}\n",
            self.next_game, self.games, self.positions
        );
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".partial");
        let temporary = PathBuf::from(temporary);
        fs::write(&temporary, text)
            .and_then(|()| fs::rename(&temporary, path))
            .map_err(|error| file_error(path, error))
    }
}

/// The lines of the file at `path` (0 if there is none), after cutting off a last line without
/// its newline (a write cut short).
fn count_whole_lines(path: &Path) -> Result<u64, Error> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(error) => return Err(file_error(path, error)),
    };
    let counted = (|| {
        let mut buffer = vec![0u8; 1 << 16];
        let (mut lines, mut length, mut whole) = (0u64, 0u64, 0u64);
        loop {
            let read = file.read(&mut buffer)?;
            if read == 0 {
                break;
            }
            for (index, byte) in buffer[..read].iter().enumerate() {
                if *byte == b'\n' {
                    lines += 1;
                    whole = length + index as u64 + 1;
                }
            }
            length += read as u64;
        }
        if whole < length {
            truncate(&mut file, whole)?;
        }
        Ok(lines)
    })();
    counted.map_err(|error: io::Error| file_error(path, error))
}

fn truncate(file: &mut File, length: u64) -> io::Result<()> {
    file.set_len(length)?;
    file.seek(SeekFrom::End(0)).map(|_| ())
}

pub(super) fn file_error(path: &Path, error: io::Error) -> Error {
    Error::File {
        path: path.display().to_string(),
        message: error.to_string(),
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use std::fs;
    use std::path::PathBuf;

    /// A fresh directory under the system's temporary one, removed when dropped.
    pub(crate) struct TemporaryDirectory(pub(crate) PathBuf);

    impl TemporaryDirectory {
        pub(crate) fn new(name: &str) -> TemporaryDirectory {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.subsec_nanos());
            let path = std::env::temp_dir()
                .join(format!("ferrochess-{name}-{}-{nanos}", std::process::id()));
            fs::create_dir_all(&path).unwrap();
            TemporaryDirectory(path)
        }
    }

    impl Drop for TemporaryDirectory {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::TemporaryDirectory;
    use super::*;

    #[test]
    fn a_game_written_but_not_recorded_and_a_cut_line_are_repaired() {
        let directory = TemporaryDirectory::new("datagen-repair");
        let output = directory.0.as_path();
        let (data, progress) = thread_paths(output, 3, 0);
        let line = "8/8/8/8/8/8/8/K1k5 w - - 0 1 | 0 | 0.5\n";
        fs::write(&data, format!("{line}{line}8/8/8/8/8/8/8/K1k5 w - - 0")).unwrap();
        ThreadState {
            next_game: 5,
            games: 1,
            positions: 1,
        }
        .save(&progress)
        .unwrap();
        let state = ThreadState::load(output, 3, 0).unwrap();
        let expected = ThreadState {
            next_game: 6,
            games: 2,
            positions: 2,
        };
        assert_eq!(state, expected);
        assert_eq!(fs::read_to_string(&data).unwrap(), format!("{line}{line}"));
        // Lines without a progress file: the games played are unknown, so nothing is guessed.
        fs::remove_file(&progress).unwrap();
        let error = ThreadState::load(output, 3, 0).unwrap_err().to_string();
        assert!(error.contains("progress file"), "{error}");
    }
}
