//! Guards move generation and make-move: perft node counts through ferrochess's own `Position` on the
//! standard positions, every position of `../shared/data/perft/tricky.perft` at its listed depths, and
//! 200 positions of `random.perft` to depth 3 (both suites parsed in Chess960 castling mode), and
//! all 960 positions of `chess960.perft` through the UCI loop's `go perft` with `UCI_Chess960` on
//! (the way a GUI would ask), to [`CHESS960_UCI_DEPTH`].

mod uci_session;

use std::path::PathBuf;

use ferrochess::perft::perft;
use ferrochess::position::Position;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

fn shared_data() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    if path.is_dir() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {} not found (it holds the perft suites; CI has it)",
            path.display()
        );
        None
    }
}

/// A perft suite: blocks of `id`, `epd`, `perft DEPTH NODES` lines.
struct Case {
    id: String,
    epd: String,
    expected: Vec<(u32, u64)>,
}

fn parse_suite(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(id) = line.strip_prefix("id ") {
            cases.push(Case {
                id: id.to_string(),
                epd: String::new(),
                expected: Vec::new(),
            });
        } else if let Some(epd) = line.strip_prefix("epd ") {
            cases.last_mut().expect("epd after id").epd = epd.to_string();
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut parts = rest.split_whitespace();
            let depth = parts.next().unwrap().parse().unwrap();
            let nodes = parts.next().unwrap().parse().unwrap();
            cases
                .last_mut()
                .expect("perft after id")
                .expected
                .push((depth, nodes));
        }
    }
    cases
}

/// Parses like shakmaty's own suite runner: Chess960 castling, tolerant of impossible checks and
/// too much material.
#[allow(clippy::result_large_err)] // shakmaty's error type, used as shakmaty intends
fn lenient_position(epd: &str) -> Position {
    let board: Chess = epd
        .parse::<Fen>()
        .unwrap_or_else(|e| panic!("{epd}: {e}"))
        .into_position(CastlingMode::Chess960)
        .or_else(|e| e.ignore_too_much_material())
        .or_else(|e| e.ignore_impossible_check())
        .unwrap_or_else(|e| panic!("{epd}: {e}"));
    Position::from_board(board)
}

fn run_suite(cases: &[Case], max_depth: u32) -> usize {
    let mut checked = 0;
    for case in cases {
        let mut position = lenient_position(&case.epd);
        for &(depth, nodes) in case.expected.iter().filter(|(d, _)| *d <= max_depth) {
            assert_eq!(
                perft(&mut position, depth),
                nodes,
                "{} ({}) depth {depth}",
                case.id,
                case.epd
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn standard_positions() {
    let cases = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            5,
            4_865_609,
        ),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            4,
            4_085_603,
        ),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            4,
            422_333,
        ),
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            4,
            2_103_487,
        ),
    ];
    for (fen, depth, nodes) in cases {
        let mut position = Position::from_fen(fen).unwrap();
        assert_eq!(perft(&mut position, depth), nodes, "{fen}");
    }
}

#[test]
fn tricky_suite_at_every_listed_depth() {
    let Some(data) = shared_data() else { return };
    let text = std::fs::read_to_string(data.join("perft/tricky.perft")).unwrap();
    let cases = parse_suite(&text);
    assert!(cases.len() >= 20, "suite parsed to {} cases", cases.len());
    let checked = run_suite(&cases, u32::MAX);
    assert!(checked >= cases.len());
}

#[test]
fn two_hundred_random_positions_to_depth_three() {
    let Some(data) = shared_data() else { return };
    let text = std::fs::read_to_string(data.join("perft/random.perft")).unwrap();
    let cases = parse_suite(&text);
    assert!(cases.len() >= 200);
    // Every 30th case: 200 positions spread over the whole file.
    let sample: Vec<Case> = cases.into_iter().step_by(30).take(200).collect();
    assert_eq!(sample.len(), 200);
    let checked = run_suite(&sample, 3);
    assert_eq!(checked, 600);
}

/// The depth of the Chess960 suite through UCI: every position to it takes seconds in release.
const CHESS960_UCI_DEPTH: u32 = 4;

#[test]
fn chess960_suite_through_uci_go_perft() {
    let Some(data) = shared_data() else { return };
    let text = std::fs::read_to_string(data.join("perft/chess960.perft")).unwrap();
    let cases = parse_suite(&text);
    assert_eq!(cases.len(), 960, "suite parsed to {} cases", cases.len());
    let mut input = String::from("setoption name UCI_Chess960 value true\n");
    let mut expected = Vec::new();
    for case in &cases {
        let &(_, nodes) = case
            .expected
            .iter()
            .find(|(depth, _)| *depth == CHESS960_UCI_DEPTH)
            .unwrap_or_else(|| panic!("{}: no perft {CHESS960_UCI_DEPTH}", case.id));
        input.push_str(&format!(
            "position fen {}\ngo perft {CHESS960_UCI_DEPTH}\n",
            case.epd
        ));
        expected.push(nodes);
    }
    input.push_str("quit\n");
    let lines = uci_session::session(&input);
    let complaints: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string"))
        .collect();
    assert!(
        complaints.is_empty(),
        "the engine complained: {complaints:?}"
    );
    let totals: Vec<u64> = uci_session::perft_answers(&lines)
        .into_iter()
        .map(|(_, total)| total)
        .collect();
    assert_eq!(totals.len(), cases.len());
    for ((case, total), nodes) in cases.iter().zip(&totals).zip(&expected) {
        assert_eq!(
            total, nodes,
            "{} ({}) depth {CHESS960_UCI_DEPTH}",
            case.id, case.epd
        );
    }
}
