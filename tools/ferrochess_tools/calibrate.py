"""Calibrate the playing levels in games and write the table the engine reads (`make calibrate`).

Contract: plays each level of the native UCI binary (`--engine`, option `Level=N`, `OwnBook=false`)
against Stockfish 15.1 at `UCI_Elo` anchors (`UCI_LimitStrength=true`, one thread, 16 MB hash)
and against its neighbouring levels, at `--tc` (10+0.1 by default), `--concurrency` games at a
time (2). The games are `ferrochess.match` games: each pair of games (one opening from the ECO
lines, `--opening-plies` long, played twice with colours swapped) is a `match()` of two `Uci`
players on its clock (`--time-margin`, milliseconds, is `Limit.margin`), drawn at `--max-plies`
plies from the start (`Adjudication.max_moves`). Then it fits every game of the results
directory jointly (`elo_fit`: maximum likelihood, logistic Elo model, the anchors fixed at their
`UCI_Elo`, draws as half points, 95% Wald intervals from the observed Fisher information) and
writes:

- `src/level/table.rs`, the generated table the core reads (levels' names, Elo, intervals, games,
  and the fingerprint of the settings, network and search measured; a header with the date, commit,
  `Bench:`, network, time control, anchors and games);
- the sections between `<!-- levels:begin -->` and `<!-- levels:end -->` in docs/levels.md and
  between `<!-- calibration:begin -->` and `<!-- calibration:end -->` in BENCHMARKS.md
  (`tests/test_calibration.py` checks they equal what the table renders);
- `docs/levels.png`, level against Elo with the intervals (matplotlib, `MPLBACKEND=Agg`).

Schedule, in two stages. Stage 1 starts from the Elo the current table gives each level
("expected"): neighbouring levels play `--chain-games` (20) games, and each level plays half its
anchor games against Stockfish at the anchors nearest its expected Elo minus and plus
`--anchor-spread` (100), rounded to 50 and kept within Stockfish's 1350..2850. Stage 2 fits
stage 1's games and plays the other half around the Elo they measured, so a table measured with
other settings only places the first half. A level's anchor games are at least
`--min-anchor-games` (40) and enough to reach `--games` (60) games per level.
An anchor more than `--max-anchor-gap` (350) above the expected Elo is dropped (it would win
nearly every game); a level left with no anchor (a beginner below 1350-350) plays those games
against the level above instead, so it is rated through the chain. Full strength also plays
`--cross-check` engines with CCRL ratings (Phalanx XXV and Glaurung 2.2, `--cross-check-games`
20 each); they are fitted unanchored, so their games only rate them, on this scale, for a
comparison with their CCRL ratings. `--check-elo 1500,2000` instead plays the binary with
`UCI_LimitStrength=true` and `UCI_Elo` at each value against the anchors nearest it (value - 100,
value, value + 100; `--check-games` 60 in all) and reports the fitted Elo with its interval.

Every finished game is appended to `RESULTS/games.jsonl` (`--results`, default
`target/calibration`); a rerun skips the games already there, so an interrupted run resumes where
it stopped (the games in progress are played again: a pair of games is played whole, and only
its games not yet there are kept). `RESULTS/run.json` records the binary's
`Bench:`, network and level fingerprints and the time control: results of another build or time
control are refused rather than mixed. Each session's wall time goes to `RESULTS/sessions.jsonl`.

    python -m ferrochess_tools.calibrate [--results DIR] [--tc 10+0.1] [--concurrency 2]
        [--games 60] [--levels 1-10] [--check-elo 1500,2000] [--dry-run] [--fit-only]
        [--render-only] [--no-write]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import datetime
import json
import logging
import math
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ferrochess.match import (
    Adjudication,
    Event,
    GameFinished,
    GameStarted,
    Limit,
    Opening,
    Openings,
    TimeControl,
    Uci,
    match,
)

from ferrochess_tools import REPO_ROOT, elo_fit, faulty_player
from ferrochess_tools.level_table import (
    BENCHMARKS,
    BENCHMARKS_MARKERS,
    LEVELS_DOC,
    LEVELS_MARKERS,
    PLOT,
    TABLE,
    LevelNow,
    Row,
    Table,
    draw_plot,
    engine_facts,
    interval_text,
    parse_table_rs,
    render_benchmarks,
    render_levels,
    render_table_rs,
    replace_section,
)

STOCKFISH_ELO = (1350, 2850)
"""Stockfish 15.1's `UCI_Elo` range."""
CROSS_CHECK = {
    "phalanx": Uci("/usr/games/phalanx", protocol="xboard", name="Phalanx XXV"),
    "glaurung": Uci("/usr/games/glaurung", options={"Threads": 1}, name="Glaurung 2.2"),
}
METHOD = (
    "maximum likelihood, logistic Elo model over all games jointly, Stockfish anchors fixed at "
    "their UCI_Elo, draws as half points, 1 virtual draw per pairing; 95% Wald intervals from "
    "the observed Fisher information"
)
SECOND_STAGE_OPENINGS = 500
"""Stage 2's games start from the openings after this many, so they repeat none of stage 1's."""
MOVES_PER_GAME = 60
"""Moves per side assumed by the time estimate (the upper bound spends both clocks whole)."""


# The schedule --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Pairing:
    """`games` games between two players (the first has White in even games) in one stage
    (`stage`: "1" and "2" for the levels' two passes, "check" for requested Elos). Game `index`
    starts from opening `opening_offset + index // 2`, so the stages' openings differ."""

    first: str
    second: str
    games: int
    stage: str = "1"
    opening_offset: int = 0

    def key(self, index: int) -> str:
        return f"{self.stage}|{self.first}|{self.second}|{index}"


def even(games: float) -> int:
    return 2 * math.ceil(games / 2)


def anchors_near(elo: float, spread: int, max_gap: int) -> list[int]:
    """Stockfish `UCI_Elo` anchors for a player expected at `elo`: the multiples of 50 nearest
    `elo - spread` and `elo + spread` within Stockfish's range, less those more than `max_gap`
    above `elo`."""
    low, high = STOCKFISH_ELO
    chosen = {min(max(50 * round((elo + d) / 50), low), high) for d in (-spread, spread)}
    return sorted(a for a in chosen if a - elo <= max_gap)


def level_schedule(expected: dict[int, int], args: argparse.Namespace,
                   stage: str = "1") -> list[Pairing]:  # fmt: skip
    """The pairings of one of the levels' two stages, for the levels in `expected` (number ->
    expected Elo). Stage "1" plays the chain (and the cross-checks) and half of each level's
    anchor games around the expected Elo; stage "2" the other half, around the Elo stage 1
    measured (the caller passes it as `expected`)."""
    numbers = sorted(expected)
    games: dict[tuple[str, str], int] = {}
    if stage == "1":
        for low, high in zip(numbers, numbers[1:]):
            games[f"level:{low}", f"level:{high}"] = even(args.chain_games)
    for position, number in enumerate(numbers):
        neighbours = (position > 0) + (position < len(numbers) - 1)
        wanted = args.games - neighbours * even(args.chain_games)
        anchors = anchors_near(expected[number], args.anchor_spread, args.max_anchor_gap)
        if anchors:
            each = even(max(wanted, args.min_anchor_games) / 2 / len(anchors))
            for anchor in anchors:
                games[f"level:{number}", f"sf:{anchor}"] = each
        elif stage == "1" and wanted > 0 and len(numbers) > 1:
            other = numbers[position + 1] if position + 1 < len(numbers) else numbers[position - 1]
            pair = tuple(sorted((f"level:{number}", f"level:{other}"), key=_order))
            games[pair[0], pair[1]] = games.get((pair[0], pair[1]), 0) + even(wanted)
    if stage == "1" and numbers and numbers[-1] == 10:
        for name in args.cross_check:
            games["level:10", name] = even(args.cross_check_games)
    offset = 0 if stage == "1" else SECOND_STAGE_OPENINGS
    return [Pairing(a, b, n, stage, offset) for (a, b), n in games.items()]


def check_schedule(elos: list[int], args: argparse.Namespace) -> list[Pairing]:
    """The pairings that measure `UCI_Elo` at each of `elos`."""
    pairings = []
    for elo in elos:
        low, high = STOCKFISH_ELO
        anchors = sorted({min(max(50 * round((elo + d) / 50), low), high) for d in (-100, 0, 100)})
        each = even(args.check_games / len(anchors))
        pairings += [Pairing(f"elo:{elo}", f"sf:{anchor}", each, "check") for anchor in anchors]
    return pairings


def _order(player: str) -> tuple[int, float]:
    kind, _, value = player.partition(":")
    return ({"level": 0, "elo": 1, "sf": 2}.get(kind, 3), float(value or 0))


def player_for(player: str, args: argparse.Namespace) -> Uci:
    """The `ferrochess.match` player a schedule's name stands for: `level:N` and `elo:E` the
    native binary (`--engine`, book off) at that level or `UCI_Elo`, `sf:E` Stockfish
    (`--stockfish`) limited to `UCI_Elo` E, one thread and 16 MB, else a `CROSS_CHECK` engine."""
    kind, _, value = player.partition(":")
    if kind == "level":
        return Uci(args.engine, options={"OwnBook": False, "Level": int(value)},
                   name=f"ferrochess level {value}")  # fmt: skip
    if kind == "elo":
        return Uci(args.engine, options={"OwnBook": False, "UCI_LimitStrength": True,
                                         "UCI_Elo": int(value)},
                   name=f"ferrochess UCI_Elo {value}")  # fmt: skip
    if kind == "sf":
        return Uci(args.stockfish, options={"UCI_LimitStrength": True, "UCI_Elo": int(value),
                                            "Threads": 1, "Hash": 16},
                   name=f"Stockfish UCI_Elo {value}")  # fmt: skip
    return CROSS_CHECK[player]


def estimate_hours(games: int, tc: str, concurrency: int) -> float:
    """An upper bound on the wall time: every game spends both clocks whole over
    MOVES_PER_GAME moves a side (weak levels move at once, so the real time is less)."""
    clock = TimeControl.parse(tc)
    per_game = 2 * (clock.base + MOVES_PER_GAME * clock.increment)
    return games * per_game / max(concurrency, 1) / 3600


# Playing -------------------------------------------------------------------------------------


def read_games(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    games = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                games.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by an interruption: that game is played again
    return games


def play_pair(pairing: Pairing, pair: int, opening: Opening, args: argparse.Namespace,
              finished: Callable[[dict[str, Any]], None]) -> None:  # fmt: skip
    """Plays games `2 * pair` (the first player has White) and `2 * pair + 1` of `pairing` from
    `opening`, as one `ferrochess.match` match, and calls `finished` with each game's record as
    it ends. An engine that cannot start raises `ferrochess.match.PlayerError`."""
    players = (pairing.first, pairing.second)
    started: dict[int, float] = {}

    def watch(event: Event) -> None:
        if isinstance(event, GameStarted):
            started[event.game] = time.monotonic()
        elif isinstance(event, GameFinished):
            game = event.record
            culprit = faulty_player(game)
            finished({
                "key": pairing.key(2 * pair + game.index),
                "white": players[game.white_player], "black": players[game.black_player],
                "result": game.result, "reason": game.reason,
                "seconds": round(time.monotonic() - started.get(game.index, time.monotonic()), 2),
                "forfeit": None if culprit is None else players[culprit],
                "opening": " ".join(game.opening.moves), "tc": args.tc,
                "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(
                    timespec="seconds"),
            })  # fmt: skip

    limit = Limit(clock=TimeControl.parse(args.tc), margin=args.time_margin / 1000)
    moves = max(1, math.ceil((args.max_plies - args.opening_plies) / 2))
    match([player_for(player, args) for player in players], games=2, openings=[opening],
          limit=limit, adjudication=Adjudication(max_moves=moves), seed=args.seed,
          on_event=watch, progress=False, event="ferrochess calibration")  # fmt: skip


def play(pairings: list[Pairing], args: argparse.Namespace) -> int:
    """Plays the games of `pairings` not yet in the results, a pair of games (one opening,
    colours swapped) at a time on each of `--concurrency` threads; returns how many it kept."""
    results = args.results / "games.jsonl"
    done = {game["key"] for game in read_games(results)}
    longest = max((p.games for p in pairings), default=0)
    needed = max((p.opening_offset + (p.games + 1) // 2 for p in pairings), default=0)
    lines = Openings.eco(args.opening_plies).select(needed, args.seed)
    # Round-robin over the pairings, so an interrupted run has rated everyone a little.
    todo = [(pairing, pair) for pair in range((longest + 1) // 2) for pairing in pairings
            if any(index < pairing.games and pairing.key(index) not in done
                   for index in (2 * pair, 2 * pair + 1))]  # fmt: skip
    left = sum(index < p.games and p.key(index) not in done
               for p, pair in todo for index in (2 * pair, 2 * pair + 1))  # fmt: skip
    print(f"{len(done)} games already played, {left} to play, "
          f"{args.concurrency} at a time", file=sys.stderr, flush=True)  # fmt: skip
    played = 0
    started = time.time()
    lock = threading.Lock()

    def finished(record: dict[str, Any]) -> None:
        nonlocal played
        with lock:
            if record["key"] in done:
                return  # the other game of a pair cut short by an interruption
            done.add(record["key"])
            with results.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
            played += 1
            print(f"[{len(done)}] {record['white']} - {record['black']} "
                  f"{record['result']} ({record['reason']}, {record['seconds']:.0f} s)",
                  file=sys.stderr, flush=True)  # fmt: skip

    executor = concurrent.futures.ThreadPoolExecutor(max_workers=args.concurrency)
    try:
        futures = {executor.submit(play_pair, pairing, pair,
                                   lines[pairing.opening_offset + pair], args, finished): pairing
                   for pairing, pair in todo}  # fmt: skip
        for future in concurrent.futures.as_completed(futures):
            try:
                future.result()
            except Exception as error:  # noqa: BLE001 - an engine that failed to start, say
                pairing = futures[future]
                print(f"games of {pairing.first} - {pairing.second} not played: {error!r} "
                      "(they are played again on the next run)", file=sys.stderr)  # fmt: skip
    except KeyboardInterrupt:
        record_session(args.results, started, played)
        print(f"interrupted after {played} games; run the same command again to resume (the "
              "games in progress are played again)", file=sys.stderr, flush=True)  # fmt: skip
        # Leave now: waiting for the running games would only lose their results later.
        sys.stdout.flush()
        os._exit(130)
    executor.shutdown()
    record_session(args.results, started, played)
    return played


def record_session(results: Path, started: float, played: int) -> None:
    with (results / "sessions.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps({"start": started, "end": time.time(), "games": played}) + "\n")


def check_run(args: argparse.Namespace, facts: dict[str, Any]) -> None:
    """Refuses a results directory whose games another build or time control played."""
    path = args.results / "run.json"
    if path.exists():
        previous = json.loads(path.read_text(encoding="utf-8"))
        for key in ("bench", "network", "fingerprints", "tc"):
            if previous.get(key) != facts.get(key):
                raise SystemExit(f"{args.results} holds games of another {key} "
                                 f"({previous.get(key)} here, {facts.get(key)} now): use another "
                                 "--results directory, or delete it to start again")  # fmt: skip
    else:
        path.write_text(json.dumps(facts, indent=2) + "\n", encoding="utf-8")


# Fitting and writing -------------------------------------------------------------------------


def fit_results(args: argparse.Namespace,
                stage: str | None = None) -> tuple[dict[str, elo_fit.Rating], int]:  # fmt: skip
    """The ratings from the games in the results (only `stage`'s when given) that are linked to
    an anchor, and how many games that is."""
    games = []
    for record in read_games(args.results / "games.jsonl"):
        if stage is not None and not record["key"].startswith(stage + "|"):
            continue
        score = {"1-0": 1.0, "0-1": 0.0}.get(record["result"], 0.5)
        games.append(elo_fit.Game(record["white"], record["black"], score))
    players = {p for game in games for p in (game.white, game.black)}
    anchors = {p: float(p.partition(":")[2]) for p in players if p.startswith("sf:")}
    linked = elo_fit.linked(games, anchors)
    if players - linked:
        print(f"not rated yet (no games link them to an anchor): "
              f"{', '.join(sorted(players - linked, key=_order))}", file=sys.stderr)  # fmt: skip
    games = [g for g in games if g.white in linked and g.black in linked]
    if not games:
        return {}, 0
    return elo_fit.fit(games, anchors), len(games)


def session_minutes(results: Path) -> int | None:
    path = results / "sessions.jsonl"
    if not path.exists():
        return None
    sessions = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return round(sum(float(s["end"]) - float(s["start"]) for s in sessions) / 60)


def git_commit() -> str:
    def git(*words: str) -> str:
        return subprocess.run(["git", *words], cwd=REPO_ROOT, capture_output=True, text=True,
                              check=False).stdout.strip()  # fmt: skip

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    # The table itself changes between the steps of `make calibrate`: it does not count.
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", "src",
                ":!src/level/table.rs")  # fmt: skip
    return commit + ("+changes" if dirty else "")


def new_table(old: Table, ratings: dict[str, elo_fit.Rating], total: int, network: str,
              bench: int | None, levels: list[LevelNow],
              args: argparse.Namespace) -> Table:  # fmt: skip
    """The table after a fit: fitted levels get their new rows (with the current fingerprint),
    the others keep theirs; the record describes this fit."""
    here = f"{old.record['date']} (commit {old.record['commit']}, {old.record['time_control']})"
    earlier = carried_from(old.record["note"])
    rows: list[Row] = []
    carried: dict[str, list[str]] = {}
    for row, now in zip(old.rows, levels):
        rating = ratings.get(f"level:{row.number}")
        if rating is None:
            rows.append(row)
            # A row the old table carried keeps the table it was measured in.
            carried.setdefault(earlier.get(row.number, here), []).append(str(row.number))
        else:
            rows.append(Row(row.number, row.name, round(rating.elo), round(rating.low),
                            round(rating.high), rating.games, now.fingerprint))  # fmt: skip
    anchors = sorted(int(p.partition(":")[2]) for p in ratings if p.startswith("sf:"))
    checks = [{"asked": int(p.partition(":")[2]), "elo": round(r.elo), "low": round(r.low),
               "high": round(r.high), "games": r.games}
              for p, r in sorted(ratings.items(), key=lambda item: _order(item[0]))
              if p.startswith("elo:")]  # fmt: skip
    cross = [f"{player_for(p, args).name} {round(r.elo)} ({round(r.low)} to {round(r.high)}, "
             f"{r.games} games)" for p, r in ratings.items() if p in CROSS_CHECK]  # fmt: skip
    notes = []
    for source, numbers in carried.items():
        notes.append(f"Level{'s' if len(numbers) > 1 else ''} {', '.join(numbers)} not in this "
                     f"fit: carried over from the table of {source}.")  # fmt: skip
    if cross:
        notes.append("Cross-check, fitted unanchored on this scale from games against full "
                     "strength (compare with their CCRL ratings): " + "; ".join(cross) + ".")
    elif "level:10" not in ratings:
        # Full strength carried over: so is the cross-check of its games.
        notes += CROSS_CHECKED.findall(old.record["note"])
    note = " ".join(notes)
    record = {
        "date": datetime.date.today().isoformat(), "commit": git_commit(), "bench": bench,
        "network": network, "time_control": args.tc,
        "anchors": "Stockfish 15.1 UCI_Elo " + ", ".join(map(str, anchors)), "games": total,
        "play_minutes": session_minutes(args.results), "method": METHOD, "note": note,
    }  # fmt: skip
    return Table(record, checks, rows)


CROSS_CHECKED = re.compile(r"Cross-check, fitted unanchored .+?\)\.(?= |$)")
CARRIED = re.compile(r"Levels? ([\d, ]+) not in this fit: carried over from the table of (.+?\))\.")


def carried_from(note: str) -> dict[int, str]:
    """Level number -> the table ("DATE (commit C, TC)") a table's note says its row was carried
    over from, for the rows that table did not fit itself."""
    return {int(number): source for numbers, source in CARRIED.findall(note)
            for number in numbers.split(", ")}  # fmt: skip


def calibration_of(table: Table, levels: list[LevelNow]) -> list[str]:
    """Per level, "measured" when its row's fingerprint is the current build's, else "stale"
    (the rule the core applies)."""
    return ["measured" if row.fingerprint == now.fingerprint else "stale"
            for row, now in zip(table.rows, levels)]  # fmt: skip


def write_outputs(table: Table, levels: list[LevelNow], plot: Path) -> None:
    calibration = calibration_of(table, levels)
    TABLE.write_text(render_table_rs(table), encoding="utf-8")
    for path, markers, render in ((LEVELS_DOC, LEVELS_MARKERS, render_levels),
                                  (BENCHMARKS, BENCHMARKS_MARKERS, render_benchmarks)):  # fmt: skip
        text = path.read_text(encoding="utf-8")
        path.write_text(replace_section(text, markers, render(table, calibration, levels)),
                        encoding="utf-8")  # fmt: skip
    draw_plot(table, calibration, plot)
    print(f"wrote {TABLE.relative_to(REPO_ROOT)}, {LEVELS_DOC.relative_to(REPO_ROOT)}, "
          f"BENCHMARKS.md and {plot}; rebuild "
          "(make dev, cargo build --release --bin ferrochess-uci) so the engine reads the table",
          file=sys.stderr)  # fmt: skip


def report(table: Table, ratings: dict[str, elo_fit.Rating]) -> None:
    print("level  name               Elo   95% interval   games")
    for row in table.rows:
        interval = interval_text(row.low, row.high)
        print(f"{row.number:5}  {row.name:17} {row.elo:5}   {interval:13} {row.games:6}")
    fitted = [row for row in table.rows if f"level:{row.number}" in ratings]
    for below, above in zip(fitted, fitted[1:]):
        if above.elo - below.elo < 100:
            print(f"warning: level {above.number} is {above.elo - below.elo} above level "
                  f"{below.number} (the levels should be 100 apart): re-space the curve in "
                  "src/level/strength.rs")  # fmt: skip
    for below, above in zip(fitted, fitted[2:]):
        if below.high is not None and above.low is not None and below.high >= above.low:
            print(f"warning: the intervals of levels {below.number} and {above.number} overlap")
    for check in table.checks:
        off = check["elo"] - check["asked"]
        verdict = "within 100" if abs(off) <= 100 else "more than 100 off"
        print(f"UCI_Elo {check['asked']}: measured {check['elo']} ({check['low']} to "
              f"{check['high']}, {check['games']} games): {off:+d}, {verdict}")  # fmt: skip
    for player, rating in ratings.items():
        if player in CROSS_CHECK:
            print(f"cross-check {player}: {rating.elo:.0f} ({rating.low:.0f} to "
                  f"{rating.high:.0f}) in {rating.games} games")  # fmt: skip


def parse_levels(text: str) -> list[int]:
    numbers: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        numbers.update(range(int(low), int(high or low) + 1))
    return sorted(numbers)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m ferrochess_tools.calibrate",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=REPO_ROOT / "target" / "calibration")
    parser.add_argument("--engine", default=str(REPO_ROOT / "target/release/ferrochess-uci"),
                        help="the native UCI binary")  # fmt: skip
    parser.add_argument("--stockfish", default="/usr/games/stockfish", help="Stockfish 15.1")
    parser.add_argument("--tc", default="10+0.1", help="base+increment in seconds")
    parser.add_argument("--concurrency", type=int, default=2, help="games at a time")
    parser.add_argument("--levels", default="1-10", help="e.g. 1-10 or 1,2,5")
    parser.add_argument("--games", type=int, default=60, help="games per level, at least")
    parser.add_argument("--chain-games", type=int, default=20, help="per pair of neighbours")
    parser.add_argument("--min-anchor-games", type=int, default=40,
                        help="per level with an anchor, at least")  # fmt: skip
    parser.add_argument("--anchor-spread", type=int, default=100)
    parser.add_argument("--max-anchor-gap", type=int, default=350)
    parser.add_argument("--cross-check", default="phalanx,glaurung", help="or 'none'")
    parser.add_argument("--cross-check-games", type=int, default=20)
    parser.add_argument("--check-elo", default=None, help="e.g. 1500,2000: measure UCI_Elo")
    parser.add_argument("--check-games", type=int, default=60, help="per --check-elo value")
    parser.add_argument("--opening-plies", type=int, default=8)
    parser.add_argument("--max-plies", type=int, default=400,
                        help="a draw at this many plies from the start, the opening's included")
    parser.add_argument("--time-margin", type=float, default=100,
                        help="milliseconds a move may overdraw its clock")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--plot", type=Path, default=PLOT)
    parser.add_argument("--dry-run", action="store_true", help="print the schedule only")
    parser.add_argument("--fit-only", action="store_true", help="fit the results, play nothing")
    parser.add_argument("--render-only", action="store_true",
                        help="rewrite the docs and plot from the table as it is")  # fmt: skip
    parser.add_argument("--no-write", action="store_true", help="report, write nothing")
    args = parser.parse_args()
    args.cross_check = [] if args.cross_check == "none" else args.cross_check.split(",")
    try:
        TimeControl.parse(args.tc)
    except ValueError as error:
        parser.error(f"--tc: {error}")
    unknown = sorted(set(args.cross_check) - set(CROSS_CHECK))
    if unknown:
        parser.error(f"--cross-check: unknown engine {', '.join(unknown)} (known: "
                     f"{', '.join(CROSS_CHECK)}, or none)")  # fmt: skip
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    old = parse_table_rs(TABLE.read_text(encoding="utf-8"))
    if args.render_only:
        _, _, levels = engine_facts(args.engine, bench=False)
        write_outputs(old, levels, args.plot)
        return 0
    table_elo = {row.number: row.elo for row in old.rows}
    expected = {n: table_elo[n] for n in parse_levels(args.levels)}
    if args.check_elo:
        stages = [check_schedule([int(e) for e in args.check_elo.split(",")], args)]
    else:
        # Stage 2's anchors follow stage 1's fit; until then, count them as the table puts them.
        stages = [level_schedule(expected, args, "1"), level_schedule(expected, args, "2")]
    total = sum(p.games for pairings in stages for p in pairings)
    for pairing in stages[0]:
        print(f"{pairing.first:10} vs {pairing.second:10} {pairing.games:4} games")
    if len(stages) > 1:
        print(f"then {sum(p.games for p in stages[1])} games against anchors near the Elo the "
              "games above measure")  # fmt: skip
    hours = estimate_hours(total, args.tc, args.concurrency)
    print(f"{total} games; at most about {hours:.1f} h ({hours * 60:.0f} min) "
          f"at {args.tc} with {args.concurrency} at a time (every game spending both clocks "
          f"over {MOVES_PER_GAME} moves; an estimate until measured)")  # fmt: skip
    if args.dry_run:
        return 0  # the schedule comes from the table alone: no binary needed
    network, bench, levels = engine_facts(args.engine)
    if args.check_elo:
        for now, row in zip(levels, old.rows):
            if now.elo != row.elo:
                raise SystemExit(f"{args.engine} was built with another table (level "
                                 f"{now.number}: {now.elo}, the table says {row.elo}): rebuild "
                                 "it first, UCI_Elo maps onto the built table")  # fmt: skip
    args.results.mkdir(parents=True, exist_ok=True)
    facts = {"bench": bench, "network": network, "tc": args.tc,
             "fingerprints": {str(level.number): f"{level.fingerprint:016x}" for level in levels}}
    check_run(args, facts)
    if not args.fit_only:
        play(stages[0], args)
        if len(stages) > 1:
            first, _ = fit_results(args, stage="1")
            for number in expected:
                if f"level:{number}" in first:
                    expected[number] = round(first[f"level:{number}"].elo)
            second = level_schedule(expected, args, "2")
            print("stage 2: " + ", ".join(f"{p.first} vs {p.second} {p.games}" for p in second),
                  file=sys.stderr)  # fmt: skip
            play(second, args)
    ratings, games = fit_results(args)
    if not ratings:
        print("no games linked to an anchor yet: nothing to fit", file=sys.stderr)
        return 0
    table = new_table(old, ratings, games, network, bench, levels, args)
    report(table, ratings)
    if not args.no_write:
        write_outputs(table, levels, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
