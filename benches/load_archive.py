"""Load benchmark of the production server and its games archive (issue 36): K clients each
playing games at level 1 through the page's API and submitting them, against `ferrochess serve`
with two gunicorn workers, on SQLite and on PostgreSQL.

Contract: for each database asked (`--backends`, both by default) starts
`python -m ferrochess serve --port 0 --server gunicorn --workers 2 --rate-limit none --database X`
in a process group of its own (waitress, one process, with a note in the results where gunicorn
cannot run here), X being a new SQLite file in a temporary directory, or a new database on a
throwaway PostgreSQL server started as the tests start theirs (tests/postgres_helpers.py: Debian's
`postgresql`, a Unix socket, `fsync=off`) or on the server of `--postgresql-url`. PostgreSQL that
cannot start is "not measured" with the reason. Then `--clients` threads (8) each play games as
the page does, each game on a kept-alive connection of its own (`--connection per-client`: one
connection for all of a client's games; gunicorn's workers then keep the connections they happened
to accept, which can load one worker with most clients): `POST /api/state` on the empty board, then
for each of its moves (a random legal one) `POST /api/state` with it and `POST /api/move` for the
engine's reply (level `--level`, 1; the book on), until the game is over or has `--plies` plies
(40), when it resigns (`POST /api/state` with `end`); then `POST /api/games` with the finished
game (a client id of its own, random players, a 1+1 time control with its clocks) and `GET
/api/games/<id>` (its page's data). A 503 with Retry-After (every engine busy, or the database)
is waited out and asked again, as the page does. Clients stop starting games after `--seconds`
(60), or after `--games` games each when that is given.

`POST /api/move` says each side has `--clock-ms` (100) left: below full strength the server
takes a natural time to reply (0.6 to 1.8 s, at most 1/40 of the mover's clock), which would
otherwise be most of what is measured; 100 ms caps it at 2.5 ms (level 1 searches 1,000 nodes at
most, well within such a clock). `--clock-ms 0` sends no clock (the page's natural pace: then the
figures measure that wait, not the server).

Every request's latency (sent to answer read) and status are recorded. The report: per database,
requests/s overall and per endpoint, p50/p95/p99/max latency, the statuses; the games submitted
and found in the archive afterwards (its total must equal them, its integrity check "ok"); the
CPU seconds of each of the server's processes (how the workers shared the work). Errors,
which make the exit status 1: a 5xx other than 503 with Retry-After, a 503 without it, any other
unexpected status, a request that failed outright, a traceback in the server's log, a game lost.
Prints a markdown table; `--write [PATH]` also puts it, with the command and the machine, into
BENCHMARKS.md (or PATH) between the markers of its section; `--json [PATH]` as the other benches.

    python benches/load_archive.py [--clients 8] [--seconds 60 | --games N] [--plies 40]
        [--level 1] [--backends sqlite,postgresql] [--server gunicorn] [--workers 2]
        [--clock-ms 100] [--connection per-game|per-client] [--postgresql-url URL]
        [--write [PATH]] [--json [PATH]]
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import math
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import add_json_option, emit_json
from ferrochess_tools.bench_summary import machine
from ferrochess_tools.processes import first_line

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO_ROOT / "BENCHMARKS.md"
MARKERS = ("<!-- load-archive:begin -->", "<!-- load-archive:end -->")
GENERATED = "<!-- Written by `python benches/load_archive.py --write`; do not edit. -->"
START_SECONDS = 60
REQUEST_SECONDS = 60
MAX_RETRIES = 20
"""How often one request is asked again after a 503 with Retry-After before it is an error."""
RETRY_CAP_SECONDS = 1.0
"""Longest wait after a 503 (its Retry-After, at most this)."""
TIME_CONTROL = (60, 1)
"""The submitted games' time control, seconds (their clocks are drawn to fit it)."""
NAMES = ("Anna", "Bogdan", "Chloé", "Dmitri", "Eun-ji", "Faisal", "Grete", "Hiro", "Ines", "José")
BACKENDS = ("sqlite", "postgresql")
ENDPOINTS = (
    "POST /api/state",
    "POST /api/move",
    "POST /api/games",
    "GET /api/games/<id>",
)


# --- the clients ----------------------------------------------------------------------------------


@dataclass
class Tally:
    """Every request's (endpoint, status, seconds), the games stored, the errors; shared by the
    client threads."""

    requests: list[tuple[str, int, float]] = field(default_factory=list)
    stored: dict[str, str] = field(default_factory=dict)  # client_id -> public id
    plies: list[int] = field(default_factory=list)
    busy: int = 0  # 503 with Retry-After, waited out
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def error(self, text: str) -> None:
        with self.lock:
            if len(self.errors) < 1000:
                self.errors.append(text)


class Failed(Exception):
    """A request that failed (its answer recorded as an error); the client starts a new game."""


class Client:
    """One player: a kept-alive connection, playing games one after the other."""

    def __init__(self, port: int, number: int, args: argparse.Namespace, tally: Tally) -> None:
        self.port = port
        self.number = number
        self.args = args
        self.tally = tally
        self.rng = random.Random(number)
        self.connection = self._connect()

    def _connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_SECONDS)

    def call(self, method: str, path: str, body: Any, endpoint: str, ok: tuple[int, ...]) -> Any:
        """The JSON answer of one request (asked again after a 503 with Retry-After); Failed for
        another status not in ``ok``, or no answer."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data is not None else {}
        for _ in range(MAX_RETRIES):
            started = time.perf_counter()
            try:
                self.connection.request(method, path, body=data, headers=headers)
                response = self.connection.getresponse()
                raw = response.read()
            except (OSError, http.client.HTTPException) as error:
                self.connection.close()
                self.connection = self._connect()
                self.tally.error(f"{endpoint}: no answer ({error!r})")
                raise Failed from error
            seconds = time.perf_counter() - started
            status = response.status
            with self.tally.lock:
                self.tally.requests.append((endpoint, status, seconds))
            if status in ok:
                return json.loads(raw)
            retry = response.getheader("Retry-After")
            if status == 503 and retry:
                with self.tally.lock:
                    self.tally.busy += 1
                time.sleep(min(float(retry), RETRY_CAP_SECONDS))
                continue
            what = "503 without Retry-After" if status == 503 else str(status)
            self.tally.error(f"{endpoint}: {what}: {raw[:300]!r}")
            raise Failed
        self.tally.error(f"{endpoint}: still 503 after {MAX_RETRIES} tries")
        raise Failed

    def run(self, deadline: float) -> None:
        played = 0
        try:
            while True:
                if self.args.games is not None:
                    if played >= self.args.games:
                        return
                elif time.monotonic() >= deadline:
                    return
                played += 1
                if self.args.connection == "per-game" and played > 1:
                    self.connection.close()  # a new player (page) on a new connection
                    self.connection = self._connect()
                try:
                    self.play(f"bench-{self.number}-{played}-{self.rng.getrandbits(32):08x}")
                except Failed:
                    continue
        finally:
            self.connection.close()

    def play(self, client_id: str) -> None:
        """One game as the page plays it, then its submission and its record read back."""
        rng = self.rng
        human = rng.choice(["white", "black"])
        started_at = datetime.datetime.now(datetime.timezone.utc).isoformat()
        game: dict[str, Any] = {"moves": [], "client": client_id}
        move_body: dict[str, Any] = {"level": self.args.level, "book": True}
        if self.args.clock_ms > 0:
            move_body["clock"] = {
                "white": self.args.clock_ms,
                "black": self.args.clock_ms,
                "increment": 0,
            }
        state = self.call("POST", "/api/state", game, "POST /api/state", (200,))
        game["fen"] = state["start_fen"]
        engine_turn = human == "black"
        end = None
        while not state["status"]["over"]:
            if engine_turn:
                reply = self.call(
                    "POST", "/api/move", {**game, **move_body}, "POST /api/move", (200,)
                )
                state = reply["state"]
            elif len(state["moves"]) >= self.args.plies:
                end = {"by": "resign", "color": human}
                state = self.call(
                    "POST", "/api/state", {**game, "end": end}, "POST /api/state", (200,)
                )
                break
            else:
                ours = rng.choice(state["legal_moves"])
                state = self.call(
                    "POST",
                    "/api/state",
                    {**game, "moves": [*game["moves"], ours]},
                    "POST /api/state",
                    (200,),
                )
            game["moves"] = state["moves"]
            engine_turn = not engine_turn
        assert state["status"]["over"], state["status"]
        clocks = []
        left = [float(TIME_CONTROL[0])] * 2
        for ply in range(len(game["moves"])):
            left[ply % 2] = round(max(0.0, left[ply % 2] - rng.uniform(0, 3) + TIME_CONTROL[1]), 1)
            clocks.append(left[ply % 2])
        submission = {
            "client_id": client_id,
            "fen": game["fen"],
            "moves": game["moves"],
            "end": end,
            "human": human,
            "level": self.args.level,
            "white": "ferrochess" if human == "black" else f"{rng.choice(NAMES)} {self.number}",
            "black": "ferrochess" if human == "white" else f"{rng.choice(NAMES)} {self.number}",
            "time_control": "{}+{}".format(*TIME_CONTROL),
            "clocks": clocks,
            "started_at": started_at,
        }
        stored = self.call("POST", "/api/games", submission, "POST /api/games", (201,))
        with self.tally.lock:
            self.tally.stored[client_id] = stored["id"]
            self.tally.plies.append(len(game["moves"]))
        record = self.call("GET", f"/api/games/{stored['id']}", None, "GET /api/games/<id>", (200,))
        if record["moves"] != game["moves"]:
            self.tally.error(f"game {stored['id']}: stored moves differ from those played")


# --- the server and the databases -----------------------------------------------------------------


class Server:
    """``ferrochess serve`` in a process group of its own; its stderr in a file."""

    def __init__(self, database: str, server: str, workers: int, log: Path) -> None:
        self.command = [
            "ferrochess",
            "serve",
            "--port",
            "0",
            "--server",
            server,
            *(["--workers", str(workers)] if server == "gunicorn" else []),
            "--rate-limit",
            "none",
            "--database",
            database,
        ]
        self.log = log
        with open(log, "w", encoding="utf-8") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", *self.command],
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                start_new_session=True,
            )
        first = first_line(self.process, START_SECONDS) or ""
        found = re.match(r"ferrochess serve: http://127\.0\.0\.1:(\d+)/ \(([^;]*;[^;]*)", first)
        if not found:
            self.kill()
            raise RuntimeError(f"serve printed no address: {log.read_text()[-2000:]}")
        self.port = int(found.group(1))
        self.how = found.group(2)

    def wait_healthy(self) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
            try:
                connection.request("GET", "/healthz")
                if connection.getresponse().status == 200:
                    return
            except (OSError, http.client.HTTPException):
                pass
            finally:
                connection.close()
            time.sleep(0.2)
        raise RuntimeError("serve never answered /healthz 200")

    def cpu_seconds(self) -> list[float]:
        """The CPU seconds (user + system) each process of the server has used so far, the
        main process first (Linux's /proc; [] elsewhere): how the work was shared among
        gunicorn's workers."""
        found = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            pid, group = int(stat.parent.name), int(fields[2])  # fields[0] is the state
            if group == self.process.pid:
                ticks = int(fields[11]) + int(fields[12])  # utime, stime
                found.append((pid != self.process.pid, pid, ticks / os.sysconf("SC_CLK_TCK")))
        return [round(seconds, 1) for _, _, seconds in sorted(found)]

    def stop(self) -> int:
        """SIGTERM, the exit status (killed after 60 s)."""
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            return self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.kill()
            return -9
        except ProcessLookupError:
            return self.process.wait()

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()


@contextmanager
def postgresql_database(url: str | None) -> Iterator[tuple[str, str]]:
    """(a new database's URL, what server it is on); RuntimeError("not measured: ...") when no
    server can be had."""
    sys.path.insert(0, str(REPO_ROOT / "tests"))
    try:
        from postgres_helpers import ClusterUnavailable, fresh_database, start_cluster
    except ImportError as error:
        raise RuntimeError(f"tests/postgres_helpers.py cannot be imported: {error}") from None
    if url is not None:
        try:
            made = fresh_database(url, "bench")
        except Exception as error:  # the driver's error, whatever it is: not measured
            raise RuntimeError(f"no database on {url}: {error}") from None
        yield made, "the server of --postgresql-url"
        return
    try:
        cluster = start_cluster()
    except ClusterUnavailable as error:
        raise RuntimeError(f"no PostgreSQL server: {error}") from None
    try:
        version = cluster.bin.parent.name
        yield (
            fresh_database(cluster.url, "bench"),
            (f"PostgreSQL {version}, a throwaway server on a Unix socket, fsync off"),
        )
    finally:
        cluster.remove()


@contextmanager
def database_for(backend: str, args: argparse.Namespace) -> Iterator[tuple[str, str]]:
    if backend == "sqlite":
        import sqlite3

        with tempfile.TemporaryDirectory(prefix="ferrochess-bench-") as directory:
            yield (
                str(Path(directory) / "games.sqlite3"),
                (f"SQLite {sqlite3.sqlite_version}, a file on local disk (WAL, synchronous=FULL)"),
            )
    else:
        with postgresql_database(args.postgresql_url) as found:
            yield found


# --- one run --------------------------------------------------------------------------------------


def percentile(sorted_values: list[float], share: float) -> float:
    """The nearest-rank percentile of already sorted values."""
    rank = max(1, math.ceil(share * len(sorted_values)))
    return sorted_values[rank - 1]


def latency_row(entries: list[tuple[str, int, float]], wall: float) -> dict[str, Any]:
    latencies = sorted(seconds * 1000 for _, _, seconds in entries)
    statuses = Counter(status for _, status, _ in entries)
    if not latencies:
        return {"requests": 0, "statuses": {}}
    return {
        "requests": len(entries),
        "requests_per_s": round(len(entries) / wall, 1),
        "p50_ms": round(percentile(latencies, 0.50), 1),
        "p95_ms": round(percentile(latencies, 0.95), 1),
        "p99_ms": round(percentile(latencies, 0.99), 1),
        "max_ms": round(latencies[-1], 1),
        "statuses": {str(status): count for status, count in sorted(statuses.items())},
    }


def run_backend(backend: str, args: argparse.Namespace, server_kind: str) -> dict[str, Any]:
    from ferrochess.service.archive import Archive

    with database_for(backend, args) as (database, described), tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "serve.log"
        server = Server(database, server_kind, args.workers, log)
        tally = Tally()
        try:
            server.wait_healthy()
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
            clients = [Client(server.port, number, args, tally) for number in range(args.clients)]
            started = time.perf_counter()
            deadline = time.monotonic() + args.seconds
            threads = [threading.Thread(target=client.run, args=(deadline,)) for client in clients]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - started
            cpu = server.cpu_seconds()
        finally:
            status = server.stop()
        text = log.read_text(encoding="utf-8", errors="replace")
        tracebacks = text.count("Traceback (most recent call last)")
        if status != 0:
            tally.error(f"serve exited with status {status}")
        if tracebacks:
            tally.error(f"{tracebacks} traceback(s) in the server's log")
        with Archive.open(database) as archive:
            _, total = archive.list_games(per_page=1)
            integrity = archive.integrity_check()
    if total != len(tally.stored):
        tally.error(f"the archive holds {total} games, {len(tally.stored)} were stored")
    if integrity != ["ok"]:
        tally.error(f"integrity check: {integrity}")
    by_endpoint: dict[str, list[tuple[str, int, float]]] = defaultdict(list)
    for entry in tally.requests:
        by_endpoint[entry[0]].append(entry)
    unexpected_5xx = sum(1 for _, status, _ in tally.requests if status >= 500 and status != 503)
    plies = tally.plies
    return {
        "database": described,
        "server": server.how,
        "command": " ".join(shlex.quote(part) for part in server.command),
        "wall_s": round(wall, 1),
        "load_before": None if load is None else round(load, 2),
        "cpu_seconds": cpu,
        "games_stored": len(tally.stored),
        "games_in_archive": total,
        "mean_plies": round(sum(plies) / len(plies), 1) if plies else 0,
        "integrity": integrity,
        "all": latency_row(tally.requests, wall),
        "endpoints": {name: latency_row(by_endpoint[name], wall) for name in ENDPOINTS},
        "busy_503_retried": tally.busy,
        "unexpected_5xx": unexpected_5xx,
        "errors": tally.errors[:20],
        "error_count": len(tally.errors),
    }


# --- the report -----------------------------------------------------------------------------------


TITLES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


def markdown(result: dict[str, Any]) -> str:
    lines = [
        "| database | requests | requests/s | p50 ms | p95 ms | p99 ms | max ms | statuses |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    notes = []
    for backend, found in result["backends"].items():
        title = TITLES[backend]
        if "not_measured" in found:
            lines.append(f"| {title} | not measured ({found['not_measured']}) |  |  |  |  |  |  |")
            continue
        for name, row in [("all requests", found["all"]), *found["endpoints"].items()]:
            if not row["requests"]:
                continue
            statuses = ", ".join(
                f"{status}: {count:,}" for status, count in row["statuses"].items()
            )
            what = f"**{title}, {name}**" if name == "all requests" else f"{title}, `{name}`"
            lines.append(
                f"| {what} | {row['requests']:,} | {row['requests_per_s']:,} | {row['p50_ms']} "
                f"| {row['p95_ms']} | {row['p99_ms']} | {row['max_ms']} | {statuses} |"
            )
        verdict = (
            "no 5xx, no error"
            if not found["error_count"]
            else f"**{found['error_count']} error(s)**: " + "; ".join(found["errors"][:3])
        )
        notes.append(
            f"- {title}: {found['database']}; `{found['server']}`; load average "
            f"{found['load_before']} before; {found['wall_s']} s, "
            f"{found['games_stored']:,} games played and stored (mean {found['mean_plies']} "
            f"plies), {found['games_in_archive']:,} in the archive afterwards, integrity check "
            f"{', '.join(found['integrity'])}; {found['busy_503_retried']} answers 503 with "
            f"Retry-After (waited out); CPU seconds {cpu_text(found['cpu_seconds'])}; {verdict}."
        )
    return "\n".join(lines + [""] + notes)


def cpu_text(seconds: list[float]) -> str:
    if not seconds:
        return "not known"
    if len(seconds) == 1:
        return f"{seconds[0]:g}"
    return (
        f"{seconds[0]:g} in the main process, {' + '.join(f'{s:g}' for s in seconds[1:])} in "
        "the workers"
    )


def commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        changes = subprocess.run(
            ["git", "status", "--porcelain", "--", ".", ":(exclude)BENCHMARKS.md"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head} + changes" if changes else head


def section(result: dict[str, Any], command: str) -> str:
    today = datetime.date.today().isoformat()
    length = (
        f"{result['games_per_client']} games per client"
        if result["games_per_client"]
        else f"games started for {result['seconds']:g} s"
    )
    clock = (
        f"`api/move` told each side has {result['clock_ms']} ms left (the natural reply delay "
        f"at most {result['clock_ms'] / 40:g} ms)"
        if result["clock_ms"]
        else "no clock sent (the page's natural reply delay, 0.6 to 1.8 s)"
    )
    return "\n".join(
        [
            GENERATED,
            "",
            f"Measured {today} at commit {commit()}; {machine()}, the clients in the same machine. "
            f"{result['clients']} clients, each playing games at level {result['level']} "
            f"(`api/state` for each of its moves, `api/move` for each reply, resigning at "
            f"{result['plies']} plies) and submitting them (`POST /api/games`, then `GET "
            f"/api/games/<id>`); {length}; {clock}. Command:",
            "",
            "```sh",
            command,
            "```",
            "",
            markdown(result),
            *([f"- {result['note']}."] if result["note"] else []),
        ]
    )


def write_section(path: Path, body: str) -> None:
    text = path.read_text(encoding="utf-8")
    begin, end = MARKERS
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise SystemExit(f"{path}: the markers {begin} ... {end} are not there")
    path.write_text(text[: start + len(begin)] + "\n" + body + "\n" + text[stop:], "utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8, help="client threads (default 8)")
    parser.add_argument(
        "--seconds",
        type=float,
        default=60.0,
        help="start games for this long, per database (default 60)",
    )
    parser.add_argument(
        "--games", type=int, default=None, help="instead of --seconds: this many games per client"
    )
    parser.add_argument(
        "--plies",
        type=int,
        default=40,
        help="resign a game that reaches this many plies (default 40)",
    )
    parser.add_argument("--level", type=int, default=1)
    parser.add_argument(
        "--backends", default=",".join(BACKENDS), help="sqlite, postgresql or both (default: both)"
    )
    parser.add_argument("--server", choices=("gunicorn", "waitress"), default="gunicorn")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn's workers (default 2)")
    parser.add_argument(
        "--connection",
        choices=("per-game", "per-client"),
        default="per-game",
        help="a client opens a new kept-alive connection for each game (default) or keeps one "
        "for all its games",
    )
    parser.add_argument(
        "--clock-ms",
        type=int,
        default=100,
        help="each side's clock sent with api/move; 0: none (default 100)",
    )
    parser.add_argument(
        "--postgresql-url",
        default=None,
        help="a PostgreSQL server to make the database on (default: a "
        "throwaway one, as the tests start)",
    )
    parser.add_argument(
        "--write",
        nargs="?",
        const=str(BENCHMARKS),
        default=None,
        metavar="PATH",
        help="also write the results into BENCHMARKS.md (or PATH) between "
        f"{MARKERS[0]} and {MARKERS[1]}",
    )
    add_json_option(parser)
    args = parser.parse_args()
    backends = [name.strip() for name in args.backends.split(",") if name.strip()]
    if not backends or any(name not in BACKENDS for name in backends):
        parser.error(f"--backends: {args.backends!r} (sqlite, postgresql)")

    if args.write:  # checked now, not after minutes of measuring
        try:
            text = Path(args.write).read_text(encoding="utf-8")
        except OSError as error:
            parser.error(f"--write: {error}")
        if MARKERS[0] not in text or MARKERS[1] not in text:
            parser.error(f"--write: {args.write} has no {MARKERS[0]} ... {MARKERS[1]}")

    from ferrochess.web.serving import gunicorn_unavailable

    server_kind = args.server
    note = None
    if server_kind == "gunicorn" and (why := gunicorn_unavailable()) is not None:
        server_kind, note = "waitress", f"gunicorn cannot run here ({why}): waitress instead"
        print(note, file=sys.stderr)
    result: dict[str, Any] = {
        "clients": args.clients,
        "seconds": args.seconds,
        "games_per_client": args.games,
        "plies": args.plies,
        "level": args.level,
        "clock_ms": args.clock_ms,
        "server": server_kind,
        "workers": args.workers if server_kind == "gunicorn" else 1,
        "note": note,
        "backends": {},
    }
    failed = False
    for backend in backends:
        print(f"{backend}: {args.clients} clients ...", file=sys.stderr, flush=True)
        try:
            found = run_backend(backend, args, server_kind)
        except RuntimeError as error:
            print(f"{backend}: not measured: {error}", file=sys.stderr)
            result["backends"][backend] = {"not_measured": str(error).splitlines()[0][:300]}
            continue
        result["backends"][backend] = found
        failed |= bool(found["error_count"])
    length = f"--games {args.games}" if args.games is not None else f"--seconds {args.seconds:g}"
    command = (
        f"python benches/load_archive.py --clients {args.clients} {length} --plies {args.plies} "
        f"--level {args.level} --backends {','.join(backends)} --server {args.server} "
        f"--workers {args.workers} --clock-ms {args.clock_ms} --connection {args.connection}"
    )
    if emit_json(args.json, result):
        print(markdown(result))
        if note:
            print(f"\n{note}")
    if args.write:
        write_section(Path(args.write), section(result, command))
    if failed:
        print("FAILED: see the errors above", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
