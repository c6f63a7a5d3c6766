"""Guards `make bench`'s summary (`ferrochess_tools.bench_summary`): from sample results of every
benchmark it renders one row each (what, ferrochess, peer, ratio, goal) under a line naming the
date, commit and `Bench:`; it rewrites only the part of BENCHMARKS.md between the summary markers;
a benchmark that could not run keeps its row with the reason, and one that failed or left no
result gets a failed row and a nonzero exit. Also that the benchmarks' `--json PATH` writes their
results (and the reason when nothing could be measured), that the match runner's benchmark
plays the same games with the old runner and `ferrochess.match`, and that BENCHMARKS.md keeps both
the summary's and the calibration's markers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ferrochess_tools import bench_summary

REPO_ROOT = Path(__file__).resolve().parent.parent

SEARCH_BENCH_OUTPUT = """\
positions: 42
depth:     6
nn-3922929f3933: Bench    277923  time 0.300 s  nodes/s    926410  evaluation 317 ns  \
evaluations/node 0.44  evaluation share of time 9%
        classic: Bench    301234  time 0.250 s  nodes/s   1204936  evaluation 300 ns  \
evaluations/node 0.43  evaluation share of time 13%
network/classic nodes/s: 0.77
deeper: depth 10, 3 rounds: network nodes/s 2131392  classic nodes/s 1989382  network/classic 1.07
Bench: 277923
"""

PERFT_VS_SHAKMATY_OUTPUT = """\
position                                                                 depth        nodes \
ferrochess/s   shakmaty/s
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1                     5      4865609    \
209822356    252892318
8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1                                    6     11030083    \
127434009    141200465
total: ferrochess 157920782 nodes/s, shakmaty 176648458 nodes/s, ratio 0.89
"""


def sample_results() -> dict[str, Any]:
    """One result per JSON benchmark, shaped as the scripts write them."""
    return {
        "compare_python": {
            "depth": 3,
            "positions": 20,
            "ferrochess_seconds": 0.0196,
            "illegal_ferrochess_moves": [],
            "peers": {
                "optimized": {
                    "seconds": 2.359,
                    "ratio_over_ferrochess": 120.36,
                    "lower_bound": False,
                    "finished_positions": 20,
                    "finished_ratio_over_ferrochess": 120.36,
                }
            },
        },
        "compare_stockfish": {
            "stockfish": {"banner": "Stockfish 15.1", "median_nps": 1467116},
            "ferrochess": {
                "positions": 42,
                "depth": 6,
                "median_nps": 6953880,
                "runs": [{"nodes": 277923}, {"nodes": 277923}],
            },
            "ratio_ferrochess_over_stockfish": 4.7398,
        },
        "perft_speed": {
            "ferrochess_nps": 190680805.0,
            "python_chess_nps": 921598.0,
            "ratio_ferrochess_over_python_chess": 206.9,
            "wrong_counts": [],
            "per_position": [{}, {}, {}],
        },
        "book_speed": [
            {
                "book": "gnuchess book.bin",
                "positions": 15819,
                "entries_found": 2412,
                "rust_per_s": 2689744.2,
                "python_chess_per_s": 41085.3,
                "ferrochess_python_per_s": 342464.9,
            }
        ],
        "analyse_speed": {
            "pgn": "/data/pgn/lichess_db_100k.pgn",
            "depth": 5,
            "workers_1": {"games": 47, "positions": 2817, "seconds": 28.55},
            "workers_2": {"games": 47, "positions": 2817, "seconds": 14.93},
            "speedup": 1.91,
            "same_records": True,
        },
        "smp_speed": {
            "positions": 24,
            "depth": 17,
            "seconds": {"1": 21.39, "2": 18.15},
            "nps": {"1": 1672719, "2": 2817213},
            "time_to_depth_speedup": 1.178,
            "nps_ratio": 1.684,
        },
        "load_play": {
            "clients": 20,
            "requests_per_client": 50,
            "level": 1,
            "engines": 2,
            "natural_delay": False,
            "requests": 1000,
            "statuses": {"200": 1000},
            "p50_ms": 61.8,
            "p95_ms": 73.8,
            "max_ms": 82.8,
            "wall_s": 3.02,
            "requests_per_s": 331.1,
            "unexpected_5xx": 0,
            "lost": 0,
        },
        "time_overrun": {
            "0.01": {"searches": 40, "median_ms": -0.86, "p99_ms": -0.74, "max_ms": -0.74},
            "0.5": {"searches": 40, "median_ms": -0.77, "p99_ms": -0.71, "max_ms": -0.71},
        },
        "match_speed": {
            "games": 32,
            "rounds": 4,
            "nodes_per_move": 1500,
            "openings": "ECO lines cut to 8 plies, seeds 1 to 4",
            "old_runner_source": "cee7618:tools/ferrochess_tools/match.py",
            "engine": "target/release/ferrochess-uci",
            "cpu_count": 2,
            "load_before": [2.5, 2.2, 2.0],
            "load_after": [3.1, 2.4, 2.0],
            "old_runner": {
                "games": 32,
                "games_per_minute": 262.2,
                "moves_per_game": 102.1,
                "nodes_per_game": 153188,
            },
            "old_runner_openings_seconds_per_match": 0.41,
            "new_runner_uci": {
                "games": 32,
                "games_per_minute": 248.6,
                "moves_per_game": 102.1,
                "nodes_per_game": 153188,
            },
            "new_runner_in_process": {
                "games": 32,
                "games_per_minute": 296.7,
                "moves_per_game": 102.1,
                "nodes_per_game": 153188,
            },
            "same_games_old_and_new_uci": 32,
            "ratio_new_over_old": 0.948,
            "ratio_in_process_over_old": 1.132,
            "faults": [],
        },
    }


def write_results(folder: Path, results: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, result in results.items():
        (folder / f"{name}.json").write_text(json.dumps(result), encoding="utf-8")
    (folder / "search_bench.txt").write_text(SEARCH_BENCH_OUTPUT, encoding="utf-8")
    (folder / "perft_vs_shakmaty.txt").write_text(PERFT_VS_SHAKMATY_OUTPUT, encoding="utf-8")
    return folder


EXPECTED_TABLE = """\
| what | ferrochess | peer | ratio | goal |
| --- | --- | --- | --- | --- |
| `select_move` depth 3, 20 positions, vs an optimized pure-Python engine | 0.020 s | 2.359 s \
| **120x** | >= 1000x: not met against this peer |
| search nodes/s, own bench (42 positions, depth 6) vs Stockfish 15.1 `bench 16 1 13` (1 thread) \
| 6,953,880 n/s | 1,467,116 n/s | **4.74x** | >= 1.5x: met |
| search nodes/s with the network (nn-3922929f3933) vs the hand-crafted evaluation, the bench \
(42 positions, depth 6; `cargo bench --bench search_bench`) | 926,410 n/s | 1,204,936 n/s \
| **0.77x** |  |
| the same, deeper searches (42 positions, depth 10, 3 rounds alternating; the same command) \
| 2,131,392 n/s | 1,989,382 n/s | **1.07x** | >= 1.1x at 128 wide: not met |
| perft nodes/s through ferrochess's make-move vs shakmaty's raw perft (2 positions) \
| 157.9 M n/s | 176.6 M n/s | **0.89x** | (the floor) |
| perft nodes/s vs python-chess (3 positions) | 190.7 M n/s | 0.92 M n/s | **207x** |  |
| Polyglot book lookups/s, Rust core (`Book::find_all`) vs python-chess's reader \
(gnuchess book.bin, 15,819 positions) | 2,689,744 /s | 41,085 /s | **65.5x** | >= 1 M/s: met |
| book lookups/s through the Python API (`ferrochess.open_book(...).find_all(board)`) \
vs python-chess's reader | 342,465 /s | 41,085 /s | **8.34x** |  |
| game review of `lichess_db_100k.pgn` (47 games, 2,817 positions) at depth 5, `workers=2` vs \
`workers=1` | 14.93 s | 28.55 s | **1.91x** | about 2x on 2 cores (>= 1.8x): met |
| time to depth 17, 24 Bratko-Kopec positions, `threads=2` vs `threads=1` (nodes/s 1.68x) \
| 18.15 s | 21.39 s | **1.18x** |  |
| play page API under load: 20 clients x 50 `POST /api/move` at level 1, 2 engines, no natural \
delay | p50 61.8 ms, p95 73.8 ms, 331 requests/s |  |  \
| no 5xx but the deliberate 503: met (statuses 200: 1,000) |
| timed search overrun past `Limit(time=T)`, 80 searches, T = 10, 500 ms \
| max -0.71 ms (never over) |  |  | a few ms (<= 5 ms): met |
| match runner games/min, `ferrochess.match` vs the old runner (`cee7618`), the same UCI players, \
32 games at 1,500 nodes a move (102 moves, 153,188 nodes a game; 32 of 32 games the same); \
in-process players 297 games/min (1.13x) | 249 games/min | 262 games/min | **0.95x** \
| as fast as the old runner, within noise (>= 0.9x): met |"""


def test_every_benchmark_renders_its_row(tmp_path: Path) -> None:
    results = write_results(tmp_path / "bench", sample_results())
    rows, found, failures = bench_summary.summary_rows(results)
    assert failures == []
    table = "\n".join(
        [bench_summary.HEADER, "| --- | --- | --- | --- | --- |"] + [row.markdown() for row in rows]
    )
    assert table == EXPECTED_TABLE
    # The cargo benches' text is kept as JSON beside it, like the others' results.
    saved = json.loads((results / "search_bench.json").read_text(encoding="utf-8"))
    assert saved["bench"] == 277923 and saved["classic"]["nps"] == 1204936
    assert found["search_bench"] == saved


def test_a_search_bench_output_without_the_deeper_searches_has_one_row() -> None:
    older = "\n".join(
        line for line in SEARCH_BENCH_OUTPUT.splitlines() if not line.startswith("deeper:")
    )
    result = bench_summary.parse_search_bench(older)
    assert result["deeper"] is None
    assert len(bench_summary.search_bench_rows(result)) == 1
    deeper = bench_summary.parse_search_bench(SEARCH_BENCH_OUTPUT)["deeper"]
    assert deeper == {
        "depth": 10,
        "rounds": 3,
        "network_nps": 2131392,
        "classic_nps": 1989382,
    }


def test_the_line_above_names_date_commit_and_bench(tmp_path: Path) -> None:
    results = write_results(tmp_path / "bench", sample_results())
    _, found, _ = bench_summary.summary_rows(results)
    head = bench_summary.header(found, "2026-11-26", "abc1234 + changes", "2 cores", 9.6)
    assert head.startswith(
        "Measured 2026-11-26 by `make bench` in 10 min, at commit abc1234 + changes, "
        "`Bench: 277923`"
    )
    assert "installed module" not in head
    # The installed module searched other nodes than the tree's bench: the line says so.
    found["compare_stockfish"]["ferrochess"]["runs"][0]["nodes"] = 1
    assert "rebuild it (`make dev`)" in bench_summary.header(found, "d", "c", "m", None)
    # Without search_bench, the signature src/bench.rs writes, said to be that.
    found["search_bench"] = None
    written = bench_summary.written("BENCH_SIGNATURE")
    assert f"`Bench: {written}` (as src/bench.rs writes it" in bench_summary.header(
        found, "d", "c", "m", None
    )


def test_only_the_marked_section_changes(tmp_path: Path) -> None:
    results = write_results(tmp_path / "bench", sample_results())
    begin, end = bench_summary.SUMMARY_MARKERS
    before = "# Benchmarks\n\nIntro.\n\n## Summary\n\n"
    after = "\n\n## Strength\n\n<!-- calibration:begin -->\nkept\n<!-- calibration:end -->\n"
    document = tmp_path / "BENCHMARKS.md"
    document.write_text(f"{before}{begin}\nold table\n{end}{after}", encoding="utf-8")
    assert bench_summary.main(["--results", str(results), "--output", str(document)]) == 0
    text = document.read_text(encoding="utf-8")
    assert text.startswith(before + begin + "\n") and text.endswith(end + after)
    section = text[len(before) + len(begin) : -len(end + after)]
    assert "old table" not in section
    assert section.strip("\n").startswith(bench_summary.GENERATED)
    assert EXPECTED_TABLE in section and "Measured " in section
    # Run again on the same results: the same file (only the date could move).
    assert bench_summary.main(["--results", str(results), "--output", str(document)]) == 0
    assert document.read_text(encoding="utf-8") == text


def test_absent_peers_and_failures(tmp_path: Path) -> None:
    results = sample_results()
    results["compare_stockfish"] = {"not_measured": "Stockfish not found (/usr/games/stockfish)"}
    results["perft_speed"]["wrong_counts"] = ["ferrochess perft(start, depth 5) = 1, expected 2"]
    del results["load_play"]
    results["match_speed"]["faults"] = ["old runner, round 3: time forfeit (12 ms over, move 40)"]
    folder = write_results(tmp_path / "bench", results)
    (folder / "perft_vs_shakmaty.txt").write_text("error[E0425]: cannot find value\n", "utf-8")
    rows, _, failures = bench_summary.summary_rows(folder)
    cells = {row.what: row.ferrochess for row in rows}
    assert cells["search nodes/s vs Stockfish"] == (
        "not measured (Stockfish not found (/usr/games/stockfish))"
    )
    assert cells["perft vs python-chess"].startswith("not measured (failed: wrong perft counts")
    assert cells["perft vs shakmaty"] == "not measured (failed: no `total:` line in its output)"
    assert cells["play page API under load"].startswith("not measured (failed: no result")
    assert cells["match runner games/min vs the old runner"] == (
        "not measured (failed: games lost by a fault: old runner, round 3: time forfeit "
        "(12 ms over, move 40))"
    )
    assert len(rows) == len(EXPECTED_TABLE.splitlines()) - 2  # every benchmark keeps its row
    assert [failure.split(":")[0] for failure in failures] == [
        "perft_vs_shakmaty",
        "perft_speed",
        "load_play",
        "match_speed",
    ]
    # The summary is written all the same, and the command then fails.
    document = tmp_path / "BENCHMARKS.md"
    document.write_text("\n".join(bench_summary.SUMMARY_MARKERS) + "\n", encoding="utf-8")
    assert bench_summary.main(["--results", str(folder), "--output", str(document)]) == 1
    assert "not measured (failed: no result" in document.read_text(encoding="utf-8")
    # Only an absent peer: nothing failed.
    results = sample_results()
    results["compare_stockfish"] = {"not_measured": "Stockfish not found"}
    assert bench_summary.summary_rows(write_results(tmp_path / "ok", results))[2] == []


def test_missing_markers_are_refused(tmp_path: Path) -> None:
    results = write_results(tmp_path / "bench", sample_results())
    document = tmp_path / "BENCHMARKS.md"
    document.write_text("# Benchmarks\n", encoding="utf-8")
    with pytest.raises(ValueError, match="summary:begin"):
        bench_summary.main(["--results", str(results), "--output", str(document)])
    assert document.read_text(encoding="utf-8") == "# Benchmarks\n"


def test_benchmarks_md_keeps_its_markers() -> None:
    text = (REPO_ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    for marker in (
        *bench_summary.SUMMARY_MARKERS,
        "<!-- calibration:begin -->",
        "<!-- calibration:end -->",
    ):
        assert text.count(marker) == 1, marker
    assert text.index(bench_summary.SUMMARY_MARKERS[1]) < text.index("<!-- calibration:begin -->")


def run_bench(script: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "benches" / script), *arguments],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_json_path_writes_the_results_and_keeps_the_report(tmp_path: Path) -> None:
    pytest.importorskip("ferrochess")
    path = tmp_path / "results" / "perft_speed.json"
    done = run_bench("perft_speed.py", "--quick", "--json", str(path))
    assert done.returncode == 0, done.stderr
    assert "ratio ferrochess / python-chess nodes/s" in done.stdout  # the report, as before
    result = json.loads(path.read_text(encoding="utf-8"))
    assert result["wrong_counts"] == [] and result["ferrochess_nps"] > 0
    assert bench_summary.perft_speed_rows(result)[0].ratio.startswith("**")


def test_json_path_records_why_nothing_was_measured(tmp_path: Path) -> None:
    pytest.importorskip("ferrochess")
    path = tmp_path / "analyse_speed.json"
    missing = tmp_path / "absent.pgn"
    done = run_bench("analyse_speed.py", "--pgn", str(missing), "--json", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(path.read_text(encoding="utf-8")) == {"not_measured": f"{missing} not found"}


def test_match_speed_plays_the_same_games_with_both_runners(tmp_path: Path) -> None:
    pytest.importorskip("ferrochess")
    path = tmp_path / "match_speed.json"
    done = run_bench(
        "match_speed.py", "--games", "2", "--rounds", "1", "--nodes", "300", "--json", str(path)
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(path.read_text(encoding="utf-8"))
    if "not_measured" in result:
        pytest.skip(f"match_speed not measured here: {result['not_measured']}")
    assert result["faults"] == []
    assert result["games"] == 2 and result["same_games_old_and_new_uci"] == 2
    for runner in ("old_runner", "new_runner_uci", "new_runner_in_process"):
        assert result[runner]["games"] == 2 and result[runner]["moves_per_game"] > 0
    assert result["old_runner"]["nodes_per_game"] == result["new_runner_uci"]["nodes_per_game"]
    assert bench_summary.match_speed_rows(result)[0].ratio.startswith("**")


def test_match_speed_without_git_records_why(tmp_path: Path) -> None:
    pytest.importorskip("ferrochess")
    path = tmp_path / "match_speed.json"
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benches" / "match_speed.py"), "--json", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": str(tmp_path)},  # no git on it
    )
    assert done.returncode == 0, done.stderr
    reason = json.loads(path.read_text(encoding="utf-8"))["not_measured"]
    assert reason.startswith("git not found")
