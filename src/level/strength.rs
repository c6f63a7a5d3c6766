//! The strength curve: one continuous knob from a beginner to the plain search.
//!
//! A point on the curve is a *curve coordinate* `c` from 1.0 (the weakest settings) to 10.0 (full
//! strength), and [`Strength::on_curve`] gives the settings there. Along the curve:
//!
//! - the node cap doubles per unit of `c` ([`NODES_AT_LEVEL_1`], [`NODE_GROWTH_PER_LEVEL`]): Elo
//!   grows about linearly in the logarithm of the nodes searched;
//! - the depth cap grows by [`DEPTH_PER_LEVEL`] plies per unit, so simple positions (endgames,
//!   where nodes are cheap) stay as shallow as the rest;
//! - the choice loosens towards `c = 1`: more candidate lines, a wider window and a higher
//!   temperature ([`CANDIDATES_AT_LEVEL_1`], [`WINDOW_AT_LEVEL_1_CP`],
//!   [`TEMPERATURE_AT_LEVEL_1_CP`]), falling to the best line only at `c = 9`.
//!
//! `c = 10` removes every cap. The levels are points on the curve: level `n` sits at
//! [`LEVEL_POINTS`]`[n - 1]`, and a *level coordinate* `x` between two levels (what an Elo between
//! two calibrated levels maps onto, [`super::Level::for_elo`]) sits between their points in
//! proportion, its depth cap on the line between the two levels' caps ([`Strength::at`]). The
//! curve's constants were a first guess from the matches of the old levels
//! (docs/benchmarks-history.md, "Playing strength before issue 10"); the levels' points are
//! re-spaced from what `make calibrate` measured of them (docs/benchmarks-history.md, "Level
//! calibration"), so that each level is about as far above the one below as the others.

use crate::hash::fnv1a;
use crate::limits::SearchLimits;
use crate::random::Random;
use crate::search::Line;

/// The curve coordinate (and the level coordinate) of full strength, the plain search.
pub const FULL_STRENGTH: f64 = 10.0;

/// Where levels 1 to 10 sit on the curve, re-spaced three times from calibrations with the network
/// (docs/benchmarks-history.md, "Level calibration"). The first, levels at `c` = 1, 2, ... 10 (228
/// games), found about 190 Elo a unit from 2 to 7, then flat. The second, at 1, 1.75, 2.6, 3.4,
/// 4.1, 4.85, 5.6, 6.4, 7.4, 10 (600 games): 634, 759, 1315, 1428, 1606, 1736, 1887, 1889, 2089,
/// 2381. The third, at 1, 1.78, 2, 2.6, 3.6, 4.3, 5.1, 6.7, 8, 10 (600 games): 732, 876, 1136,
/// 1256, 1486, 1567, 1792, 1977, 2068, 2374, two steps short of 100 (81 and 91). These points move
/// levels 4 to 7 and 9, read off all three runs; the fourth calibration, on them (850 games),
/// measured every step at least 100. With the third search bundle the sixth calibration measured
/// level 9, at 8.6 (10 plies), only 78 above level 8 and 308 below full strength. At 9.4 (11 plies)
/// it measured 2118, 97 above level 8; at 9.9 (12 plies, the deepest cap below full strength; the
/// seventh calibration) 2164, 143 above level 8 and 243 below full strength. The other levels
/// stayed where they were. With the network `nn-2ce2517c4f46` the eighth calibration (884 games)
/// measured 825, 935, 1230, 1294, 1537, 1714, 1815, 2007, 2277, 2505: level 4, at 2.7, only 64
/// above level 3. It moves to 2.9 (3,732 nodes, was 3,249), about a fifth of the way to level 5's
/// 243 above it; the other levels stay.
pub const LEVEL_POINTS: [f64; 10] = [1.0, 1.78, 2.0, 2.9, 3.5, 4.6, 5.2, 6.7, 9.9, FULL_STRENGTH];
/// Node cap at `c = 1` (level 1), in nodes: enough for a one-ply search of every candidate line
/// (about 500 to 850 nodes with six lines in middlegame positions), so that level 1 really
/// chooses.
pub const NODES_AT_LEVEL_1: f64 = 1_000.0;
/// Factor by which the node cap grows per unit of the curve (1000 nodes at `c = 1`, 256,000 at
/// `c = 9`; a move at 10 s + 0.1 s searches a few hundred thousand at full strength).
pub const NODE_GROWTH_PER_LEVEL: f64 = 2.0;
/// Plies of depth cap gained per unit of the curve above `c = 1` (rounded down; at least 1 ply).
pub const DEPTH_PER_LEVEL: f64 = 1.25;
/// Candidate lines at `c = 1`, falling to 1 at `c = 9`.
pub const CANDIDATES_AT_LEVEL_1: f64 = 6.0;
/// Choice window at `c = 1`, in centipawns: no line worse than the best by more is played. It
/// shrinks as the 1.5th power of the looseness (see [`Strength::on_curve`]).
pub const WINDOW_AT_LEVEL_1_CP: f64 = 300.0;
/// Choice temperature at `c = 1`, in centipawns (a line this much worse than the best is played
/// e times less often). It shrinks as the square of the looseness.
pub const TEMPERATURE_AT_LEVEL_1_CP: f64 = 160.0;
/// The curve coordinate from which the choice is always the best line.
const STRICT_CHOICE_FROM: f64 = 9.0;

/// The settings that weaken the search at one point of the curve.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Strength {
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
}

impl Strength {
    /// The plain search: no cap, always the best line.
    pub const FULL: Strength = Strength {
        max_depth: None,
        max_nodes: None,
        candidates: 1,
        window: 0,
        temperature: 0,
    };

    /// The settings at level coordinate `x` (clamped to 1.0..=10.0): level `n` at `x = n`,
    /// between two levels the curve between their [`LEVEL_POINTS`] in proportion, except the
    /// depth cap; 10.0 is [`Strength::FULL`]. Every setting is monotone in `x`.
    ///
    /// The depth cap between two capped levels is the line between their caps, rounded: the
    /// curve's own cap steps wherever `1 + 1.25 (c - 1)` passes a whole ply, which can be just
    /// below the upper level (levels 7 and 8 at 6 and 8 plies, the curve's step to 8 at
    /// `c = 6.6` with level 8 at 6.7), so an Elo nine tenths of the way to the upper level played
    /// a ply short of it. Rounded from the line, the plies between two levels are spread evenly
    /// over the way between them, as the Elo asked for is ([`super::Level::for_elo`]).
    pub fn at(x: f64) -> Strength {
        let (below, share) = bracket(x);
        let mut strength = Strength::on_curve(curve_point(x));
        let cap_at = |index: usize| Strength::on_curve(LEVEL_POINTS[index]).max_depth;
        if let (Some(low), Some(high)) = (cap_at(below - 1), cap_at(below)) {
            let line = f64::from(low) + f64::from(high - low) * share;
            strength.max_depth = Some(line.round() as u32);
        }
        strength
    }

    /// The settings at curve coordinate `c` (clamped to 1.0..=10.0; 10.0 is [`Strength::FULL`]).
    /// Every setting is monotone in `c`: a higher `c` never searches less nor chooses more loosely.
    pub fn on_curve(c: f64) -> Strength {
        let x = if c.is_nan() { 1.0 } else { c.clamp(1.0, 10.0) };
        if x >= FULL_STRENGTH {
            return Strength::FULL;
        }
        let above_1 = x - 1.0;
        // 1 at level 1, 0 from level 9 on: how loosely the level chooses.
        let looseness = ((STRICT_CHOICE_FROM - x) / (STRICT_CHOICE_FROM - 1.0)).clamp(0.0, 1.0);
        Strength {
            max_depth: Some((1.0 + DEPTH_PER_LEVEL * above_1).floor() as u32),
            max_nodes: Some(
                (NODES_AT_LEVEL_1 * NODE_GROWTH_PER_LEVEL.powf(above_1)).round() as u64,
            ),
            candidates: 1 + ((CANDIDATES_AT_LEVEL_1 - 1.0) * looseness).round() as usize,
            window: (WINDOW_AT_LEVEL_1_CP * looseness.powf(1.5)).round() as i32,
            temperature: (TEMPERATURE_AT_LEVEL_1_CP * looseness * looseness).round() as i32,
        }
    }

    /// Whether this is the plain search.
    pub fn is_full(&self) -> bool {
        *self == Strength::FULL
    }

    /// `limits` with this strength's caps added (the tighter of the two wins).
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

    /// What a calibration of these settings depends on, hashed ([`fnv1a`]): the settings, the
    /// evaluation `network` they play with and the search ([`BENCH_SIGNATURE`]). A level's Elo is
    /// `measured` only while the fingerprint it was measured with equals this one.
    ///
    /// [`BENCH_SIGNATURE`]: crate::bench::BENCH_SIGNATURE
    pub fn fingerprint(&self, network: &str) -> u64 {
        let text = format!(
            "depth={:?};nodes={:?};candidates={};window={};temperature={};network={network};search={}",
            self.max_depth,
            self.max_nodes,
            self.candidates,
            self.window,
            self.temperature,
            crate::bench::BENCH_SIGNATURE
        );
        fnv1a(text.as_bytes())
    }
}

/// The curve coordinate of level coordinate `x` (clamped to 1.0..=10.0, NaN as 1.0): linear
/// between the [`LEVEL_POINTS`] of the levels around it.
pub fn curve_point(x: f64) -> f64 {
    let (below, share) = bracket(x);
    let (from, to) = (LEVEL_POINTS[below - 1], LEVEL_POINTS[below]);
    from + (to - from) * share
}

/// The level at or below level coordinate `x` (clamped to 1.0..=10.0, NaN as 1.0; 9 for 10.0)
/// and how far `x` is on the way from it to the next level, 0.0 to 1.0.
fn bracket(x: f64) -> (usize, f64) {
    let x = if x.is_nan() { 1.0 } else { x.clamp(1.0, 10.0) };
    let below = (x.floor() as usize).clamp(1, LEVEL_POINTS.len() - 1);
    (below, x - below as f64)
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

    /// Weaker-or-equal in every setting: `a` never searches more nor chooses more strictly.
    fn no_stronger(a: &Strength, b: &Strength) -> bool {
        let cap = |c: Option<u64>| c.unwrap_or(u64::MAX);
        cap(a.max_depth.map(u64::from)) <= cap(b.max_depth.map(u64::from))
            && cap(a.max_nodes) <= cap(b.max_nodes)
            && a.candidates >= b.candidates
            && a.window >= b.window
            && a.temperature >= b.temperature
    }

    #[test]
    fn the_curve_is_monotone_and_ends_at_the_plain_search() {
        for settings in [Strength::at, Strength::on_curve] {
            let mut previous = settings(1.0);
            for step in 1..=900 {
                let here = settings(1.0 + f64::from(step) / 100.0);
                assert!(no_stronger(&previous, &here), "{previous:?} then {here:?}");
                previous = here;
            }
            assert!(settings(10.0).is_full());
            assert!(!settings(9.999).is_full());
            assert_eq!(settings(-5.0), settings(1.0));
            assert_eq!(settings(f64::NAN), settings(1.0));
            assert_eq!(settings(12.0), Strength::FULL);
        }
    }

    #[test]
    fn levels_sit_at_their_points_and_in_between_in_proportion() {
        assert!(LEVEL_POINTS.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!((LEVEL_POINTS[0], LEVEL_POINTS[9]), (1.0, FULL_STRENGTH));
        for (index, &point) in LEVEL_POINTS.iter().enumerate() {
            let level = (index + 1) as f64;
            assert_eq!(curve_point(level), point);
            assert_eq!(Strength::at(level), Strength::on_curve(point));
        }
        let halfway = (LEVEL_POINTS[2] + LEVEL_POINTS[3]) / 2.0;
        assert!((curve_point(3.5) - halfway).abs() < 1e-12);
        assert_eq!(curve_point(0.0), 1.0);
        assert_eq!(curve_point(f64::NAN), 1.0);
        assert_eq!(curve_point(11.0), FULL_STRENGTH);
    }

    #[test]
    fn between_two_levels_the_depth_cap_follows_the_line_between_theirs() {
        let mut moved = false;
        for level in 1..LEVEL_POINTS.len() - 1 {
            let cap = |x: f64| f64::from(Strength::at(x).max_depth.unwrap());
            let (low, high) = (cap(level as f64), cap(level as f64 + 1.0));
            for step in 0..100 {
                let share = f64::from(step) / 100.0;
                let x = level as f64 + share;
                let line = low + (high - low) * share;
                assert!((cap(x) - line).abs() <= 0.5, "{x}: {}, line {line}", cap(x));
                // Everything else is the curve's.
                let (here, curve) = (Strength::at(x), Strength::on_curve(curve_point(x)));
                moved |= here.max_depth != curve.max_depth;
                let with_curve_cap = Strength {
                    max_depth: curve.max_depth,
                    ..here
                };
                assert_eq!(with_curve_cap, curve);
            }
        }
        assert!(moved, "the curve's own cap follows the line everywhere");
        // Between level 9 and full strength (no cap) the curve's cap stays.
        assert_eq!(Strength::at(9.5), Strength::on_curve(curve_point(9.5)));
    }

    #[test]
    fn nodes_double_per_unit_of_the_curve_and_the_choice_tightens() {
        let weakest = Strength::on_curve(1.0);
        assert_eq!(weakest, Strength::at(1.0));
        assert_eq!(weakest.max_nodes, Some(1_000));
        assert_eq!(weakest.max_depth, Some(1));
        assert_eq!(
            (weakest.candidates, weakest.window, weakest.temperature),
            (6, 300, 160)
        );
        assert_eq!(Strength::on_curve(2.0).max_nodes, Some(2_000));
        // Halfway between two units is halfway on the log scale.
        assert_eq!(Strength::on_curve(1.5).max_nodes, Some(1_414));
        let strict = Strength::on_curve(9.0);
        assert_eq!(strict.max_nodes, Some(256_000));
        assert_eq!(
            (strict.candidates, strict.window, strict.temperature),
            (1, 0, 0)
        );
    }

    #[test]
    fn caps_tighten_limits() {
        let point_3 = Strength::on_curve(3.0);
        let capped = point_3.cap(&SearchLimits::depth(8));
        assert_eq!((capped.depth, capped.nodes), (Some(3), Some(4_000)));
        let full = Strength::FULL.cap(&SearchLimits::depth(8));
        assert_eq!((full.depth, full.nodes), (Some(8), None));
    }

    #[test]
    fn weak_levels_vary_among_good_moves_only() {
        let lines = [
            line(50, Square::E4),
            line(30, Square::E3),
            line(-400, Square::E3),
        ];
        let beginner = Strength::at(1.0);
        let mut random = Random::seeded(1);
        let mut counts = [0; 3];
        for _ in 0..1000 {
            counts[beginner.choose(&lines, &mut random)] += 1;
        }
        assert!(counts[0] > counts[1] && counts[1] > 100, "{counts:?}");
        assert_eq!(counts[2], 0, "a move 450 cp worse is outside the window");
        assert_eq!(Strength::FULL.choose(&lines, &mut random), 0);
    }

    #[test]
    fn the_fingerprint_follows_the_settings_and_the_network() {
        let level_3 = Strength::at(3.0);
        assert_eq!(
            level_3.fingerprint("nn-a"),
            Strength::at(3.0).fingerprint("nn-a")
        );
        assert_ne!(level_3.fingerprint("nn-a"), level_3.fingerprint("nn-b"));
        assert_ne!(
            level_3.fingerprint("nn-a"),
            Strength::at(3.5).fingerprint("nn-a")
        );
    }
}
