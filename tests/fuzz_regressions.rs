//! Replays the fuzz targets' seed inputs (`tests/fuzz/seeds/<target>/`) and every input a fuzzer
//! ever crashed on (`tests/fuzz/regressions/<target>/`, kept once fixed) through the same target
//! bodies cargo-fuzz runs (`tests/fuzz/targets.rs`): none may panic, and each target's checks hold.

#[path = "fuzz/targets.rs"]
mod targets;

use std::path::Path;

/// Runs `target` on every file under `tests/fuzz/{seeds,regressions}/<name>/`; returns how many.
fn replay(name: &str, target: fn(&[u8])) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz");
    let mut count = 0;
    for kind in ["seeds", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(kind).join(name)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.map(|entry| entry.unwrap().path()).collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).unwrap();
            eprintln!("{}", path.display());
            target(&bytes);
            count += 1;
        }
    }
    count
}

#[test]
fn fen_inputs() {
    assert!(replay("fen", targets::fen) >= 5);
}

#[test]
fn move_list_inputs() {
    assert!(replay("moves", targets::moves) >= 4);
}

#[test]
fn book_inputs() {
    assert!(replay("book", targets::book) >= 2);
}

#[test]
fn uci_inputs() {
    assert!(replay("uci", targets::uci) >= 3);
}
