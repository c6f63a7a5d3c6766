//! Playing levels, from a beginner to full strength, and any Elo in between.
//!
//! A level weakens the engine the way a weaker player is weak, not by random blunders: it looks
//! less far ahead (a depth and node cap), and it chooses among the few moves its shallow search
//! rates close to the best, more loosely the lower the level ([`Strength`]). Every move it plays
//! is one a search considered good, so beginner levels play natural moves and miss deeper
//! tactics. The strongest level is the plain search.
//!
//! The ten levels are points on one continuous strength curve ([`strength`]); their Elo comes
//! from a table that only `python -m ferrochess_tools.calibrate` writes ([`table`], `make calibrate`): games
//! against Stockfish 15.1 `UCI_Elo` anchors and between neighbouring levels, fitted jointly. A
//! level's [`Calibration`] is not written down but derived: `measured` while the settings, the
//! network and the search it was measured with are the current ones (their fingerprint), `stale`
//! otherwise.
//! [`Level::for_elo`] turns any Elo into settings between the two levels around it.

mod player;
pub mod strength;
#[rustfmt::skip]
pub mod table;

use std::sync::LazyLock;

pub use player::Player;
pub use strength::Strength;

use crate::error::Error;
use crate::eval::nnue::DEFAULT_NETWORK_NAME;

/// The Elo range `UCI_Elo` and `Engine.play(elo=...)` accept. Inside it, an Elo below level 1's
/// plays level 1 and one above full strength's plays full strength (the curve ends there).
pub const ELO_MIN: i64 = 800;
pub const ELO_MAX: i64 = 2800;

/// One level's row of the generated [`table`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Measurement {
    pub number: u8,
    pub name: &'static str,
    /// Fitted Elo on Stockfish 15.1's `UCI_Elo` scale at [`Record::time_control`].
    pub elo: i32,
    /// The 95% interval's ends (`None` when the table carries no interval).
    pub low: Option<i32>,
    pub high: Option<i32>,
    /// Games the level played in the fit.
    pub games: u32,
    /// [`Strength::fingerprint`] of the settings, network and search measured (0: none of today's).
    pub fingerprint: u64,
}

/// How, when and with what the [`table`] was made.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub date: &'static str,
    pub commit: &'static str,
    /// The `Bench:` signature of the search measured.
    pub bench: Option<u64>,
    /// The evaluation measured: a network's name, or `classic`.
    pub network: &'static str,
    /// Base + increment in seconds, per game.
    pub time_control: &'static str,
    pub anchors: &'static str,
    /// Games in the fit, all pairings together.
    pub games: u32,
    /// Wall time the games took, in minutes (`None`: not recorded).
    pub play_minutes: Option<u32>,
    /// How the ratings and intervals were fitted.
    pub method: &'static str,
    pub note: &'static str,
}

/// A requested Elo played in games (`python -m ferrochess_tools.calibrate --check-elo`) and what it measured.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// The `UCI_Elo` asked for.
    pub asked: i32,
    pub elo: i32,
    pub low: i32,
    pub high: i32,
    pub games: u32,
}

/// One playing level.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Level {
    /// 1 (weakest) to [`LEVELS`]`.len()` (full strength).
    pub number: u8,
    pub name: &'static str,
    /// The settings: the strength curve at `number` ([`Strength::at`]).
    pub strength: Strength,
    /// About how strongly it plays, in Elo on Stockfish 15.1's `UCI_Elo` scale at the table's
    /// time control (10 s + 0.1 s): what `UCI_Elo` and [`Level::for_elo`] interpolate between.
    pub elo: i32,
    /// The 95% interval of [`Level::elo`] (`None` when the table has none).
    pub elo_low: Option<i32>,
    pub elo_high: Option<i32>,
    /// Games behind [`Level::elo`].
    pub games: u32,
    /// Whether [`Level::elo`] was measured with these settings and the current network.
    pub calibration: Calibration,
}

/// How far a level's [`Level::elo`] can be trusted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Calibration {
    /// Measured in games with the current settings, network and search.
    Measured,
    /// Measured with other settings or another evaluation: the level may play stronger or weaker
    /// than its Elo says.
    Stale,
}

impl Calibration {
    /// `"measured"` or `"stale"`, as Python, the play page and the notebook show it.
    pub fn name(self) -> &'static str {
        match self {
            Calibration::Measured => "measured",
            Calibration::Stale => "stale",
        }
    }
}

/// The level a player starts at when none is chosen: 4, "Improver" (the play page, the notebook
/// board and the web app's `FERROCHESS_DEFAULT_LEVEL` read it from here).
pub const DEFAULT_LEVEL: u8 = 4;

/// The levels, weakest first: the strength curve at 1, 2, ... 10, named and rated by the
/// generated [`table`] (see its header for when and how it was measured).
pub static LEVELS: LazyLock<[Level; 10]> = LazyLock::new(|| {
    table::MEASUREMENTS.map(|row| {
        let strength = Strength::at(f64::from(row.number));
        let calibration = if row.fingerprint == strength.fingerprint(DEFAULT_NETWORK_NAME) {
            Calibration::Measured
        } else {
            Calibration::Stale
        };
        Level {
            number: row.number,
            name: row.name,
            strength,
            elo: row.elo,
            elo_low: row.low,
            elo_high: row.high,
            games: row.games,
            calibration,
        }
    })
});

impl Level {
    /// Level `number`, 1 to 10.
    pub fn get(number: i64) -> Result<Level, Error> {
        usize::try_from(number)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|index| LEVELS.get(index))
            .copied()
            .ok_or_else(|| {
                Error::argument(
                    "level",
                    number,
                    format!("must be between 1 and {}", LEVELS.len()),
                )
            })
    }

    /// The settings that play at about `elo` ([`ELO_MIN`] to [`ELO_MAX`], else an error naming
    /// `elo`): the strength curve between the two levels whose Elo is around it, at the point
    /// that divides the way from one to the other as `elo` divides their Elo. That interpolates
    /// the node cap on its log scale, rounds the depth cap from the line between the two levels'
    /// caps ([`Strength::at`]), and gives each level's own settings at its own Elo. Below
    /// level 1's Elo it is level 1, from full strength's Elo on it is full strength.
    pub fn for_elo(elo: i64) -> Result<Strength, Error> {
        if !(ELO_MIN..=ELO_MAX).contains(&elo) {
            return Err(Error::argument(
                "elo",
                elo,
                format!("must be between {ELO_MIN} and {ELO_MAX}"),
            ));
        }
        let elos: Vec<i32> = LEVELS.iter().map(|level| level.elo).collect();
        Ok(Strength::at(coordinate_for_elo(&elos, elo as f64)))
    }
}

/// The level coordinate (1.0 = the first level, `elos.len()` = the last) at which `elo` lies
/// between the levels rated `elos` (weakest first, at least one). It never falls as `elo` rises:
/// the Elos are first made non-decreasing (a level measured below the one beneath it is taken
/// at that one's Elo), and where levels share an Elo it gives the strongest of them.
pub fn coordinate_for_elo(elos: &[i32], elo: f64) -> f64 {
    let mut rising: Vec<f64> = Vec::with_capacity(elos.len());
    for &level_elo in elos {
        let floor = rising.last().copied().unwrap_or(f64::NEG_INFINITY);
        rising.push(f64::from(level_elo).max(floor));
    }
    let Some(&first) = rising.first() else {
        return 1.0;
    };
    if elo < first {
        return 1.0;
    }
    for (index, pair) in rising.windows(2).enumerate() {
        let (below, above) = (pair[0], pair[1]);
        if elo < above {
            // below <= elo < above, so above > below.
            return (index + 1) as f64 + (elo - below) / (above - below);
        }
    }
    rising.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_numbered_in_order_and_bad_numbers_are_refused() {
        for (index, level) in LEVELS.iter().enumerate() {
            assert_eq!(usize::from(level.number), index + 1);
            assert_eq!(Level::get(index as i64 + 1).unwrap(), *level);
            assert_eq!(level.strength, Strength::at((index + 1) as f64));
        }
        assert!(LEVELS[9].strength.is_full());
        for bad in [0, 11, -3] {
            let error = Level::get(bad).unwrap_err();
            assert!(
                error.to_string().contains(&format!("level {bad}")),
                "{error}"
            );
        }
    }

    #[test]
    fn the_table_is_whole_and_its_elo_never_falls() {
        assert_eq!(table::MEASUREMENTS.len(), LEVELS.len());
        let elos: Vec<i32> = LEVELS.iter().map(|level| level.elo).collect();
        assert!(elos.windows(2).all(|pair| pair[0] <= pair[1]), "{elos:?}");
        for level in LEVELS.iter() {
            if let (Some(low), Some(high)) = (level.elo_low, level.elo_high) {
                assert!(low <= level.elo && level.elo <= high, "{level:?}");
            }
        }
    }

    #[test]
    fn calibration_is_derived_from_the_fingerprint() {
        for (level, row) in LEVELS.iter().zip(table::MEASUREMENTS) {
            let current = level.strength.fingerprint(DEFAULT_NETWORK_NAME);
            let measured = level.calibration == Calibration::Measured;
            assert_eq!(
                measured,
                row.fingerprint == current,
                "level {}",
                level.number
            );
        }
    }

    #[test]
    fn interpolation_hits_the_levels_and_never_falls() {
        let elos = [800, 1000, 1300, 1300, 1500, 1400, 2000];
        // Each level's own Elo gives that level (the strongest of levels sharing one; level 6,
        // measured below level 5, is taken at level 5's Elo).
        assert_eq!(coordinate_for_elo(&elos, 800.0), 1.0);
        assert_eq!(coordinate_for_elo(&elos, 1000.0), 2.0);
        assert_eq!(coordinate_for_elo(&elos, 1300.0), 4.0);
        assert_eq!(coordinate_for_elo(&elos, 2000.0), 7.0);
        // Between two levels, in proportion; clamped at both ends.
        assert_eq!(coordinate_for_elo(&elos, 900.0), 1.5);
        assert_eq!(coordinate_for_elo(&elos, 1150.0), 2.5);
        assert_eq!(coordinate_for_elo(&elos, 100.0), 1.0);
        assert_eq!(coordinate_for_elo(&elos, 2500.0), 7.0);
        let mut previous = 0.0;
        for elo in (0..3000).step_by(7) {
            let here = coordinate_for_elo(&elos, f64::from(elo));
            assert!(here >= previous, "{elo}: {here} < {previous}");
            assert!((1.0..=7.0).contains(&here));
            previous = here;
        }
    }

    #[test]
    fn any_elo_in_range_plays_between_its_levels() {
        // Endpoints: a level's own Elo gives its settings (where no other level shares it).
        for (index, level) in LEVELS.iter().enumerate() {
            let shared = LEVELS
                .iter()
                .enumerate()
                .any(|(other, l)| other > index && l.elo == level.elo);
            if !shared && (ELO_MIN..=ELO_MAX).contains(&i64::from(level.elo)) {
                assert_eq!(
                    Level::for_elo(level.elo.into()).unwrap(),
                    level.strength,
                    "level {}",
                    level.number
                );
            }
        }
        // Monotone: asking for more Elo never gives a smaller node cap.
        let mut previous = Level::for_elo(ELO_MIN).unwrap();
        for elo in (ELO_MIN..=ELO_MAX).step_by(10) {
            let here = Level::for_elo(elo).unwrap();
            let nodes = |s: &Strength| s.max_nodes.unwrap_or(u64::MAX);
            assert!(nodes(&here) >= nodes(&previous), "{elo}");
            assert!(here.temperature <= previous.temperature, "{elo}");
            previous = here;
        }
        if i64::from(LEVELS[0].elo) >= ELO_MIN {
            assert_eq!(Level::for_elo(ELO_MIN).unwrap(), LEVELS[0].strength);
        }
        if i64::from(LEVELS[9].elo) <= ELO_MAX {
            assert!(Level::for_elo(ELO_MAX).unwrap().is_full());
        }
        for bad in [ELO_MIN - 1, ELO_MAX + 1, -5] {
            let error = Level::for_elo(bad).unwrap_err();
            assert!(error.to_string().contains(&format!("elo {bad}")), "{error}");
        }
    }
}
