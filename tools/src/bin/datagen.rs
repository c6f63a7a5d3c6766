//! `datagen`: self-play training positions for the network, the command line over
//! [`ferrochess_tools::datagen`].

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{ArgGroup, CommandFactory, Parser, ValueEnum};
use ferrochess::eval::Evaluation;
use ferrochess::limits::StopFlag;
use ferrochess_tools::datagen::{
    DEFAULT_HASH_MB_PER_THREAD, DEFAULT_NODES, DEFAULT_RANDOM_PLIES, DatagenConfig, Progress,
    Target, run,
};
use ferrochess_tools::exit_code;

const NAME: &str = "datagen";

/// Quiet positions from the engine's own games, to train its network.
#[derive(Parser, Debug)]
#[command(
    name = NAME,
    group(ArgGroup::new("target").required(true).args(["positions", "games"])),
    after_help = "Stopping and resuming: Ctrl-C ends the program at once, and so does `kill` \
(SIGTERM), which a run started in the background by a script needs: such a run ignores SIGINT. \
Each game's lines are written in one append when the game ends, so the files only ever hold \
whole games (the games in progress are lost). Run the same command again to go on: it counts \
what the files hold and plays new games (each game's seed comes from the seed, the thread and \
the game's number), never one it wrote."
)]
struct Arguments {
    /// Where the files go (created if missing): DIR/SEED-THREAD.txt, one position a line,
    /// 'FEN | score | result' (score in centipawns and result 1.0/0.5/0.0, both from White's
    /// side), and DIR/SEED-THREAD.progress
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
    /// Stop once the files of this seed hold N positions
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    positions: Option<u64>,
    /// Or N games
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    games: Option<u64>,
    /// Nodes searched for each move
    #[arg(long, value_name = "N", default_value_t = DEFAULT_NODES,
          value_parser = clap::value_parser!(u64).range(1..))]
    nodes: u64,
    /// Games played at once, one thread each [default: all cores]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    threads: Option<u64>,
    /// Transposition table of each thread, in megabytes
    #[arg(long = "hash", value_name = "MB", default_value_t = DEFAULT_HASH_MB_PER_THREAD as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    hash_mb: u64,
    /// Seed of the random openings; each seed has its own files
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Random legal plies opening each game
    #[arg(long, value_name = "N", default_value_t = DEFAULT_RANDOM_PLIES)]
    random_plies: usize,
    /// The compiled-in network (the default) or the hand-crafted evaluation
    #[arg(long, value_enum)]
    evaluation: Option<EvaluationKind>,
    /// Play with the network in the file PATH
    #[arg(long, value_name = "PATH")]
    eval_file: Option<PathBuf>,
    /// Seconds between progress lines on stderr
    #[arg(long, value_name = "S", default_value = "10", value_parser = positive_seconds)]
    report_seconds: Duration,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum EvaluationKind {
    Network,
    Classic,
}

fn positive_seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
        .filter(|interval| !interval.is_zero())
        .ok_or_else(|| "expected a number of seconds above 0".to_string())
}

impl Arguments {
    /// The configuration the arguments ask for; the error says which argument is wrong.
    fn config(self) -> Result<DatagenConfig, String> {
        let target = match (self.positions, self.games) {
            (Some(positions), _) => Target::Positions(positions),
            (None, Some(games)) => Target::Games(games),
            (None, None) => unreachable!("clap requires one of --positions and --games"),
        };
        let mut config = DatagenConfig::new(self.output, target);
        config.nodes = self.nodes;
        if let Some(threads) = self.threads {
            config.threads = usize::try_from(threads).unwrap_or(usize::MAX);
        }
        config.hash_mb = usize::try_from(self.hash_mb).unwrap_or(usize::MAX);
        config.seed = self.seed;
        config.random_plies = self.random_plies;
        config.report_interval = self.report_seconds;
        config.evaluation = match (self.evaluation, self.eval_file) {
            (Some(EvaluationKind::Classic), Some(path)) => {
                return Err(format!(
                    "--eval-file '{}' is a network: it cannot go with --evaluation classic",
                    path.display()
                ));
            }
            (Some(EvaluationKind::Classic), None) => Evaluation::classic(),
            (_, Some(path)) => {
                Evaluation::from_file(&path).map_err(|error| format!("--eval-file: {error}"))?
            }
            (_, None) => Evaluation::default(),
        };
        config.validate().map_err(|error| error.to_string())?;
        Ok(config)
    }
}

fn main() -> ExitCode {
    let config = match Arguments::parse().config() {
        Ok(config) => config,
        Err(message) => Arguments::command()
            .error(ErrorKind::ValueValidation, message)
            .exit(),
    };
    let target = match config.target {
        Target::Positions(positions) => format!("{positions} positions"),
        Target::Games(games) => format!("{games} games"),
    };
    eprintln!(
        "{NAME}: seed {}, {} threads, {} nodes a move, evaluation {}, into '{}' until {target}",
        config.seed,
        config.threads,
        config.nodes,
        config.evaluation.name(),
        config.output.display()
    );
    let report = &mut |progress: &Progress| eprintln!("{NAME}: {progress}");
    exit_code(NAME, run(&config, &StopFlag::new(), report).map(|_| ()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(arguments: &[&str]) -> Result<DatagenConfig, String> {
        let arguments = [NAME].iter().chain(arguments);
        Arguments::try_parse_from(arguments)
            .map_err(|error| error.to_string())?
            .config()
    }

    #[test]
    fn the_command_line_gives_the_config_or_names_the_wrong_argument() {
        Arguments::command().debug_assert();
        let config =
            parse(&["--output", "out", "--games", "3", "--evaluation", "classic"]).unwrap();
        assert_eq!(config.target, Target::Games(3));
        assert_eq!((config.nodes, config.seed), (DEFAULT_NODES, 1));
        assert_eq!(config.evaluation.name(), Evaluation::classic().name());
        for (arguments, named) in [
            (&["--output", "out"][..], "--positions"),
            (
                &["--output", "out", "--games", "1", "--positions", "2"],
                "--positions",
            ),
            (&["--output", "out", "--games", "0"], "--games"),
            (
                &["--output", "out", "--games", "1", "--report-seconds", "0"],
                "--report-seconds",
            ),
            (
                &[
                    "--output",
                    "out",
                    "--games",
                    "1",
                    "--evaluation",
                    "classic",
                    "--eval-file",
                    "n",
                ],
                "--eval-file",
            ),
            (
                &["--output", "out", "--games", "1", "--threads", "100000"],
                "threads",
            ),
        ] {
            let error = parse(arguments).unwrap_err();
            assert!(error.contains(named), "{arguments:?}: {error}");
        }
    }
}
