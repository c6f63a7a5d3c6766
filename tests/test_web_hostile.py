"""Guards the play app against malformed and hostile requests: JSON nested thousands deep, numbers
out of every range (huge, NaN, infinite), FENs python-chess accepts but the engine cannot hold,
path-like values in every field and in URLs, lone surrogates and NUL bytes, and a flood of all of
these from several threads. Every answer is a 4xx naming what was wrong, never a 5xx; the server
still plays afterwards; and no request makes Python open a file outside the package and the
Python installation (recorded with an audit hook)."""

from __future__ import annotations

import json
import site
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import ferrochess
import pytest
from ferrochess.web import create_app
from flask import Flask
from flask.testing import FlaskClient

PACKAGE_DIR = Path(ferrochess.__file__).resolve().parent
ALLOWED_ROOTS = [
    PACKAGE_DIR,
    *(Path(p).resolve() for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}),
    *(Path(p).resolve() for p in site.getsitepackages()),
]
OPENED: list[str] = []
RECORDING = threading.Event()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and RECORDING.is_set() and isinstance(args[0], (str, bytes, Path)):
        OPENED.append(str(args[0]))


sys.addaudithook(_audit)


@pytest.fixture
def app() -> Iterator[Flask]:
    app = create_app({"TESTING": True, "FERROCHESS_ENGINES": 2,
                      "FERROCHESS_MAX_THINK_SECONDS": 0.2})  # fmt: skip
    yield app
    app.extensions["ferrochess_pool"].close()


@pytest.fixture
def client(app: Flask) -> Iterator[FlaskClient]:
    OPENED.clear()
    RECORDING.set()
    yield app.test_client()
    RECORDING.clear()
    outside = opened_outside()
    assert not outside, f"requests opened files outside the package: {outside}"


def opened_outside() -> list[str]:
    return [p for p in OPENED if not any(_inside(p, root) for root in ALLOWED_ROOTS)]


def _inside(path: str, root: Path) -> bool:
    try:
        return Path(path).resolve().is_relative_to(root)
    except (OSError, ValueError):
        return False


def test_the_file_check_sees_an_open_outside(tmp_path: Path) -> None:
    """The audit-hook check can fail: a file opened outside the allowed roots is caught."""
    outside = tmp_path / "secret.txt"
    outside.write_text("x")
    OPENED.clear()
    RECORDING.set()
    try:
        outside.read_text()
    finally:
        RECORDING.clear()
    assert opened_outside() == [str(outside)]
    OPENED.clear()


DEEP = 20_000
HOSTILE_BODIES: list[tuple[str, str]] = [
    ("[" * DEEP + "]" * DEEP, "body"),
    ('{"moves": ' + "[" * DEEP + "]" * DEEP + "}", "body"),
    ('{"fen": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}", "body"),
    ('{"moves": [], "level": 1' + "0" * 4000 + "}", "level"),
    ('{"moves": [], "level": 1e999}', "level"),
    ('{"moves": [], "level": NaN}', "level"),
    ('{"moves": [], "level": -Infinity}', "level"),
    ('{"moves": [], "level": 2.5}', "level"),
    ('{"moves": [], "book": null}', "book"),
    ('{"moves": [], "book": {"path": "/etc/passwd"}}', "book"),
    ('{"fen": "../../../../etc/passwd", "moves": []}', "fen"),
    ('{"fen": "/dev/zero", "moves": []}', "fen"),
    ('{"fen": "' + "8/" * 20_000 + '", "moves": []}', "fen"),
    ('{"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999999999999999999",'
     ' "moves": []}', "fen"),
    ('{"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 99999999999 1",'
     ' "moves": []}', "fen"),
    ('{"fen": "\\u0000", "moves": []}', "fen"),
    ('{"fen": "\\ud800", "moves": []}', "fen"),
    ('{"moves": ["../../etc/passwd"]}', "moves[0]"),
    ('{"moves": ["e2e4\\u0000"]}', "moves[0]"),
    ('{"moves": ["\\ud800"]}', "moves[0]"),
    ('{"moves": [["e2e4"]]}', "moves[0]"),
    ('{"moves": {"0": "e2e4"}}', "moves"),
    ('{"moves": null, "fen": null}', "moves"),
]


@pytest.mark.parametrize(("body", "field"), HOSTILE_BODIES)
def test_hostile_bodies_are_400s_naming_the_field(
    client: FlaskClient, body: str, field: str
) -> None:
    for path in ("/api/move", "/api/state", "/api/pgn"):
        if field in ("level", "book") and path != "/api/move":
            continue
        response = client.post(path, data=body, content_type="application/json")
        assert response.status_code == 400, (path, body[:80], response.data[:300])
        assert response.is_json
        assert response.json["field"] == field, (path, body[:80], response.json)
        assert response.json["error"]


def test_path_like_names_in_a_pgn_are_only_text(client: FlaskClient) -> None:
    body = {"moves": ["e2e4"], "white": "/etc/passwd", "black": "../../../root/.ssh/id_rsa"}
    response = client.post("/api/pgn", json=body)
    assert response.status_code == 200
    assert '[White "/etc/passwd"]' in response.json["pgn"]
    assert response.json["filename"].startswith("ferrochess-")


@pytest.mark.parametrize(
    "url",
    [
        "/pieces/../../../../etc/passwd.svg",
        "/pieces/..%2f..%2f..%2fetc%2fpasswd.svg",
        "/pieces/wK.svg/../../../etc/passwd",
        "/static/play/../../../../../etc/passwd",
        "/static/play/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/static/play/..%2f..%2f..%2f..%2fetc%2fpasswd",
        "/static/play//etc/passwd",
        "/static/play/%00",
        "/api/../../etc/passwd",
    ],
)
def test_path_like_urls_serve_nothing_outside(client: FlaskClient, url: str) -> None:
    response = client.get(url)
    assert response.status_code >= 300, (url, response.status_code)  # redirects serve nothing
    assert b"root:" not in response.data


def test_a_flood_of_hostile_requests_leaves_the_server_playing(client: FlaskClient) -> None:
    bodies = [body for body, _ in HOSTILE_BODIES]
    statuses: list[int] = []
    lock = threading.Lock()

    def flood(offset: int) -> None:
        for index in range(len(bodies)):
            body = bodies[(index + offset) % len(bodies)]
            response = client.post("/api/move", data=body, content_type="application/json")
            with lock:
                statuses.append(response.status_code)

    threads = [threading.Thread(target=flood, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    assert len(statuses) == 8 * len(bodies)
    assert all(400 <= status < 500 for status in statuses), sorted(set(statuses))
    answer = client.post("/api/move", json={"moves": ["e2e4"], "book": False, "level": 3})
    assert answer.status_code == 200
    assert chess.Move.from_uci(answer.json["move"]) in chess.Board(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    ).legal_moves


def test_a_game_at_the_move_limit_is_answered(client: FlaskClient, app: Flask) -> None:
    """2,000 plies (the most accepted) of knights shuffling: answered at once, refused at the
    first move after the game ended by threefold repetition (on every endpoint)."""
    app.config["MAX_CONTENT_LENGTH"] = 1024 * 1024
    moves = ["g1f3", "g8f6", "f3g1", "f6g8"] * 500
    for path in ("/api/state", "/api/move", "/api/pgn"):
        response = client.post(path, data=json.dumps({"moves": moves}),
                               content_type="application/json")  # fmt: skip
        assert response.status_code == 400 and response.json["field"] == "moves[8]", path
        assert "threefold repetition" in response.json["error"]
