//! Guards the UCI protocol: the handshake and options, positions with moves, every kind of `go`,
//! `stop` after `go infinite`, `ponderhit`, bad input answered with `info string` (never a crash),
//! `go perft`, Chess960 (`UCI_Chess960`: Shredder-FEN and X-FEN positions, castling read and
//! written as the king taking its rook, standard notation kept otherwise), and a GUI-style session
//! through the native `ferrochess-uci` binary's pipes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use shakmaty::{CastlingMode, Chess, Position as _, fen::Fen, uci::UciMove};

// The fuzz targets' output buffer (`Captured`), which the test reads once the protocol ends.
#[path = "fuzz/targets.rs"]
mod targets;

fn session(input: &str) -> Vec<String> {
    session_bytes(input.as_bytes())
}

fn session_bytes(input: &[u8]) -> Vec<String> {
    let output = targets::Captured::default();
    ferrochess::uci::run(input, output.clone()).unwrap();
    output.text().lines().map(str::to_string).collect()
}

fn bestmoves(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|line| line.strip_prefix("bestmove "))
        .map(|rest| rest.split_whitespace().next().unwrap().to_string())
        .collect()
}

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

/// The `go perft` answers of a session: for each, the `move: nodes` lines and the total.
fn perft_answers(lines: &[String]) -> Vec<(Vec<(String, u64)>, u64)> {
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

#[test]
fn go_perft_divides_by_root_move_as_stockfish_prints_it() {
    let lines = session("position startpos\ngo perft 3\ngo perft 0\nquit\n");
    let answers = perft_answers(&lines);
    assert_eq!(answers.len(), 1, "{lines:?}");
    let (divided, total) = &answers[0];
    assert_eq!(*total, 8902);
    assert_eq!(divided.len(), 20);
    assert!(divided.contains(&("e2e4".to_string(), 600)), "{divided:?}");
    assert_eq!(divided.iter().map(|(_, n)| n).sum::<u64>(), 8902);
    // The blank line comes right before the total.
    let total_at = lines
        .iter()
        .position(|l| l == "Nodes searched: 8902")
        .unwrap();
    assert_eq!(lines[total_at - 1], "");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: go perft")),
        "{lines:?}"
    );
}

#[test]
fn chess960_positions_have_their_published_perft() {
    // Chess960 start positions with their node counts from the Chess Programming Wiki's
    // "Chess960 Perft Results"; the X-FEN spellings name the same castling rights.
    let cases = [
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            [21, 528, 12_189],
        ),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KFkf - 2 9",
            [21, 528, 12_189],
        ),
        (
            "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
            [21, 807, 18_002],
        ),
        (
            "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9",
            [20, 479, 10_471],
        ),
        (
            "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w KQ - 1 9",
            [20, 479, 10_471],
        ),
    ];
    let mut input = String::from("setoption name UCI_Chess960 value true\n");
    for (fen, _) in &cases {
        for depth in 1..=3 {
            input.push_str(&format!("position fen {fen}\ngo perft {depth}\n"));
        }
    }
    // The standard start is a Chess960 position too.
    input.push_str("position startpos\ngo perft 3\nquit\n");
    let lines = session(&input);
    let totals: Vec<u64> = perft_answers(&lines).iter().map(|(_, t)| *t).collect();
    let expected: Vec<u64> = cases
        .iter()
        .flat_map(|(_, counts)| counts.iter().copied())
        .chain([8902])
        .collect();
    assert_eq!(totals, expected, "{lines:?}");
}

#[test]
fn chess960_castling_is_read_and_written_as_king_takes_rook() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let lines = session(&format!(
        "setoption name UCI_Chess960 value true\n\
         position fen {fen}\ngo perft 1\n\
         position fen {fen} moves e1h1\ngo perft 1\n\
         position fen {fen} moves e1g1\nquit\n"
    ));
    let answers = perft_answers(&lines);
    assert_eq!(answers.len(), 2, "{lines:?}");
    let moves = |answer: usize| -> Vec<&str> {
        answers[answer]
            .0
            .iter()
            .map(|(uci, _)| uci.as_str())
            .collect()
    };
    assert!(moves(0).contains(&"e1h1") && moves(0).contains(&"e1a1"));
    assert!(!moves(0).contains(&"e1g1") && !moves(0).contains(&"e1c1"));
    // After White castled (e1h1; the rook on f1 now guards f8), Black may castle long.
    assert!(moves(1).contains(&"e8a8") && !moves(1).contains(&"e8h8"));
    assert!(moves(1).contains(&"h8h1"), "{:?}", moves(1));
    assert_eq!(answers[0].1, 26);
    // The king's two-square move is not how Chess960 writes castling.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: illegal move 'e1g1'")),
        "{lines:?}"
    );
}

#[test]
fn a_chess960_search_that_castles_says_king_takes_rook() {
    // King f1, rook h1: castling (the king to g1, the rook to f1) is the only mate in one; no
    // other move puts the rook on f1.
    let lines = session(
        "setoption name UCI_Chess960 value true\n\
         position fen 4rkr1/4p1p1/8/8/8/8/8/5K1R w H - 0 1\ngo depth 3\n\
         setoption name MultiPV value 2\n\
         position fen 4rkr1/4p1p1/8/8/8/8/8/4K2R w K - 0 1\ngo depth 2\nquit\n",
    );
    let best = bestmoves(&lines);
    assert_eq!(best[0], "f1h1", "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("score mate 1") && l.ends_with("pv f1h1")),
        "{lines:?}"
    );
    // King e1, rook h1: castling and the rook's own move to f1 both mate.
    assert!(best[1] == "e1h1" || best[1] == "h1f1", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth ")
            && l.contains("score mate 1")
            && l.ends_with("pv e1h1")),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("e1g1")), "{lines:?}");
}

#[test]
fn standard_chess_still_castles_with_the_kings_two_square_move() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let lines = session(&format!(
        "position fen {fen}\ngo perft 1\n\
         position fen {fen} moves e1g1\ngo perft 1\n\
         setoption name MultiPV value 2\n\
         position fen 4rkr1/4p1p1/8/8/8/8/8/4K2R w K - 0 1\ngo depth 2\n\
         position fen 4rkr1/4p1p1/8/8/8/8/8/5K1R w H - 0 1\nquit\n"
    ));
    let answers = perft_answers(&lines);
    assert_eq!(answers.len(), 2, "{lines:?}");
    let first: Vec<&str> = answers[0].0.iter().map(|(uci, _)| uci.as_str()).collect();
    assert!(
        first.contains(&"e1g1") && first.contains(&"e1c1"),
        "{first:?}"
    );
    assert!(!first.contains(&"e1h1"), "{first:?}");
    let second: Vec<&str> = answers[1].0.iter().map(|(uci, _)| uci.as_str()).collect();
    assert!(
        second.contains(&"e8c8") && !second.contains(&"e8a8"),
        "{second:?}"
    );
    // Castling and the rook's own move to f1 both mate; castling is written e1g1.
    let best = bestmoves(&lines);
    assert!(best[0] == "e1g1" || best[0] == "h1f1", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth ")
            && l.contains("score mate 1")
            && l.ends_with("pv e1g1")),
        "{lines:?}"
    );
    assert!(!lines.iter().any(|l| l.contains("e1h1")), "{lines:?}");
    // A Chess960 castling right is not standard chess.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error:") && l.contains("4rkr1")),
        "{lines:?}"
    );
}

#[test]
fn switching_uci_chess960_keeps_the_game_when_it_can() {
    let lines = session(
        "position startpos moves e2e4\n\
         setoption name UCI_Chess960 value true\ngo perft 1\n\
         position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\n\
         setoption name UCI_Chess960 value false\ngo perft 1\nquit\n",
    );
    let totals: Vec<u64> = perft_answers(&lines).iter().map(|(_, t)| *t).collect();
    // Black's 20 replies to 1.e4; then the start position, as the 960 game has no standard
    // reading.
    assert_eq!(totals, [20, 20], "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("the game is the start position now")),
        "{lines:?}"
    );
}

#[test]
fn chess960_searches_with_castling_in_the_tree_play_legal_moves() {
    // Searched in a debug build, whose checks compare the network's incremental accumulator
    // and the incremental keys with fresh ones after every move, castling included.
    let fens = [
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "r3k2r/pppq1ppp/2n1bn2/2bpp3/2BPP3/2N1BN2/PPPQ1PPP/R3K2R w KQkq - 0 1",
        "rkr5/pppppppp/8/8/8/8/PPPPPPPP/RKR5 w CAca - 0 1",
        "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 b GBgb - 0 1",
    ];
    let mut input = String::from("setoption name UCI_Chess960 value true\n");
    for fen in fens {
        input.push_str(&format!("position fen {fen}\ngo nodes 20000\n"));
    }
    input.push_str("quit\n");
    let lines = session(&input);
    let best = bestmoves(&lines);
    assert_eq!(best.len(), fens.len(), "{lines:?}");
    for (fen, best) in fens.iter().zip(&best) {
        let position: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap();
        let m = best.parse::<UciMove>().unwrap().to_move(&position);
        assert!(
            m.is_ok_and(|m| m.to_uci(CastlingMode::Chess960).to_string() == *best),
            "{best} in {fen}"
        );
    }
}
