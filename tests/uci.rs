//! Guards the UCI protocol: the handshake and options, positions with moves, every kind of `go`,
//! `stop` after `go infinite`, `ponderhit`, bad input answered with `info string` (never a crash),
//! and a GUI-style session through the native `ferrochess-uci` binary's pipes. `go perft` and
//! Chess960 are tests/chess960.rs's.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, Position as _, fen::Fen, uci::UciMove};

mod uci_session;

use uci_session::{bestmoves, session, session_bytes};

fn assert_legal(fen: &str, moves: &[&str], best: &str) {
    let mut position: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    for uci in moves {
        let m = uci.parse::<UciMove>().unwrap().to_move(&position).unwrap();
        position.play_unchecked(m);
    }
    let best: UciMove = best.parse().unwrap();
    assert!(
        best.to_move(&position).is_ok(),
        "{best} is illegal after {moves:?}"
    );
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn levels_lists_every_level_with_its_settings_and_fingerprint() {
    let lines = session("levels\nquit\n");
    assert!(lines[0].starts_with("info string network "), "{lines:?}");
    let levels: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info string level "))
        .collect();
    assert_eq!(levels.len(), ferrochess::level::LEVELS.len());
    for (line, level) in levels.iter().zip(ferrochess::level::LEVELS.iter()) {
        assert_eq!(line.as_str(), ferrochess::uci::level_line(level));
        assert!(
            line.contains(&format!("level {} elo ", level.number)),
            "{line}"
        );
        assert!(line.ends_with(&format!(" name {}", level.name)), "{line}");
    }
    assert!(levels[9].contains(" depth none nodes none candidates 1 window 0 temperature 0 "));
}

#[test]
fn handshake_lists_the_options() {
    let lines = session("uci\nisready\nquit\n");
    assert!(lines[0].starts_with("id name ferrochess"));
    for option in [
        "Hash",
        "Threads",
        "MultiPV",
        "OwnBook",
        "BookFile",
        "SyzygyPath",
        "Move Overhead",
        "UCI_LimitStrength",
        "UCI_Elo",
        "Level",
        "Evaluation",
        "EvalFile",
        "UCI_Chess960",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {option} type"))),
            "{option} missing"
        );
    }
    let uciok = lines.iter().position(|l| l == "uciok").unwrap();
    assert_eq!(lines[uciok + 1], "readyok");
}

#[test]
fn the_evaluation_options_switch_between_network_classic_and_a_file() {
    let network = ferrochess::eval::nnue::default_network();
    let directory =
        std::env::temp_dir().join(format!("ferrochess-uci-eval-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let copy = directory.join("copy.nnue");
    std::fs::write(&copy, network.to_bytes()).unwrap();
    let truncated = directory.join("truncated.nnue");
    std::fs::write(&truncated, &network.to_bytes()[..4096]).unwrap();
    let lines = session(&format!(
        "setoption name OwnBook value false\n\
         setoption name Evaluation value classic\nposition startpos\ngo depth 3\n\
         setoption name Evaluation value network\nsetoption name EvalFile value {}\n\
         setoption name EvalFile value {}\nposition startpos\ngo depth 3\n\
         setoption name Evaluation value sharp\nuci\nquit\n",
        copy.display(),
        truncated.display()
    ));
    std::fs::remove_dir_all(&directory).unwrap();
    let said = |text: &str| lines.iter().any(|line| line.contains(text));
    assert!(said("info string evaluation classic"), "{lines:?}");
    assert!(said(&format!("info string evaluation {}", network.name())));
    assert!(said("truncated.nnue") && said("truncated"), "{lines:?}");
    assert!(said("'sharp' is not network or classic"), "{lines:?}");
    // The refused file left the options as they were: the copy still plays.
    assert!(
        lines.contains(&format!(
            "option name EvalFile type string default {}",
            copy.display()
        )),
        "{lines:?}"
    );
    assert_eq!(bestmoves(&lines).len(), 2);
}

#[test]
fn go_variants_answer_with_legal_moves() {
    let moves = ["e2e4", "e7e5", "g1f3"];
    let input = format!(
        "setoption name OwnBook value false\nposition startpos moves {}\ngo depth 4\n\
         go nodes 5000\ngo movetime 50\ngo wtime 2000 btime 2000 winc 20 binc 20 movestogo 10\n\
         go mate 2\nquit\n",
        moves.join(" ")
    );
    let lines = session(&input);
    let best = bestmoves(&lines);
    assert_eq!(best.len(), 5, "{lines:?}");
    for m in &best {
        assert_legal(START, &moves, m);
    }
    let info = lines
        .iter()
        .find(|l| l.starts_with("info depth 4 "))
        .unwrap();
    for field in [
        "seldepth", "score cp", "nodes", "nps", "hashfull", "tbhits", "time", "pv",
    ] {
        assert!(info.contains(field), "{field} missing in {info}");
    }
}

#[test]
fn book_moves_and_mates_and_multipv() {
    // A game's `go` (clocks or a move time) plays from the book...
    for go in ["go wtime 60000 btime 60000", "go movetime 500"] {
        let lines = session(&format!("position startpos\n{go}\nquit\n"));
        assert!(lines.iter().any(|l| l.starts_with("info string book move")));
        assert_legal(START, &[], &bestmoves(&lines)[0]);
    }
    // ...an analysis (a depth, nodes or several lines) always searches, with the default options.
    for (setup, go) in [
        ("", "go depth 5"),
        ("", "go nodes 20000"),
        ("setoption name MultiPV value 3\n", "go depth 4"),
    ] {
        let lines = session(&format!("{setup}position startpos\n{go}\nquit\n"));
        assert!(
            !lines.iter().any(|l| l.starts_with("info string book move")),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains(" score cp ") && l.contains(" pv "))
        );
        assert_legal(START, &[], &bestmoves(&lines)[0]);
    }
    let mate = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1";
    let lines = session(&format!("position fen {mate}\ngo depth 3\nquit\n"));
    assert_eq!(bestmoves(&lines), ["a1a8"]);
    assert!(lines.iter().any(|l| l.contains("score mate 1")));
    let lines = session(&format!(
        "setoption name MultiPV value 3\nsetoption name OwnBook value false\n\
         position fen {START}\ngo depth 3\nquit\n"
    ));
    assert!(lines.iter().any(|l| l.contains(" multipv 3 ")));
}

/// `(depth, multipv)` of each `info depth` line, in order.
fn info_keys(lines: &[String]) -> Vec<(u32, u32)> {
    lines
        .iter()
        .filter(|line| line.starts_with("info depth "))
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let field = |name: &str| -> u32 {
                let at = words.iter().position(|word| *word == name).unwrap();
                words[at + 1].parse().unwrap()
            };
            (field("depth"), field("multipv"))
        })
        .collect()
}

#[test]
fn each_iteration_is_reported_once() {
    // One line per depth, the last not sent again before bestmove (the `position` after each
    // `go` waits for its search to end)...
    let lines = session(
        "setoption name OwnBook value false\nposition startpos\ngo depth 5\nposition startpos\n\
         quit\n",
    );
    let once: Vec<(u32, u32)> = (1..=5).map(|depth| (depth, 1)).collect();
    assert_eq!(info_keys(&lines), once, "{lines:?}");
    // ...and each depth's lines once with MultiPV.
    let lines = session(
        "setoption name MultiPV value 3\nsetoption name OwnBook value false\n\
         position startpos\ngo depth 4\nposition startpos\nquit\n",
    );
    let once: Vec<(u32, u32)> = (1..=4)
        .flat_map(|depth| (1..=3).map(move |multipv| (depth, multipv)))
        .collect();
    assert_eq!(info_keys(&lines), once, "{lines:?}");
}

#[test]
fn infinite_search_waits_for_stop() {
    let lines =
        session("setoption name OwnBook value false\nposition startpos\ngo infinite\nstop\nquit\n");
    assert_eq!(bestmoves(&lines).len(), 1);
    let lines = session(
        "position startpos moves e2e4 e7e5\ngo ponder wtime 500 btime 500\nponderhit\nquit\n",
    );
    assert_eq!(bestmoves(&lines).len(), 1, "{lines:?}");
}

#[test]
fn bad_input_is_answered_not_fatal() {
    let lines = session(
        "position fen not a fen\nposition startpos moves e2e5\nsetoption name Hash value huge\n\
         setoption name Nothing value 1\ngo depth x\nfrobnicate\nposition startpos moves e2e4\n\
         setoption name OwnBook value false\ngo depth 2\nquit\n",
    );
    let errors = lines
        .iter()
        .filter(|l| l.starts_with("info string"))
        .count();
    assert!(errors >= 6, "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("not a fen")));
    assert!(lines.iter().any(|l| l.contains("e2e5")));
    // The bad position left the last good one: after e2e4 Black moves.
    assert_legal(START, &["e2e4"], &bestmoves(&lines)[0]);
}

/// What a confused or broken GUI sends: bytes that are not UTF-8, unknown commands, `go` before any
/// `position`, `stop` with nothing running, `ponderhit` without `go ponder`, and then a normal game;
/// the engine keeps answering every `isready` and plays legal moves.
#[test]
fn garbage_and_out_of_order_commands_are_survived() {
    let mut input = b"\xff\xfe\x00garbage\n\xc3(\n".to_vec();
    input.extend_from_slice(
        b"isready\nstop\nponderhit\nstop\ngo depth 2\nisready\nfrobnicate now\n\n   \n\t\n\
          position\nposition fen\nposition startpos moves\nposition startpos moves e2e4 junk\n\
          go\nstop\ngo movetime -5\ngo wtime 99999999999999999999\n\
          position startpos moves e2e4\nisready\ngo depth 3\nisready\nquit\n",
    );
    let lines = session_bytes(&input);
    assert_eq!(
        lines.iter().filter(|l| *l == "readyok").count(),
        4,
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("unknown command") && l.contains("garbage"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("unknown command: frobnicate now"))
    );
    let moves = bestmoves(&lines);
    // `go depth 2` and `go` from the start position (no `position` yet), the last after e2e4.
    assert!(moves.len() >= 3, "{lines:?}");
    assert_legal(START, &[], &moves[0]);
    assert_legal(START, &["e2e4"], moves.last().unwrap());
}

/// The input ends while the engine thinks (`go infinite`, then nothing): the search is stopped,
/// its move printed, and the loop returns at once.
#[test]
fn end_of_input_during_a_search_stops_it() {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let lines = session("setoption name OwnBook value false\nposition startpos\ngo infinite\n");
        sender.send(lines).unwrap();
    });
    // A liveness bound, not a speed check: without the stop the search would never end.
    let lines = receiver
        .recv_timeout(Duration::from_secs(120))
        .expect("the loop returned after the end of its input");
    assert_eq!(bestmoves(&lines).len(), 1, "{lines:?}");
}

/// A game of 2,000 plies (knights back and forth) is read, and the engine still moves.
#[test]
fn a_very_long_move_list_is_read() {
    let moves = ["g1f3", "g8f6", "f3g1", "f6g8"].repeat(500).join(" ");
    let lines = session(&format!(
        "setoption name OwnBook value false\nposition startpos moves {moves}\ngo depth 4\nquit\n"
    ));
    let best = bestmoves(&lines);
    assert_eq!(best.len(), 1, "{lines:?}");
    assert_legal(START, &[], &best[0]);
}

#[test]
fn checkmated_side_answers_0000() {
    let lines = session(
        "position fen rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\ngo depth 3\nquit\n",
    );
    assert_eq!(bestmoves(&lines), ["0000"]);
}

#[test]
fn native_binary_plays_a_gui_session() {
    let mut engine = Command::new(env!("CARGO_BIN_EXE_ferrochess-uci"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = engine.stdin.take().unwrap();
    let mut stdout = BufReader::new(engine.stdout.take().unwrap());
    let mut read_until = |prefix: &str| -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            assert!(Instant::now() < deadline, "no '{prefix}' within 60 s");
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).unwrap() > 0,
                "engine closed its output"
            );
            if line.starts_with(prefix) {
                return line.trim().to_string();
            }
        }
    };
    writeln!(stdin, "uci").unwrap();
    read_until("uciok");
    writeln!(stdin, "setoption name Hash value 32").unwrap();
    writeln!(stdin, "setoption name Move Overhead value 50").unwrap();
    writeln!(stdin, "isready").unwrap();
    read_until("readyok");
    writeln!(stdin, "ucinewgame").unwrap();
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..4 {
        writeln!(stdin, "position startpos moves {}", moves.join(" ")).unwrap();
        writeln!(stdin, "go wtime 3000 btime 3000 winc 50 binc 50").unwrap();
        let best = read_until("bestmove");
        let m = best.split_whitespace().nth(1).unwrap().to_string();
        let played: Vec<&str> = moves.iter().map(String::as_str).collect();
        assert_legal(START, &played, &m);
        moves.push(m);
    }
    writeln!(stdin, "position startpos moves {}", moves.join(" ")).unwrap();
    writeln!(stdin, "go infinite").unwrap();
    // Stopped once it is searching (it reports an iteration), not after a guessed delay.
    read_until("info depth");
    writeln!(stdin, "stop").unwrap();
    read_until("bestmove");
    writeln!(stdin, "quit").unwrap();
    let status = engine.wait().unwrap();
    assert!(status.success());
}
