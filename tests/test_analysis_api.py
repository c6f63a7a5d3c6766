"""The analysis board's API (docs/play.md) through Flask's test client: a node's position, the live
engine's stream (lines that deepen, stopped by a cancel, by the same client's next search or by
the client going away, with no engine left busy; 503 with Retry-After when none is free; capped
by the server), the explorer (the default book's moves in the book's order with their shares,
the tablebases' verdict on every move of a 3-piece ending), and PGN in and out (a multi-game
file listed by its headers and one game read; a FEN; a played game with its review; a tree
exported through python-chess, its file named after the game's players and date when it has
players, analysis-DATE.pgn otherwise; bad trees and oversized bodies refused by field)."""

from __future__ import annotations

import io
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from ferrochess import open_book, open_tablebase
from ferrochess.web import create_app
from flask import Flask
from flask.testing import FlaskClient

FAST = {"FERROCHESS_ENGINES": 2, "FERROCHESS_BUSY_WAIT_SECONDS": 0.2,
        "FERROCHESS_ANALYSIS_SECONDS": 20}  # fmt: skip
KRK = "8/8/8/8/8/4k3/8/K2R4 w - - 0 1"
FREE_WAIT_SECONDS = 5.0


@pytest.fixture(scope="module")
def app() -> Iterator[Flask]:
    made = create_app({**FAST, "FERROCHESS_SYZYGY_PATH": ""})
    yield made
    made.extensions["ferrochess_pool"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def all_free(app: Flask) -> bool:
    """Whether every engine of the pool comes back within FREE_WAIT_SECONDS."""
    pool = app.extensions["ferrochess_pool"]
    deadline = time.monotonic() + FREE_WAIT_SECONDS
    while pool.free() < pool.size:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def lines_of(response: Any) -> Iterator[dict[str, Any]]:
    for chunk in response.response:
        for text in chunk.decode().splitlines():
            yield json.loads(text)


# --- api/position ---------------------------------------------------------------------------------


def test_a_node_gets_its_san_dests_and_status(client: FlaskClient) -> None:
    answer = client.post("/api/position", json={"moves": ["f2f3", "e7e5", "g2g4", "d8h4"]})
    assert answer.status_code == 200
    state = answer.json
    assert state["san"] == ["f3", "e5", "g4", "Qh4#"]
    assert state["status"]["reason"] == "checkmate" and state["dests"] == {}
    assert state["check"] == "e1" and "positions" not in state
    start = client.post("/api/position", json={}).json
    assert sorted(start["dests"]["g1"]) == ["f3", "h3"] and start["turn"] == "white"


def test_an_illegal_move_of_the_path_is_named(client: FlaskClient) -> None:
    answer = client.post("/api/position", json={"moves": ["e2e4", "e2e4"]})
    assert answer.status_code == 400 and answer.json["field"] == "moves[1]"


# --- api/analyse ----------------------------------------------------------------------------------


def test_the_stream_deepens_with_several_lines_then_stops_on_cancel(
    app: Flask, client: FlaskClient
) -> None:
    response = client.post("/api/analyse", json={"client": "a1", "multipv": 3})
    assert response.status_code == 200 and response.mimetype == "application/x-ndjson"
    depths = []
    done = None
    for line in lines_of(response):
        if "lines" in line:
            assert len(line["lines"]) == 3
            firsts = [entry["pv"][0] for entry in line["lines"]]
            assert len(set(firsts)) == 3, "three different first moves"
            for entry in line["lines"]:
                board = chess.Board()
                assert entry["san"][0] == board.san(chess.Move.from_uci(entry["pv"][0]))
                assert set(entry["score"]) <= {"cp", "mate"}
            depths.append(line["depth"])
            if len(depths) == 6:
                threading.Thread(target=lambda: app.test_client().post(
                    "/api/cancel", json={"client": "a1"})).start()  # fmt: skip
        if "done" in line:
            done = line
    assert depths == sorted(depths) and len(depths) >= 6
    assert done is not None and done["reason"] == "stopped"
    assert all_free(app)


def test_a_client_that_goes_away_stops_its_search(app: Flask, client: FlaskClient) -> None:
    response = client.post("/api/analyse", json={"client": "gone", "moves": ["d2d4"]})
    stream = lines_of(response)
    assert any("lines" in line for line in stream)  # the first line has come
    response.close()  # what the server sees when the connection closes: the stream is closed
    assert all_free(app)


def test_a_new_position_of_the_same_client_stops_the_old_search(
    app: Flask, client: FlaskClient
) -> None:
    first = client.post("/api/analyse", json={"client": "same", "moves": ["e2e4"]})
    old = lines_of(first)
    assert "lines" in next(line for line in old if "lines" in line or "done" in line)
    second = client.post("/api/analyse", json={"client": "same", "moves": ["e2e4", "e7e5"]})
    assert second.status_code == 200
    ends = [line for line in old if "done" in line]
    assert ends == [ends[0]] and ends[0]["reason"] == "stopped"
    client.post("/api/cancel", json={"client": "same"})
    assert [line["reason"] for line in lines_of(second) if "done" in line] == ["stopped"]
    assert all_free(app)


def test_no_free_engine_is_a_503_with_retry_after(app: Flask) -> None:
    clients = [app.test_client() for _ in range(3)]
    held = [clients[n].post("/api/analyse", json={"client": f"busy{n}"}) for n in range(2)]
    refused = clients[2].post("/api/analyse", json={"client": "busy2"})
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "1"
    for number, response in enumerate(held):
        clients[number].post("/api/cancel", json={"client": f"busy{number}"})
        response.close()
    assert all_free(app)


def test_the_server_caps_an_analysis() -> None:
    capped = create_app({**FAST, "FERROCHESS_ANALYSIS_SECONDS": 0.5, "FERROCHESS_SYZYGY_PATH": ""})
    try:
        started = time.monotonic()
        response = capped.test_client().post("/api/analyse", json={"client": "c"})
        last = list(lines_of(response))[-1]
        assert last["done"] and last["reason"] == "cap"
        assert 0.5 <= time.monotonic() - started < 3
        assert all_free(capped)
    finally:
        capped.extensions["ferrochess_pool"].close()


def test_a_finished_game_is_not_searched(client: FlaskClient) -> None:
    answer = client.post("/api/analyse", json={"client": "m", "fen": "7k/6Q1/6K1/8/8/8/8/8 b - -"})
    lines = list(lines_of(answer))
    assert len(lines) == 1 and lines[0]["reason"] == "over"
    assert lines[0]["status"]["reason"] == "checkmate"


@pytest.mark.parametrize(
    ("body", "field"),
    [({"multipv": 3}, "client"), ({"client": "x", "multipv": 6}, "multipv"),
     ({"client": "x", "moves": ["e2e5"]}, "moves[0]"), ({"client": "x", "fen": "bad"}, "fen")],
)  # fmt: skip
def test_bad_analysis_requests_are_400_before_the_stream(
    client: FlaskClient, body: dict[str, Any], field: str
) -> None:
    answer = client.post("/api/analyse", json=body)
    assert answer.status_code == 400 and answer.json["field"] == field


def test_a_tablebase_position_is_answered_by_the_tables(syzygy: Path) -> None:
    tables = create_app({**FAST, "FERROCHESS_SYZYGY_PATH": str(syzygy)})
    try:
        response = tables.test_client().post("/api/analyse", json={"client": "t", "fen": KRK})
        lines = list(lines_of(response))
        best = next(line for line in lines if "lines" in line)
        assert best["source"] == "tablebase" and best["lines"][0]["score"]["tablebase"] == "win"
        assert lines[-1]["done"]
    finally:
        tables.extensions["ferrochess_pool"].close()


# --- api/explorer ---------------------------------------------------------------------------------


def test_the_explorer_lists_the_default_books_moves_in_its_order(client: FlaskClient) -> None:
    answer = client.post("/api/explorer", json={"moves": ["e2e4"]}).json
    board = chess.Board()
    board.push_san("e4")
    with open_book("default") as book:
        entries = list(book.find_all(board))
    assert answer["book"]["name"] == "default"
    assert [move["uci"] for move in answer["book"]["moves"]] == [e.move.uci() for e in entries]
    assert [move["weight"] for move in answer["book"]["moves"]] == [e.weight for e in entries]
    total = sum(entry.weight for entry in entries)
    first = answer["book"]["moves"][0]
    assert first["san"] == board.san(entries[0].move)
    assert first["share"] == round(100 * entries[0].weight / total, 1)
    assert answer["opening"]["eco"].startswith("B00") or answer["opening"]["eco"] == "C20"
    assert answer["tablebase"] is None


def test_the_explorer_gives_every_move_its_tablebase_verdict(syzygy: Path) -> None:
    tables = create_app({**FAST, "FERROCHESS_SYZYGY_PATH": str(syzygy)})
    try:
        answer = tables.test_client().post("/api/explorer", json={"fen": KRK}).json["tablebase"]
    finally:
        tables.extensions["ferrochess_pool"].close()
    board = chess.Board(KRK)
    with open_tablebase(syzygy) as probe:
        assert (answer["wdl"], answer["dtz"]) == (probe.probe_wdl(board), probe.probe_dtz(board))
        assert answer["verdict"] == "win" and answer["pieces"] == 3
        assert sorted(move["uci"] for move in answer["moves"]) == sorted(
            move.uci() for move in board.legal_moves
        )
        for move in answer["moves"]:
            after = board.copy()
            after.push_uci(move["uci"])
            if after.is_insufficient_material():  # the rook was given away
                assert (move["wdl"], move["verdict"]) == (0, "draw")
                continue
            assert move["wdl"] == -probe.probe_wdl(after)
            assert move["dtz"] == -probe.probe_dtz(after)
            assert move["verdict"] == {2: "win", 0: "draw"}[move["wdl"]]
    wins = [move["dtz"] for move in answer["moves"] if move["wdl"] == 2]
    assert wins == sorted(wins) and answer["moves"][0]["wdl"] == 2


# --- api/import and api/export --------------------------------------------------------------------


def test_a_multi_game_pgn_is_listed_and_one_game_read(
    client: FlaskClient, shared_data: Path
) -> None:
    text = (shared_data / "pgn" / "lichess_db_10k.pgn").read_text(encoding="utf-8")
    listed = client.post("/api/import", json={"pgn": text}).json
    assert len(listed["games"]) == 5 and "tree" not in listed
    sites = [game["headers"]["Site"] for game in listed["games"]]
    picked = client.post("/api/import", json={"pgn": text, "index": 3}).json["tree"]
    stream = io.StringIO(text)
    for _ in range(4):
        game = chess.pgn.read_game(stream)
    assert picked["headers"]["Site"] == sites[3] == game.headers["Site"]
    assert [node["uci"] for node in picked["moves"]] == [m.uci() for m in game.mainline_moves()]


def test_one_game_and_a_fen_come_back_as_trees(client: FlaskClient) -> None:
    one = client.post("/api/import", json={"pgn": "1. e4 (1. d4) e5 { fine } *"}).json
    assert [node["san"] for node in one["tree"]["moves"]] == ["e4", "e5"]
    assert one["tree"]["moves"][0]["variations"][0][0]["san"] == "d4"
    fen = client.post("/api/import", json={"pgn": KRK}).json["tree"]
    assert fen["fen"] == KRK and fen["moves"] == []
    empty = client.post("/api/import", json={"pgn": "just words"})
    assert empty.status_code == 400 and empty.json["field"] == "pgn"


@pytest.mark.parametrize(
    "fen", [KRK, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
            "  7k/8/6K1/8/8/8/8/R7 w - -\r\n"],
)  # fmt: skip
def test_a_pasted_fen_opens_its_position(client: FlaskClient, fen: str) -> None:
    answer = client.post("/api/import", json={"pgn": fen})
    assert answer.status_code == 200, answer.json
    tree = answer.json["tree"]
    assert tree["fen"].split()[:4] == fen.split()[:4] and tree["moves"] == []


@pytest.mark.parametrize(
    ("fen", "problem"),
    [("7k/8/8/8/8/8/8/R7 w - - 0 1", "White has no king"),
     ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKBNR b KQkq - 1 2", "more than 16 pieces"),
     ("7k/8/6K1/8/8/8/8/R6 w - - 0 1", "invalid FEN"),
     ("7k/8/6K1/8/8/8/8/R7 x - - 0 1", "invalid FEN")],
)  # fmt: skip
def test_a_bad_pasted_fen_is_refused_as_a_fen(client: FlaskClient, fen: str, problem: str) -> None:
    answer = client.post("/api/import", json={"pgn": fen})
    assert answer.status_code == 400 and answer.json["field"] == "pgn"
    assert problem in answer.json["error"] and fen in answer.json["error"]


def test_a_played_game_comes_with_its_review(client: FlaskClient) -> None:
    moves = ["f2f3", "e7e5", "g2g4", "d8h4"]
    review = None
    for line in lines_of(client.post("/api/review", json={"moves": moves})):
        review = line.get("review", review)
    tree = client.post("/api/import", json={"moves": moves, "review": review,
                                            "headers": {"White": "Me"}}).json["tree"]  # fmt: skip
    assert tree["headers"]["White"] == "Me"
    assert tree["moves"][2]["judgement"] == "blunder"
    assert tree["moves"][2]["explanation"] == "allows mate in 1: ...Qh4#"
    assert tree["moves"][1]["eval"] == review["moves"][1]["eval_after"]


def test_an_export_is_python_chess_pgn_with_variations_and_annotations(client: FlaskClient) -> None:
    text = '{ start } 1. e4 $1 { best [%eval 0.25] } (1. d4 d5 $2) 1... e5 2. Nf3 *'
    tree = client.post("/api/import", json={"pgn": text}).json["tree"]
    tree["moves"][1]["comment"] = "a comment made on the board"
    exported = client.post("/api/export", json={"tree": tree}).json
    assert exported["filename"].startswith("analysis-") and exported["filename"].endswith(".pgn")
    game = chess.pgn.read_game(io.StringIO(exported["pgn"]))
    assert game is not None and game.comment == "start"
    first = game.next()
    assert first.nags == {1} and first.eval().white().score() == 25
    variation = game.variations[1]
    moves = [variation.move.uci(), *(move.uci() for move in variation.mainline_moves())]
    assert moves == ["d2d4", "d7d5"]
    assert first.next().comment == "a comment made on the board"


def test_a_bad_tree_is_refused_naming_its_field(client: FlaskClient) -> None:
    tree = {"fen": chess.STARTING_FEN, "moves": [{"uci": "e2e4"}, {"uci": "e2e4"}]}
    answer = client.post("/api/export", json={"tree": tree})
    assert answer.status_code == 400 and answer.json["field"] == "tree.moves[1].uci"


def test_a_pgn_may_be_larger_than_other_requests_but_not_unbounded(app: Flask) -> None:
    client = app.test_client()
    game = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n"
    big = "".join(f'[Event "{n}"]\n\n{game}' for n in range(3000))  # ~130 KB
    assert len(big.encode()) > app.config["MAX_CONTENT_LENGTH"]
    listed = client.post("/api/import", json={"pgn": big}).json
    assert len(listed["games"]) == 1000 and listed["truncated"]
    state = client.post("/api/state", json={"fen": big[:70_000]})
    assert state.status_code == 413 and state.json["field"] == "body"
    limit = app.config["FERROCHESS_MAX_PGN_BYTES"]
    too_big = client.post("/api/import", json={"pgn": "x" * (limit + 1)})
    assert too_big.status_code == 413 and too_big.json["field"] == "body"
    assert too_big.json["error"].endswith(f"larger than {limit} bytes")  # the import's own limit


def test_the_explorer_puts_a_mate_first_and_says_so(syzygy: Path) -> None:
    tables = create_app({**FAST, "FERROCHESS_SYZYGY_PATH": str(syzygy)})
    try:
        answer = tables.test_client().post(
            "/api/explorer", json={"fen": "7k/8/6K1/8/8/8/8/R7 w - - 0 1"}
        ).json["tablebase"]
    finally:
        tables.extensions["ferrochess_pool"].close()
    first = answer["moves"][0]
    assert (first["san"], first["ends"], first["wdl"], first["dtz"]) == ("Ra8#", "checkmate", 2, 0)
    assert all(move["ends"] is None for move in answer["moves"][1:])


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (
            {"White": "Magnus Carlsen", "Black": "Hikaru/Nakamura", "Date": "2026.11.28"},
            "Magnus_Carlsen_vs_Hikaru_Nakamura_2026.11.28.pgn",
        ),
        ({"White": "You", "Black": "ferrochess level 3"}, "You_vs_ferrochess_level_3.pgn"),
        ({"White": "../../etc", "Black": "?", "Date": "2026.??.??"}, "etc_vs_Unknown.pgn"),
    ],
)
def test_an_export_of_a_game_with_players_is_named_after_the_game(
    client: FlaskClient, headers: dict[str, str], expected: str
) -> None:
    tree = {"headers": headers, "fen": chess.STARTING_FEN, "moves": [{"uci": "e2e4"}]}
    exported = client.post("/api/export", json={"tree": tree}).json
    assert exported["filename"] == expected


def test_an_export_without_players_keeps_the_analysis_name(client: FlaskClient) -> None:
    tree = {"headers": {"White": "?", "Black": ""}, "fen": chess.STARTING_FEN, "moves": []}
    exported = client.post("/api/export", json={"tree": tree}).json
    assert re.fullmatch(r"analysis-\d{8}\.pgn", exported["filename"]), exported["filename"]
