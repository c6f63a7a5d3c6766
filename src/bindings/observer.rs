//! The binding's search observer: forwards each iteration to an optional Python callback, and lets
//! Ctrl-C (SIGINT, which Python handles on the main thread) end a search running there.

use std::sync::Mutex;
use std::thread::{self, ThreadId};

use pyo3::prelude::*;
use shakmaty::CastlingMode;

use super::convert::info_to_dict;
use crate::search::{SearchInfo, SearchObserver};

/// Created inside the GIL-released section; takes the GIL only to call back or check signals.
pub struct PythonObserver<'a> {
    callback: Option<&'a Py<PyAny>>,
    /// Records which thread is inside the callback, so the engine can refuse re-entry.
    callback_thread: Option<&'a Mutex<Option<ThreadId>>>,
    on_main_thread: bool,
    /// How the callback's moves are written: standard chess or Chess960.
    mode: CastlingMode,
    /// The exception that ended the search (raised by the callback, or KeyboardInterrupt), to be
    /// raised once the search has returned.
    pub error: Option<PyErr>,
}

impl<'a> PythonObserver<'a> {
    pub fn new(
        callback: Option<&'a Py<PyAny>>,
        callback_thread: Option<&'a Mutex<Option<ThreadId>>>,
        on_main_thread: bool,
        mode: CastlingMode,
    ) -> Self {
        PythonObserver {
            callback,
            callback_thread,
            on_main_thread,
            mode,
            error: None,
        }
    }

    fn set_callback_thread(&self, thread: Option<ThreadId>) {
        if let Some(slot) = self.callback_thread {
            *slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = thread;
        }
    }
}

impl SearchObserver for PythonObserver<'_> {
    fn on_iteration(&mut self, info: &SearchInfo) -> bool {
        let Some(callback) = self.callback else {
            return true;
        };
        Python::attach(|py| {
            self.set_callback_thread(Some(thread::current().id()));
            let outcome =
                info_to_dict(py, info, self.mode).and_then(|dict| callback.call1(py, (dict,)));
            self.set_callback_thread(None);
            match outcome {
                Ok(_) => true,
                Err(error) => {
                    self.error = Some(error);
                    false
                }
            }
        })
    }

    fn interrupted(&mut self) -> bool {
        if !self.on_main_thread {
            return false;
        }
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(error) => {
                self.error = Some(error);
                true
            }
        }
    }
}

/// Whether the calling thread is Python's main thread (the only one that handles signals).
pub fn on_main_thread(py: Python<'_>) -> bool {
    let check = || -> PyResult<bool> {
        let threading = py.import("threading")?;
        let current = threading.call_method0("current_thread")?;
        let main = threading.call_method0("main_thread")?;
        Ok(current.is(&main))
    };
    check().unwrap_or(false)
}
