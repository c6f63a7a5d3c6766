//! `ferrochess-uci`: the engine as a native UCI program for chess GUIs and match tools.

fn main() {
    let stdin = std::io::stdin();
    if let Err(error) = ferrochess::uci::run(stdin.lock(), std::io::stdout()) {
        eprintln!("ferrochess-uci: {error}");
        std::process::exit(1);
    }
}
