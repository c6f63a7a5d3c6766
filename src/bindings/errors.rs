//! The one place core errors become Python exceptions. The exception classes live in Python
//! (`ferrochess/exceptions.py`) so they can subclass both `FerrochessError` and `ValueError`.

use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::error::Error;

/// Instantiates `ferrochess.exceptions.<class_name>(message)`; falls back to `fallback` when the
/// Python package is not importable (the bare extension module used on its own).
pub(super) fn python_exception(
    py: Python<'_>,
    class_name: &str,
    message: String,
    fallback: fn(String) -> PyErr,
) -> PyErr {
    let class = py
        .import("ferrochess.exceptions")
        .and_then(|module| module.getattr(class_name))
        .ok()
        .and_then(|class| class.cast_into::<PyType>().ok());
    match class {
        Some(class) => PyErr::from_type(class, message),
        None => fallback(message),
    }
}

/// Maps a core error to the documented exception.
pub fn to_python(py: Python<'_>, error: Error) -> PyErr {
    let message = error.to_string();
    match error {
        Error::InvalidFen { .. } => {
            python_exception(py, "InvalidFenError", message, PyValueError::new_err)
        }
        Error::InvalidMove { .. } | Error::IllegalMove { .. } => {
            python_exception(py, "IllegalMoveError", message, PyValueError::new_err)
        }
        Error::InvalidArgument { .. } => {
            python_exception(py, "InvalidLimitError", message, PyValueError::new_err)
        }
        Error::File { .. } => python_exception(py, "FileError", message, PyOSError::new_err),
        Error::InvalidBook { .. } => {
            python_exception(py, "InvalidBookError", message, PyValueError::new_err)
        }
        Error::InvalidNetwork { .. } => {
            python_exception(py, "InvalidNetworkError", message, PyValueError::new_err)
        }
        Error::Tablebase { .. } => {
            python_exception(py, "TablebaseError", message, PyOSError::new_err)
        }
        Error::OutOfMemory { .. } => PyMemoryError::new_err(message),
    }
}

/// `ferrochess.exceptions.EngineError(message)`: a misuse or failure that is not bad input.
pub fn engine_error(py: Python<'_>, message: String) -> PyErr {
    python_exception(py, "EngineError", message, PyRuntimeError::new_err)
}

/// A panic caught at the boundary: a bug, reported as `EngineError` instead of killing the interpreter.
pub fn panic_to_python(py: Python<'_>, payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    engine_error(
        py,
        format!("internal engine error (please report it): {detail}"),
    )
}
