//! Guards the search's chess knowledge: mates in 1, 2 and 3 found with exact mate distances,
//! checkmate and stalemate scored apart, repetition avoided when winning and sought when losing,
//! the 50-move rule and the evaluation's approach to it, mate scores surviving the
//! transposition table, and the limits honoured.

use std::time::{Duration, Instant};

use shakmaty::Position as _;

use ferrochess::limits::{SearchLimits, StopFlag};
use ferrochess::position::{Position, START_FEN, move_to_uci};
use ferrochess::score::{Score, ScoreKind};
use ferrochess::search::params::POLL_INTERVAL_NODES;
use ferrochess::search::{
    SearchInfo, SearchObserver, SearchRequest, SearchSwitches, Searcher, Silent,
};

/// A search through the one entry, [`Searcher::think`], of `multipv` lines within `limits`.
fn think(
    searcher: &mut Searcher,
    position: &mut Position,
    limits: &SearchLimits,
    multipv: usize,
    stop: &StopFlag,
    observer: &mut dyn SearchObserver,
) -> SearchInfo {
    let request = SearchRequest {
        limits: limits.clone(),
        multipv,
        ..SearchRequest::default()
    };
    let decision = searcher.think(position, &request, stop, observer).unwrap();
    decision.into_search().expect("no book: a search")
}

fn search_game(fen: &str, moves: &[&str], limits: SearchLimits, multipv: usize) -> SearchInfo {
    let mut position = Position::from_fen_and_moves(fen, moves).unwrap();
    let mut searcher = Searcher::new(16).unwrap();
    think(
        &mut searcher,
        &mut position,
        &limits,
        multipv,
        &StopFlag::new(),
        &mut Silent,
    )
}

fn search(fen: &str, depth: u32) -> SearchInfo {
    search_game(fen, &[], SearchLimits::depth(depth), 1)
}

fn best(result: &SearchInfo) -> String {
    move_to_uci(result.best_move().expect("a legal move exists"))
}

fn score(result: &SearchInfo) -> ScoreKind {
    result.lines[0].score.kind()
}

#[test]
fn mate_in_one() {
    let result = search("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 3);
    assert_eq!(best(&result), "a1a8");
    assert_eq!(score(&result), ScoreKind::Mate(1));
}

#[test]
fn mate_in_two_at_depth_four() {
    for fen in [
        "7k/8/8/8/8/8/R7/1R5K w - - 0 1",
        "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1",
    ] {
        let result = search(fen, 4);
        assert_eq!(score(&result), ScoreKind::Mate(2), "{fen}");
    }
}

#[test]
fn a_mate_the_selective_steps_hide_is_proven_at_depth_two_n_minus_one() {
    // Qxc2 sacrifices the queen; before the proofs the search played Rxb4 up to depth 6.
    let fen = "1r4k1/p4pp1/7p/8/qB1pP3/P2P4/2P2r2/KR6 b - - 4 37";
    let result = search(fen, 3);
    assert_eq!(best(&result), "a4c2");
    assert_eq!(score(&result), ScoreKind::Mate(2));
    // The line shown is the mate itself: three legal moves ending in checkmate.
    let moves: Vec<String> = result.lines[0].pv.iter().map(|&m| move_to_uci(m)).collect();
    assert_eq!(moves.len(), 3, "{moves:?}");
    let position = Position::from_fen_and_moves(fen, &moves).unwrap();
    assert!(position.board().is_checkmate(), "{moves:?}");
}

#[test]
fn a_mate_in_two_is_found_at_depth_three_whatever_the_switches() {
    let fen = "1r4k1/p4pp1/7p/8/qB1pP3/P2P4/2P2r2/KR6 b - - 4 37";
    let all_on = SearchSwitches::default();
    let switch_sets = [
        all_on,
        SearchSwitches {
            pruning: false,
            ..all_on
        },
        SearchSwitches {
            quiescence: false,
            move_ordering: false,
            transposition_table: false,
            ..all_on
        },
        SearchSwitches {
            alpha_beta: false,
            quiescence: false,
            move_ordering: false,
            transposition_table: false,
            pruning: false,
        },
    ];
    for switches in switch_sets {
        let mut position = Position::from_fen(fen).unwrap();
        let mut searcher = Searcher::new(16).unwrap();
        searcher.set_switches(switches);
        let limits = SearchLimits::depth(3);
        let info = think(
            &mut searcher,
            &mut position,
            &limits,
            1,
            &StopFlag::new(),
            &mut Silent,
        );
        assert_eq!(best(&info), "a4c2", "{switches:?}");
        assert_eq!(score(&info), ScoreKind::Mate(2), "{switches:?}");
    }
}

#[test]
fn mate_in_three() {
    let result = search("r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 6);
    assert_eq!(score(&result), ScoreKind::Mate(3));
}

#[test]
fn the_mated_side_sees_its_fate_and_defends_longest() {
    // Black to move is mated next move whatever it does (Kg8 is forced, then Rb8#).
    let result = search("7k/R7/8/8/8/8/8/1R5K b - - 1 1", 4);
    assert_eq!(score(&result), ScoreKind::Mate(-1));
}

#[test]
fn checkmate_and_stalemate_are_scored_apart() {
    // No legal move: checkmated or stalemated, the search reports no move either way.
    let checkmated = search("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", 3);
    assert!(checkmated.best_move().is_none());
    let stalemated = search("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 3);
    assert!(stalemated.best_move().is_none());
    // One move before: White can mate (Qf8#) or stalemate (Qf7); the first scores as mate, and
    // every stalemating move as a draw.
    let all = search_game(
        "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1",
        &[],
        SearchLimits::depth(3),
        64,
    );
    assert_eq!(all.lines[0].score.kind(), ScoreKind::Mate(1));
    let stalemating = all
        .lines
        .iter()
        .find(|line| move_to_uci(line.pv[0]) == "f1f7")
        .unwrap();
    assert_eq!(stalemating.score, Score::DRAW);
}

#[test]
fn stalemating_oneself_escapes_mate_and_scores_a_draw() {
    // Black (Ka8, Rb7) against Ka6, Pb6, Qb5: every move but one allows mate. Ra7+ forces bxa7 (the
    // king cannot take a defended rook), after which Black has no legal move and is not in check:
    // stalemate. That escape must score exactly as a draw, every other move as a loss by mate.
    let fen = "k7/1r6/KP6/1Q6/8/8/8/8 b - - 0 1";
    let result = search_game(fen, &[], SearchLimits::depth(5), 64);
    let lines = &result.lines;
    assert_eq!(move_to_uci(lines[0].pv[0]), "b7a7");
    assert_eq!(lines[0].score, Score::DRAW, "{:?}", lines[0]);
    assert!(lines.len() > 1);
    for line in &lines[1..] {
        assert!(
            matches!(line.score.kind(), ScoreKind::Mate(moves) if moves < 0),
            "{} should lose to mate: {:?}",
            move_to_uci(line.pv[0]),
            line.score
        );
    }
    // The stalemated position itself offers no move.
    let stalemate = search("k7/P7/K7/1Q6/8/8/8/8 b - - 0 2", 3);
    assert!(stalemate.best_move().is_none());
}

#[test]
fn a_stalemate_trap_the_opponent_may_decline_is_still_the_best_defence() {
    // Ka1, Rd2, Pd4 against Ka3, Qb3: Rd3 pins the queen; Qxd3 would stalemate Black, so White
    // declines (Kb4) into a pawn ending. Every other Black move loses to mate.
    let fen = "8/8/8/8/3p4/KQ6/3r4/k7 b - - 0 1";
    let result = search_game(fen, &[], SearchLimits::depth(6), 64);
    let lines = &result.lines;
    assert_eq!(move_to_uci(lines[0].pv[0]), "d2d3");
    assert!(matches!(lines[0].score.kind(), ScoreKind::Centipawns(cp) if cp.abs() < 100));
    assert!(
        lines[1..]
            .iter()
            .all(|line| matches!(line.score.kind(), ScoreKind::Mate(moves) if moves < 0))
    );
    // After Rd3 the capture Qxd3 is scored exactly as the draw it is.
    let after = search_game(fen, &["d2d3"], SearchLimits::depth(5), 64);
    let capture = after
        .lines
        .iter()
        .find(|line| move_to_uci(line.pv[0]) == "b3d3")
        .unwrap();
    assert_eq!(capture.score, Score::DRAW);
}

#[test]
fn repetition_is_sought_when_losing() {
    // Black lacks its queen. The position after 1.Nf3 Nf6 2.Ng1 Ng8 has occurred twice; Black to move
    // can make it occur a third time with Ng8: a draw, better than anything else it has.
    let fen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let moves = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"];
    let result = search_game(fen, &moves, SearchLimits::depth(4), 1);
    assert_eq!(best(&result), "f6g8");
    assert_eq!(result.lines[0].score, Score::DRAW);
}

#[test]
fn repetition_is_avoided_when_winning() {
    // The same game with White to move: Ng1 would repeat a position for the third time. White, a queen
    // up, scores that move as a draw and plays another.
    let fen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let moves = [
        "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6",
    ];
    let result = search_game(fen, &moves, SearchLimits::depth(4), 64);
    assert_ne!(best(&result), "f3g1");
    assert!(result.lines[0].score.value() > 500);
    let repeating = result
        .lines
        .iter()
        .find(|line| move_to_uci(line.pv[0]) == "f3g1")
        .unwrap();
    assert_eq!(repeating.score, Score::DRAW);
}

#[test]
fn fifty_move_rule() {
    // A rook up, but the next quiet move is the 100th reversible ply: a draw...
    let drawn = search("8/8/8/4k3/8/8/8/R3K3 w - - 99 80", 4);
    assert_eq!(score(&drawn), ScoreKind::Centipawns(0));
    // ...while with a fresh clock it is winning,
    let fresh = search("8/8/8/4k3/8/8/8/R3K3 w - - 0 80", 4);
    assert!(fresh.lines[0].score.value() > 300);
    // and checkmate delivered on the 100th ply still counts as mate.
    let mate = search("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80", 3);
    assert_eq!(score(&mate), ScoreKind::Mate(1));
}

#[test]
fn the_evaluation_shrinks_as_the_fifty_move_rule_nears() {
    // A rook up with nothing to capture: 60 reversible plies into the count the same position is
    // still winning, but scored nearer a draw (about two thirds at the leaves, four plies on).
    let fresh = search("8/8/8/4k3/8/8/8/R3K3 w - - 0 80", 4).lines[0]
        .score
        .value();
    let late = search("8/8/8/4k3/8/8/8/R3K3 w - - 60 80", 4).lines[0]
        .score
        .value();
    assert!(late > 150, "still winning: {late}");
    assert!(
        late * 10 < fresh * 8,
        "{late} at clock 60 is not below 0.8 times {fresh} at clock 0"
    );
}

#[test]
fn mate_scores_survive_the_transposition_table() {
    // Searching the same mate twice with one engine: the second search starts from table entries and
    // must report the same mate distance.
    let mut searcher = Searcher::new(16).unwrap();
    let fen = "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1";
    for _ in 0..2 {
        let mut position = Position::from_fen(fen).unwrap();
        let result = think(
            &mut searcher,
            &mut position,
            &SearchLimits::depth(7),
            1,
            &StopFlag::new(),
            &mut Silent,
        );
        assert_eq!(result.lines[0].score.kind(), ScoreKind::Mate(3));
    }
}

#[test]
fn multipv_lines_are_distinct_and_sorted() {
    let result = search_game(START_FEN, &[], SearchLimits::depth(4), 4);
    let lines = &result.lines;
    assert_eq!(lines.len(), 4);
    for pair in lines.windows(2) {
        assert!(pair[0].score >= pair[1].score);
        assert_ne!(pair[0].pv[0], pair[1].pv[0]);
    }
}

#[test]
fn limits_are_honoured() {
    let nodes = search_game(
        START_FEN,
        &[],
        SearchLimits {
            nodes: Some(5_000),
            ..Default::default()
        },
        1,
    );
    assert!(nodes.nodes <= 5_000, "{}", nodes.nodes);
    assert!(nodes.best_move().is_some());
    // A single node still yields a legal move.
    let one = search_game(
        START_FEN,
        &[],
        SearchLimits {
            nodes: Some(1),
            ..Default::default()
        },
        1,
    );
    assert!(one.best_move().is_some());
    let mate = search_game(
        "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1",
        &[],
        SearchLimits {
            mate: Some(3),
            ..Default::default()
        },
        1,
    );
    assert_eq!(mate.lines[0].score.kind(), ScoreKind::Mate(3));
}

#[test]
fn stop_flag_ends_an_unlimited_search() {
    let stop = StopFlag::new();
    let remote = stop.clone();
    let (searching, iterated) = std::sync::mpsc::channel();
    let handle = std::thread::spawn(move || {
        let mut position = Position::from_fen(START_FEN).unwrap();
        let mut searcher = Searcher::new(16).unwrap();
        think(
            &mut searcher,
            &mut position,
            &SearchLimits::default(),
            1,
            &stop,
            &mut |_: &SearchInfo| {
                let _ = searching.send(());
                true
            },
        )
    });
    // Stopped once it has finished an iteration (so it has a move), not after a guessed delay.
    iterated.recv().unwrap();
    remote.stop();
    let result = handle.join().unwrap();
    assert!(result.best_move().is_some());
}

#[test]
fn callback_can_end_the_search() {
    let mut position = Position::from_fen(START_FEN).unwrap();
    let mut searcher = Searcher::new(16).unwrap();
    let mut iterations = 0;
    let result = think(
        &mut searcher,
        &mut position,
        &SearchLimits::depth(20),
        1,
        &StopFlag::new(),
        &mut |_: &SearchInfo| {
            iterations += 1;
            iterations < 3
        },
    );
    assert_eq!(iterations, 3);
    assert_eq!(result.depth, 3);
}

#[test]
fn movetime_returns_a_move() {
    // Not a timing assertion (machines are noisy): the search ends by itself and gives a move.
    let start = Instant::now();
    let result = search_game(
        START_FEN,
        &[],
        SearchLimits {
            movetime: Some(Duration::from_millis(50)),
            ..Default::default()
        },
        1,
    );
    assert!(result.best_move().is_some());
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn the_observer_can_interrupt_an_unlimited_search() {
    struct Interrupt;
    impl SearchObserver for Interrupt {
        fn interrupted(&mut self) -> bool {
            true
        }
    }
    let mut position = Position::from_fen(START_FEN).unwrap();
    let mut searcher = Searcher::new(16).unwrap();
    let result = think(
        &mut searcher,
        &mut position,
        &SearchLimits::default(),
        1,
        &StopFlag::new(),
        &mut Interrupt,
    );
    assert!(result.best_move().is_some());
    assert_eq!(result.nodes, POLL_INTERVAL_NODES);
}

#[test]
fn a_threaded_search_returns_the_main_threads_exact_result() {
    let mut searcher = Searcher::new(16).unwrap();
    assert!(searcher.set_threads(0).is_err());
    assert!(
        searcher
            .set_threads(ferrochess::search::MAX_THREADS + 1)
            .is_err()
    );
    searcher.set_threads(2).unwrap();
    // Mate in 1 with the rook: the main thread's result, exact, whatever the helper did.
    let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
    let mut position = Position::from_fen_and_moves(fen, &[] as &[&str]).unwrap();
    for depth in [1, 8] {
        let info = think(
            &mut searcher,
            &mut position,
            &SearchLimits::depth(depth),
            1,
            &StopFlag::new(),
            &mut Silent,
        );
        assert_eq!(best(&info), "a1a8");
        assert_eq!(score(&info), ScoreKind::Mate(1));
        assert_eq!(info.depth, depth);
    }
}
