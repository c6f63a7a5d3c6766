//! Search limits, mirroring python-chess's `chess.engine.Limit` and UCI's `go`, and the time manager
//! that turns clocks into a budget.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shakmaty::Color;

use crate::error::{Error, check_range};
use crate::search::params::{
    DEFAULT_MOVE_OVERHEAD_MS, DEFAULT_MOVES_TO_GO, HARD_LIMIT_CLOCK_FRACTION, HARD_LIMIT_SHARES,
    INCREMENT_USED, MAX_CLOCK_FRACTION, MAX_MOVE_OVERHEAD_MS, MAX_MOVES_TO_GO_PLANNED,
    MOVETIME_MARGIN_MS,
};

/// The deepest nominal depth a caller may ask for.
pub const MAX_DEPTH: u32 = 64;
/// The longest time (one clock, one increment or one move time) a caller may give: 30 days.
pub const MAX_SECONDS: f64 = 30.0 * 24.0 * 3600.0;

/// What bounds one search. Every field that is `None` imposes nothing; a search with no limit at all
/// runs until [`StopFlag::stop`] (UCI's `go infinite`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchLimits {
    /// Nominal depth in plies.
    pub depth: Option<u32>,
    /// Nodes visited (main search and quiescence).
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// Remaining clock time of each side.
    pub white_clock: Option<Duration>,
    pub black_clock: Option<Duration>,
    /// Increment per move of each side.
    pub white_increment: Option<Duration>,
    pub black_increment: Option<Duration>,
    /// Moves until the next time control.
    pub moves_to_go: Option<u32>,
    /// Stop as soon as a mate in at most this many moves is found.
    pub mate: Option<u32>,
    /// Time kept back on the clock for what happens outside the search (the GUI, the pipe, a web
    /// round trip), taken off once, here; `None`: [`DEFAULT_MOVE_OVERHEAD_MS`]. Not a limit
    /// itself: it only shapes the clock's.
    pub move_overhead: Option<Duration>,
}

impl SearchLimits {
    /// Limits of a fixed-depth search.
    pub fn depth(depth: u32) -> SearchLimits {
        SearchLimits {
            depth: Some(depth),
            ..SearchLimits::default()
        }
    }

    /// Whether no limit is set (the search then ends only when stopped).
    pub fn is_infinite(&self) -> bool {
        // The overhead only shapes a clock: it is no limit of its own.
        let limits = SearchLimits {
            move_overhead: None,
            ..self.clone()
        };
        limits == SearchLimits::default()
    }

    /// Checks every field; the error names the offending one and quotes its value.
    pub fn validate(&self) -> Result<(), Error> {
        if let Some(depth) = self.depth {
            check_depth(depth as i64)?;
        }
        if self.nodes == Some(0) {
            return Err(Error::argument("nodes", 0, "must be at least 1"));
        }
        if self.mate == Some(0) {
            return Err(Error::argument("mate", 0, "must be at least 1"));
        }
        if self.moves_to_go == Some(0) {
            return Err(Error::argument("remaining_moves", 0, "must be at least 1"));
        }
        if let Some(overhead) = self.move_overhead
            && overhead > Duration::from_millis(MAX_MOVE_OVERHEAD_MS)
        {
            return Err(Error::argument(
                "move_overhead",
                overhead.as_millis(),
                format!("must be at most {MAX_MOVE_OVERHEAD_MS} milliseconds"),
            ));
        }
        Ok(())
    }
}

/// Validates a depth given by a user: 1 to [`MAX_DEPTH`].
pub fn check_depth(depth: i64) -> Result<u32, Error> {
    check_range("depth", depth, 1, MAX_DEPTH as usize).map(|depth| depth as u32)
}

/// Converts a time in seconds given by a user into a duration, rejecting NaN, infinities, negative
/// values and values beyond [`MAX_SECONDS`].
pub fn duration_from_seconds(name: &'static str, seconds: f64) -> Result<Duration, Error> {
    if !seconds.is_finite() {
        return Err(Error::argument(
            name,
            seconds,
            "must be a finite number of seconds",
        ));
    }
    if seconds < 0.0 {
        return Err(Error::argument(name, seconds, "must not be negative"));
    }
    if seconds > MAX_SECONDS {
        return Err(Error::argument(
            name,
            seconds,
            format!("must be at most {MAX_SECONDS} seconds (30 days)"),
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// A flag another thread raises to end a running search early. Cheap to clone; all clones share it.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(std::sync::Arc<AtomicBool>);

impl StopFlag {
    pub fn new() -> StopFlag {
        StopFlag::default()
    }
    /// Asks the search to return its best move so far.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    pub fn reset(&self) {
        self.0.store(false, Ordering::Relaxed);
    }
}

/// The time budget of one search: a soft limit (do not start another iteration after it) and a hard
/// limit (abort the iteration in progress).
#[derive(Clone, Debug)]
pub struct TimeManager {
    start: Instant,
    soft: Option<Duration>,
    hard: Option<Duration>,
}

impl TimeManager {
    /// Plans the budget for the side to move.
    pub fn new(limits: &SearchLimits, side: Color) -> TimeManager {
        let start = Instant::now();
        let (clock, increment) = match side {
            Color::White => (limits.white_clock, limits.white_increment),
            Color::Black => (limits.black_clock, limits.black_increment),
        };
        let mut soft = None;
        let mut hard = None;
        if let Some(clock) = clock {
            let overhead = limits
                .move_overhead
                .unwrap_or(Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS));
            let available = clock.saturating_sub(overhead).max(Duration::from_millis(1));
            let increment = increment.unwrap_or_default();
            let moves_to_go = limits
                .moves_to_go
                .unwrap_or(DEFAULT_MOVES_TO_GO)
                .clamp(1, MAX_MOVES_TO_GO_PLANNED);
            // Spend an even share of the clock plus most of the increment, never most of the clock.
            let share = (available / moves_to_go + increment.mul_f64(INCREMENT_USED))
                .min(available.mul_f64(MAX_CLOCK_FRACTION));
            // Let one iteration run over the share, up to a few times it and part of the clock.
            let ceiling = (share * HARD_LIMIT_SHARES)
                .min(available.mul_f64(HARD_LIMIT_CLOCK_FRACTION))
                .max(share);
            soft = Some(share);
            hard = Some(ceiling);
        }
        if let Some(movetime) = limits.movetime {
            let budget = movetime.saturating_sub(Duration::from_millis(MOVETIME_MARGIN_MS));
            soft = Some(soft.map_or(budget, |s: Duration| s.min(budget)));
            hard = Some(hard.map_or(budget, |h: Duration| h.min(budget)));
        }
        TimeManager { start, soft, hard }
    }

    /// Time since the search began.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Whether the iteration in progress must be abandoned.
    pub fn hard_limit_reached(&self) -> bool {
        self.hard.is_some_and(|hard| self.elapsed() >= hard)
    }

    /// Whether another iteration should not be started, the soft limit scaled by `factor` (the
    /// search spends more while its best move keeps changing, less once it holds) but never
    /// beyond the hard limit.
    pub fn soft_limit_reached(&self, factor: f64) -> bool {
        self.soft.is_some_and(|soft| {
            let scaled = soft.mul_f64(factor.max(0.0));
            self.elapsed() >= self.hard.map_or(scaled, |hard| scaled.min(hard))
        })
    }

    /// The time the plan gives this move (the soft limit), if the search is timed.
    pub fn budget(&self) -> Option<Duration> {
        self.soft
    }

    /// Whether the search is bounded by time at all.
    pub fn is_timed(&self) -> bool {
        self.hard.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_times_are_rejected_with_their_value() {
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1e12] {
            let err = duration_from_seconds("time", bad).unwrap_err();
            assert!(err.to_string().contains(&bad.to_string()), "{err}");
        }
        assert_eq!(
            duration_from_seconds("time", 0.5).unwrap(),
            Duration::from_millis(500)
        );
    }

    #[test]
    fn depth_bounds() {
        assert!(check_depth(0).is_err());
        assert!(check_depth(MAX_DEPTH as i64 + 1).is_err());
        assert_eq!(check_depth(1).unwrap(), 1);
    }

    #[test]
    fn the_move_overhead_is_taken_off_the_clock_once() {
        let clock = Duration::from_millis(3_000);
        let planned = |overhead: Option<Duration>| {
            let limits = SearchLimits {
                white_clock: Some(clock),
                move_overhead: overhead,
                ..SearchLimits::default()
            };
            TimeManager::new(&limits, Color::White).budget().unwrap()
        };
        let overhead = Duration::from_millis(300);
        // An even share of what the overhead leaves, over the default moves to go.
        assert_eq!(
            planned(Some(overhead)),
            (clock - overhead) / DEFAULT_MOVES_TO_GO
        );
        assert_eq!(planned(Some(Duration::ZERO)), clock / DEFAULT_MOVES_TO_GO);
        let default = Duration::from_millis(DEFAULT_MOVE_OVERHEAD_MS);
        assert_eq!(planned(None), (clock - default) / DEFAULT_MOVES_TO_GO);
        // A move time is spent whole (less the margin that gets the move out in time).
        let limits = SearchLimits {
            movetime: Some(clock),
            move_overhead: Some(overhead),
            ..SearchLimits::default()
        };
        let budget = TimeManager::new(&limits, Color::White).budget().unwrap();
        assert_eq!(budget, clock - Duration::from_millis(MOVETIME_MARGIN_MS));
        // The overhead is not a limit: with it alone the search is still unbounded.
        assert!(
            SearchLimits {
                move_overhead: Some(overhead),
                ..SearchLimits::default()
            }
            .is_infinite()
        );
    }

    #[test]
    fn clock_budget_stays_inside_the_clock() {
        let limits = SearchLimits {
            white_clock: Some(Duration::from_secs(10)),
            white_increment: Some(Duration::from_millis(100)),
            ..SearchLimits::default()
        };
        let tm = TimeManager::new(&limits, Color::White);
        let (soft, hard) = (tm.soft.unwrap(), tm.hard.unwrap());
        assert!(
            soft <= hard && hard <= Duration::from_secs(5),
            "{soft:?} {hard:?}"
        );
        assert!(soft >= Duration::from_millis(300), "{soft:?}");
        // Almost no time left: still a positive budget, far below the clock.
        let limits = SearchLimits {
            black_clock: Some(Duration::from_millis(30)),
            ..SearchLimits::default()
        };
        let tm = TimeManager::new(&limits, Color::Black);
        assert!(tm.hard.unwrap() <= Duration::from_millis(10));
    }
}
