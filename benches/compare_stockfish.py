"""Compare ferrochess's search speed (nodes/s) with Stockfish 15.1's, each engine on its own bench.

Contract: run Stockfish's built-in bench (`stockfish bench 16 1 13`: 16 MB hash, 1 thread, depth 13,
its own default positions) as a subprocess and parse its "Nodes/second" line, and run
`ferrochess.bench()` in this process (single-threaded, its own fixed positions and depth); alternate
the two, `--rounds` times each (2 by default), and print each side's median nodes/s and the ratio
ferrochess / Stockfish. The two benches search different positions to different depths, so only the
speed (nodes/s) is comparable, not node counts. `--json` prints the figures as JSON instead,
`--json PATH` writes them to PATH and prints the report too. Stockfish absent: print how to install
it (and record why nothing was measured with `--json`) and exit 0. Exit 1 if ferrochess cannot be
imported or a bench output cannot be parsed.

    python benches/compare_stockfish.py [--rounds 2] [--stockfish PATH] [--depth N] [--json [PATH]]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

from _common import add_json_option, emit_json, import_ferrochess, not_measured

DEFAULT_STOCKFISH = "/usr/games/stockfish"  # where Debian's `stockfish` package installs it
STOCKFISH_BENCH_ARGUMENTS = [
    "bench",
    "16",
    "1",
    "13",
]  # hash MB, threads, depth (default positions)
STOCKFISH_TIMEOUT_SECONDS = 600
EXPECTED_STOCKFISH_VERSION = "Stockfish 15.1"


def find_stockfish(requested: str | None) -> str | None:
    """Executable Stockfish: the requested path if given, else Debian's path, else one on PATH."""
    candidates = (requested,) if requested else (DEFAULT_STOCKFISH, shutil.which("stockfish"))
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def run_stockfish_bench(path: str) -> dict:
    """Run Stockfish's bench once; return its nodes, time (s), nodes/s and banner line."""
    completed = subprocess.run(
        [path, *STOCKFISH_BENCH_ARGUMENTS],
        capture_output=True,
        text=True,
        timeout=STOCKFISH_TIMEOUT_SECONDS,
        check=False,
    )
    output = (
        completed.stderr + "\n" + completed.stdout
    )  # the summary goes to stderr, search info to stdout
    nps = re.search(r"Nodes/second\s*:\s*(\d+)", output)
    nodes = re.search(r"Nodes searched\s*:\s*(\d+)", output)
    milliseconds = re.search(r"Total time \(ms\)\s*:\s*(\d+)", output)
    if completed.returncode != 0 or nps is None:
        raise RuntimeError(
            f"could not read 'Nodes/second' from `{path} {' '.join(STOCKFISH_BENCH_ARGUMENTS)}` "
            f"(exit status {completed.returncode}); last output:\n{output[-2000:]}"
        )
    banner = next(
        (line for line in output.splitlines() if line.startswith("Stockfish")),
        "Stockfish (unknown)",
    )
    return {
        "nps": int(nps.group(1)),
        "nodes": int(nodes.group(1)) if nodes else None,
        "time": int(milliseconds.group(1)) / 1000 if milliseconds else None,
        "banner": banner.split(" by ")[
            0
        ].strip(),  # "Stockfish 15.1 by the Stockfish developers..."
    }


def run_ferrochess_bench(ferrochess, depth: int | None) -> dict:
    """Run ferrochess's bench once, in this process: positions, depth, nodes, time, nps."""
    start = time.perf_counter()
    result = ferrochess.bench() if depth is None else ferrochess.bench(depth)
    wall = time.perf_counter() - start
    missing = {"positions", "depth", "nodes", "time", "nps"} - set(result)
    if missing:
        raise RuntimeError(
            f"ferrochess.bench() returned {result!r}, missing keys {sorted(missing)}"
        )
    return {**result, "wall": wall}


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=2, help="runs of each bench, alternating (default 2)"
    )
    parser.add_argument(
        "--stockfish", default=None, help=f"Stockfish executable (default {DEFAULT_STOCKFISH})"
    )
    parser.add_argument(
        "--depth", type=int, default=None, help="ferrochess bench depth (default: its BENCH_DEPTH)"
    )
    add_json_option(parser)
    arguments = parser.parse_args(argv)
    if arguments.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {arguments.rounds}")
    return arguments


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    stockfish = find_stockfish(arguments.stockfish)
    if stockfish is None:
        looked_for = arguments.stockfish or f"{DEFAULT_STOCKFISH} and `stockfish` on PATH"
        print(
            f"Stockfish not found (looked for {looked_for}): comparison skipped, nothing measured. "
            f"Install Debian's package with `apt-get install stockfish` (Debian 12 ships "
            f"{EXPECTED_STOCKFISH_VERSION}, installed as {DEFAULT_STOCKFISH}).",
            file=sys.stderr if arguments.json == "-" else sys.stdout,
        )
        return not_measured(
            arguments.json, f"Stockfish not found ({looked_for}): `apt-get install stockfish`"
        )
    ferrochess = import_ferrochess()
    if ferrochess is None:
        return 1

    stockfish_runs: list[dict] = []
    ferrochess_runs: list[dict] = []
    try:
        for round_number in range(1, arguments.rounds + 1):
            stockfish_runs.append(run_stockfish_bench(stockfish))
            ferrochess_runs.append(run_ferrochess_bench(ferrochess, arguments.depth))
            if arguments.json != "-":
                sf, fc = stockfish_runs[-1], ferrochess_runs[-1]
                print(
                    f"round {round_number}: Stockfish {sf['nps']:>10} nodes/s "
                    f"({sf['nodes']} nodes, {sf['time']:.2f} s) | "
                    f"ferrochess {fc['nps']:>10} nodes/s ({fc['nodes']} nodes, {fc['time']:.2f} s)"
                )
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1

    stockfish_nps = statistics.median(run["nps"] for run in stockfish_runs)
    ferrochess_nps = statistics.median(run["nps"] for run in ferrochess_runs)
    ratio = ferrochess_nps / stockfish_nps
    banner = stockfish_runs[0]["banner"]
    version_note = (
        ""
        if banner.startswith(EXPECTED_STOCKFISH_VERSION)
        else f" (expected {EXPECTED_STOCKFISH_VERSION})"
    )
    first = ferrochess_runs[0]

    summary = {
        "stockfish": {
            "path": stockfish,
            "banner": banner,
            "command": STOCKFISH_BENCH_ARGUMENTS,
            "median_nps": stockfish_nps,
            "runs": stockfish_runs,
        },
        "ferrochess": {
            "version": getattr(ferrochess, "__version__", None),
            "positions": first["positions"],
            "depth": first["depth"],
            "median_nps": ferrochess_nps,
            "runs": ferrochess_runs,
        },
        "rounds": arguments.rounds,
        "ratio_ferrochess_over_stockfish": ratio,
    }
    if emit_json(arguments.json, summary):
        print(
            f"{banner}{version_note}: `{stockfish} {' '.join(STOCKFISH_BENCH_ARGUMENTS)}` "
            f"(hash 16 MB, 1 thread, depth 13)"
        )
        print(
            f"ferrochess {getattr(ferrochess, '__version__', '?')}: bench() on "
            f"{first['positions']} positions at depth {first['depth']} ({first['nodes']} nodes), "
            f"one thread"
        )
        print(f"Stockfish  median nodes/s over {arguments.rounds} runs: {stockfish_nps:>12.0f}")
        print(f"ferrochess median nodes/s over {arguments.rounds} runs: {ferrochess_nps:>12.0f}")
        print(f"ratio ferrochess / Stockfish nodes/s: {ratio:.3f} ({ratio * 100:.1f}%)")
        print(
            "note: different positions and depths; Stockfish's nodes are NNUE-evaluated, so speed "
            "alone says nothing about strength"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
