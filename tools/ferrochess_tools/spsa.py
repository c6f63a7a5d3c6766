"""SPSA tuning of the search's tunables in games (issue 37), in OpenBench's form.

Contract: `run` tunes the parameters a `tune` build of `ferrochess-uci` offers (its `tunables`
command prints them as OpenBench's SPSA input, `name, int|float, value, min, max, C_end, R_end`;
`--params FILE` reads such lines instead, to tune a subset or other ranges). Iteration k of N
(k = 1..N) gives every parameter a random sign and plays `--pairs` game pairs (one opening each,
colours swapped) between an engine at value + sign * c_k ("plus") and one at value - sign * c_k
("minus"), `--concurrency` games at a time, as one `ferrochess.match` match between the two
(their values set as UCI options when they start; the clock `--tc`, ECO openings of
`--opening-plies` plies, a draw at `--max-plies` plies); then each value moves by r_k * c_k *
(plus wins - plus losses) * sign, clipped to its range. The schedule is OpenBench's, with A =
`--a-ratio` * N: c_k = C_end * N^gamma / k^gamma (at least 0.5 for an integer), r_k = a_k / c_k^2
with a_k = R_end * C_end^2 * (A + N)^alpha / (A + k)^alpha, so both end at C_end and R_end. An
integer is rounded at random (floor(x + u), one u for both engines) and clipped. Iteration k's
randomness (signs, rounding) and openings come from `--seed` and k alone, and the whole state
(values, iteration, W/D/L) is written to `--state` after every iteration, so running the same
command again after an interruption resumes where it stopped and draws the same perturbations
(the state file's settings win over the command line's, but `--concurrency`).

`--engine` spells the engine `COMMAND[;proto=uci|xboard][;name=NAME][;OPTION=VALUE...]`, as the
repository's earlier match runner did and state files store it (`parse_engine`).

`show` prints the current values: as `name, value` lines, as `setoption` lines and as the
`ferrochess match` command that verifies them (the tune build with the values against the tune
build with its defaults); `apply` rewrites the defaults in src/search/params.rs's `tunables!`
declarations (rounded). A tuned value is kept only if that match confirms it (docs/tuning.md).

    python -m ferrochess_tools.spsa run [--engine SPEC] [--params FILE] [--state FILE]
        [--iterations 1000] [--pairs 8] [--tc 8+0.08] [--concurrency 1] [--seed 1]
    python -m ferrochess_tools.spsa show [--state FILE]
    python -m ferrochess_tools.spsa apply [--state FILE] [--file src/search/params.rs]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import logging
import math
import os
import random
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ferrochess.match import (
    Adjudication,
    Limit,
    Opening,
    Openings,
    TimeControl,
    Uci,
    match,
)

from ferrochess_tools import REPO_ROOT, faulty_player

ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1
TUNE_BINARY = REPO_ROOT / "target" / "tune" / "release" / "ferrochess-uci"
DEFAULT_ENGINE = f"{TUNE_BINARY};OwnBook=false"
DEFAULT_STATE = REPO_ROOT / "target" / "spsa" / "state.json"
PARAMS_RS = REPO_ROOT / "src" / "search" / "params.rs"
STATE_VERSION = 1
VERIFICATION_GAMES = 400
"""Games of the match that checks tuned values (`show`), at most: the SPRT usually stops it."""


def parse_engine(text: str) -> Uci:
    """The engine `text` spells, `COMMAND[;proto=uci|xboard][;name=NAME][;OPTION=VALUE...]`
    (the command split like a shell would), as a `ferrochess.match.Uci`: each `OPTION=VALUE` a
    UCI option, `true`/`false` as booleans, whole numbers as integers, the rest as text. An
    empty command or a bad `proto` raises ValueError quoting `text`."""
    command, *settings = text.split(";")
    words = shlex.split(command)
    if not words:
        raise ValueError(f"engine {text!r}: no command before the first ';'")
    protocol, name, options = "uci", "", {}
    for setting in settings:
        key, _, value = (part.strip() for part in setting.partition("="))
        if key == "proto":
            protocol = value
        elif key == "name":
            name = value
        elif key:
            lowered = value.lower()
            number = re.fullmatch(r"-?\d+", value)
            options[key] = (lowered == "true" if lowered in ("true", "false")
                            else int(value) if number else value)  # fmt: skip
    if protocol not in ("uci", "xboard"):
        raise ValueError(f"engine {text!r}: proto={protocol!r} must be uci or xboard")
    return Uci(words, options, protocol, name)  # type: ignore[arg-type]


@dataclass
class Param:
    """One parameter in OpenBench's terms; `value` is the tuner's current (unrounded) value."""

    name: str
    is_float: bool
    value: float
    start: float
    min: float
    max: float
    c_end: float
    r_end: float

    def clip(self, value: float) -> float:
        return min(max(value, self.min), self.max)

    def rounded(self) -> float:
        """The value an engine is given: an integer rounds to the nearest (halves up)."""
        return self.value if self.is_float else self.clip(math.floor(self.value + 0.5))


def parse_params(text: str) -> list[Param]:
    """OpenBench's SPSA input lines, `name, int|float, value, min, max, C_end, R_end` (blank lines
    and `#` comments skipped); a line of another shape raises ValueError quoting it."""
    params = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 7 or fields[1] not in ("int", "float"):
            raise ValueError(f"not an SPSA parameter line: {line!r}")
        value, low, high, c_end, r_end = (float(f) for f in fields[2:])
        if not low <= value <= high or c_end <= 0 or r_end <= 0:
            raise ValueError(f"value outside its range, or C_end or R_end not positive: {line!r}")
        params.append(Param(fields[0], fields[1] == "float", value, value, low, high, c_end, r_end))
    return params


def engine_params(command: list[str]) -> list[Param]:
    """The parameters a `tune` build offers (its `tunables` command)."""
    done = subprocess.run(command, input="tunables\nquit\n", capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    lines = [line for line in done.stdout.splitlines() if line.count(",") == 6]
    if not lines:
        raise SystemExit(f"{command[0]} printed no tunables: build it with the tune feature "
                         "(make spsa, or cargo build --release --features tune --bin "
                         "ferrochess-uci --target-dir target/tune)")  # fmt: skip
    return parse_params("\n".join(lines))


@dataclass(frozen=True)
class Schedule:
    """OpenBench's gain sequences over `iterations` iterations (k counts from 1)."""

    iterations: int
    alpha: float = ALPHA
    gamma: float = GAMMA
    a_ratio: float = A_RATIO

    def c(self, param: Param, k: int) -> float:
        """The perturbation c_k."""
        c: float = param.c_end * float(self.iterations) ** self.gamma / float(k) ** self.gamma
        return c if param.is_float else max(c, 0.5)

    def r(self, param: Param, k: int) -> float:
        """The learning rate r_k = a_k / c_k^2."""
        big_a = self.a_ratio * self.iterations
        a_end = param.r_end * param.c_end**2
        a: float = a_end * (big_a + self.iterations) ** self.alpha / (big_a + k) ** self.alpha
        return a / self.c(param, k) ** 2


@dataclass
class Perturbation:
    signs: list[int]
    plus: dict[str, float]
    minus: dict[str, float]


def perturb(params: list[Param], schedule: Schedule, k: int, rng: random.Random) -> Perturbation:
    """Iteration k's signs and the two engines' values (integers rounded at random, clipped)."""
    signs, plus, minus = [], {}, {}
    for param in params:
        sign = rng.choice((-1, 1))
        c = schedule.c(param, k)
        up, down = param.value + sign * c, param.value - sign * c
        if not param.is_float:
            u = rng.random()
            up, down = math.floor(up + u), math.floor(down + u)
        signs.append(sign)
        plus[param.name] = param.clip(up) if param.is_float else int(param.clip(up))
        minus[param.name] = param.clip(down) if param.is_float else int(param.clip(down))
    return Perturbation(signs, plus, minus)


def update(params: list[Param], schedule: Schedule, k: int, signs: list[int], wins: int,
           losses: int) -> None:  # fmt: skip
    """Moves every value by r_k * c_k * (wins - losses) * sign (the plus engine's record)."""
    for param, sign in zip(params, signs):
        step = schedule.r(param, k) * schedule.c(param, k) * (wins - losses) * sign
        param.value = param.clip(param.value + step)


@dataclass
class State:
    """Everything a run needs to resume; written as JSON after every iteration."""

    params: list[Param]
    schedule: Schedule
    pairs: int
    seed: int
    engine: str = DEFAULT_ENGINE
    tc: str = "8+0.08"
    opening_plies: int = 8
    max_plies: int = 400
    time_margin_ms: float = 0.0
    iteration: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["version"] = STATE_VERSION
        return data

    @staticmethod
    def from_json(data: dict[str, Any]) -> State:
        data = dict(data)
        if data.pop("version", None) != STATE_VERSION:
            raise SystemExit(f"state file version is not {STATE_VERSION}")
        data["params"] = [Param(**p) for p in data["params"]]
        data["schedule"] = Schedule(**data["schedule"])
        return State(**data)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)


@dataclass(frozen=True)
class GameJob:
    """One game of an iteration: the two engines' values, the opening, who has White."""

    plus: Mapping[str, float]
    minus: Mapping[str, float]
    opening: Opening
    plus_white: bool
    seed: str


@dataclass(frozen=True)
class GameResult:
    score: float  # the plus engine's: 1, 0.5 or 0
    forfeit: str | None = None


GameFunction = Callable[[GameJob], GameResult]
"""Plays one game."""
IterationGames = Callable[[Sequence[GameJob], int], list[GameResult]]
"""Plays an iteration's games, a given number at once, and returns their results in order."""


def each_game(play: GameFunction) -> IterationGames:
    """Plays an iteration's games one `play(job)` call each, `concurrency` at a time in threads
    (for a game function of a test, say); the results come in the jobs' order."""

    def games(jobs: Sequence[GameJob], concurrency: int) -> list[GameResult]:
        with concurrent.futures.ThreadPoolExecutor(max(concurrency, 1)) as pool:
            return list(pool.map(play, jobs))

    return games


def iteration_openings(state: State, k: int) -> list[Opening]:
    """Iteration k's `state.pairs` openings: the ECO lines cut to `state.opening_plies`, shuffled
    with `state.seed` (`ferrochess.match.Openings.eco`), taken in turn from where iteration k - 1
    stopped (and from the start again once all were played)."""
    start = (k - 1) * state.pairs + 1
    return Openings.eco(state.opening_plies, start=start).select(state.pairs, state.seed)


def tune(state: State, play: IterationGames, concurrency: int,
         save: Callable[[State], None], stop_after: int | None = None) -> State:  # fmt: skip
    """Runs iterations from `state.iteration + 1` to the end (or `stop_after` of them), calling
    `save` after each; each iteration's games (`iteration_openings`, each twice: plus with White,
    then minus) are `play(jobs, concurrency)`."""
    done = 0
    while state.iteration < state.schedule.iterations and done != stop_after:
        k = state.iteration + 1
        started = time.monotonic()
        rng = random.Random(f"spsa {state.seed} {k}")
        perturbation = perturb(state.params, state.schedule, k, rng)
        jobs = [GameJob(perturbation.plus, perturbation.minus, opening, plus_white,
                        f"{state.seed} {k} {pair} {plus_white}")
                for pair, opening in enumerate(iteration_openings(state, k))
                for plus_white in (True, False)]  # fmt: skip
        results = play(jobs, concurrency)
        wins = sum(r.score == 1.0 for r in results)
        losses = sum(r.score == 0.0 for r in results)
        draws = len(results) - wins - losses
        update(state.params, state.schedule, k, perturbation.signs, wins, losses)
        state.iteration = k
        state.wins, state.draws, state.losses = (state.wins + wins, state.draws + draws,
                                                 state.losses + losses)  # fmt: skip
        state.forfeits += [f"iteration {k}: {r.forfeit}" for r in results if r.forfeit]
        save(state)
        done += 1
        print(f"iteration {k}/{state.schedule.iterations}: plus +{wins} ={draws} -{losses} "
              f"({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)  # fmt: skip
    return state


def uci_values(values: Mapping[str, float]) -> dict[str, str | int | bool | None]:
    """The values as python-chess options: integers as such (a float goes as text, which an
    engine's spin option refuses: the tune build's tunables are all integers)."""
    return {name: value if isinstance(value, int) else str(value) for name, value in values.items()}


def engine_games(state: State) -> IterationGames:
    """Plays an iteration's games as one `ferrochess.match` match between the plus and the minus
    engine (`state.engine`, each with its values as UCI options), on the tune's clock, openings
    and ply limit. The jobs must be `tune`'s: the same values throughout, in pairs sharing an
    opening, plus with White first (else ValueError)."""
    engine = parse_engine(state.engine)
    limit = Limit(clock=TimeControl.parse(state.tc), margin=state.time_margin_ms / 1000)
    moves = max(1, math.ceil((state.max_plies - state.opening_plies) / 2))

    def play(jobs: Sequence[GameJob], concurrency: int) -> list[GameResult]:
        first = jobs[0]
        pairs = [jobs[i:i + 2] for i in range(0, len(jobs), 2)]
        if any(len(pair) != 2 or not pair[0].plus_white or pair[1].plus_white
               or pair[0].opening != pair[1].opening for pair in pairs) or any(
                   job.plus != first.plus or job.minus != first.minus for job in jobs):
            raise ValueError("the jobs are not one iteration's game pairs")  # fmt: skip
        players = [dataclasses.replace(engine, options={**engine.options, **uci_values(values)},
                                       name=name)
                   for name, values in (("plus", first.plus), ("minus", first.minus))]  # fmt: skip
        result = match(players, games=len(jobs), openings=[pair[0].opening for pair in pairs],
                       limit=limit, concurrency=concurrency, seed=state.seed,
                       adjudication=Adjudication(max_moves=moves), progress=False,
                       event="ferrochess spsa")  # fmt: skip
        results = []
        for record in sorted(result.games, key=lambda game: game.index):
            culprit = faulty_player(record)
            forfeit = None if culprit is None else f"{record.reason} ({players[culprit].name})"
            results.append(GameResult(record.points(0), forfeit))
        if len(results) != len(jobs):
            raise RuntimeError(f"the match ended after {len(results)} of {len(jobs)} games")
        return results

    return play


def verification_command(state: State, games: int = VERIFICATION_GAMES) -> str:
    """The `ferrochess match` command that checks the tuned values: the tune build with the
    values that changed against the same build with its defaults, at the tune's clock, with an
    SPRT of logistic Elo [0, 5]."""
    engine = parse_engine(state.engine)
    changed = {p.name: format_value(p) for p in state.params if p.rounded() != p.start}

    def spelled(name: str, options: Mapping[str, Any]) -> str:
        words = [f"cmd={shlex.join(engine.command)}", f"name={name}"]
        if engine.protocol != "uci":
            words.append(f"proto={engine.protocol}")
        for key, value in options.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            words.append(f"option.{key}={text}")
        return "-engine " + " ".join(shlex.quote(word) for word in words)

    each = f"tc={state.tc}" + (f" timemargin={state.time_margin_ms:g}"
                               if state.time_margin_ms else "")  # fmt: skip
    return (f"ferrochess match {spelled('tuned', {**engine.options, **changed})} "
            f"{spelled('base', engine.options)} -each {each} -rounds {games // 2} "
            "-sprt elo0=0 elo1=5 model=logistic")  # fmt: skip


def format_value(param: Param) -> str:
    value = param.rounded()
    return f"{value:g}" if param.is_float else str(int(value))


def show(state: State) -> str:
    lines = [f"# after {state.iteration}/{state.schedule.iterations} iterations, "
             f"{state.wins + state.draws + state.losses} games (plus +{state.wins} "
             f"={state.draws} -{state.losses}), {len(state.forfeits)} forfeits"]  # fmt: skip
    lines += [f"{p.name}, {format_value(p)}  # start {p.start:g}, now {p.value:.3f}"
              for p in state.params]  # fmt: skip
    lines += [f"setoption name {p.name} value {format_value(p)}" for p in state.params]
    lines.append(verification_command(state))
    return "\n".join(lines)


DECLARATION = re.compile(r"^(\s*[a-z0-9_]+: )([A-Z0-9_]+)( = )(-?[0-9_]+)(, )", re.M)


def apply(state: State, text: str) -> tuple[str, list[str]]:
    """`text` (params.rs) with each parameter's default replaced by its rounded value, and the
    changes made; a parameter not declared exactly once raises ValueError (nothing written)."""
    values = {p.name: int(p.rounded()) for p in state.params if not p.is_float}
    seen: dict[str, int] = {}
    changes: list[str] = []

    def replace(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in values:
            return match.group(0)
        seen[name] = seen.get(name, 0) + 1
        old, new = int(match.group(4).replace("_", "")), values[name]
        if old != new:
            changes.append(f"{name}: {old} -> {new}")
        number = f"{new:_}" if abs(new) >= 1000 else str(new)
        return match.group(1) + name + match.group(3) + number + match.group(5)

    rewritten = DECLARATION.sub(replace, text)
    missing = sorted(name for name in values if seen.get(name) != 1)
    if missing:
        raise ValueError(f"not declared exactly once in the tunables: {', '.join(missing)}")
    return rewritten, changes


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m ferrochess_tools.spsa",
                                     description=__doc__.splitlines()[0])  # fmt: skip
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="tune (or resume the state file's run)")
    run.add_argument("--engine", default=DEFAULT_ENGINE,
                     help="the tune build, COMMAND[;OPTION=VALUE...]")  # fmt: skip
    run.add_argument("--params", type=Path, help="OpenBench SPSA lines (default: the engine's)")
    run.add_argument("--iterations", type=int, default=1000)
    run.add_argument("--pairs", type=int, default=8, help="game pairs per iteration")
    run.add_argument("--tc", default="8+0.08", help="base+increment in seconds")
    run.add_argument("--concurrency", type=int, default=1, help="games at once")
    run.add_argument("--seed", type=int, default=1)
    run.add_argument("--opening-plies", type=int, default=8)
    run.add_argument("--max-plies", type=int, default=400,
                     help="a draw at this many plies from the start, the opening's included")
    run.add_argument("--time-margin", type=float, default=0.0,
                     help="milliseconds a move may overdraw its clock")  # fmt: skip
    run.add_argument("--a-ratio", type=float, default=A_RATIO)
    for command in (run, commands.add_parser("show", help="print the values and the check"),
                    commands.add_parser("apply", help="write the values into params.rs")):
        command.add_argument("--state", type=Path, default=DEFAULT_STATE)
    commands.choices["apply"].add_argument("--file", type=Path, default=PARAMS_RS)
    args = parser.parse_args()
    if args.command != "run":
        state = State.from_json(json.loads(args.state.read_text(encoding="utf-8")))
        if args.command == "show":
            print(show(state))
            return 0
        text, changes = apply(state, args.file.read_text(encoding="utf-8"))
        args.file.write_text(text, encoding="utf-8")
        print("\n".join(changes) or "no default changed", file=sys.stderr)
        print(show(state))
        return 0
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    if args.state.exists():
        state = State.from_json(json.loads(args.state.read_text(encoding="utf-8")))
        print(f"{args.state}: {state.iteration} of {state.schedule.iterations} iterations done",
              file=sys.stderr)  # fmt: skip
    else:
        try:
            engine = parse_engine(args.engine)
            TimeControl.parse(args.tc)
        except ValueError as error:
            parser.error(str(error))
        params = (parse_params(args.params.read_text(encoding="utf-8")) if args.params
                  else engine_params(list(engine.command)))  # fmt: skip
        state = State(params, Schedule(args.iterations, a_ratio=args.a_ratio), args.pairs,
                      args.seed, args.engine, args.tc, args.opening_plies, args.max_plies,
                      args.time_margin)  # fmt: skip
    tune(state, engine_games(state), args.concurrency, lambda s: s.save(args.state))
    print(show(state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
