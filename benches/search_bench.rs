//! `cargo bench --bench search_bench [-- DEPTH]`: the bench signature and speed, without Python,
//! with the network (the signature) and the hand-crafted evaluation in the same run; then what
//! one evaluation costs with each, timed along random lines from the bench positions (the
//! network's accumulators updated move by move, as in the search), and the share of the
//! search's time that the evaluations take (evaluations per node x time per evaluation / time
//! per node); and what one network evaluation costs with each instruction set the processor
//! has (`ferrochess::eval::nnue::simd`), the widest being the one the search uses. Last, the two
//! evaluations' nodes/s in deeper searches (depth 10, three rounds alternating), closer to a
//! game's than the bench's few milliseconds a position.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use ferrochess::bench::{BENCH_POSITIONS, BenchReport};
use ferrochess::eval::Evaluation;
use ferrochess::eval::nnue::simd::Isa;
use ferrochess::eval::nnue::{Accumulators, default_network};
use ferrochess::position::Position;
use ferrochess::random::Random;
use ferrochess::search::{SearchRequest, Searcher, Silent};
use shakmaty::Position as _;

/// The deeper searches: the bench's positions at this depth...
const DEEPER_DEPTH: u32 = 10;
/// ...this many times with each evaluation, alternating.
const DEEPER_ROUNDS: usize = 3;

/// Nanoseconds per evaluation along random lines (a push, an evaluation, more pushes, pops).
fn evaluation_cost(evaluation: &Evaluation) -> f64 {
    let mut random = Random::seeded(1);
    let network = default_network();
    let mut accumulators = Accumulators::new(&network);
    let mut evaluations = 0u64;
    let mut elapsed = 0.0;
    for _round in 0..200 {
        for fen in BENCH_POSITIONS {
            let mut position = Position::from_fen(fen).expect("bench positions are valid");
            for _ply in 0..12 {
                let moves = position.board().legal_moves();
                if moves.is_empty() {
                    break;
                }
                position.push(moves[random.index(moves.len())]);
                let start = Instant::now();
                let value = match evaluation {
                    Evaluation::Classic(weights) => {
                        ferrochess::eval::classic::evaluate_with(position.board(), weights).value()
                    }
                    Evaluation::Network(network) => accumulators.evaluate(network, &position),
                };
                elapsed += start.elapsed().as_secs_f64();
                black_box(value);
                evaluations += 1;
            }
        }
    }
    elapsed * 1e9 / evaluations as f64
}

/// The bench with `evaluation`, and the evaluations its searches made.
fn bench(depth: u32, evaluation: &Evaluation) -> (BenchReport, u64) {
    let report = ferrochess::bench::run(depth, evaluation).expect("bench positions are valid");
    let mut evaluations = 0;
    for fen in BENCH_POSITIONS {
        let mut position = Position::from_fen(fen).expect("bench positions are valid");
        let mut searcher = Searcher::new(ferrochess::bench::BENCH_HASH_MB).expect("a small table");
        searcher.set_evaluation(evaluation.clone());
        let decision = searcher
            .think(
                &mut position,
                &SearchRequest::depth(depth),
                &ferrochess::limits::StopFlag::new(),
                &mut Silent,
            )
            .expect("bench positions are valid");
        evaluations += decision
            .into_search()
            .map_or(0, |info| info.stats.evaluations);
    }
    (report, evaluations)
}

fn main() {
    let depth = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(ferrochess::bench::BENCH_DEPTH);
    let network = Evaluation::default();
    println!("positions: {}", BENCH_POSITIONS.len());
    println!("depth:     {depth}");
    let mut rates = Vec::new();
    for (name, evaluation) in [
        (network.name(), network.clone()),
        ("classic".to_string(), Evaluation::classic()),
    ] {
        let (report, evaluations) = bench(depth, &evaluation);
        let cost = evaluation_cost(&evaluation);
        let per_node = report.elapsed.as_secs_f64() * 1e9 / report.nodes as f64;
        let share = evaluations as f64 / report.nodes as f64 * cost / per_node;
        println!(
            "{name:>15}: Bench {:>9}  time {:.3} s  nodes/s {:>9}  evaluation {cost:.0} ns  \
             evaluations/node {:.2}  evaluation share of time {:.0}%",
            report.nodes,
            report.elapsed.as_secs_f64(),
            report.nps(),
            evaluations as f64 / report.nodes as f64,
            share * 100.0
        );
        rates.push((report.nps(), report.nodes));
    }
    for isa in Isa::available() {
        let network = default_network().as_ref().clone().with_isa(isa);
        let cost = evaluation_cost(&Evaluation::Network(Arc::new(network)));
        println!("network evaluation with {isa:?}: {cost:.0} ns");
    }
    println!(
        "network/classic nodes/s: {:.2}",
        rates[0].0 as f64 / rates[1].0 as f64
    );
    // The bench's searches are short (a few milliseconds each), where the time a search takes to
    // start counts; searches as deep as a game's moves reach, alternating the two evaluations
    // round by round, say more about play.
    let mut deeper = [(0u64, 0f64); 2];
    let classic = Evaluation::classic();
    for _round in 0..DEEPER_ROUNDS {
        for (total, evaluation) in deeper.iter_mut().zip([&network, &classic]) {
            let report = ferrochess::bench::run(DEEPER_DEPTH, evaluation)
                .expect("bench positions are valid");
            total.0 += report.nodes;
            total.1 += report.elapsed.as_secs_f64();
        }
    }
    let [network_rate, classic_rate] = deeper.map(|(nodes, seconds)| nodes as f64 / seconds);
    println!(
        "deeper: depth {DEEPER_DEPTH}, {DEEPER_ROUNDS} rounds: network nodes/s {network_rate:.0}  \
         classic nodes/s {classic_rate:.0}  network/classic {:.2}",
        network_rate / classic_rate
    );
    println!("Bench: {}", rates[0].1);
}
