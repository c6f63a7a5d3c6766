//! Playing levels, from a beginner to full strength.
//!
//! A level weakens the engine the way a weaker player is weak, not by random blunders: it looks
//! less far ahead (a depth and node cap), and it chooses among the few moves its shallow search
//! rates close to the best ([`Level::candidates`] lines within [`Level::window`] centipawns), more
//! loosely the lower the level ([`Level::temperature`]). Every move it plays is one a search
//! considered good, so beginner levels play natural moves and miss deeper tactics. The strongest
//! level is the plain search. The levels are meant to be calibrated in Elo by games (the strength
//! issue); until then their names are descriptions, not ratings.

use crate::book::choice::Random;
use crate::error::Error;
use crate::limits::SearchLimits;
use crate::search::Line;

/// One playing level.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Level {
    /// 1 (weakest) to [`LEVELS`]`.len()` (full strength).
    pub number: u8,
    pub name: &'static str,
    /// Deepest nominal search, in plies; `None` for no cap.
    pub max_depth: Option<u32>,
    /// Most nodes per move; `None` for no cap.
    pub max_nodes: Option<u64>,
    /// Lines searched to choose from (1: always the best).
    pub candidates: usize,
    /// Only lines within this many centipawns of the best are chosen.
    pub window: i32,
    /// How loosely the choice follows the scores: a line `temperature` centipawns worse than the
    /// best is chosen e (2.718) times less often. 0 always plays the best.
    pub temperature: i32,
    /// About how strongly it plays, in Elo on Stockfish 15.1's `UCI_Elo` scale at 10 s + 0.1 s a
    /// game: what `UCI_LimitStrength` maps `UCI_Elo` onto. Measured in games (BENCHMARKS.md,
    /// "Playing strength"); see [`LEVELS`] for how.
    pub elo: u16,
    /// Whether [`Level::elo`] was measured with the search as it is now.
    pub calibration: Calibration,
}

/// How far a level's [`Level::elo`] can be trusted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Calibration {
    /// Measured in games with the current search.
    Measured,
    /// Measured with an older, weaker search or evaluation: the level plays stronger than its
    /// Elo says.
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

#[allow(clippy::too_many_arguments)]
const fn level(
    number: u8,
    name: &'static str,
    max_depth: u32,
    max_nodes: u64,
    candidates: usize,
    window: i32,
    temperature: i32,
    elo: u16,
) -> Level {
    Level {
        number,
        name,
        max_depth: Some(max_depth),
        max_nodes: Some(max_nodes),
        candidates,
        window,
        temperature,
        elo,
        calibration: Calibration::Stale,
    }
}

/// The level a player starts at when none is chosen: 4, "Improver" (the play page, the notebook
/// board and the web app's `FERROCHESS_DEFAULT_LEVEL` read it from here).
pub const DEFAULT_LEVEL: u8 = 4;

/// The levels, weakest first.
///
/// Each level's [`Level::elo`] comes from matches against Stockfish 15.1's `UCI_Elo` at 10 s + 0.1 s
/// (BENCHMARKS.md, "Playing strength before issue 10", every match and how the table was read off),
/// played with the search as it was before issue 10's pruning and evaluation terms. Full strength
/// was measured again after them (BENCHMARKS.md, "The ladder, after the steps": 300 games
/// against `UCI_Elo` 2000, 2200 and 2400, performance 2208); levels 1 to 9 have not been yet.
/// Issue 19 then made the network the evaluation, which beat the hand-crafted one by +168 Elo
/// at 10 s + 0.1 s (BENCHMARKS.md, "Neural evaluation"), so every value is stale
/// ([`Calibration::Stale`], which the play page and notebook show) until issue 20's
/// calibration measures the levels again.
pub const LEVELS: [Level; 10] = [
    level(1, "Beginner", 1, 2_000, 5, 250, 120, 838),
    level(2, "Novice", 1, 5_000, 4, 150, 70, 1081),
    level(3, "Casual", 2, 10_000, 4, 100, 45, 1261),
    level(4, "Improver", 3, 30_000, 3, 70, 30, 1557),
    level(5, "Club", 4, 80_000, 3, 45, 18, 1600),
    level(6, "Strong club", 5, 200_000, 2, 30, 10, 1905),
    level(7, "Expert", 7, 600_000, 2, 15, 5, 1905),
    level(8, "Candidate master", 9, 2_000_000, 1, 0, 0, 1925),
    level(9, "Master", 12, 8_000_000, 1, 0, 0, 1995),
    Level {
        number: 10,
        name: "Full strength",
        max_depth: None,
        max_nodes: None,
        candidates: 1,
        window: 0,
        temperature: 0,
        elo: 2208,
        calibration: Calibration::Stale,
    },
];

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

    /// `limits` with this level's caps added (the tighter of the two wins).
    pub fn cap(&self, limits: &SearchLimits) -> SearchLimits {
        let tighter = |given: Option<u64>, cap: Option<u64>| match (given, cap) {
            (Some(given), Some(cap)) => Some(given.min(cap)),
            (given, cap) => given.or(cap),
        };
        SearchLimits {
            depth: tighter(limits.depth.map(u64::from), self.max_depth.map(u64::from))
                .map(|depth| depth as u32),
            nodes: tighter(limits.nodes, self.max_nodes),
            ..limits.clone()
        }
    }

    /// The index of the line to play among `lines` (best first, at least one).
    pub fn choose(&self, lines: &[Line], random: &mut Random) -> usize {
        let Some(best) = lines.first().map(|line| line.score) else {
            return 0;
        };
        if self.temperature == 0 || lines.len() == 1 || best.is_mate() || best.is_tablebase() {
            return 0;
        }
        // Weights exp(-(best - score) / temperature), in thousandths, for lines in the window
        // whose score is an evaluation (a mate or tablebase line is never traded away).
        let weights: Vec<u64> = lines
            .iter()
            .map(|line| {
                let loss = best.value() - line.score.value();
                if line.score.is_mate() || line.score.is_tablebase() || loss > self.window {
                    0
                } else {
                    (1000.0 * (-(loss as f64) / self.temperature as f64).exp()).round() as u64
                }
            })
            .collect();
        let total: u64 = weights.iter().sum();
        if total == 0 {
            return 0;
        }
        let mut target = random.below(total);
        weights
            .iter()
            .position(|&weight| {
                if target < weight {
                    true
                } else {
                    target -= weight;
                    false
                }
            })
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Score;
    use shakmaty::{Move, Role, Square};

    fn line(cp: i32, to: Square) -> Line {
        Line {
            score: Score::centipawns(cp),
            pv: vec![Move::Normal {
                role: Role::Pawn,
                from: Square::E2,
                capture: None,
                to,
                promotion: None,
            }],
        }
    }

    #[test]
    fn levels_are_numbered_in_order_and_bad_numbers_are_refused() {
        for (index, level) in LEVELS.iter().enumerate() {
            assert_eq!(usize::from(level.number), index + 1);
            assert_eq!(Level::get(index as i64 + 1).unwrap(), *level);
        }
        for bad in [0, 11, -3] {
            let error = Level::get(bad).unwrap_err();
            assert!(
                error.to_string().contains(&format!("level {bad}")),
                "{error}"
            );
        }
    }

    #[test]
    fn caps_tighten_limits() {
        let level = Level::get(3).unwrap();
        let capped = level.cap(&SearchLimits::depth(8));
        assert_eq!((capped.depth, capped.nodes), (Some(2), Some(10_000)));
        let full = Level::get(10).unwrap().cap(&SearchLimits::depth(8));
        assert_eq!((full.depth, full.nodes), (Some(8), None));
    }

    #[test]
    fn weak_levels_vary_among_good_moves_only() {
        let lines = [
            line(50, Square::E4),
            line(30, Square::E3),
            line(-400, Square::E3),
        ];
        let beginner = Level::get(1).unwrap();
        let mut random = Random::seeded(1);
        let mut counts = [0; 3];
        for _ in 0..1000 {
            counts[beginner.choose(&lines, &mut random)] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > 100, "{counts:?}");
        assert_eq!(counts[2], 0, "a move 450 cp worse is outside the window");
        let full = Level::get(10).unwrap();
        assert_eq!(full.choose(&lines, &mut random), 0);
    }
}
