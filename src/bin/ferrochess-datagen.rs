//! `ferrochess-datagen`: self-play training positions for the network, the command line over
//! [`ferrochess::datagen`].

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use ferrochess::datagen::{
    DEFAULT_HASH_MB_PER_THREAD, DEFAULT_NODES, DEFAULT_RANDOM_PLIES, DatagenConfig, Target, run,
};
use ferrochess::limits::StopFlag;
use ferrochess::nnue::Evaluation;

const NAME: &str = "ferrochess-datagen";

fn help() -> String {
    format!(
        "{NAME}: quiet positions from the engine's own games, to train its network.

Usage: {NAME} --output DIR (--positions N | --games N) [options]

  --output DIR          where the files go (created if missing): DIR/SEED-THREAD.txt, one
                        position a line, 'FEN | score | result' (score in centipawns and result
                        1.0/0.5/0.0, both from White's side), and DIR/SEED-THREAD.progress
  --positions N         stop once the files of this seed hold N positions
  --games N             or N games
  --nodes N             nodes searched for each move ({DEFAULT_NODES})
  --threads N           games played at once, one thread each (all cores)
  --hash MB             transposition table of each thread ({DEFAULT_HASH_MB_PER_THREAD})
  --seed S              seed of the random openings (1); each seed has its own files
  --random-plies N      random legal plies opening each game ({DEFAULT_RANDOM_PLIES})
  --evaluation network|classic
                        the compiled-in network (the default) or the hand-crafted evaluation
  --eval-file PATH      play with the network in the file PATH
  --report-seconds S    seconds between progress lines on stderr (10)
  -h, --help            this text

Stopping and resuming: Ctrl-C ends the program at once, and so does `kill` (SIGTERM), which a
run started in the background by a script needs: such a run ignores SIGINT. Each game's lines
are written in one append when the game ends, so the files only ever hold whole games (the
games in progress are lost). Run the same command again to go on: it counts what the files hold and plays new games
(each game's seed comes from the seed, the thread and the game's number), never one it wrote.
"
    )
}

/// What went wrong with the command line: the message names the argument.
struct Usage(String);

fn value<T: std::str::FromStr>(flag: &str, text: &str, expected: &str) -> Result<T, Usage> {
    text.parse()
        .map_err(|_| Usage(format!("invalid {flag} '{text}': expected {expected}")))
}

fn at_least_one(flag: &str, text: &str) -> Result<u64, Usage> {
    match value::<u64>(flag, text, "a whole number of at least 1")? {
        0 => Err(Usage(format!(
            "invalid {flag} '0': expected a whole number of at least 1"
        ))),
        number => Ok(number),
    }
}

/// The configuration the arguments ask for; `None` when they ask for the help.
fn parse(arguments: &[String]) -> Result<Option<DatagenConfig>, Usage> {
    let mut output = None;
    let mut target = None;
    let mut evaluation_name = None;
    let mut eval_file = None;
    let mut config = DatagenConfig::new("", Target::Positions(0));
    let mut rest = arguments.iter();
    while let Some(argument) = rest.next() {
        let (flag, inline) = match argument.split_once('=') {
            Some((flag, text)) if flag.starts_with("--") => (flag, Some(text.to_string())),
            _ => (argument.as_str(), None),
        };
        if matches!(flag, "-h" | "--help") {
            return Ok(None);
        }
        if !flag.starts_with('-') {
            return Err(Usage(format!("unexpected argument '{flag}'")));
        }
        let known = [
            "--output",
            "--positions",
            "--games",
            "--nodes",
            "--threads",
            "--hash",
            "--seed",
            "--random-plies",
            "--evaluation",
            "--eval-file",
            "--report-seconds",
        ];
        if !known.contains(&flag) {
            return Err(Usage(format!("unknown option '{flag}'")));
        }
        let text = match inline.or_else(|| rest.next().cloned()) {
            Some(text) => text,
            None => return Err(Usage(format!("{flag} needs a value"))),
        };
        match flag {
            "--output" => output = Some(PathBuf::from(text)),
            "--positions" | "--games" => {
                if target.is_some() {
                    return Err(Usage(format!(
                        "{flag}: give one of --positions and --games, once"
                    )));
                }
                let number = at_least_one(flag, &text)?;
                target = Some(if flag == "--games" {
                    Target::Games(number)
                } else {
                    Target::Positions(number)
                });
            }
            "--nodes" => config.nodes = at_least_one(flag, &text)?,
            "--threads" => config.threads = at_least_one(flag, &text)? as usize,
            "--hash" => config.hash_mb = at_least_one(flag, &text)? as usize,
            "--seed" => config.seed = value(flag, &text, "a whole number")?,
            "--random-plies" => {
                config.random_plies = value(flag, &text, "a whole number of plies")?;
            }
            "--evaluation" => match text.as_str() {
                "network" | "classic" => evaluation_name = Some(text),
                _ => {
                    return Err(Usage(format!(
                        "invalid --evaluation '{text}': expected 'network' or 'classic'"
                    )));
                }
            },
            "--eval-file" => eval_file = Some(PathBuf::from(text)),
            "--report-seconds" => {
                let seconds: f64 = value(flag, &text, "a number of seconds")?;
                config.report_interval = Duration::try_from_secs_f64(seconds)
                    .ok()
                    .filter(|interval| !interval.is_zero())
                    .ok_or_else(|| {
                        Usage(format!(
                            "invalid --report-seconds '{text}': expected a number of seconds \
                             above 0"
                        ))
                    })?;
            }
            _ => unreachable!("every known option is handled"),
        }
    }
    config.output = output.ok_or_else(|| Usage("--output DIR is required".to_string()))?;
    config.target = target.ok_or_else(|| Usage("give --positions N or --games N".to_string()))?;
    config.evaluation = match (evaluation_name.as_deref(), eval_file) {
        (Some("classic"), Some(path)) => {
            return Err(Usage(format!(
                "--eval-file '{}' is a network: it cannot go with --evaluation classic",
                path.display()
            )));
        }
        (Some("classic"), None) => Evaluation::Classic,
        (_, Some(path)) => {
            Evaluation::from_file(&path).map_err(|error| Usage(format!("--eval-file: {error}")))?
        }
        (_, None) => Evaluation::default(),
    };
    config
        .validate()
        .map_err(|error| Usage(error.to_string()))?;
    Ok(Some(config))
}

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let config = match parse(&arguments) {
        Ok(Some(config)) => config,
        Ok(None) => {
            print!("{}", help());
            return ExitCode::SUCCESS;
        }
        Err(Usage(message)) => {
            eprintln!("{NAME}: {message} (see --help)");
            return ExitCode::from(2);
        }
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
    let report = &mut |progress: &ferrochess::datagen::Progress| eprintln!("{NAME}: {progress}");
    match run(&config, &StopFlag::new(), report) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{NAME}: {error}");
            ExitCode::FAILURE
        }
    }
}
