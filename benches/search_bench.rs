//! `cargo bench --bench search_bench [-- DEPTH]`: the bench signature and speed, without Python.

fn main() {
    let depth = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(ferrochess::bench::BENCH_DEPTH);
    let report = ferrochess::bench::run(depth).expect("bench positions are valid");
    println!("positions: {}", report.positions);
    println!("depth:     {}", report.depth);
    println!("time:      {:.3} s", report.elapsed.as_secs_f64());
    println!("nodes/s:   {}", report.nps());
    println!("Bench: {}", report.nodes);
}
