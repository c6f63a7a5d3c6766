//! What a search is asked for ([`SearchRequest`]), and the rules on what may be asked. Each bound
//! and default is a named constant, here or beside what it bounds (`MAX_DEPTH` in `limits.rs`,
//! `MAX_HASH_MB` in `transposition.rs`, the levels in `level/`), written once: UCI, the Python
//! binding, the web app and the notebook read them from the core.

use shakmaty::Move;

use crate::error::{Error, check_range};
use crate::limits::SearchLimits;

/// Most principal variations (lines) one search may report.
pub const MAX_MULTIPV: usize = 256;

/// Most threads one search may use.
pub const MAX_THREADS: usize = 256;

/// Threads per search when none is asked for.
pub const DEFAULT_THREADS: usize = 1;

/// Transposition table size when none is asked for, in megabytes (1 to
/// [`MAX_HASH_MB`](crate::transposition::MAX_HASH_MB)).
pub const DEFAULT_HASH_MB: usize = 16;

/// Everything a search is asked for besides the position: its limits, how many lines, which root
/// moves to leave out, and whether the book may answer. (A playing level is not the search's
/// business: [`Player`](crate::level::Player) sets the limits and chooses among the lines.) The
/// one way into the search is [`Searcher::think`](super::Searcher::think), which checks it first
/// ([`SearchRequest::validate`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchRequest {
    pub limits: SearchLimits,
    /// Lines to report, 1 to [`MAX_MULTIPV`].
    pub multipv: usize,
    /// Lines to search when more than `multipv` (at most [`MAX_MULTIPV`]), all reported: for a
    /// caller that chooses among the best lines itself. The book and the tablebases still answer
    /// only when `multipv` is 1.
    pub candidates: usize,
    /// Root moves never played nor searched.
    pub excluded: Vec<Move>,
    /// Play from the book when it has a move (one line only: a book move has no score).
    pub use_book: bool,
}

impl Default for SearchRequest {
    fn default() -> Self {
        SearchRequest {
            limits: SearchLimits::default(),
            multipv: 1,
            excluded: Vec::new(),
            use_book: false,
            candidates: 1,
        }
    }
}

impl SearchRequest {
    /// A search of one line to `depth` plies, without the book.
    pub fn depth(depth: u32) -> SearchRequest {
        SearchRequest {
            limits: SearchLimits::depth(depth),
            ..SearchRequest::default()
        }
    }

    /// Checks every rule; the error names the offending field and quotes its value.
    pub fn validate(&self) -> Result<(), Error> {
        self.limits.validate()?;
        check_multipv(i64::try_from(self.multipv).unwrap_or(i64::MAX))?;
        check_range(
            "candidates",
            i64::try_from(self.candidates).unwrap_or(i64::MAX),
            0,
            MAX_MULTIPV,
        )?;
        if self.use_book && self.multipv != 1 {
            return Err(Error::argument(
                "multipv",
                self.multipv,
                "must be 1 when playing a move",
            ));
        }
        Ok(())
    }
}

/// Validates a number of lines given by a user: 1 to [`MAX_MULTIPV`].
pub fn check_multipv(multipv: i64) -> Result<usize, Error> {
    check_range("multipv", multipv, 1, MAX_MULTIPV)
}

/// Validates a number of threads given by a user: 1 to [`MAX_THREADS`].
pub fn check_threads(threads: i64) -> Result<usize, Error> {
    check_range("threads", threads, 1, MAX_THREADS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_names_its_field_and_value() {
        let mut request = SearchRequest::depth(3);
        assert!(request.validate().is_ok());
        request.multipv = 0;
        let error = request.validate().unwrap_err().to_string();
        assert!(error.contains("multipv") && error.contains('0'), "{error}");
        request.multipv = MAX_MULTIPV + 1;
        let error = request.validate().unwrap_err().to_string();
        assert!(error.contains(&(MAX_MULTIPV + 1).to_string()), "{error}");
        request.multipv = 2;
        request.use_book = true;
        let error = request.validate().unwrap_err().to_string();
        assert!(error.contains("playing a move"), "{error}");
        request.use_book = false;
        request.limits.depth = Some(0);
        assert!(
            request
                .validate()
                .unwrap_err()
                .to_string()
                .contains("depth")
        );
        assert!(check_threads(0).is_err() && check_threads(MAX_THREADS as i64 + 1).is_err());
        assert_eq!(check_threads(MAX_THREADS as i64).unwrap(), MAX_THREADS);
    }
}
