//! `cargo bench --bench perft_vs_shakmaty`: perft through ferrochess's make-move path (copy-make with
//! incremental Zobrist keys) against shakmaty's own perft (the floor for move generation and make-move
//! cost), on the same positions in one run. Prints nodes/s of each and their ratio.

use std::time::Instant;

use shakmaty::{CastlingMode, Chess, fen::Fen};

const POSITIONS: [(&str, u32); 4] = [
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        5,
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        4,
    ),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 6),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        4,
    ),
];

fn main() {
    let mut ours_total = (0u64, 0f64);
    let mut theirs_total = (0u64, 0f64);
    println!(
        "{:<72} {:>5} {:>12} {:>12} {:>12}",
        "position", "depth", "nodes", "ferrochess/s", "shakmaty/s"
    );
    for (fen, depth) in POSITIONS {
        let board: Chess = fen
            .parse::<Fen>()
            .expect("valid FEN")
            .into_position(CastlingMode::Standard)
            .expect("legal position");
        // Alternate twice to spread the machine's noise over both sides.
        let mut ours = f64::MAX;
        let mut theirs = f64::MAX;
        let mut nodes = 0;
        for _ in 0..2 {
            let mut position = ferrochess::position::Position::from_board(board.clone());
            let start = Instant::now();
            nodes = ferrochess::perft::perft(&mut position, depth);
            ours = ours.min(start.elapsed().as_secs_f64());
            let start = Instant::now();
            let reference = shakmaty::perft(&board, depth);
            theirs = theirs.min(start.elapsed().as_secs_f64());
            assert_eq!(nodes, reference, "perft mismatch on {fen}");
        }
        println!(
            "{fen:<72} {depth:>5} {nodes:>12} {:>12.0} {:>12.0}",
            nodes as f64 / ours,
            nodes as f64 / theirs
        );
        ours_total = (ours_total.0 + nodes, ours_total.1 + ours);
        theirs_total = (theirs_total.0 + nodes, theirs_total.1 + theirs);
    }
    let ours_nps = ours_total.0 as f64 / ours_total.1;
    let theirs_nps = theirs_total.0 as f64 / theirs_total.1;
    println!(
        "total: ferrochess {ours_nps:.0} nodes/s, shakmaty {theirs_nps:.0} nodes/s, ratio {:.2}",
        ours_nps / theirs_nps
    );
}
