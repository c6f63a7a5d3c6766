"""How many mates of `tests/data/mates.epd` a UCI engine finds at depth 2N - 1 (issue 18).

Contract: for each line of the suite (a position whose shortest forced mate is `dm` = N moves, and
`bm` = every first move that forces it), asks the engine for `go depth 2N-1` and counts, per N, the
positions where its `bestmove` is not in `bm`. Prints one line per N and the missed positions'
ids; exits 1 if any was missed. Used to compare the engine before and after the mate proofs
(docs/benchmarks-history.md, "Mate proofs"); `tests/test_mate_suite.py` checks the Python API
the same way.

    python -m ferrochess_tools.mate_depth [--engine target/release/ferrochess-uci] [--suite FILE]
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections import Counter
from pathlib import Path

import chess
import chess.engine

from ferrochess_tools import REPO_ROOT

SUITE = REPO_ROOT / "tests" / "data" / "mates.epd"
DEFAULT_ENGINE = REPO_ROOT / "target" / "release" / "ferrochess-uci"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ferrochess_tools.mate_depth",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=str(DEFAULT_ENGINE), help="UCI engine command")
    parser.add_argument("--suite", type=Path, default=SUITE, help="EPD file with bm and dm")
    args = parser.parse_args(argv)
    engine = chess.engine.SimpleEngine.popen_uci(shlex.split(args.engine))
    if "OwnBook" in engine.options:
        engine.configure({"OwnBook": False})
    total: Counter[int] = Counter()
    missed: dict[int, list[str]] = {}
    try:
        for text in args.suite.read_text(encoding="utf-8").splitlines():
            board, operations = chess.Board.from_epd(text)
            mate_in = int(operations["dm"])  # type: ignore[arg-type]
            mating = operations["bm"]
            assert isinstance(mating, list)
            total[mate_in] += 1
            result = engine.play(board, chess.engine.Limit(depth=2 * mate_in - 1))
            if result.move not in mating:
                missed.setdefault(mate_in, []).append(f"{operations['id']}: {result.move}")
    finally:
        engine.quit()
    for mate_in in sorted(total):
        lost = missed.get(mate_in, [])
        depth = 2 * mate_in - 1
        print(f"mate in {mate_in} at depth {depth}: missed {len(lost)} of {total[mate_in]}")
        for line in lost:
            print(f"    {line}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
