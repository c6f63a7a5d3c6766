"""The match runner's own cost: games per minute of `ferrochess.match` against the repository's old
runner, at fixed nodes, in the same run.

Contract: the old runner is `tools/ferrochess_tools/match.py` as commit `cee7618` has it, read
with `git show cee7618:tools/ferrochess_tools/match.py` from the repository root (the file has
since been removed: one match runner in the repository), written to a temporary folder and
imported. It only plays on a clock (`--tc`), so its source is patched in memory at one place: the
`chess.engine.Limit(white_clock=..., black_clock=..., white_inc=..., black_inc=...)` it builds
before each move becomes `chess.engine.Limit(nodes=N)`; the rest runs as written, through its
`main()` (its clocks still kept, on a 1,000,000 s base so that none runs out; each game appended
to a PGN file, as the new runner renders each game's PGN). Then, one after the other, the same
games are played:

* old runner: two `target/release/ferrochess-uci` processes, `OwnBook` off, `--nodes` (1,500)
  nodes a move;
* new runner, same players: `ferrochess.match.match` with two `Uci` players of that binary, the
  same option, `Limit(nodes=N)`: like for like, so the difference is the runners' own cost;
* new runner, in-process players: two `ferrochess.match.Ferrochess()` (no book, the same nodes),
  its natural use, without a process or the UCI protocol in between.

All three play `--games` (8) games a match, one game at a time, from the same openings (the old
runner's own choice: ECO lines cut to 8 plies, drawn with the match's seed, each played twice with
colours swapped), drawn after 392 plies past the opening (the old runner's `--max-plies 400`, the
new one's `Adjudication(max_moves=196)`). After one untimed 2-game match of each (warm-up),
`--rounds` (4) rounds play one match of each, in reversed order every other round so that drift
in the machine's load hits them alike, with seeds `--seed`, `--seed` + 1, ... A match's time is
the wall clock around the runner's call, engine start-up included, except the old runner's reading
of its openings (about half a second: it parses the ECO file on every run), timed apart by a
wrapper around its `openings` that returns the same lines and reported beside it: the new runner
is handed those lines ready-made (its own ECO lines are parsed once per process).

Reports each one's games per minute, engine moves and nodes per game (moves times the node limit,
at which each search stops), milliseconds per move, how many of the old runner's games the new
one played move for move, with the same players (the engine is deterministic at fixed nodes, so
all of them when the comparison is like for like) and with the in-process players, the CPU count
and load average before and after, and the headline ratio: the new runner's games per minute /
the old runner's, same players (and by round; and the in-process players' over the old
runner's). Beside the wall clock, the CPU time of this process per move: for the two runners of
UCI players, the runners' own work alone, which the machine's load sways far less. A game lost
on time, by an illegal move or a crash (none should be, at fixed nodes) is listed under `faults`.
`--json` prints the figures as JSON instead, `--json PATH` writes them to PATH and prints the
report too. Without git or the commit (a checkout without history), if the old runner no longer
imports here, or without the binary (built with `cargo build --release --bin ferrochess-uci` when
missing), nothing is measured: say so, record why with `--json`, exit 0.

    python benches/match_speed.py [--games 8] [--rounds 4] [--nodes 1500] [--seed 1]
        [--json [PATH]]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import chess
import chess.pgn
from _common import add_json_option, emit_json, import_ferrochess, not_measured

REPO_ROOT = Path(__file__).resolve().parent.parent
BINARY = REPO_ROOT / "target" / "release" / "ferrochess-uci"
OLD_COMMIT = "cee7618"
OLD_PATH = "tools/ferrochess_tools/match.py"
OPENING_PLIES = 8
MAX_PLIES = 400
"""The old runner's default `--max-plies` (counted from the start, the opening included)."""
CLOCK_LIMIT = """\
        limit = chess.engine.Limit(
            white_clock=max(clocks[chess.WHITE], 0.0), black_clock=max(clocks[chess.BLACK], 0.0),
            white_inc=increment, black_inc=increment,
        )  # fmt: skip
"""
"""The one statement of the old runner this benchmark replaces (by a fixed-node limit)."""
FAR_CLOCK = "1000000+0"
"""The old runner's time control here: a clock kept, never run out."""


class Unavailable(Exception):
    """The old runner or the engine binary cannot be had here: nothing is measured."""


@dataclass
class Run:
    """One runner's games: wall seconds and this process's CPU seconds (set-up left out), the
    set-up's wall seconds (the old runner reading its openings), each game's engine moves (UCI)
    and result, each match's wall seconds, faults."""

    seconds: float = 0.0
    cpu: float = 0.0
    setup: float = 0.0
    games: list[list[str]] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    matches: list[float] = field(default_factory=list)

    def add(self, other: Run) -> None:
        self.seconds += other.seconds
        self.cpu += other.cpu
        self.setup += other.setup
        self.matches += other.matches or [other.seconds]
        self.games += other.games
        self.results += other.results
        self.faults += other.faults


def old_source(nodes: int) -> str:
    """The old runner's source from git history, its clock limit replaced by `nodes` nodes."""
    try:
        shown = subprocess.run(
            ["git", "show", f"{OLD_COMMIT}:{OLD_PATH}"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as error:
        raise Unavailable(f"git not found ({error}): the old runner is read from history") from None
    if shown.returncode != 0:
        reason = shown.stderr.strip().splitlines()[-1:] or ["no output"]
        raise Unavailable(
            f"`git show {OLD_COMMIT}:{OLD_PATH}` failed ({reason[0]}): no git history here"
        )
    if shown.stdout.count(CLOCK_LIMIT) != 1:
        raise Unavailable(f"{OLD_COMMIT}:{OLD_PATH} lacks the clock limit this bench replaces")
    patched = f"        limit = chess.engine.Limit(nodes={nodes})  # benches/match_speed.py\n"
    return shown.stdout.replace(CLOCK_LIMIT, patched)


def load_old(source: str, folder: Path) -> ModuleType:
    """Import the old runner's (patched) source as a module of its own."""
    path = folder / "old_match_runner.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("old_match_runner", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    except ImportError as error:
        del sys.modules[spec.name]
        raise Unavailable(f"the old runner does not import here: {error}") from None
    return module


def binary() -> Path:
    """The UCI binary, built when missing."""
    if BINARY.is_file():
        return BINARY
    if shutil.which("cargo") is None:
        raise Unavailable(f"{BINARY} not found and cargo not on PATH to build it")
    print(f"building {BINARY.name} (cargo build --release)", file=sys.stderr)
    built = subprocess.run(
        ["cargo", "build", "--release", "--bin", "ferrochess-uci"], cwd=REPO_ROOT, check=False
    )
    if built.returncode != 0 or not BINARY.is_file():
        raise Unavailable(f"{BINARY} not found and `cargo build --release` failed")
    return BINARY


def run_old(module: ModuleType, engine: Path, games: int, seed: int, folder: Path) -> Run:
    """The old runner's `main()`, as its command line would run it, timed; its games read back
    from its PGN. The time it spends choosing its openings (reading the ECO file) is measured
    apart, by a wrapper around its `openings` that returns the same lines, and left out of
    `seconds` (the new runners are handed the same lines ready-made)."""
    pgn = folder / f"old_{seed}.pgn"
    spec = f"{engine};OwnBook=false"
    argv = ["old-match", "--engine", spec, "--engine", spec, "--games", str(games), "--tc",
            FAR_CLOCK, "--opening-plies", str(OPENING_PLIES), "--max-plies", str(MAX_PLIES),
            "--seed", str(seed), "--pgn", str(pgn), "--json"]  # fmt: skip
    choose = module.openings
    chosen: list[tuple[float, float]] = []

    def timed_openings(*arguments: Any) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        lines = choose(*arguments)
        chosen.append((time.perf_counter() - start, time.process_time() - cpu))
        return lines

    saved, sys.argv = sys.argv, argv
    setattr(module, "openings", timed_openings)  # noqa: B010 - a module of unknown shape
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            start, cpu = time.perf_counter(), time.process_time()
            status = module.main()
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    finally:
        sys.argv = saved
        setattr(module, "openings", choose)  # noqa: B010
    setup = sum(wall for wall, _ in chosen)
    run = Run(seconds - setup, cpu - sum(used for _, used in chosen), setup)
    with pgn.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            moves = [move.uci() for move in game.mainline_moves()][OPENING_PLIES:]
            run.games.append(moves)
            run.results.append(game.headers["Result"])
            termination = game.headers.get("Termination", "")
            if termination.startswith(("illegal move", "time forfeit")):
                run.faults.append(f"old runner, round {game.headers['Round']}: {termination}")
    if status != 0 and not run.faults:
        run.faults.append(f"old runner exited {status}: {err.getvalue().strip()[-300:]}")
    return run


def run_new(match: Any, players: list[Any], lines: list[list[chess.Move]], games: int,
            nodes: int, seed: int, label: str) -> Run:  # fmt: skip
    """`ferrochess.match.match` between `players` on `lines` (in order), timed."""
    from ferrochess.match import Adjudication, Limit, Openings

    boards = []
    for line in lines:
        board = chess.Board()
        for move in line:
            board.push(move)
        boards.append(board)
    openings = Openings.of(boards)
    adjudication = Adjudication(max_moves=(MAX_PLIES - OPENING_PLIES) // 2)
    start, cpu = time.perf_counter(), time.process_time()
    result = match(players, games=games, openings=openings, limit=Limit(nodes=nodes),
                   seed=seed, adjudication=adjudication, progress=False)  # fmt: skip
    run = Run(time.perf_counter() - start, time.process_time() - cpu)
    for record in sorted(result.games, key=lambda record: record.index):
        run.games.append(list(record.moves))
        run.results.append(record.result)
        if record.termination not in ("normal", "adjudication"):
            run.faults.append(f"{label}, round {record.round}: {record.reason}")
    return run


def figures(run: Run, nodes: int) -> dict[str, Any]:
    moves = sum(len(game) for game in run.games)
    games = len(run.games)
    return {
        "games": games,
        "seconds": round(run.seconds, 2),
        "games_per_minute": round(games / run.seconds * 60, 2),
        "moves_per_game": round(moves / games, 1),
        "nodes_per_game": round(moves * nodes / games),
        "ms_per_move": round(run.seconds / moves * 1000, 3),
        "process_cpu_ms_per_move": round(run.cpu / moves * 1000, 3),
        "match_seconds": [round(seconds, 2) for seconds in run.matches],
        "results": {result: run.results.count(result) for result in ("1-0", "1/2-1/2", "0-1")},
    }


def load() -> list[float] | None:
    return [round(value, 2) for value in os.getloadavg()] if hasattr(os, "getloadavg") else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games a round (even)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--nodes", type=int, default=1500, help="nodes a move")
    parser.add_argument("--seed", type=int, default=1, help="the first round's seed")
    add_json_option(parser)
    args = parser.parse_args()
    if args.games < 2 or args.games % 2 or args.rounds < 1 or args.nodes < 1:
        parser.error("--games must be even and >= 2, --rounds and --nodes >= 1")
    if import_ferrochess() is None:
        return 1
    from ferrochess.match import Ferrochess, Uci, match

    load_before = load()
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        try:
            old = load_old(old_source(args.nodes), folder)
            engine = binary()
        except Unavailable as reason:
            return not_measured(args.json, str(reason))
        uci = [Uci(str(engine), options={"OwnBook": False}) for _ in range(2)]
        in_process = [Ferrochess(), Ferrochess()]

        chosen: dict[tuple[int, int], list[list[chess.Move]]] = {}

        def play(kind: str, games: int, seed: int) -> Run:
            if kind == "old":
                return run_old(old, engine, games, seed, folder)
            if (games, seed) not in chosen:
                chosen[games, seed] = old.openings((games + 1) // 2, OPENING_PLIES, seed)
            lines = chosen[games, seed]
            if kind == "new_uci":
                return run_new(match, uci, lines, games, args.nodes, seed, "new runner (UCI)")
            return run_new(match, in_process, lines, games, args.nodes, seed,
                           "new runner (in-process)")  # fmt: skip

        kinds = ["old", "new_uci", "new_in_process"]
        for kind in kinds:  # warm-up, not counted: start-up costs paid once per process
            play(kind, 2, args.seed - 1)
        runs = {kind: Run() for kind in kinds}
        for round_index in range(args.rounds):
            order = kinds if round_index % 2 == 0 else kinds[::-1]
            for kind in order:
                runs[kind].add(play(kind, args.games, args.seed + round_index))
    old_figures = figures(runs["old"], args.nodes)
    uci_figures = figures(runs["new_uci"], args.nodes)
    own_figures = figures(runs["new_in_process"], args.nodes)
    same = sum(a == b for a, b in zip(runs["old"].games, runs["new_uci"].games))
    same_in_process = sum(a == b for a, b in zip(runs["old"].games, runs["new_in_process"].games))
    result = {
        "games": len(runs["old"].games),
        "rounds": args.rounds,
        "nodes_per_move": args.nodes,
        "openings": f"ECO lines cut to {OPENING_PLIES} plies, seeds {args.seed} to "
        f"{args.seed + args.rounds - 1}",
        "old_runner_source": f"{OLD_COMMIT}:{OLD_PATH}",
        "engine": str(engine.relative_to(REPO_ROOT)),
        "cpu_count": os.cpu_count(),
        "load_before": load_before,
        "load_after": load(),
        "old_runner": old_figures,
        "old_runner_openings_seconds_per_match": round(runs["old"].setup / args.rounds, 3),
        "new_runner_uci": uci_figures,
        "new_runner_in_process": own_figures,
        "same_games_old_and_new_uci": same,
        "same_games_old_and_in_process": same_in_process,
        "ratio_new_over_old": round(
            uci_figures["games_per_minute"] / old_figures["games_per_minute"], 3
        ),
        "ratio_new_over_old_by_round": [
            round(old / new, 3) for old, new in zip(runs["old"].matches, runs["new_uci"].matches)
        ],
        "ratio_in_process_over_old": round(
            own_figures["games_per_minute"] / old_figures["games_per_minute"], 3
        ),
        "faults": runs["old"].faults + runs["new_uci"].faults + runs["new_in_process"].faults,
    }
    if emit_json(args.json, result):
        print(
            f"{result['games']} games each ({args.rounds} matches of {args.games}, order reversed "
            f"every other round), {args.nodes:,} nodes a move, {result['openings']}; "
            f"{os.cpu_count()} CPUs, load {load_before} -> {result['load_after']}"
        )
        print(f"{'runner':<30} {'games/min':>9} {'seconds':>8} {'moves/game':>10} "
              f"{'nodes/game':>10} {'ms/move':>8} {'CPU ms/move':>11}")  # fmt: skip
        for label, row in (
            (f"old runner ({OLD_COMMIT}), UCI", old_figures),
            ("ferrochess.match, UCI", uci_figures),
            ("ferrochess.match, in-process", own_figures),
        ):
            print(
                f"{label:<30} {row['games_per_minute']:>9.1f} {row['seconds']:>8.2f} "
                f"{row['moves_per_game']:>10.1f} {row['nodes_per_game']:>10,} "
                f"{row['ms_per_move']:>8.3f} {row['process_cpu_ms_per_move']:>11.3f}"
            )
        print(
            "CPU ms/move: this process's CPU time (the runner's own work; in-process, the "
            "searches too)"
        )
        print(
            f"left out of the old runner's time: reading its openings, "
            f"{result['old_runner_openings_seconds_per_match']:.2f} s a match"
        )
        print(
            f"same games as the old runner's: new runner (UCI) {same}, in-process "
            f"{same_in_process}, of {result['games']}"
        )
        print(
            f"ratio new / old runner, same players: {result['ratio_new_over_old']:.3f} (by "
            f"round: {', '.join(f'{r:.3f}' for r in result['ratio_new_over_old_by_round'])})"
        )
        print(
            f"ratio new runner in-process / old runner: {result['ratio_in_process_over_old']:.3f}"
        )
        for fault in result["faults"]:
            print(f"FAULT {fault}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
