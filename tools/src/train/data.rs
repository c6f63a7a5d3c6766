//! The training data: `FEN | score | result` lines from text or gzip files, each parsed once
//! into a 32-byte [`Sample`] (20 million positions take 640 MB), and the split between training
//! and validation positions.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use ferrochess::position::parse_fen;
use flate2::read::MultiGzDecoder;
use rayon::prelude::*;
use shakmaty::{Chess, Color, Position as _, Square};

use super::options::{Failure, Options};
use super::quantisation::SCALE;

/// Lines parsed together (split between the threads) while loading.
const LINES_PER_CHUNK: usize = 1 << 15;

/// A position as the trainer keeps it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    /// The occupied squares (bit `i` is square `i`, a1 = 0).
    pub(crate) occupancy: u64,
    /// The pieces on the occupied squares in ascending order, two a byte (low half first):
    /// `color * 6 + role - 1`, White 0 and Black 1.
    pub(crate) pieces: [u8; 16],
    /// The score for the side to move, centipawns.
    pub(crate) score: i16,
    /// The result for the side to move in half points: 0, 1 or 2.
    pub(crate) result: u8,
    /// 0 White to move, 1 Black.
    pub(crate) turn: u8,
}

const _: () = assert!(std::mem::size_of::<Sample>() == 32);

impl Sample {
    /// `None` when the board has more than 32 pieces.
    pub(crate) fn new(board: &Chess, white_score: f32, white_result: f32) -> Option<Sample> {
        let occupancy = u64::from(board.board().occupied());
        if occupancy.count_ones() > 32 {
            return None;
        }
        let mut pieces = [0u8; 16];
        let mut bits = occupancy;
        let mut count = 0;
        while bits != 0 {
            let square = Square::new(bits.trailing_zeros());
            bits &= bits - 1;
            let piece = board.board().piece_at(square)?;
            let code = 6 * u8::from(piece.color == Color::Black) + (piece.role as u8 - 1);
            pieces[count / 2] |= code << (4 * (count % 2));
            count += 1;
        }
        let score = white_score.round().clamp(-32767.0, 32767.0) as i16;
        let result = (white_result * 2.0).round() as u8;
        Some(match board.turn() {
            Color::White => Sample {
                occupancy,
                pieces,
                score,
                result,
                turn: 0,
            },
            Color::Black => Sample {
                occupancy,
                pieces,
                score: -score,
                result: 2 - result,
                turn: 1,
            },
        })
    }

    /// What the network learns to predict for this position.
    pub(crate) fn target(&self, wdl: f32) -> f32 {
        wdl * f32::from(self.result) / 2.0 + (1.0 - wdl) * sigmoid(f32::from(self.score) / SCALE)
    }
}

pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The lines of a text file, or of a `.gz` file (every gzip member of it, as `gzip -dc` reads
/// them).
struct LineReader {
    path: PathBuf,
    reader: Box<dyn BufRead>,
}

impl LineReader {
    fn open(path: &Path) -> Result<LineReader, Failure> {
        let file = File::open(path).map_err(|error| format!("{}: {error}", path.display()))?;
        let reader: Box<dyn BufRead> = if path.extension() == Some("gz".as_ref()) {
            Box::new(BufReader::with_capacity(1 << 20, MultiGzDecoder::new(file)))
        } else {
            Box::new(BufReader::with_capacity(1 << 20, file))
        };
        Ok(LineReader {
            path: path.to_path_buf(),
            reader,
        })
    }

    /// Reads the next line into `line` (without its end); `false` at the end of the file.
    fn read(&mut self, line: &mut Vec<u8>) -> Result<bool, Failure> {
        line.clear();
        let bytes = self
            .reader
            .read_until(b'\n', line)
            .map_err(|error| format!("{}: {error}", self.path.display()))?;
        while line
            .last()
            .is_some_and(|byte| matches!(byte, b'\n' | b'\r'))
        {
            line.pop();
        }
        Ok(bytes > 0)
    }
}

/// A position read from a line, with its board (kept only for the validation set).
pub(crate) struct Parsed {
    pub(crate) sample: Sample,
    pub(crate) board: Chess,
}

/// Lines in one block of the split between training and validation: the positions of a game
/// are consecutive lines (about 70 of them), so whole blocks of some 30 games are held out and a
/// game's positions (which resemble one another) are seldom on both sides. A split by position
/// measured 0.0066 on validation where new games from the same engine gave 0.0138.
const VALIDATION_BLOCK_LINES: usize = 2000;

/// Whether line `number` (from 0) of a file is held out for validation: one block in
/// `one_in`.
fn held_out(number: usize, one_in: u64) -> bool {
    (number / VALIDATION_BLOCK_LINES) as u64 % one_in == one_in / 2
}

/// One line: `FEN | score | result`, both from White's side; `None` for a blank line.
pub(crate) fn parse_line(line: &[u8]) -> Result<Option<Parsed>, String> {
    let line = std::str::from_utf8(line).map_err(|_| "not UTF-8".to_string())?;
    if line.trim().is_empty() {
        return Ok(None);
    }
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [fen, score, result] = fields[..] else {
        return Err(format!(
            "{} fields, expected FEN | score | result",
            fields.len()
        ));
    };
    let score: f32 = score
        .parse()
        .ok()
        .filter(|score: &f32| score.is_finite())
        .ok_or(format!("score {score:?} is not a number"))?;
    let result: f32 = result
        .parse()
        .ok()
        .filter(|result| [0.0, 0.5, 1.0].contains(result))
        .ok_or(format!("result {result:?} is not 1.0, 0.5 or 0.0"))?;
    let board = parse_fen(fen).map_err(|error| error.to_string())?;
    let sample = Sample::new(&board, score, result).ok_or("more than 32 pieces")?;
    Ok(Some(Parsed { sample, board }))
}

/// The positions read, split into training and validation.
#[derive(Default)]
pub(crate) struct Data {
    pub(crate) train: Vec<Sample>,
    pub(crate) validation: Vec<Sample>,
    pub(crate) validation_boards: Vec<Chess>,
    /// Per file: (name, lines read, malformed lines).
    pub(crate) files: Vec<(String, usize, usize)>,
}

/// Reads every file (at most `options.limit` lines in all), parsing in parallel.
pub(crate) fn load(options: &Options) -> Result<Data, Failure> {
    let mut data = Data::default();
    let mut lines = vec![Vec::new(); LINES_PER_CHUNK];
    let mut remaining = options.limit;
    for path in &options.paths {
        let mut reader = LineReader::open(path)?;
        let (mut read, mut malformed) = (0, 0);
        let mut read_all = false;
        while remaining > 0 && !read_all {
            let wanted = LINES_PER_CHUNK.min(remaining);
            let mut filled = 0;
            while filled < wanted {
                if !reader.read(&mut lines[filled])? {
                    read_all = true;
                    break;
                }
                filled += 1;
            }
            let parsed: Vec<_> = lines[..filled]
                .par_iter()
                .map(|line| parse_line(line))
                .collect();
            for (number, outcome) in parsed.into_iter().enumerate() {
                match outcome {
                    Ok(None) => {}
                    Ok(Some(Parsed { sample, board }))
                        if held_out(read + number, options.validation_one_in) =>
                    {
                        data.validation.push(sample);
                        data.validation_boards.push(board);
                    }
                    Ok(Some(Parsed { sample, .. })) => data.train.push(sample),
                    Err(reason) => {
                        if malformed == 0 {
                            let line = read + number + 1;
                            eprintln!("{}:{line}: skipped: {reason}", path.display());
                        }
                        malformed += 1;
                    }
                }
            }
            read += filled;
            remaining -= filled;
        }
        let name = path.file_name().map_or(path.display().to_string(), |name| {
            name.to_string_lossy().into_owned()
        });
        eprintln!("{name}: {read} lines, {malformed} malformed (skipped)");
        data.files.push((name, read, malformed));
    }
    if data.train.is_empty() || data.validation.is_empty() {
        return Err(format!(
            "{} training and {} validation positions: need some of each",
            data.train.len(),
            data.validation.len()
        )
        .into());
    }
    if data.train.len() > u32::MAX as usize {
        return Err("more than 2^32 training positions".into());
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::super::testing::FENS;
    use super::*;

    #[test]
    fn a_malformed_line_is_a_reason_and_a_blank_one_nothing() {
        let fen = FENS[0];
        for line in [String::new(), "   ".to_string()] {
            assert!(matches!(parse_line(line.as_bytes()), Ok(None)));
        }
        for line in [
            format!("{fen} | 12"),
            format!("{fen} | x | 1.0"),
            format!("{fen} | 12 | 0.7"),
            format!("{fen} | inf | 1.0"),
            "8/8/8 w - - 0 1 | 0 | 0.5".to_string(),
            format!("{fen} | 1 | 1.0 | 2"),
        ] {
            assert!(parse_line(line.as_bytes()).is_err(), "{line}");
        }
        assert!(parse_line(&[0xff, b'|', b'|']).is_err());
        assert!(matches!(
            parse_line(format!("{fen} | -30 | 0.5").as_bytes()),
            Ok(Some(_))
        ));
    }
}
