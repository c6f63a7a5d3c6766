//! Every long call goes through [`without_gil`]: the core runs with the GIL released (so other Python
//! threads, and other engines, run in parallel), panics are caught, and errors are mapped once.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::prelude::*;

use super::errors;
use crate::error::Error;

/// Runs `work` with the GIL released and converts its outcome into a Python result.
pub fn without_gil<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, Error> + Send,
{
    // Unwind safety: after a panic the only state touched is behind mutexes, which recover from
    // poisoning, or is dropped.
    match py.detach(|| catch_unwind(AssertUnwindSafe(work))) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(errors::to_python(py, error)),
        Err(payload) => Err(errors::panic_to_python(py, payload)),
    }
}
