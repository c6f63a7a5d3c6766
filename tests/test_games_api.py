"""The games archive on the web (ferrochess/web/games.py) through Flask's test client, on a real
SQLite file: a finished game submitted once (again: the same id, 200; other content under its
client id: 409; not over: 400 naming the field), its review kept once (a long game's too, larger
than the API's other bodies), the stored game with the analysis board's tree, the list (newest
first, filtered, paged), the game's page, PGN one game and all (streamed), the health check; 503
with Retry-After when the PostgreSQL server goes away; without an archive, 404s."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from ferrochess.web import create_app
from flask import Flask
from flask.testing import FlaskClient
from postgres_helpers import ClusterUnavailable, fresh_database, start_cluster

FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]


def finished(client_id: str, moves: list[str] = FOOLS_MATE, **extra: Any) -> dict[str, Any]:
    game = {"client_id": client_id, "fen": chess.STARTING_FEN, "moves": moves, "end": None,
            "human": "white", "level": 2, "white": "You", "black": "ferrochess level 2",
            "time_control": "300+3", "clocks": [299.0, 300.5, 297.0, 301.0][: len(moves)],
            "started_at": None}  # fmt: skip
    return {**game, **extra}


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    made = create_app({"FERROCHESS_ENGINES": 1, "FERROCHESS_DATABASE": tmp_path / "g.sqlite3",
                       "FERROCHESS_REVIEW_NODES": 2000})  # fmt: skip
    yield made
    made.extensions["ferrochess_pool"].close()
    made.extensions["ferrochess_archive"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def review_of(client: FlaskClient, moves: list[str]) -> dict[str, Any]:
    review = None
    for chunk in client.post("/api/review", json={"moves": moves}).response:
        for text in chunk.decode().splitlines():
            review = json.loads(text).get("review", review)
    assert review is not None
    return review


def test_a_game_is_stored_once_under_an_id_nobody_can_guess(client: FlaskClient) -> None:
    first = client.post("/api/games", json=finished("tab-1"))
    assert first.status_code == 201
    ident = first.json["id"]
    assert len(ident) == 16 and first.json["url"] == f"/game/{ident}"
    again = client.post("/api/games", json=finished("tab-1"))
    assert (again.status_code, again.json["id"]) == (200, ident)
    other = client.post("/api/games", json=finished("tab-1", level=5))
    assert other.status_code == 409 and other.json["field"] == "client_id"
    second = client.post("/api/games", json=finished("tab-2")).json["id"]
    assert second != ident


def test_a_game_not_over_is_refused_naming_the_field(client: FlaskClient) -> None:
    answer = client.post("/api/games", json=finished("open", moves=["e2e4"]))
    assert answer.status_code == 400 and answer.json["field"] == "moves"


def test_the_stored_game_has_its_review_and_the_boards_tree(client: FlaskClient) -> None:
    ident = client.post("/api/games", json=finished("r")).json["id"]
    review = review_of(client, FOOLS_MATE)
    kept = client.post(f"/api/games/{ident}/review", json={"review": review})
    assert kept.status_code == 201
    assert client.post(f"/api/games/{ident}/review", json={"review": review}).status_code == 200
    record = client.get(f"/api/games/{ident}").json
    assert record["moves"] == FOOLS_MATE and record["result"] == "0-1"
    assert record["review"] == review
    tree = record["tree"]
    assert [node["san"] for node in tree["moves"]] == ["f3", "e5", "g4", "Qh4#"]
    assert tree["moves"][2]["judgement"] == "blunder" and tree["moves"][0]["clock"] == 299.0
    assert tree["headers"]["TimeControl"] == "300+3" and tree["headers"]["Result"] == "0-1"
    assert client.get("/api/games/nosuchgame000000").status_code == 404


def test_the_tree_of_a_reviewed_game_has_the_games_own_headers(client: FlaskClient) -> None:
    body = finished("h", started_at="2025-03-04T23:58:00+00:00",
                    finished_at="2025-03-05T00:03:00+00:00")  # fmt: skip
    ident = client.post("/api/games", json=body).json["id"]
    review = review_of(client, FOOLS_MATE)
    assert review["headers"]["White"] == "?"  # api/review's game has no names: not the source
    assert client.post(f"/api/games/{ident}/review", json={"review": review}).status_code == 201
    headers = client.get(f"/api/games/{ident}").json["tree"]["headers"]
    assert (headers["White"], headers["Black"], headers["Result"]) == (
        "You", "ferrochess level 2", "0-1")
    assert (headers["Date"], headers["TimeControl"]) == ("2025.03.04", "300+3")  # the day it began
    assert headers["Site"].endswith(f"/game/{ident}") and headers["Termination"] == "normal"
    assert [name for name, value in headers.items() if value in ("?", "*", "????.??.??")] == [
        "Round"]  # as the PGN download writes it
    download = chess.pgn.read_headers(io.StringIO(client.get(f"/game/{ident}.pgn").get_data(
        as_text=True)))  # fmt: skip
    assert download is not None and dict(download) == headers


def test_a_long_games_review_is_kept(client: FlaskClient) -> None:
    board, moves, generator = chess.Board(), [], random.Random(5)
    while len(moves) < 240:
        move = generator.choice(list(board.legal_moves))
        board.push(move)
        moves.append(move.uci())
        if board.is_game_over(claim_draw=True):
            board.pop()
            moves.pop()
            break
    game = finished("long", moves=moves, clocks=[], time_control=None,
                    end={"by": "resign", "color": "white" if board.turn else "black"})  # fmt: skip
    answer = client.post("/api/games", json=game)
    assert answer.status_code == 201, answer.json
    review = {"moves": [{"move": uci, "explanation": "x" * 300} for uci in moves]}
    body = json.dumps({"review": review})
    assert len(body) > client.application.config["MAX_CONTENT_LENGTH"]
    kept = client.post(f"/api/games/{answer.json['id']}/review", data=body,
                        content_type="application/json")  # fmt: skip
    assert kept.status_code == 201, kept.json


def test_the_list_is_newest_first_filtered_and_paged(client: FlaskClient) -> None:
    idents = []
    for number in range(23):
        body = finished(f"g{number}", finished_at=f"2026-11-26T10:{number:02d}:00+00:00",
                        level=1 + number % 2)  # fmt: skip
        answer = client.post("/api/games", json=body)
        assert answer.status_code == 201, answer.json
        idents.append(answer.json["id"])
    page = client.get("/games").get_data(as_text=True)
    rows = page.count('data-testid="game-row"')
    assert rows == 20 and 'data-total="23"' in page
    assert page.index(idents[22]) < page.index(idents[21])  # newest first
    second = client.get("/games?page=2").get_data(as_text=True)
    assert second.count('data-testid="game-row"') == 3 and idents[0] in second
    level_two = client.get("/games?level=2").get_data(as_text=True)
    assert 'data-total="11"' in level_two
    assert client.get("/games?result=nonsense").status_code == 400


def test_pages_and_pgn_of_the_archive(client: FlaskClient) -> None:
    ident = client.post("/api/games", json=finished("p")).json["id"]
    client.post("/api/games", json=finished("q", white="Another"))
    page = client.get(f"/game/{ident}")
    assert page.status_code == 200 and f'data-game="{ident}"' in page.get_data(as_text=True)
    assert client.get("/game/nosuchgame000000").status_code == 404
    one = client.get(f"/game/{ident}.pgn")
    assert one.mimetype == "application/x-chess-pgn"
    game = chess.pgn.read_game(io.StringIO(one.get_data(as_text=True)))
    assert game is not None and game.headers["Result"] == "0-1"
    assert game.headers["Site"].endswith(f"/game/{ident}") and game.next().clock() == 299.0
    everything = client.get("/games.pgn")
    assert everything.is_streamed
    stream = io.StringIO(everything.get_data(as_text=True))
    whites = []
    while (read := chess.pgn.read_game(stream)) is not None:
        whites.append(read.headers["White"])
    assert sorted(whites) == ["Another", "You"]
    assert client.get("/healthz").json == {"ok": True, "database": "ok"}


def test_one_games_pgn_file_ends_with_a_newline(client: FlaskClient) -> None:
    ident = client.post("/api/games", json=finished("nl")).json["id"]
    text = client.get(f"/game/{ident}.pgn").get_data(as_text=True)
    assert text.endswith(" 0-1\n") and not text.endswith("\n\n")


@pytest.mark.parametrize(
    ("query", "field"),
    [("result=nonsense", "result"), ("time_control=blitz", "time_control"),
     ("level=99", "level"), ("page=0", "page")],
)  # fmt: skip
def test_a_bad_filter_on_the_list_page_is_a_400_page_naming_it(
    client: FlaskClient, query: str, field: str
) -> None:
    answer = client.get(f"/games?{query}")
    assert answer.status_code == 400 and answer.mimetype == "text/html"
    page = answer.get_data(as_text=True)
    assert 'data-testid="games-error"' in page and f'data-field="{field}"' in page
    assert f"{field} must be" in page
    assert 'class="games-filters"' in page and 'class="site-header"' in page  # the page's look
    api = client.post("/api/games", json=finished("bad", level="x"))
    assert api.status_code == 400 and api.json["field"] == "level"  # the API stays JSON


def test_without_an_archive_its_routes_are_404() -> None:
    bare = create_app({"FERROCHESS_ENGINES": 1})
    try:
        client = bare.test_client()
        assert client.post("/api/games", json=finished("x")).status_code == 404
        assert client.get("/games").status_code == 404
        assert "data-archive" not in client.get("/").get_data(as_text=True)
        assert client.get("/healthz").json == {"ok": True, "database": None}
    finally:
        bare.extensions["ferrochess_pool"].close()


def test_a_database_gone_away_is_a_503_with_retry_after() -> None:
    try:
        cluster = start_cluster()  # of its own: the test stops it
    except ClusterUnavailable as reason:
        pytest.skip(f"no PostgreSQL server: {reason}")
    try:
        served = create_app({"FERROCHESS_ENGINES": 1,
                             "FERROCHESS_DATABASE": fresh_database(cluster.url)})  # fmt: skip
        client = served.test_client()
        assert client.post("/api/games", json=finished("before")).status_code == 201
        cluster.stop(mode="immediate")
        answer = client.post("/api/games", json=finished("during"))
        assert answer.status_code == 503 and answer.headers["Retry-After"]
        assert "cannot be reached" in answer.json["error"]
        assert client.get("/healthz").status_code == 503
        cluster.start()
        assert client.post("/api/games", json=finished("during")).status_code == 201
        served.extensions["ferrochess_pool"].close()
        served.extensions["ferrochess_archive"].close()
    finally:
        cluster.remove()
