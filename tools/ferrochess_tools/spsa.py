"""SPSA tuning of the search's tunables in games (issue 37), in OpenBench's form.

Contract: `run` tunes the parameters a `tune` build of `ferrochess-uci` offers (its `tunables`
command prints them as OpenBench's SPSA input, `name, int|float, value, min, max, C_end, R_end`;
`--params FILE` reads such lines instead, to tune a subset or other ranges). Iteration k of N
(k = 1..N) gives every parameter a random sign and plays `--pairs` game pairs (one opening each,
colours swapped) between an engine at value + sign * c_k ("plus") and one at value - sign * c_k
("minus"), `--concurrency` games at a time, on match.py's clock, openings and adjudication; then
each value moves by r_k * c_k * (plus wins - plus losses) * sign, clipped to its range. The
schedule is OpenBench's, with A = `--a-ratio` * N: c_k = C_end * N^gamma / k^gamma (at least 0.5
for an integer), r_k = a_k / c_k^2 with a_k = R_end * C_end^2 * (A + N)^alpha / (A + k)^alpha, so
both end at C_end and R_end. An integer is rounded at random (floor(x + u), one u for both
engines) and clipped. Iteration k's randomness (signs, rounding) comes from `--seed` and k alone,
and the whole state (values, iteration, W/D/L) is written to `--state` after every iteration, so
running the same command again after an interruption resumes where it stopped and draws the
same perturbations (the state file's settings win over the command line's, but `--concurrency`).

`show` prints the current values: as `name, value` lines, as `setoption` lines and as the match
that verifies them (the tune build with the values against the tune build with its defaults);
`apply` rewrites the defaults in src/search/params.rs's `tunables!` declarations (rounded).
A tuned value is kept only if that match confirms it (docs/tuning.md).

    python -m ferrochess_tools.spsa run [--engine SPEC] [--params FILE] [--state FILE]
        [--iterations 1000] [--pairs 8] [--tc 8+0.08] [--concurrency 1] [--seed 1]
    python -m ferrochess_tools.spsa show [--state FILE]
    python -m ferrochess_tools.spsa apply [--state FILE] [--file src/search/params.rs]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import logging
import math
import os
import queue
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import chess
import chess.engine

from ferrochess_tools import REPO_ROOT
from ferrochess_tools.match import Spec, openings, parse_tc, play_game

ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1
TUNE_BINARY = REPO_ROOT / "target" / "tune" / "release" / "ferrochess-uci"
DEFAULT_ENGINE = f"{TUNE_BINARY};OwnBook=false"
DEFAULT_STATE = REPO_ROOT / "target" / "spsa" / "state.json"
PARAMS_RS = REPO_ROOT / "src" / "search" / "params.rs"
STATE_VERSION = 1


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
    opening: list[chess.Move]
    plus_white: bool
    seed: str


@dataclass(frozen=True)
class GameResult:
    score: float  # the plus engine's: 1, 0.5 or 0
    forfeit: str | None = None


GameFunction = Callable[[GameJob], GameResult]


def tune(state: State, play: GameFunction, concurrency: int, lines: list[list[chess.Move]],
         save: Callable[[State], None], stop_after: int | None = None) -> State:  # fmt: skip
    """Runs iterations from `state.iteration + 1` to the end (or `stop_after` of them), calling
    `save` after each; every game is `play(job)`, `concurrency` at a time."""
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max(concurrency, 1)) as pool:
        while state.iteration < state.schedule.iterations and done != stop_after:
            k = state.iteration + 1
            started = time.monotonic()
            rng = random.Random(f"spsa {state.seed} {k}")
            perturbation = perturb(state.params, state.schedule, k, rng)
            jobs = [GameJob(perturbation.plus, perturbation.minus,
                            lines[((k - 1) * state.pairs + pair) % len(lines)] if lines else [],
                            plus_white, f"{state.seed} {k} {pair} {plus_white}")
                    for pair in range(state.pairs) for plus_white in (True, False)]  # fmt: skip
            results = list(pool.map(play, jobs))
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


class EnginePool:
    """Pairs of engine processes (plus, minus) from one spec, one pair per game in progress; a
    pair whose game ended in a forfeit or an error is closed (an engine may have died)."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.idle: queue.SimpleQueue[list[chess.engine.SimpleEngine]] = queue.SimpleQueue()

    def acquire(self) -> list[chess.engine.SimpleEngine]:
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            return [self.spec.open(), self.spec.open()]

    def release(self, engines: list[chess.engine.SimpleEngine], healthy: bool) -> None:
        if healthy:
            self.idle.put(engines)
        else:
            close(engines)

    def close(self) -> None:
        while not self.idle.empty():
            close(self.idle.get_nowait())


def close(engines: list[chess.engine.SimpleEngine]) -> None:
    for engine in engines:
        try:
            engine.quit()
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError):
            pass


def uci_values(values: Mapping[str, float]) -> dict[str, str | int | bool | None]:
    """The values as python-chess options: integers as such (a float goes as text, which an
    engine's spin option refuses: the tune build's tunables are all integers)."""
    return {name: value if isinstance(value, int) else str(value) for name, value in values.items()}


def engine_games(pool: EnginePool, state: State) -> GameFunction:
    """Plays a job's game between a pair of the pool's engines, each given its values as UCI
    options, on match.py's clock and adjudication."""
    base, increment = parse_tc(state.tc)

    def play(job: GameJob) -> GameResult:
        engines = pool.acquire()
        healthy = False
        try:
            plus, minus = engines
            plus.configure(uci_values(job.plus))
            minus.configure(uci_values(job.minus))
            white, black = (plus, minus) if job.plus_white else (minus, plus)
            _, outcome = play_game(white, black, job.opening, base, increment, state.max_plies,
                                   state.time_margin_ms / 1000)  # fmt: skip
            healthy = outcome.forfeit is None
        finally:
            pool.release(engines, healthy)
        white_points = {"1-0": 1.0, "0-1": 0.0}.get(outcome.result, 0.5)
        score = white_points if job.plus_white else 1 - white_points
        if outcome.forfeit is None:
            return GameResult(score)
        culprit = "plus" if (outcome.forfeit == chess.WHITE) == job.plus_white else "minus"
        return GameResult(score, f"{outcome.reason} ({culprit})")

    return play


def verification_command(state: State, games: int = 400) -> str:
    """The match that checks the tuned values: the tune build with them against its defaults."""
    changed = [p for p in state.params if p.rounded() != p.start]
    options = "".join(f";{p.name}={format_value(p)}" for p in changed)
    base = state.engine.split(";", 1)
    engine = f"{base[0]};name=tuned" + (f";{base[1]}" if len(base) > 1 else "")
    baseline = f"{base[0]};name=base" + (f";{base[1]}" if len(base) > 1 else "")
    return (f'python -m ferrochess_tools.match --engine "{engine}{options}" '
            f'--engine "{baseline}" --games {games} --tc {state.tc} --sprt 0,5')  # fmt: skip


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
    run.add_argument("--engine", default=DEFAULT_ENGINE, help="match.py engine spec (tune build)")
    run.add_argument("--params", type=Path, help="OpenBench SPSA lines (default: the engine's)")
    run.add_argument("--iterations", type=int, default=1000)
    run.add_argument("--pairs", type=int, default=8, help="game pairs per iteration")
    run.add_argument("--tc", default="8+0.08", help="base+increment in seconds")
    run.add_argument("--concurrency", type=int, default=1, help="games at once")
    run.add_argument("--seed", type=int, default=1)
    run.add_argument("--opening-plies", type=int, default=8)
    run.add_argument("--max-plies", type=int, default=400)
    run.add_argument("--time-margin", type=float, default=0.0, help="milliseconds (match.py's)")
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
        spec = Spec.parse(args.engine)
        params = (parse_params(args.params.read_text(encoding="utf-8")) if args.params
                  else engine_params(spec.command))  # fmt: skip
        state = State(params, Schedule(args.iterations, a_ratio=args.a_ratio), args.pairs,
                      args.seed, args.engine, args.tc, args.opening_plies, args.max_plies,
                      args.time_margin)  # fmt: skip
    lines = openings(1 << 30, state.opening_plies, state.seed)
    pool = EnginePool(Spec.parse(state.engine))
    try:
        tune(state, engine_games(pool, state), args.concurrency, lines,
             lambda s: s.save(args.state))  # fmt: skip
    finally:
        pool.close()
    print(show(state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
