"""Guards "nothing lost" (issue 36): ``ferrochess serve`` killed with SIGKILL while finished games
are being written loses no game it acknowledged and leaves no partial or doubled row.

For SQLite (a temporary file) and PostgreSQL (the throwaway server of postgres_helpers, skipped
with its reason when it cannot start), on one database: the server is first killed while it
starts (creating the schema, or about to); then, for :data:`ROUNDS` rounds, it is started again
(``python -m ferrochess serve --port 0 --database X --rate-limit none --engines 1`` in a process
group of its own; the middle round runs gunicorn with two workers where gunicorn can run),
:data:`CLIENTS` client threads submit finished games to ``POST /api/games`` as fast as they can
(real finished games: mates such as the fool's and the scholar's, or a few random moves then a
resignation or a draw agreed; each with its own ``client_id``, random players, level, colour,
time control, clocks and start time), and once the first is acknowledged the whole process group
is killed with SIGKILL at a random moment. Every ``client_id`` sent is remembered, and with it the
public id of every one answered 2xx.

Then the server is started once more on the same database, and:

- every acknowledged game is there (``GET /api/games/<id>`` 200) with the moves, start position,
  end, players, level, colour, time control, clocks and start time it was sent with, and the
  result its moves and end give; its page ``/game/<id>`` answers 200;
- every game sent, acknowledged or not, sent again answers 200 (stored already: then complete and
  under the same id when it was acknowledged) or 201 (it had not been stored), never 409 or 5xx;
  the unacknowledged ones are then read back whole too;
- the archive holds exactly one game per ``client_id`` sent (its total equals their number) and a
  new game is stored at once (no lock left behind);
- after the server has stopped, ``Archive.open(X).integrity_check()`` is ``["ok"]`` (SQLite's
  ``PRAGMA integrity_check`` and foreign keys, the schema version, no client_id twice), and an
  SQLite file is still in WAL mode.

Design: /work/shared/notes/serving.md section 7. Marked ``games`` (whole games, 8 to 12 s per
database), so ``make test-fast`` leaves it out.
"""

from __future__ import annotations

import datetime
import http.client
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import pytest
from ferrochess import rules
from ferrochess.service.archive import Archive
from ferrochess.service.submission import read_submission
from ferrochess.web.serving import gunicorn_unavailable
from ferrochess_tools.processes import first_line, served_port
from postgres_helpers import fresh_database, postgres_server_fixture  # noqa: F401

pytestmark = pytest.mark.slow

ROUNDS = 3
"""Rounds of submit-then-SIGKILL per database (after the kill during start-up)."""
CLIENTS = 4
"""Client threads submitting games at once."""
KILL_AFTER_S = (0.05, 1.2)
"""The kill comes this long (uniformly drawn) after the first game is acknowledged."""
STARTUP_KILL_S = (0.05, 0.6)
"""The first start is killed this long after it was launched: while it builds the app and the
schema, or just after."""
START_SECONDS = 60
"""Longest a server may take to print its address (a guard against hangs only)."""
REQUEST_SECONDS = 30
SEED = int(os.environ.get("FERROCHESS_CRASH_SEED") or random.SystemRandom().randrange(1, 10**9))
"""Each run draws its timings and games at random; the seed is printed in a failure's message
(set FERROCHESS_CRASH_SEED to repeat a run's games; the kills' timing depends on the machine)."""

START = chess.STARTING_FEN
NAMES = ("Anna", "Bogdan", "Chloé", "Dmitri", "Eun-ji", "Faisal", "Grete", "Hiro", "Ines",
         "José", "Kwame", "Lena", "Mateus", "Nadia", "Oskar", "Priya", "ferrochess")  # fmt: skip
TIME_CONTROLS = (None, [60, 0], [180, 2], [300, 3], [600, 5], [900, 10])


# --- the games ------------------------------------------------------------------------------------


def fools_mate(rng: random.Random) -> list[str]:
    """One of the fool's mates: White opens e1-h4 with f- and g-pawn moves; Black's queen mates."""
    white = rng.choice([["f2f3", "g2g4"], ["f2f4", "g2g4"], ["g2g4", "f2f3"], ["g2g4", "f2f4"]])
    black = rng.choice(["e7e5", "e7e6"])
    return [white[0], black, white[1], "d8h4"]


def scholars_mate(rng: random.Random) -> list[str]:
    """One of the scholar's mates: Bc4 and the queen on f7, Black looking elsewhere."""
    queen, mate = rng.choice([("d1h5", "h5f7"), ("d1f3", "f3f7")])
    knight = "b8c6" if queen == "d1h5" else rng.choice(["b8c6", "a7a6", "h7h6"])
    quiet = rng.choice(["a7a6", "h7h6", "a7a5", "b7b6"] if knight == "b8c6" else ["b8c6", "d7d6"])
    return ["e2e4", "e7e5", "f1c4", knight, queen, quiet, mate]


def random_then_over(rng: random.Random) -> tuple[list[str], dict[str, Any] | None]:
    """A few random legal moves, then a resignation or a draw agreed (unless the moves ended it)."""
    board = chess.Board()
    for _ in range(rng.randint(1, 16)):
        if rules.outcome(board) is not None:  # mate, or a draw (a threefold repetition ends it)
            break
        board.push(rng.choice(list(board.legal_moves)))
    moves = [move.uci() for move in board.move_stack]
    if rules.outcome(board) is not None:
        return moves, None
    if rng.random() < 0.2:
        return moves, {"by": "agreement"}
    return moves, {"by": "resign", "color": rng.choice(["white", "black"])}


def expected_result(moves: list[str], end: dict[str, Any] | None) -> str:
    """The result the archive must store: the board's when the moves ended the game, else the
    resignation's or the agreement's."""
    if end is None:
        board = chess.Board()
        for uci in moves:
            board.push_uci(uci)
        ended = board.outcome(claim_draw=False)
        return ended.result() if ended is not None else "1/2-1/2"  # a repetition: drawn
    if end["by"] == "agreement":
        return "1/2-1/2"
    return "0-1" if end["color"] == "white" else "1-0"


def iso(moment: datetime.datetime) -> str:
    """A UTC time written as the archive stores it (so the stored text equals the sent one)."""
    return moment.astimezone(datetime.timezone.utc).isoformat(timespec="microseconds")


def make_game(rng: random.Random, client_id: str) -> dict[str, Any]:
    """A finished game as the page submits it, with random content."""
    kind = rng.random()
    end: dict[str, Any] | None = None
    if kind < 0.3:
        moves = fools_mate(rng)
    elif kind < 0.5:
        moves = scholars_mate(rng)
    else:
        moves, end = random_then_over(rng)
    control = rng.choice(TIME_CONTROLS)
    clocks: list[float | None] = []
    if control is not None:
        left = {0: float(control[0]), 1: float(control[0])}
        for ply in range(rng.randint(0, len(moves))):
            left[ply % 2] = max(0.0, left[ply % 2] - rng.uniform(0, 9) + control[1])
            clocks.append(None if rng.random() < 0.1 else round(left[ply % 2], 1))
    started = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(
        seconds=rng.randint(60, 30 * 86400), microseconds=rng.randint(0, 999_999)
    )
    game = {
        "client_id": client_id,
        "fen": START,
        "moves": moves,
        "end": end,
        "human": rng.choice(["white", "black"]),
        "level": rng.randint(1, 10),
        "white": rng.choice(NAMES) + f" {rng.randint(1, 999)}",
        "black": rng.choice(NAMES) + f" {rng.randint(1, 999)}",
        "time_control": None if control is None else f"{control[0]}+{control[1]}",
        "clocks": clocks if control is not None else None,
        "started_at": None if rng.random() < 0.1 else iso(started),
    }
    read_submission(game)  # a game the archive takes (BadInput here would be this test's bug)
    return game


# --- the server and its clients -------------------------------------------------------------------


class Server:
    """``ferrochess serve`` in a process group of its own (SIGKILL reaches every process of it)."""

    def __init__(self, database: str, *extra: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ferrochess", "serve", "--port", "0", "--database", database,
             "--rate-limit", "none", "--engines", "1", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        self.errors: list[str] = []
        self.port = 0
        threading.Thread(target=self._gather, daemon=True).start()

    def _gather(self) -> None:
        assert self.process.stderr is not None
        try:
            for line in self.process.stderr:
                if not re.match(r"^\S+ - - \[", line):  # not an access line: keep for a failure
                    self.errors.append(line.rstrip("\n"))
        except ValueError:  # kill() closed the stream while this thread was reading it
            return

    def wait_for_address(self) -> None:
        first = first_line(self.process, START_SECONDS)
        port = served_port(first)
        assert port is not None, f"no address ({self.process.poll()}): {first!r} {self.stderr()}"
        self.port = port

    def stderr(self) -> str:
        time.sleep(0.2)
        return "\n".join(self.errors[-40:])

    def kill(self) -> None:
        """SIGKILL to the whole process group (gunicorn's workers too)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(30)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def stop(self) -> None:
        """SIGTERM, then the exit status must be 0 (a graceful stop)."""
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"serve did not stop within 30 s of SIGTERM: {self.stderr()}")
        assert status == 0, self.stderr()
        self.kill()  # nothing left in its group; close the pipes

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_SECONDS)


def request(
    connection: http.client.HTTPConnection, method: str, path: str, body: Any = None
) -> tuple[int, Any]:
    """(status, the body parsed as JSON when it is JSON) on a kept-alive connection."""
    status, _, parsed = exchange(connection, method, path, body)
    return status, parsed


def exchange(
    connection: http.client.HTTPConnection, method: str, path: str, body: Any = None
) -> tuple[int, str | None, Any]:
    """(status, Retry-After, the body parsed as JSON when it is JSON)."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if data is not None else {}
    connection.request(method, path, body=data, headers=headers)
    response = connection.getresponse()
    raw = response.read()
    kind = response.getheader("Content-Type") or ""
    parsed = json.loads(raw) if kind.startswith("application/json") else raw
    return response.status, response.getheader("Retry-After"), parsed


def make_review(rng: random.Random, game: dict[str, Any]) -> dict[str, Any]:
    """A review of the game's moves as api/review makes one (in part: what the archive checks
    and the game's page reads), with random content."""
    records = [
        {
            "move": uci,
            "eval_after": {"cp": rng.randint(-300, 300)},
            "judgement": rng.choice([None, "inaccuracy", "mistake", "blunder"]),
            "best_san": None,
        }
        for uci in game["moves"]
    ]
    return {"moves": records, "note": f"review of {game['client_id']}"}


@dataclass
class Ledger:
    """What the clients sent and what was acknowledged, across every round."""

    sent: dict[str, dict[str, Any]] = field(default_factory=dict)
    acked: dict[str, str] = field(default_factory=dict)  # client_id -> public id
    reviews_sent: dict[str, dict[str, Any]] = field(default_factory=dict)  # client_id -> review
    reviews_acked: set[str] = field(default_factory=set)
    busy: int = 0  # 503 with Retry-After (the database busy): allowed, not acknowledged
    refused: list[tuple[str, int, Any]] = field(default_factory=list)  # another non-2xx answer
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answered(self, client_id: str, status: int, retry_after: str | None, body: Any) -> bool:
        """Note a non-2xx answer; whether the answer was 2xx."""
        if status in (200, 201):
            return True
        with self.lock:
            if status == 503 and retry_after:
                self.busy += 1
            else:
                self.refused.append((client_id, status, body))
        return False


def submitter(
    server: Server, ledger: Ledger, rng: random.Random, prefix: str, first_ack: threading.Event
) -> None:
    """Submit games until the server dies: each is in ``ledger.sent`` before it is sent, and in
    ``ledger.acked`` once a 2xx answer with its id has been read whole; about a third of the
    acknowledged games get a review the same way (``reviews_sent``, ``reviews_acked``)."""
    connection = server.connection()
    number = 0
    try:
        while True:
            number += 1
            client_id = f"{prefix}-{number}-{rng.getrandbits(32):08x}"
            game = make_game(rng, client_id)
            with ledger.lock:
                ledger.sent[client_id] = game
            # A failed request: the server was killed; what it sent may or may not be stored
            # (checked after the restart).
            try:
                status, retry, body = exchange(connection, "POST", "/api/games", game)
            except (OSError, http.client.HTTPException):
                return
            if not ledger.answered(client_id, status, retry, body):
                continue
            with ledger.lock:
                ledger.acked[client_id] = body["id"]
            first_ack.set()
            if rng.random() >= 1 / 3:
                continue
            review = make_review(rng, game)
            with ledger.lock:
                ledger.reviews_sent[client_id] = review
            try:
                status, retry, answer = exchange(
                    connection, "POST", f"/api/games/{body['id']}/review", {"review": review}
                )
            except (OSError, http.client.HTTPException):
                return
            if ledger.answered(client_id, status, retry, answer):
                with ledger.lock:
                    ledger.reviews_acked.add(client_id)
    finally:
        connection.close()


# --- the databases --------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty database: an SQLite file, or a database on the throwaway PostgreSQL server."""
    if request.param == "sqlite":
        yield str(tmp_path / "games.sqlite3")
    else:
        yield fresh_database(request.getfixturevalue("postgres_server"), "crash")


# --- the test -------------------------------------------------------------------------------------


def test_games_acknowledged_before_a_kill_9_are_all_there_after_a_restart(database: str) -> None:
    rng = random.Random(SEED)
    ledger = Ledger()
    seen: list[str] = [f"seed {SEED}"]

    # The first start, killed while it builds the app and creates the schema (or just after).
    early = Server(database)
    time.sleep(rng.uniform(*STARTUP_KILL_S))
    early.kill()

    gunicorn = gunicorn_unavailable() is None
    for round_number in range(ROUNDS):
        extra = ("--server", "gunicorn", "--workers", "2") if gunicorn and round_number == 1 else ()
        server = Server(database, *extra)
        try:
            server.wait_for_address()
            first_ack = threading.Event()
            seeds = [rng.random() for _ in range(CLIENTS)]
            clients = [
                threading.Thread(
                    target=submitter,
                    args=(server, ledger, random.Random(seed), f"r{round_number}c{i}", first_ack),
                    daemon=True,
                )
                for i, seed in enumerate(seeds)
            ]
            acked_before = len(ledger.acked)
            for client in clients:
                client.start()
            assert first_ack.wait(START_SECONDS), f"no game acknowledged: {server.stderr()}"
            time.sleep(rng.uniform(*KILL_AFTER_S))
        finally:
            server.kill()
        for client in clients:
            client.join(REQUEST_SECONDS + 5)
            assert not client.is_alive(), "a client still waits on a killed server"
        how = "gunicorn x2" if extra else "waitress"
        seen.append(f"round {round_number} ({how}): {len(ledger.acked) - acked_before} acked")
    assert not ledger.refused, f"non-2xx answers before a kill ({seen}): {ledger.refused[:5]}"
    assert ledger.acked, seen

    # The restart: every acknowledged game is there, whole; every game sent, sent again, is
    # stored once.
    server = Server(database)
    try:
        server.wait_for_address()
        connection = server.connection()
        status, health = request(connection, "GET", "/healthz")
        assert status == 200 and health["database"] == "ok", (status, health)
        for client_id, public_id in ledger.acked.items():
            status, record = request(connection, "GET", f"/api/games/{public_id}")
            assert status == 200, (f"acknowledged {client_id} ({public_id}) lost", seen, status)
            assert_same_game(record, ledger.sent[client_id])
            if client_id in ledger.reviews_acked:
                assert record["review"] == ledger.reviews_sent[client_id], (client_id, seen)
            elif client_id not in ledger.reviews_sent:
                assert record["review"] is None, client_id
        for public_id in rng.sample(sorted(ledger.acked.values()), min(5, len(ledger.acked))):
            status, _ = request(connection, "GET", f"/game/{public_id}")
            assert status == 200, public_id
        resent = {200: 0, 201: 0}
        for client_id, game in ledger.sent.items():
            status, body = request(connection, "POST", "/api/games", game)
            assert status in (200, 201), (client_id, status, body, seen)
            resent[status] += 1
            if client_id in ledger.acked:
                assert status == 200, f"acknowledged game {client_id} stored again as new: {seen}"
                assert body["id"] == ledger.acked[client_id], (client_id, body, seen)
            else:  # stored by the killed server or only now: whole either way
                status, record = request(connection, "GET", f"/api/games/{body['id']}")
                assert status == 200, (client_id, body)
                assert_same_game(record, game)
        reviews = {200: 0, 201: 0}
        for client_id, review in ledger.reviews_sent.items():
            public_id = ledger.acked[client_id]
            status, body = request(
                connection, "POST", f"/api/games/{public_id}/review", {"review": review}
            )
            assert status in (200, 201), (client_id, status, body, seen)
            assert status == 200 or client_id not in ledger.reviews_acked, (client_id, seen)
            reviews[status] += 1
            status, record = request(connection, "GET", f"/api/games/{public_id}")
            assert status == 200 and record["review"] == review, (client_id, seen)
        fresh = make_game(rng, "after-the-crashes")
        assert request(connection, "POST", "/api/games", fresh)[0] == 201
        connection.close()
    finally:
        server.stop()
    seen.append(
        f"{len(ledger.sent)} games sent, {len(ledger.acked)} acked, sent again: {resent}; "
        f"{len(ledger.reviews_sent)} reviews sent, {len(ledger.reviews_acked)} acked, "
        f"sent again: {reviews}; {ledger.busy} answered 503 busy"
    )

    if "://" not in database:
        with sqlite3.connect(database) as raw:
            assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        raw.close()
    archive = Archive.open(database)
    try:
        assert archive.integrity_check() == ["ok"], seen
        _, total = archive.list_games(per_page=1)
        assert total == len(ledger.sent) + 1, (total, seen)  # one game per client_id, and `fresh`
    finally:
        archive.close()
    print("; ".join(seen))


def assert_same_game(record: dict[str, Any], game: dict[str, Any]) -> None:
    """The stored record is the game sent (what the archive keeps of it), judged right."""
    for key in ("fen", "moves", "end", "human", "level", "white", "black", "time_control",
                "started_at"):  # fmt: skip
        assert record[key] == game[key], (key, record[key], game[key], game["client_id"])
    assert record["clocks"] == (game["clocks"] or []), (record["clocks"], game)
    assert record["plies"] == len(game["moves"])
    assert record["result"] == expected_result(game["moves"], game["end"]), (record, game)
