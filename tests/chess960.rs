//! Guards `go perft` (Stockfish's output: each root move's count, then `Nodes searched`) and
//! Chess960 through the UCI loop (`UCI_Chess960`): Shredder-FEN and X-FEN positions with their
//! published perft, castling read and written as the king taking its own rook, the standard
//! notation kept otherwise, the game kept when the option is switched, and searches with castling
//! in the tree (under the debug build's incremental checks).

mod uci_session;

use shakmaty::{CastlingMode, Chess, fen::Fen, uci::UciMove};
use uci_session::{bestmoves, perft_answers, session};

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
