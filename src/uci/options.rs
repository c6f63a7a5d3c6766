//! The UCI options the engine offers, their ranges, and `setoption` parsing. A build with the
//! `tune` feature also offers every search tunable ([`crate::search::params::TUNABLES`]) as a spin
//! option of its name, for the SPSA tuner (docs/tuning.md).

use std::fmt::Write as _;

use crate::level::{LEVELS, Level, Strength};
use crate::search::params::{DEFAULT_MOVE_OVERHEAD_MS, MAX_MOVE_OVERHEAD_MS};
use crate::search::{DEFAULT_HASH_MB, DEFAULT_THREADS, MAX_MULTIPV, MAX_THREADS};
use crate::transposition::MAX_HASH_MB;

/// `UCI_Elo`'s range; each level's own Elo is [`crate::level::Level::elo`].
pub use crate::level::{ELO_MAX, ELO_MIN};

/// Every option's current value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub own_book: bool,
    /// `"default"` (the compiled-in book) or a path.
    pub book_file: String,
    /// Empty for none.
    pub syzygy_path: String,
    pub move_overhead_ms: u64,
    pub limit_strength: bool,
    pub elo: i64,
    /// `Level`: 1 to 10 plays at that level whatever `UCI_LimitStrength` says; 0 (the default)
    /// leaves the strength to `UCI_LimitStrength` and `UCI_Elo`.
    pub level: u8,
    /// [`EVALUATION_NETWORK`] or [`EVALUATION_CLASSIC`].
    pub evaluation: String,
    /// [`DEFAULT_EVAL_FILE`] (the compiled-in network) or the path of a network file.
    pub eval_file: String,
    /// `UCI_Chess960`: positions are read in Chess960 castling mode and castling is written as
    /// the king taking its own rook.
    pub chess960: bool,
}

/// The `Evaluation` option's choices: the network (the default) or the hand-crafted evaluation.
pub const EVALUATION_NETWORK: &str = "network";
pub const EVALUATION_CLASSIC: &str = "classic";
/// `EvalFile`'s value for the network compiled into the engine.
pub const DEFAULT_EVAL_FILE: &str = "<default>";

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            threads: DEFAULT_THREADS,
            multipv: 1,
            own_book: true,
            book_file: crate::book::DEFAULT_BOOK_NAME.to_string(),
            syzygy_path: String::new(),
            move_overhead_ms: DEFAULT_MOVE_OVERHEAD_MS,
            limit_strength: false,
            elo: ELO_MAX,
            level: 0,
            evaluation: EVALUATION_NETWORK.to_string(),
            eval_file: DEFAULT_EVAL_FILE.to_string(),
            chess960: false,
        }
    }
}

impl Options {
    /// The `option ...` lines of the `uci` answer.
    pub fn declarations(&self) -> String {
        let mut out = String::new();
        let spin = |out: &mut String, name: &str, default: i64, min: i64, max: i64| {
            let _ = writeln!(
                out,
                "option name {name} type spin default {default} min {min} max {max}"
            );
        };
        spin(&mut out, "Hash", self.hash_mb as i64, 1, MAX_HASH_MB as i64);
        spin(
            &mut out,
            "Threads",
            self.threads as i64,
            1,
            MAX_THREADS as i64,
        );
        spin(&mut out, "MultiPV", 1, 1, MAX_MULTIPV as i64);
        let _ = writeln!(
            out,
            "option name OwnBook type check default {}",
            self.own_book
        );
        let _ = writeln!(
            out,
            "option name BookFile type string default {}",
            self.book_file
        );
        let syzygy = if self.syzygy_path.is_empty() {
            "<empty>"
        } else {
            &self.syzygy_path
        };
        let _ = writeln!(out, "option name SyzygyPath type string default {syzygy}");
        spin(
            &mut out,
            "Move Overhead",
            self.move_overhead_ms as i64,
            0,
            MAX_MOVE_OVERHEAD_MS as i64,
        );
        let _ = writeln!(
            out,
            "option name UCI_LimitStrength type check default false"
        );
        spin(&mut out, "UCI_Elo", ELO_MAX, ELO_MIN, ELO_MAX);
        spin(&mut out, "Level", 0, 0, LEVELS.len() as i64);
        let _ = writeln!(
            out,
            "option name Evaluation type combo default {} var {EVALUATION_NETWORK} var {EVALUATION_CLASSIC}",
            self.evaluation
        );
        let _ = writeln!(
            out,
            "option name EvalFile type string default {}",
            self.eval_file
        );
        let _ = writeln!(
            out,
            "option name UCI_Chess960 type check default {}",
            self.chess960
        );
        #[cfg(feature = "tune")]
        for tunable in crate::search::params::TUNABLES {
            let (min, max) = (tunable.min.into(), tunable.max.into());
            spin(&mut out, tunable.name, tunable.value().into(), min, max);
        }
        out
    }

    /// Applies `setoption name <name> [value <value>]` (the text after `setoption`). Returns what
    /// changed, or a message for an unknown option or a bad value (which changes nothing).
    pub fn set(&mut self, arguments: &str) -> Result<Changed, String> {
        let rest = arguments
            .trim()
            .strip_prefix("name")
            .map(str::trim)
            .unwrap_or_default();
        let (name, value) = match rest.find(" value") {
            Some(at) => (rest[..at].trim(), rest[at + " value".len()..].trim()),
            None => (rest, ""),
        };
        let spin = |min: i64, max: i64| -> Result<i64, String> {
            let parsed: i64 = value
                .parse()
                .map_err(|_| format!("option {name}: '{value}' is not a number"))?;
            if (min..=max).contains(&parsed) {
                Ok(parsed)
            } else {
                Err(format!("option {name}: {parsed} is outside {min}..{max}"))
            }
        };
        let check = || -> Result<bool, String> {
            match value.to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(format!("option {name}: '{value}' is not true or false")),
            }
        };
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                self.hash_mb = spin(1, MAX_HASH_MB as i64)? as usize;
                Ok(Changed::Hash)
            }
            "threads" => {
                self.threads = spin(1, MAX_THREADS as i64)? as usize;
                Ok(Changed::Threads)
            }
            "multipv" => {
                self.multipv = spin(1, MAX_MULTIPV as i64)? as usize;
                Ok(Changed::Nothing)
            }
            "ownbook" => {
                self.own_book = check()?;
                Ok(Changed::Nothing)
            }
            "bookfile" => {
                self.book_file = value.to_string();
                Ok(Changed::Book)
            }
            "syzygypath" => {
                self.syzygy_path = if value == "<empty>" {
                    String::new()
                } else {
                    value.to_string()
                };
                Ok(Changed::Tablebase)
            }
            "move overhead" => {
                self.move_overhead_ms = spin(0, MAX_MOVE_OVERHEAD_MS as i64)? as u64;
                Ok(Changed::Nothing)
            }
            "uci_limitstrength" => {
                self.limit_strength = check()?;
                Ok(Changed::Nothing)
            }
            "uci_elo" => {
                self.elo = spin(ELO_MIN, ELO_MAX)?;
                Ok(Changed::Nothing)
            }
            "level" => {
                self.level = spin(0, LEVELS.len() as i64)? as u8;
                Ok(Changed::Nothing)
            }
            "evaluation" => {
                let choice = value.to_ascii_lowercase();
                if choice != EVALUATION_NETWORK && choice != EVALUATION_CLASSIC {
                    return Err(format!(
                        "option {name}: '{value}' is not {EVALUATION_NETWORK} or {EVALUATION_CLASSIC}"
                    ));
                }
                self.evaluation = choice;
                Ok(Changed::Evaluation)
            }
            "evalfile" => {
                self.eval_file = if value.is_empty() || value == "<empty>" {
                    DEFAULT_EVAL_FILE.to_string()
                } else {
                    value.to_string()
                };
                Ok(Changed::Evaluation)
            }
            "uci_chess960" => {
                self.chess960 = check()?;
                Ok(Changed::CastlingMode)
            }
            _ => {
                #[cfg(feature = "tune")]
                if let Some(tunable) = crate::search::params::Tunable::find(name) {
                    tunable.set(spin(tunable.min.into(), tunable.max.into())? as i32)?;
                    return Ok(Changed::Nothing);
                }
                Err(format!("unknown option '{name}'"))
            }
        }
    }

    /// How positions are read and castling moves written: Chess960 with `UCI_Chess960`.
    pub fn castling_mode(&self) -> shakmaty::CastlingMode {
        shakmaty::CastlingMode::from_chess960(self.chess960)
    }

    /// The strength the options ask for (`None`: full strength): `Level`'s when it is set, else
    /// with `UCI_LimitStrength` the curve at `UCI_Elo`, between the two levels around it
    /// ([`Level::for_elo`]).
    pub fn strength(&self) -> Option<Strength> {
        if self.level > 0 {
            return Level::get(self.level.into())
                .ok()
                .map(|level| level.strength);
        }
        if !self.limit_strength {
            return None;
        }
        // UCI_Elo is range-checked when set, so this cannot fail.
        Level::for_elo(self.elo).ok()
    }
}

/// What a `setoption` changed that needs more than storing the value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Changed {
    Nothing,
    Hash,
    Threads,
    Book,
    Tablebase,
    /// `Evaluation` or `EvalFile`.
    Evaluation,
    /// `UCI_Chess960`.
    CastlingMode,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_and_bad_values_change_nothing() {
        let mut options = Options::default();
        assert_eq!(options.set("name Hash value 64"), Ok(Changed::Hash));
        assert_eq!(options.hash_mb, 64);
        assert_eq!(
            options.set("name Move Overhead value 100"),
            Ok(Changed::Nothing)
        );
        assert_eq!(options.move_overhead_ms, 100);
        assert!(options.set("name Hash value lots").is_err());
        assert!(options.set("name Hash value 0").is_err());
        assert_eq!(options.hash_mb, 64);
        assert!(options.set("name NoSuchThing value 1").is_err());
        assert_eq!(
            options.set("name SyzygyPath value <empty>"),
            Ok(Changed::Tablebase)
        );
        assert_eq!(options.syzygy_path, "");
        assert_eq!(
            options.set("name BookFile value /tmp/my book.bin"),
            Ok(Changed::Book)
        );
        assert_eq!(options.book_file, "/tmp/my book.bin");
        assert!(!options.chess960);
        assert_eq!(
            options.set("name UCI_Chess960 value true"),
            Ok(Changed::CastlingMode)
        );
        assert!(options.chess960);
        assert!(options.set("name UCI_Chess960 value maybe").is_err());
        assert!(options.chess960);
        let declared = options.declarations();
        assert!(declared.contains("option name UCI_Chess960 type check default"));
    }

    #[test]
    fn chess960_is_offered_off() {
        let declared = Options::default().declarations();
        assert!(declared.contains("option name UCI_Chess960 type check default false\n"));
    }

    #[test]
    fn elo_maps_onto_the_curve_between_levels() {
        let mut options = Options::default();
        assert_eq!(options.strength(), None);
        options.set("name UCI_LimitStrength value true").unwrap();
        options.set("name UCI_Elo value 800").unwrap();
        assert_eq!(options.strength(), Some(Level::for_elo(800).unwrap()));
        options.set("name UCI_Elo value 2800").unwrap();
        assert_eq!(options.strength(), Some(Level::for_elo(2800).unwrap()));
        // Each level's own Elo (inside the range) selects it, or the strongest level measured
        // alike.
        let in_range = |level: &&Level| (ELO_MIN..=ELO_MAX).contains(&i64::from(level.elo));
        for level in LEVELS.iter().filter(in_range) {
            options
                .set(&format!("name UCI_Elo value {}", level.elo))
                .unwrap();
            let chosen = options.strength().unwrap();
            let same_elo: Vec<&Level> = LEVELS.iter().filter(|l| l.elo == level.elo).collect();
            assert_eq!(chosen, same_elo.last().unwrap().strength, "{level:?}");
        }
        // Between two levels it plays between them, not the lower one (the first two levels
        // rated inside the range, each a distinct Elo).
        let (one, two) = LEVELS
            .windows(2)
            .map(|pair| (pair[0], pair[1]))
            .find(|(one, two)| in_range(&one) && in_range(&two) && two.elo - one.elo >= 2)
            .expect("two neighbouring levels inside the range");
        let between = (one.elo + two.elo) / 2;
        options
            .set(&format!("name UCI_Elo value {between}"))
            .unwrap();
        let nodes = options.strength().unwrap().max_nodes.unwrap();
        assert!(one.strength.max_nodes.unwrap() < nodes, "{nodes}");
        assert!(nodes < two.strength.max_nodes.unwrap(), "{nodes}");
    }

    /// A tune build offers each tunable as a spin option; setting one checks its range (set here
    /// to its default, so searches running beside this test are unchanged).
    #[cfg(feature = "tune")]
    #[test]
    fn a_tune_build_offers_the_tunables() {
        use crate::search::params::TUNABLES;
        let mut options = Options::default();
        let declarations = options.declarations();
        for tunable in TUNABLES {
            let (name, value) = (tunable.name, tunable.value());
            let (min, max) = (tunable.min, tunable.max);
            let line = format!("option name {name} type spin default {value} min {min} max {max}");
            assert!(declarations.contains(&line), "{line}");
        }
        let tunable = &TUNABLES[0];
        let (name, default) = (tunable.name, tunable.default);
        assert_eq!(
            options.set(&format!("name {name} value {default}")),
            Ok(Changed::Nothing)
        );
        assert!(
            options
                .set(&format!("name {name} value {}", tunable.max + 1))
                .is_err()
        );
        assert_eq!(tunable.value(), default);
    }

    #[test]
    fn the_level_option_overrides_uci_elo() {
        let mut options = Options::default();
        assert_eq!(options.set("name Level value 3"), Ok(Changed::Nothing));
        assert_eq!(options.strength(), Some(LEVELS[2].strength));
        options.set("name UCI_LimitStrength value true").unwrap();
        options.set("name UCI_Elo value 2000").unwrap();
        assert_eq!(options.strength(), Some(LEVELS[2].strength));
        options.set("name Level value 0").unwrap();
        assert_eq!(options.strength(), Some(Level::for_elo(2000).unwrap()));
        assert!(options.set("name Level value 11").is_err());
        assert_eq!(options.level, 0);
    }
}
