"""Guards the play app's JSON API with Flask's test client: every endpoint answers in its documented
shape; the engine's move is legal, at every level, with its source (book, tablebase, search); game
status names its reason; every bad input (malformed JSON, wrong types, bad FEN, illegal move,
oversized body, a finished game) is a 400 naming the field; a busy pool answers 503 with
Retry-After; no request can make the server open a file of its choosing."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from bookfiles import write_book
from ferrochess import DEFAULT_BOOK, open_book
from ferrochess.web import create_app
from flask import Flask
from flask.testing import FlaskClient

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"


@pytest.fixture
def app() -> Iterator[Flask]:
    app = create_app(
        {"TESTING": True, "FERROCHESS_ENGINES": 2, "FERROCHESS_MAX_THINK_SECONDS": 1.0}
    )
    yield app
    app.extensions["ferrochess_pool"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def post(client: FlaskClient, path: str, body: Any) -> Any:
    response = client.post(path, json=body)
    assert response.is_json, response.data
    return response


# --- the page and its assets ----------------------------------------------------------------------


def test_page_and_pieces(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and b"<html" in page.data.lower()
    for code in ("wK", "wQ", "bN", "bP"):
        image = client.get(f"/pieces/{code}.svg")
        assert image.status_code == 200 and image.mimetype == "image/svg+xml"
        assert b"<svg" in image.data
    assert client.get("/pieces/xK.svg").status_code == 404
    assert client.get("/pieces/..%2Fsecret.svg").status_code == 404


def test_levels(client: FlaskClient) -> None:
    body = client.get("/api/levels").json
    assert [level["number"] for level in body["levels"]] == list(range(1, 11))
    assert body["default"] == 4 and body["levels"][-1]["name"] == "Full strength"


# --- state ----------------------------------------------------------------------------------------


def test_state_of_the_start(client: FlaskClient) -> None:
    state = post(client, "/api/state", {"moves": []}).json
    assert state["fen"] == chess.STARTING_FEN and state["turn"] == "white"
    assert len(state["legal_moves"]) == 20 and state["san"] == [] and state["last_move"] is None
    assert state["status"] == {"over": False, "result": "*", "reason": None, "winner": None}


def test_state_after_moves_has_san_check_and_opening(client: FlaskClient) -> None:
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "g8f6"]
    state = post(client, "/api/state", {"fen": chess.STARTING_FEN, "moves": moves}).json
    assert state["san"] == ["e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6"]
    assert state["last_move"] == "g8f6" and state["moves"] == moves
    assert "Berlin" in state["opening"]["name"] and state["opening"]["eco"] == "C65"
    check = post(client, "/api/state", {"moves": ["e2e4", "f7f6", "d1h5"]}).json
    assert check["check"] == "e8"


@pytest.mark.parametrize(
    ("fen", "moves", "reason", "result"),
    [
        (chess.STARTING_FEN, ["f2f3", "e7e5", "g2g4", "d8h4"], "checkmate", "0-1"),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", [], "stalemate", "1/2-1/2"),
        ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", [], "insufficient material", "1/2-1/2"),
        ("8/8/4k3/8/8/3K4/8/7R w - - 100 80", [], "fifty-move rule", "1/2-1/2"),
        (
            chess.STARTING_FEN,
            ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"],
            "threefold repetition",
            "1/2-1/2",
        ),
    ],
)
def test_game_over_reasons(
    client: FlaskClient, fen: str, moves: list[str], reason: str, result: str
) -> None:
    status = post(client, "/api/state", {"fen": fen, "moves": moves}).json["status"]
    assert (status["over"], status["reason"], status["result"]) == (True, reason, result)


# --- moves ----------------------------------------------------------------------------------------


def test_engine_move_from_the_book(client: FlaskClient) -> None:
    answer = post(client, "/api/move", {"moves": ["e2e4"], "level": 5}).json
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(answer["move"]) in board.legal_moves
    assert answer["source"] == "book" and answer["book_weight"] > 0
    assert answer["san"] == board.san(chess.Move.from_uci(answer["move"]))
    assert answer["state"]["moves"] == ["e2e4", answer["move"]]
    for key in ("score", "pv", "depth", "nodes", "time_ms"):
        assert key in answer


@pytest.mark.parametrize("level", range(1, 11))
def test_engine_moves_at_every_level(client: FlaskClient, level: int) -> None:
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    body = {"fen": fen, "moves": [], "level": level, "book": False}
    answer = post(client, "/api/move", body).json
    assert chess.Move.from_uci(answer["move"]) in chess.Board(fen).legal_moves
    assert answer["source"] == "search" and answer["level"] == level
    assert answer["depth"] >= 1 and answer["nodes"] > 0 and answer["pv"][0] == answer["san"]
    assert "cp" in answer["score"] or "mate" in answer["score"]


def test_book_off_searches(client: FlaskClient) -> None:
    answer = post(client, "/api/move", {"moves": [], "level": 2, "book": False}).json
    assert answer["source"] == "search"


def test_mate_in_one_is_played_and_ends_the_game(client: FlaskClient) -> None:
    answer = post(client, "/api/move", {"fen": MATE_IN_ONE, "moves": [], "level": 10}).json
    assert answer["san"] == "Ra8#" and answer["score"] == {"mate": 1}
    assert answer["state"]["status"]["reason"] == "checkmate"
    assert answer["state"]["status"]["result"] == "1-0"


def test_scores_are_from_whites_point_of_view(client: FlaskClient) -> None:
    # Black to move, a queen up: the score must be negative (good for Black).
    fen = "rnb1kbnr/pppppppp/8/8/3q4/8/PPP2PPP/RNB1KBNR b KQkq - 0 1"
    answer = post(client, "/api/move", {"fen": fen, "moves": [], "level": 8}).json
    assert answer["score"]["cp"] < -500


def test_pgn_has_headers_and_moves(client: FlaskClient) -> None:
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "g8f6"]
    body = post(client, "/api/pgn", {"moves": moves, "white": "Ann", "black": "ferrochess"}).json
    assert body["filename"].endswith(".pgn")
    game = chess.pgn.read_game(io.StringIO(body["pgn"]))
    assert game is not None
    assert game.headers["White"] == "Ann" and game.headers["Black"] == "ferrochess"
    assert game.headers["Result"] == "*" and "Berlin" in game.headers["Opening"]
    assert [m.uci() for m in game.mainline_moves()] == moves
    fen_game = post(client, "/api/pgn", {"fen": MATE_IN_ONE, "moves": ["a1a8"]}).json["pgn"]
    parsed = chess.pgn.read_game(io.StringIO(fen_game))
    assert parsed is not None and parsed.headers["FEN"] == MATE_IN_ONE
    assert parsed.headers["Result"] == "1-0"


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ("[1, 2]", "body"),
        ("{not json", "body"),
        ('"a string"', "body"),
        ('{"fen": 5, "moves": []}', "fen"),
        ('{"fen": "not a fen", "moves": []}', "fen"),
        ('{"fen": "8/8/8/8/8/8/8/8 w - - 0 1", "moves": []}', "fen"),
        ('{"moves": "e2e4"}', "moves"),
        ('{"moves": [42]}', "moves[0]"),
        ('{"moves": ["e2e4", "zz"]}', "moves[1]"),
        ('{"moves": ["e2e4", "e2e4"]}', "moves[1]"),
        ('{"moves": [], "level": 0}', "level"),
        ('{"moves": [], "level": 11}', "level"),
        ('{"moves": [], "level": "3"}', "level"),
        ('{"moves": [], "level": true}', "level"),
        ('{"moves": [], "book": "yes"}', "book"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client: FlaskClient, body: str, field: str) -> None:
    for path in ("/api/move", "/api/state", "/api/pgn"):
        if field in ("level", "book") and path != "/api/move":
            continue
        response = client.post(path, data=body, content_type="application/json")
        assert response.status_code == 400, (path, body, response.data)
        assert response.json["field"] == field, response.json
        assert response.json["error"]


def test_bad_names_in_pgn(client: FlaskClient) -> None:
    response = client.post("/api/pgn", json={"moves": [], "white": "x" * 500})
    assert response.status_code == 400 and response.json["field"] == "white"


def test_oversized_body_is_a_400(client: FlaskClient) -> None:
    moves = ", ".join(['"e2e4"'] * 20_000)
    response = client.post("/api/move", data=f'{{"moves": [{moves}]}}',
                           content_type="application/json")  # fmt: skip
    assert response.status_code == 400 and response.json["field"] == "body"


def test_too_many_moves_is_a_400(app: Flask) -> None:
    app.config["MAX_CONTENT_LENGTH"] = 10 * 1024 * 1024
    client = app.test_client()
    response = client.post("/api/state", json={"moves": ["g1f3"] * 3000})
    assert response.status_code == 400 and response.json["field"] == "moves"


def test_a_finished_game_gets_no_move(client: FlaskClient) -> None:
    response = client.post("/api/move", json={"moves": ["f2f3", "e7e5", "g2g4", "d8h4"]})
    assert response.status_code == 400 and response.json["field"] == "moves"
    assert "checkmate" in response.json["error"]


def test_unknown_api_paths_and_methods_are_json(client: FlaskClient) -> None:
    missing = client.get("/api/nothing")
    assert missing.status_code == 404 and missing.is_json
    wrong = client.get("/api/move")
    assert wrong.status_code == 405 and wrong.is_json


def test_no_request_chooses_a_file(client: FlaskClient, tmp_path: Path) -> None:
    # Book and tablebase paths are server configuration: request fields naming them are ignored.
    # The named book would make White play a2a3 (the default book never does); the named
    # tablebase directory does not exist (opening it would fail).
    planted = write_book(tmp_path / "planted.bin", chess.Board(), {"a2a3": 1000})
    body = {
        "moves": [],
        "level": 1,
        "book_path": str(planted),
        "book_file": str(planted),
        "syzygy_path": str(tmp_path / "missing"),
    }
    answer = post(client, "/api/move", body)
    assert answer.status_code == 200
    assert answer.json["source"] == "book" and answer.json["move"] != "a2a3"
    with open_book(DEFAULT_BOOK) as book:
        assert answer.json["move"] in {e.move.uci() for e in book.find_all(chess.Board())}


# --- a busy server --------------------------------------------------------------------------------


def test_busy_pool_answers_503_with_retry_after() -> None:
    app = create_app({
        "TESTING": True, "FERROCHESS_ENGINES": 1, "FERROCHESS_BUSY_WAIT_SECONDS": 0.05,
        "FERROCHESS_MAX_THINK_SECONDS": 5.0,
    })  # fmt: skip
    pool = app.extensions["ferrochess_pool"]
    client = app.test_client()
    borrowed = threading.Event()
    release = threading.Event()

    def hold_the_only_engine() -> None:
        with pool.engine(1.0):
            borrowed.set()
            release.wait(30)

    holder = threading.Thread(target=hold_the_only_engine)
    holder.start()
    try:
        assert borrowed.wait(30)
        response = client.post("/api/move", json={"moves": []})
        assert response.status_code == 503 and response.headers["Retry-After"] == "1"
        assert response.json["error"]
    finally:
        release.set()
        holder.join(30)
    assert client.post("/api/move", json={"moves": []}).status_code == 200
    pool.close()


# --- the command ----------------------------------------------------------------------------------


def test_ferrochess_play_serves_the_page() -> None:
    """The main-job command of the README: `ferrochess play` brings the page up, and it plays."""
    import json
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "ferrochess", "play", "--port", str(port), "--engines", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                page = urllib.request.urlopen(f"{base}/", timeout=5).read()
                break
            except OSError:
                assert server.poll() is None, server.communicate()
                assert time.monotonic() < deadline, "the page did not come up in 60 s"
                time.sleep(0.2)
        assert b"<html" in page.lower()
        request = urllib.request.Request(
            f"{base}/api/move",
            data=json.dumps({"moves": ["e2e4"], "level": 3}).encode(),
            headers={"Content-Type": "application/json"},
        )
        answer = json.loads(urllib.request.urlopen(request, timeout=30).read())
        assert answer["state"]["moves"][0] == "e2e4" and len(answer["state"]["moves"]) == 2
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}/" in output
