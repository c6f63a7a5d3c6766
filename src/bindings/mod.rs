//! The Python binding, `ferrochess._core`: the only code that names pyo3. Thin by design: convert
//! arguments, run the core with the GIL released, convert results.

mod book;
mod convert;
mod engine;
mod errors;
mod functions;
mod gil;
mod observer;
mod tablebase;
mod weights;

use pyo3::prelude::*;

#[pymodule]
#[pyo3(name = "_core")]
fn core_module(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add("MAX_DEPTH", crate::limits::MAX_DEPTH)?;
    module.add("FIFTY_MOVE_PLIES", crate::position::FIFTY_MOVE_PLIES)?;
    module.add("MAX_HASH_MB", crate::transposition::MAX_HASH_MB)?;
    module.add("MAX_THREADS", crate::search::MAX_THREADS)?;
    module.add("MAX_MULTIPV", crate::search::MAX_MULTIPV)?;
    module.add("DEFAULT_HASH_MB", crate::search::DEFAULT_HASH_MB)?;
    module.add("DEFAULT_THREADS", crate::search::DEFAULT_THREADS)?;
    module.add("DEFAULT_LEVEL", crate::level::DEFAULT_LEVEL)?;
    module.add(
        "DEFAULT_BUILD_MAX_PLY",
        crate::book::builder::DEFAULT_BUILD_MAX_PLY,
    )?;
    module.add(
        "DEFAULT_BUILD_MIN_GAMES",
        crate::book::builder::DEFAULT_BUILD_MIN_GAMES,
    )?;
    module.add("BENCH_DEPTH", crate::bench::BENCH_DEPTH)?;
    let verdicts = crate::score::TablebaseVerdict::ALL.map(crate::score::TablebaseVerdict::name);
    module.add("TABLEBASE_VERDICTS", verdicts.to_vec())?;
    module.add_class::<engine::Engine>()?;
    module.add_class::<book::Book>()?;
    module.add_class::<tablebase::Tablebase>()?;
    module.add("SYZYGY_PATH_ENV", crate::tablebase::SYZYGY_PATH_ENV)?;
    module.add_function(wrap_pyfunction!(functions::select_move, module)?)?;
    module.add_function(wrap_pyfunction!(functions::perft, module)?)?;
    module.add_function(wrap_pyfunction!(functions::bench, module)?)?;
    module.add_function(wrap_pyfunction!(functions::legal_moves, module)?)?;
    module.add_function(wrap_pyfunction!(functions::levels, module)?)?;
    module.add_function(wrap_pyfunction!(functions::evaluate, module)?)?;
    module.add_function(wrap_pyfunction!(functions::uci, module)?)?;
    module.add_function(wrap_pyfunction!(book::build_book, module)?)?;
    module.add_class::<weights::Weights>()?;
    module.add_function(wrap_pyfunction!(weights::texel_tune, module)?)?;
    module.add("CLASSIC_TERMS", weights::term_names())?;
    module.add(
        "CLASSIC_MAX_WEIGHT",
        crate::eval::classic::weights::MAX_WEIGHT,
    )?;
    module.add("DEFAULT_BOOK", crate::book::DEFAULT_BOOK_NAME)?;
    module.add("ECO_LINES_PGN", crate::book::ECO_LINES_PGN)?;
    Ok(())
}
