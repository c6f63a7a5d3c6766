//! The UCI loop driven in-process for the integration tests (tests/uci.rs, tests/chess960.rs and
//! tests/perft.rs): commands in, the lines it wrote out, and readers of those lines.

#![allow(dead_code)] // each test crate uses its own share of these

// The fuzz targets' output buffer (`Captured`), which the tests read once the protocol ends.
#[path = "../fuzz/targets.rs"]
mod targets;

/// The lines the UCI loop writes for the commands `input`.
pub fn session(input: &str) -> Vec<String> {
    session_bytes(input.as_bytes())
}

/// [`session`] for input that may not be UTF-8.
pub fn session_bytes(input: &[u8]) -> Vec<String> {
    let output = targets::Captured::default();
    ferrochess::uci::run(input, output.clone()).unwrap();
    output.text().lines().map(str::to_string).collect()
}

/// The move of each `bestmove` line.
pub fn bestmoves(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|line| line.strip_prefix("bestmove "))
        .map(|rest| rest.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// Each `go perft` answer: its `move: nodes` lines and its `Nodes searched` total.
pub fn perft_answers(lines: &[String]) -> Vec<(Vec<(String, u64)>, u64)> {
    let mut answers = Vec::new();
    let mut divided = Vec::new();
    for line in lines {
        if let Some(total) = line.strip_prefix("Nodes searched: ") {
            answers.push((std::mem::take(&mut divided), total.parse().unwrap()));
        } else if let Some((uci, nodes)) = line.split_once(": ")
            && let Ok(nodes) = nodes.parse::<u64>()
        {
            divided.push((uci.to_string(), nodes));
        }
    }
    answers
}
