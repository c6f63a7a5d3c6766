"""Guards the play app's JSON API (docs/play.md) with Flask's test client: every endpoint answers in
its documented shape; the engine's move is legal, at every level, with its source (book,
tablebase, search) and the tables' verdict from their field (White's view in the score); a game
ends exactly as lichess ends it (threefold on the third occurrence, the fifty-move rule on the
hundredth half-move), by resignation, a flag or agreement; a draw offer is accepted only when the
engine is not better; review and judge say which move was a blunder; a client's cancel frees its
engine; every bad input (malformed JSON, invalid UTF-8, a huge number, wrong types, bad FEN,
illegal move, moves after the end) is a 400 naming the field, an oversized body a 413 naming it;
a busy pool answers 503 with Retry-After; no request can make the server open a file of its
choosing."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import chess
import chess.pgn
import pytest
from bookfiles import write_book
from ferrochess import DEFAULT_BOOK, open_book
from ferrochess.engine import levels
from ferrochess.service.game import BOOK_THINK_FACTOR, NATURAL_THINK_SECONDS
from ferrochess.web import create_app
from flask import Flask
from flask.testing import FlaskClient

if TYPE_CHECKING:
    from conftest import Searching

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"


@pytest.fixture
def app() -> Iterator[Flask]:
    app = create_app({
        "TESTING": True, "FERROCHESS_ENGINES": 2, "FERROCHESS_MAX_THINK_SECONDS": 1.0,
        "FERROCHESS_NATURAL_DELAY": False, "FERROCHESS_REVIEW_NODES": 20_000,
        "FERROCHESS_JUDGE_NODES": 50_000, "FERROCHESS_DRAW_NODES": 50_000,
    })  # fmt: skip
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
    # Each level says whether its Elo was measured with the current settings and network, as the
    # core's calibration table says (the page shows it), with the interval and games behind it.
    assert [level["calibration"] for level in body["levels"]] == [
        level.calibration for level in levels()
    ]
    assert {"elo", "elo_low", "elo_high", "games"} <= set(body["levels"][0])


# --- state ----------------------------------------------------------------------------------------


def test_state_of_the_start(client: FlaskClient) -> None:
    state = post(client, "/api/state", {"moves": []}).json
    assert state["fen"] == chess.STARTING_FEN and state["turn"] == "white"
    assert len(state["legal_moves"]) == 20 and state["san"] == [] and state["last_move"] is None
    assert state["status"] == {
        "over": False, "result": "*", "reason": None, "winner": None, "termination": None
    }  # fmt: skip
    assert state["dests"]["g1"] == ["f3", "h3"] and len(state["dests"]) == 10
    even = {"white": {"pieces": [], "points": 0}, "black": {"pieces": [], "points": 0}}
    assert state["positions"] == [
        {"fen": chess.STARTING_FEN, "last_move": None, "check": None, "turn": "white",
         "material": even}
    ]  # fmt: skip
    assert state["material"] == even


def test_state_after_moves_has_san_check_and_opening(client: FlaskClient) -> None:
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "g8f6"]
    state = post(client, "/api/state", {"fen": chess.STARTING_FEN, "moves": moves}).json
    assert state["san"] == ["e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6"]
    assert state["last_move"] == "g8f6" and state["moves"] == moves
    assert "Berlin" in state["opening"]["name"] and state["opening"]["eco"] == "C65"
    check = post(client, "/api/state", {"moves": ["e2e4", "f7f6", "d1h5"]}).json
    assert check["check"] == "e8"
    # Every position of the game, for stepping through it.
    assert [p["last_move"] for p in check["positions"]] == [None, "e2e4", "f7f6", "d1h5"]
    assert [p["check"] for p in check["positions"]] == [None, None, None, "e8"]
    board = chess.Board()
    board.push_uci("e2e4")
    assert check["positions"][1]["fen"] == board.fen()


@pytest.mark.parametrize(
    ("fen", "moves", "reason", "result"),
    [
        (chess.STARTING_FEN, ["f2f3", "e7e5", "g2g4", "d8h4"], "checkmate", "0-1"),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", [], "stalemate", "1/2-1/2"),
        ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", [], "insufficient material", "1/2-1/2"),
        ("8/8/4k3/8/8/3K4/8/7R w - - 100 80", [], "the fifty-move rule", "1/2-1/2"),
        ("8/8/4k3/8/8/3K4/8/7R w - - 99 80", ["h1h2"], "the fifty-move rule", "1/2-1/2"),
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


# The knights go out and back twice: after 4.Ng1 the start position stands for the second time
# with Black to move; after 4...Ng8 for the third time.
KNIGHTS = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"]


def test_threefold_repetition_ends_the_game_on_the_third_occurrence_not_before(
    client: FlaskClient,
) -> None:
    twice = post(client, "/api/state", {"moves": KNIGHTS[:7]}).json
    assert twice["status"]["over"] is False and "g8" in twice["dests"]["f6"]
    # The engine is asked to move there and does (python-chess's claim_draw would refuse).
    reply = client.post("/api/move", json={"moves": KNIGHTS[:7], "level": 1, "book": False})
    assert reply.status_code == 200, reply.json
    third = post(client, "/api/state", {"moves": KNIGHTS}).json
    assert third["status"]["termination"] == "threefold_repetition"
    assert third["status"]["result"] == "1/2-1/2" and third["legal_moves"] == []


def test_fifty_move_rule_on_the_hundredth_half_move_not_the_ninety_ninth(
    client: FlaskClient,
) -> None:
    fen = "8/8/4k3/8/8/3K4/8/7R w - - 99 80"
    ninety_nine = post(client, "/api/state", {"fen": fen}).json
    assert ninety_nine["status"]["over"] is False
    assert client.post("/api/move", json={"fen": fen, "level": 1}).status_code == 200
    # A capture or pawn move on the hundredth half-move resets the count instead.
    pawn = "8/8/4k3/8/8/3K4/7P/8 w - - 99 80"
    pushed = post(client, "/api/state", {"fen": pawn, "moves": ["h2h4"]}).json
    assert pushed["status"]["over"] is False


def test_moves_after_the_end_are_refused_everywhere(client: FlaskClient) -> None:
    after = [*KNIGHTS, "e2e4"]
    for path in ("/api/state", "/api/pgn", "/api/move", "/api/review", "/api/judge"):
        response = client.post(path, json={"moves": after, "move": "e7e5"})
        assert response.status_code == 400, (path, response.data)
        assert response.json["field"] == "moves[8]"
        assert "after the game ended (threefold repetition)" in response.json["error"]
    mated = ["f2f3", "e7e5", "g2g4", "d8h4", "a2a3"]
    response = client.post("/api/state", json={"moves": mated})
    assert response.status_code == 400 and response.json["field"] == "moves[4]"


@pytest.mark.parametrize(
    ("fen", "end", "result", "winner", "reason"),
    [
        (chess.STARTING_FEN, {"by": "resign", "color": "white"}, "0-1", "black", "White resigned"),
        (chess.STARTING_FEN, {"by": "agreement"}, "1/2-1/2", None, "agreement"),
        (chess.STARTING_FEN, {"by": "flag", "color": "black"}, "1-0", "white",
         "Black's time ran out"),
        # White has a bare king: Black's flag falls, but White could never mate.
        ("4k3/8/8/8/8/8/4p3/4K3 w - - 0 1", {"by": "flag", "color": "black"}, "1/2-1/2", None,
         "Black's time ran out, but the opponent cannot mate"),
    ],
)  # fmt: skip
def test_games_ended_off_the_board(
    client: FlaskClient,
    fen: str,
    end: dict[str, str],
    result: str,
    winner: str | None,
    reason: str,
) -> None:
    state = post(client, "/api/state", {"fen": fen, "end": end}).json
    status = state["status"]
    assert (status["over"], status["result"], status["winner"]) == (True, result, winner)
    assert status["reason"] == reason and status["termination"] == end["by"]
    assert state["legal_moves"] == [] and state["dests"] == {} and state["end"] == end
    assert client.post("/api/move", json={"fen": fen, "end": end}).status_code == 400
    pgn = post(client, "/api/pgn", {"fen": fen, "end": end}).json["pgn"]
    parsed = chess.pgn.read_game(io.StringIO(pgn))
    assert parsed is not None and parsed.headers["Result"] == result
    forfeit = "time forfeit" if end["by"] == "flag" else "normal"
    assert parsed.headers["Termination"] == forfeit


@pytest.mark.parametrize(
    "end",
    [{"by": "abandon", "color": "white"}, {"by": "resign"}, {"by": "flag", "color": "red"}, "x"],
)
def test_bad_endings_are_refused(client: FlaskClient, end: Any) -> None:
    response = client.post("/api/state", json={"end": end})
    assert response.status_code == 400 and response.json["field"] == "end"


def test_no_resignation_after_the_game_ended(client: FlaskClient) -> None:
    body = {"moves": ["f2f3", "e7e5", "g2g4", "d8h4"], "end": {"by": "resign", "color": "black"}}
    response = client.post("/api/state", json=body)
    assert response.status_code == 400 and response.json["field"] == "end"
    assert "already ended (checkmate)" in response.json["error"]


# --- moves ----------------------------------------------------------------------------------------


def test_engine_move_from_the_book(client: FlaskClient) -> None:
    answer = post(client, "/api/move", {"moves": ["e2e4"], "level": 5}).json
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(answer["move"]) in board.legal_moves
    assert answer["source"] == "book" and answer["book_weight"] > 0
    assert answer["san"] == board.san(chess.Move.from_uci(answer["move"]))
    assert answer["state"]["moves"] == ["e2e4", answer["move"]]
    # A book move is shown as one: no search figures that were never searched.
    for key in ("score", "pv", "depth", "nodes", "time_ms"):
        assert key not in answer


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


def test_the_tables_verdict_is_sent_from_whites_side(syzygy: Path) -> None:
    """The engine (Black) is lost in KQ v K: the reply's ``tablebase`` is the engine's "loss", its
    score's ``tablebase`` White's "win"; the 50-move clock turns them into a blessed loss and a
    cursed win (scored 0: only the field says it); a search line the tables scored says so too."""
    app = create_app({
        "TESTING": True, "FERROCHESS_ENGINES": 1, "FERROCHESS_NATURAL_DELAY": False,
        "FERROCHESS_SYZYGY_PATH": str(syzygy),
    })  # fmt: skip
    client = app.test_client()
    full = max(level.number for level in levels())
    lost = {"fen": "8/8/8/8/8/8/3QK3/k7 b - - 0 1", "moves": [], "level": full}
    answer = post(client, "/api/move", lost).json
    assert answer["source"] == "tablebase" and answer["tablebase"] == "loss"
    assert answer["score"]["tablebase"] == "win" and answer["score"]["cp"] > 0
    saved = {**lost, "fen": "8/8/8/8/8/8/3QK3/k7 b - - 97 80"}
    answer = post(client, "/api/move", saved).json
    assert answer["tablebase"] == "blessed loss"
    assert answer["score"] == {"cp": 0, "tablebase": "cursed win"}
    searched = {**lost, "fen": "k7/1Q6/8/8/7p/7K/8/7R b - - 0 1"}  # five pieces: Kxb7, then KR v KP
    answer = post(client, "/api/move", searched).json
    assert answer["source"] == "search" and answer["score"]["tablebase"] == "win"
    offer = post(client, "/api/draw", {**lost, "color": "white"}).json
    assert offer["score"]["tablebase"] == "win"
    app.extensions["ferrochess_pool"].close()


def test_scores_without_tables_carry_no_verdict(client: FlaskClient) -> None:
    answer = post(client, "/api/move", {"fen": "8/8/8/8/8/8/3QK3/k7 b - - 0 1", "moves": [],
                                        "level": 10}).json  # fmt: skip
    assert answer["source"] == "search" and "tablebase" not in answer["score"]


def test_natural_thinking_time_below_full_strength() -> None:
    """Levels below full strength take a natural time (the page feels less robotic); full
    strength answers as soon as its search ends; a clock short of time cuts the delay."""
    app = create_app({"TESTING": True, "FERROCHESS_ENGINES": 1})
    client = app.test_client()
    low, _high = NATURAL_THINK_SECONDS
    searched = post(client, "/api/move", {"moves": ["e2e4"], "level": 3, "book": False}).json
    assert searched["think_ms"] >= 1000 * low
    booked = post(client, "/api/move", {"moves": ["e2e4"], "level": 3}).json
    assert booked["source"] == "book" and booked["think_ms"] >= 1000 * low * BOOK_THINK_FACTOR
    clock = {"white": 60_000, "black": 2_000, "increment": 0}
    hurried = post(client, "/api/move", {"moves": ["e2e4"], "level": 3, "clock": clock}).json
    assert hurried["think_ms"] < 1000 * low  # 1/40 of a 2 s clock is 50 ms
    app.extensions["ferrochess_pool"].close()


def test_the_engine_moves_on_its_clock(client: FlaskClient) -> None:
    clock = {"white": 300_000, "black": 300_000, "increment": 3_000}
    body = {"moves": ["e2e4"], "level": 10, "book": False, "clock": clock}
    answer = post(client, "/api/move", body).json
    assert answer["source"] == "search" and answer["depth"] >= 1
    for bad in ({"white": -1, "black": 5}, {"white": "5", "black": 5}, {"white": 5}, [1, 2]):
        response = client.post("/api/move", json={"moves": [], "clock": bad})
        assert response.status_code == 400 and response.json["field"] == "clock", bad


# Black to move; White has two queens (White mates soon). Offered by White, the engine (Black,
# lost) accepts; offered by Black, the engine (White, winning) declines.
QUEENS = "4k3/8/8/8/8/8/3QQ3/4K3 b - - 0 1"


def test_a_draw_offer_is_declined_by_a_better_engine_and_accepted_by_a_worse_one(
    client: FlaskClient,
) -> None:
    declined = post(client, "/api/draw", {"fen": QUEENS, "color": "black"}).json
    assert declined["accepted"] is False and declined["state"]["status"]["over"] is False
    accepted = post(client, "/api/draw", {"fen": QUEENS, "color": "white"}).json
    assert accepted["accepted"] is True
    assert accepted["state"]["status"]["termination"] == "agreement"
    assert accepted["state"]["status"]["result"] == "1/2-1/2"
    assert client.post("/api/draw", json={"fen": QUEENS}).json["field"] == "color"


FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


def test_review_streams_progress_and_marks_the_blunder(client: FlaskClient) -> None:
    response = client.post("/api/review", json={"moves": FOOLS_MATE})
    assert response.status_code == 200 and response.mimetype == "application/x-ndjson"
    lines = [json.loads(line) for line in response.data.decode().splitlines()]
    assert [line["progress"] for line in lines[:-1]] == [0, 1, 2, 3, 4, 5]
    assert all(line["total"] == 5 for line in lines[:-1])
    review = lines[-1]["review"]
    judged = {move["san"]: move for move in review["moves"]}
    assert judged["g4"]["judgement"] == "blunder" and judged["g4"]["best_san"] != "g4"
    assert judged["Qh4#"]["judgement"] is None
    assert review["judgements"]["white"]["blunder"] == 1 and review["accuracy"]["black"] > 90


def test_judge_says_how_good_a_try_is(client: FlaskClient) -> None:
    blunder = post(client, "/api/judge", {"moves": FOOLS_MATE[:2], "move": "g2g4"}).json
    assert blunder["verdict"] == "blunder" and blunder["san"] == "g4"
    assert blunder["best_san"] != "g4" and blunder["score"] == {"mate": -1}
    best = post(client, "/api/judge", {"moves": FOOLS_MATE[:3], "move": "d8h4"}).json
    assert best["verdict"] == "best" and best["san"] == "Qh4#"
    missing = client.post("/api/judge", json={"moves": FOOLS_MATE[:2]})
    assert missing.status_code == 400 and missing.json["field"] == "move"
    illegal = client.post("/api/judge", json={"moves": FOOLS_MATE[:2], "move": "e1e3"})
    assert illegal.status_code == 400 and illegal.json["field"] == "move"


def test_cancel_frees_the_engine_at_once(searching: Searching) -> None:
    """A client's cancel (takeback, new game, reload, closing the tab) stops its search: the one
    engine is free again for the next request instead of searching on for seconds (503s)."""
    app = create_app({
        "TESTING": True, "FERROCHESS_ENGINES": 1, "FERROCHESS_MAX_THINK_SECONDS": 60.0,
        "FERROCHESS_BUSY_WAIT_SECONDS": 0.0, "FERROCHESS_NATURAL_DELAY": False,
    })  # fmt: skip
    client = app.test_client()
    answers: list[Any] = []
    body = {"moves": ["e2e4"], "level": 10, "book": False, "client": "tab-1"}
    search = threading.Thread(target=lambda: answers.append(client.post("/api/move", json=body)))
    search.start()
    searching.wait()
    assert post(client, "/api/cancel", {"client": "tab-1"}).json == {"cancelled": True}
    search.join(30)
    assert answers[0].status_code == 409 and "cancelled" in answers[0].json["error"]
    # The engine is back in the pool: a request that may not wait at all gets it.
    again = client.post("/api/move", json={"moves": ["e2e4"], "level": 1, "book": False})
    assert again.status_code == 200, again.json
    assert post(client, "/api/cancel", {"client": "tab-1"}).json == {"cancelled": False}
    assert client.post("/api/cancel", json={"client": "../x"}).json["field"] == "client"
    app.extensions["ferrochess_pool"].close()


def test_a_client_runs_one_search_at_a_time(searching: Searching) -> None:
    """A new search from the same client stops its previous one (the server-side limit)."""
    app = create_app({
        "TESTING": True, "FERROCHESS_ENGINES": 2, "FERROCHESS_MAX_THINK_SECONDS": 60.0,
        "FERROCHESS_NATURAL_DELAY": False,
    })  # fmt: skip
    client = app.test_client()
    answers: list[Any] = []
    body = {"moves": ["e2e4"], "level": 10, "book": False, "client": "tab-2"}
    first = threading.Thread(target=lambda: answers.append(client.post("/api/move", json=body)))
    first.start()
    searching.wait()
    second = client.post("/api/move", json={**body, "level": 1})
    first.join(30)
    assert answers[0].status_code == 409
    assert second.status_code == 200 and second.json["level"] == 1
    app.extensions["ferrochess_pool"].close()


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
    injected = client.post("/api/pgn", json={"moves": [], "white": 'Bob"]\n[Result "1-0'})
    assert injected.status_code == 400 and injected.json["field"] == "white"
    assert "line break" in injected.json["error"]


def test_names_are_escaped_in_the_pgn(client: FlaskClient) -> None:
    body = {"moves": FOOLS_MATE, "white": 'Bob "the Bishop" [1-0]'}
    pgn = post(client, "/api/pgn", body).json["pgn"]
    assert pgn.count("[Result ") == 1 and '[White "Bob \\"the Bishop\\" [1-0]"]' in pgn
    parsed = chess.pgn.read_game(io.StringIO(pgn))
    assert parsed is not None and parsed.headers["Result"] == "0-1"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"moves": [], "level": ' + b"9" * 5000 + b"}", "a number in the body is too large"),
        (b'{"fen": "\xff"}', "the body is not valid UTF-8"),
        (b"{not json", "the body is not valid JSON"),
        (b"[1, 2]", "the body must be a JSON object"),
    ],
)
def test_unreadable_bodies_say_what_is_wrong(
    client: FlaskClient, body: bytes, message: str
) -> None:
    response = client.post("/api/move", data=body, content_type="application/json")
    assert response.status_code == 400 and response.json["field"] == "body"
    assert response.json["error"].startswith(message), response.json


@pytest.mark.parametrize(
    ("fen", "words"),
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
         "a castling right is given to a king or rook that is not on its starting square"),
        ("8/8/8/8/8/8/8/8 w - - 0 1", "the board is empty; White has no king; Black has no king"),
        ("4k3/8/8/8/8/8/8/4K2R b - - 0 1", ""),
    ],
)  # fmt: skip
def test_fen_problems_are_in_words(client: FlaskClient, fen: str, words: str) -> None:
    response = client.post("/api/state", json={"fen": fen})
    if not words:
        assert response.status_code == 200
        return
    assert response.status_code == 400 and response.json["error"].endswith(words)
    assert "Status" not in response.json["error"] and "<" not in response.json["error"]


def test_oversized_body_is_a_413(client: FlaskClient) -> None:
    moves = ", ".join(['"e2e4"'] * 20_000)
    response = client.post("/api/move", data=f'{{"moves": [{moves}]}}',
                           content_type="application/json")  # fmt: skip
    assert response.status_code == 413 and response.json["field"] == "body"


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
        # A review's stream has begun when it finds no engine: its last line says so in words.
        review = client.post("/api/review", json={"moves": ["e2e4"]})
        last = json.loads(review.data.decode().splitlines()[-1])
        assert last == {"error": "every engine is busy; try again in a moment"}
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
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "ferrochess", "play", "--port", str(port), "--engines", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    # The command prints its address (stdout) once it listens; the server's log (stderr) is read
    # to the end meanwhile, so that the requests' lines never fill the pipe.
    log: list[str] = []
    printed: list[str] = []
    listening = threading.Event()

    def read_log() -> None:
        assert server.stderr is not None
        log.extend(server.stderr)

    def read_address() -> None:
        assert server.stdout is not None
        printed.append(server.stdout.readline())
        listening.set()  # printed, or the server ended

    reader = threading.Thread(target=read_log, daemon=True)
    reader.start()
    threading.Thread(target=read_address, daemon=True).start()
    try:
        assert listening.wait(60), f"the page did not come up in 60 s: {''.join(log)}"
        assert server.poll() is None, "".join(log)
        page = urllib.request.urlopen(f"{base}/", timeout=30).read()
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
        server.wait(30)
        reader.join(30)
    assert printed[0].startswith(f"ferrochess play: {base}/ "), printed
