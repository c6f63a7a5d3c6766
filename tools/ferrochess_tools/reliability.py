"""Reliability under load: threads hammering shared engines, and the engine's resource bounds.

Contract:
- ``stress``: ``--threads`` (8) Python threads for ``--seconds`` (60), each looping over a random
  mix of ``select_move``, ``Engine.play``/``analyse`` on two shared Engines, ``stop``, ``new_game``
  and book lookups on positions from random legal games. Every move returned must be legal in its
  position and every call must end; an unexpected exception or a thread still running 60 s after
  the deadline fails the run. Meanwhile one more thread measures ``stop()`` latency: it starts a
  long analysis on its own Engine, calls ``stop()`` from outside 5-100 ms after its first
  iteration, and times the gap from ``stop()`` to the analysis returning (p50/p99/max, in ms; the
  machine's other threads keep both cores busy, so this includes waiting for a core).
- ``resources``: the resident memory (RSS, from /proc/self/status) an Engine's table takes per
  configured MB once a long search has filled it; RSS over 10,000 ``select_move`` calls and over
  10,000 ``Engine.play`` calls (sampled every 1,000, the growth from the first sample to the last);
  and how far ``Engine.play(Limit(time=T))`` runs past T (p50/p99/max, ms).

Exit status 1 if a check failed. ``--json`` prints the figures as JSON.

    python -m ferrochess_tools.reliability stress [--seconds 60] [--threads 8] [--json]
    python -m ferrochess_tools.reliability resources [--calls 10000] [--json]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.engine
import ferrochess

from ferrochess_tools import print_summary

Limit = chess.engine.Limit
HANG_GRACE_SECONDS = 60.0


def random_boards(count: int, seed: int) -> list[chess.Board]:
    """Positions from random legal games of 0-80 plies (histories kept)."""
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        board = chess.Board()
        for _ in range(rng.randrange(81)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        boards.append(board)
    return boards


def check_move(board: chess.Board, move: chess.Move | str | None) -> None:
    if move is None:
        if any(board.legal_moves):
            raise AssertionError(f"no move returned in {board.fen()} which has legal moves")
        return
    move = chess.Move.from_uci(move) if isinstance(move, str) else move
    if move not in board.legal_moves:
        raise AssertionError(f"illegal move {move} in {board.fen()}")


@dataclass
class StressReport:
    seconds: float
    threads: int
    calls: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    hung_threads: int = 0
    stop_latency_ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "seconds": self.seconds,
            "threads": self.threads,
            "calls": dict(sorted(self.calls.items())),
            "total_calls": sum(self.calls.values()),
            "failures": self.failures,
            "hung_threads": self.hung_threads,
            "stops_measured": len(self.stop_latency_ms),
            "stop_latency_ms": spread(self.stop_latency_ms),
        }


def spread(values: list[float]) -> dict[str, float | None]:
    """Median, 99th percentile and maximum of `values`, rounded to 0.01 (None when empty)."""
    ordered = sorted(values)
    if not ordered:
        return {"p50": None, "p99": None, "max": None}
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"p50": round(statistics.median(ordered), 2), "p99": round(p99, 2),
            "max": round(ordered[-1], 2)}  # fmt: skip


def stress(seconds: float, threads: int, seed: int = 1) -> StressReport:
    """See the module docstring; returns what happened (the caller decides pass or fail)."""
    report = StressReport(seconds, threads)
    boards = random_boards(64, seed)
    engines = [ferrochess.Engine(8, seed=seed, book="default"), ferrochess.Engine(8, book=None)]
    book = ferrochess.open_book("default")
    deadline = time.monotonic() + seconds
    lock = threading.Lock()

    def record(name: str) -> None:
        with lock:
            report.calls[name] += 1

    def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        while time.monotonic() < deadline:
            board = rng.choice(boards).copy()
            engine = rng.choice(engines)
            action = rng.choice(
                ["select_move", "play", "analyse", "stop", "new_game", "book", "play_level"]
            )
            try:
                if action == "select_move":
                    book_name = rng.choice([None, "default"])
                    move = ferrochess.select_move(board, rng.randint(1, 3), book=book_name)
                    check_move(board, move)
                elif action == "play":
                    limit = rng.choice([Limit(depth=rng.randint(1, 5)), Limit(time=0.02),
                                        Limit(nodes=rng.randint(1, 20_000))])  # fmt: skip
                    if any(board.legal_moves):
                        check_move(board, engine.play(board, limit).move)
                elif action == "play_level":
                    if any(board.legal_moves):
                        result = engine.play(board, Limit(time=0.05), level=rng.randint(1, 10))
                        check_move(board, result.move)
                elif action == "analyse":
                    infos = engine.analyse(board, Limit(depth=rng.randint(1, 4)),
                                           multipv=rng.randint(1, 3))  # fmt: skip
                    for info in infos:
                        check_move(board, info["pv"][0] if info.get("pv") else None)
                elif action == "stop":
                    engine.stop()
                elif action == "new_game":
                    engine.new_game()
                else:
                    for entry in book.find_all(board):
                        check_move(board, entry.move)
                    entry = book.get(board)
                    if entry is not None:
                        check_move(board, entry.move)
                record(action)
            except Exception:  # every failure is reported, none ends the run early
                with lock:
                    report.failures.append(f"{action} on {board.fen()}: {traceback.format_exc()}")

    def stop_prober() -> None:
        rng = random.Random(seed)
        board = chess.Board("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9")
        with ferrochess.Engine(8, book=None) as engine:
            while time.monotonic() < deadline:
                running = threading.Event()
                done = threading.Event()
                outcome: dict[str, Any] = {}

                def search(outcome: dict[str, Any] = outcome, done: threading.Event = done,
                           running: threading.Event = running) -> None:  # fmt: skip
                    try:
                        mark = lambda _info: running.set()  # noqa: E731
                        outcome["info"] = engine.analyse(board, Limit(depth=60), callback=mark)
                    except Exception:
                        outcome["error"] = traceback.format_exc()
                    done.set()

                searcher = threading.Thread(target=search)
                searcher.start()
                # stop() ends a running search; one called before the search starts is a no-op
                # (documented), so wait until the first iteration has reported.
                if not running.wait(HANG_GRACE_SECONDS):
                    with lock:
                        report.failures.append("an analysis never reported its first iteration")
                    engine.stop()
                    searcher.join()
                    return
                time.sleep(rng.uniform(0.005, 0.1))
                started = time.perf_counter()
                engine.stop()
                if not done.wait(HANG_GRACE_SECONDS):
                    with lock:
                        report.failures.append("stop() did not end an analysis")
                    return
                latency = (time.perf_counter() - started) * 1000
                searcher.join()
                with lock:
                    report.stop_latency_ms.append(latency)
                    report.calls["stop_probe"] += 1
                    if "error" in outcome:
                        report.failures.append(f"stopped analysis: {outcome['error']}")
                    elif outcome["info"]["pv"][0] not in board.legal_moves:
                        report.failures.append("stopped analysis gave an illegal move")

    workers = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(threads)]
    workers.append(threading.Thread(target=stop_prober, daemon=True))
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join(max(0.0, deadline - time.monotonic()) + HANG_GRACE_SECONDS)
    report.hung_threads = sum(thread.is_alive() for thread in workers)
    for engine in engines:
        engine.close()
    book.close()
    return report


def rss_mb() -> float:
    """This process's resident memory in MB (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def growth(samples: list[float]) -> float:
    return round(samples[-1] - samples[0], 2)


def resources(calls: int, hash_mb: int = 256, seed: int = 1) -> dict[str, Any]:
    """See the module docstring."""
    boards = random_boards(100, seed)
    result: dict[str, Any] = {}
    # The table: RSS before, after creating the Engine, after a search long enough to fill it.
    before = rss_mb()
    engine = ferrochess.Engine(hash_mb, book=None)
    created = rss_mb()
    info = engine.analyse(chess.Board(boards[50].fen()), Limit(time=8.0))
    filled = rss_mb()
    result["table"] = {
        "hash_mb": hash_mb, "rss_before_mb": round(before, 1),
        "rss_after_create_mb": round(created, 1), "rss_after_search_mb": round(filled, 1),
        "hashfull_permille": info.get("hashfull"),
        "table_rss_mb": round(filled - before, 1),
    }  # fmt: skip
    engine.close()
    after_close = rss_mb()
    result["table"]["rss_after_close_mb"] = round(after_close, 1)

    def sampled(call: Any) -> list[float]:
        samples = []
        for index in range(calls):
            call(boards[index % len(boards)])
            if index % 1000 == 999 or index == 0:
                samples.append(round(rss_mb(), 2))
        return samples

    rng = random.Random(seed)
    samples = sampled(
        lambda board: ferrochess.select_move(board, rng.randint(1, 2),
                                             book=rng.choice([None, "default"]))
    )  # fmt: skip
    result["select_move"] = {"calls": calls, "rss_mb": samples, "growth_mb": growth(samples)}
    with ferrochess.Engine(16) as engine:
        def play(board: chess.Board) -> None:
            if any(board.legal_moves):
                engine.play(board, Limit(depth=rng.randint(1, 3)))

        samples = sampled(play)
    result["engine_play"] = {"calls": calls, "rss_mb": samples, "growth_mb": growth(samples)}
    overruns: dict[str, list[float]] = {}
    with ferrochess.Engine(16, book=None) as engine:
        for budget in (0.05, 0.2):
            values = []
            for board in boards[:100]:
                if not any(board.legal_moves):
                    continue
                started = time.perf_counter()
                engine.play(board, Limit(time=budget))
                values.append((time.perf_counter() - started - budget) * 1000)
            overruns[f"{budget}s"] = values
    result["movetime_overrun_ms"] = {
        budget: {"searches": len(v), **spread(v)} for budget, v in overruns.items()
    }
    return result


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m ferrochess_tools.reliability",
                                     description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    stress_parser = sub.add_parser("stress")
    stress_parser.add_argument("--seconds", type=float, default=60.0)
    stress_parser.add_argument("--threads", type=int, default=8)
    stress_parser.add_argument("--seed", type=int, default=1)
    stress_parser.add_argument("--json", action="store_true")
    resources_parser = sub.add_parser("resources")
    resources_parser.add_argument("--calls", type=int, default=10_000)
    resources_parser.add_argument("--hash-mb", type=int, default=256)
    resources_parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.command == "stress":
        report = stress(args.seconds, args.threads, args.seed)
        summary = report.summary()
        ok = not report.failures and not report.hung_threads
    else:
        summary = resources(args.calls, args.hash_mb)
        ok = True
    print_summary(summary, args.json)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
