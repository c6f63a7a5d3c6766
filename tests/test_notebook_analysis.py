"""The notebook's analysis board on the kernel's side (``ferrochess.notebook.analyse``): what it
opens (a board with its moves, a game with its variations, a PGN text, a FEN, nothing), the
front end it is sent (the page's analysis modules, mounted by the shared widget entry), the
analysis board's requests answered over the comm (the live engine streamed line by line, then
its end; stopped by a cancel), and ``.game`` following the tree the board sends back. The
widget in a real JupyterLab is tests/test_notebook_jupyterlab.py's."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import chess
import chess.pgn
import pytest
from ferrochess import Engine
from ferrochess.notebook import analyse, tree_of
from ferrochess.widget_comm import ANALYSIS_UI, STATIC
from widget_helpers import Comm

pytest.importorskip("anywidget", reason="anywidget is not installed (pip install anywidget)")

GAME = '[White "A"]\n\n1. e4 { king pawn } (1. d4 d5) 1... e5 2. Nf3 $1 *\n'


@pytest.fixture
def engine() -> Iterator[Engine]:
    with Engine(seed=3, book=None) as made:
        yield made


@pytest.fixture
def widget(engine: Engine) -> Iterator[Any]:
    board = analyse(GAME, max_seconds=20, engine=engine)
    yield board
    board.close()


def sans(line: list[dict[str, Any]]) -> list[str]:
    return [node["san"] for node in line]


def test_it_opens_a_board_a_game_a_pgn_a_fen_or_the_start() -> None:
    board = chess.Board()
    for san in ["e4", "c5", "Nf3"]:
        board.push_san(san)
    assert sans(tree_of(board)["moves"]) == ["e4", "c5", "Nf3"]
    game = chess.pgn.read_game(io.StringIO(GAME))
    from_game = tree_of(game)
    assert from_game == tree_of(GAME)
    assert sans(from_game["moves"][0]["variations"][0]) == ["d4", "d5"]
    assert from_game["moves"][0]["comment"] == "king pawn" and from_game["headers"]["White"] == "A"
    fen = "8/8/8/8/8/4k3/8/K2R4 w - - 0 1"
    assert tree_of(fen)["fen"] == fen and tree_of(fen)["moves"] == []
    assert tree_of(None)["fen"] == chess.STARTING_FEN
    with pytest.raises(TypeError, match="int"):
        tree_of(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        analyse(GAME, lines=6)


def test_it_mounts_the_analysis_board_with_the_tree(widget: Any) -> None:
    assert widget._entry == ANALYSIS_UI
    assert widget._esm == (STATIC / "play" / "widget.js").read_text(encoding="utf-8")
    shared = ("play/board.js", "play/api.js", "ui/score.js", "ui/moves.js")
    for name in ("analysis/app.js", "analysis/ctrl.js", *shared):
        assert name in widget._modules, name
    assert "analysis/page.js" not in widget._modules
    assert sans(widget.tree["moves"]) == ["e4", "e5", "Nf3"]
    assert widget.options == {"engine": False, "lines": 1}


def test_the_live_engine_streams_over_the_comm_and_stops_on_cancel(widget: Any) -> None:
    comm = Comm(widget)
    ident = comm.send("api/analyse", {"client": widget.client_id, "moves": ["e2e4"],
                                      "multipv": 2})  # fmt: skip
    depths = []
    while len(depths) < 4:
        message = comm.answer(ident)
        line = message["line"]
        assert len(line["lines"]) == 2
        depths.append(line["depth"])
    cancel = comm.send("api/cancel", {"client": widget.client_id})
    messages = []
    while not any(message["id"] == ident and message.get("done") for message in messages):
        messages.append(comm.answers.get(timeout=30))  # lines, the cancel's answer, the end
    ends = [m["line"] for m in messages if m["id"] == ident and "done" in m.get("line", {})]
    assert [end["reason"] for end in ends] == ["stopped"]
    cancelled = [m for m in messages if m["id"] == cancel] or [comm.answer(cancel)]
    assert cancelled[0]["ok"] and cancelled[0]["data"] == {"cancelled": True}
    assert depths == sorted(depths)
    assert widget.pool.free() == widget.pool.size


def test_the_other_requests_are_answered_as_on_the_page(widget: Any) -> None:
    comm = Comm(widget)
    position = comm.answer(comm.send("api/position", {"moves": ["e2e4", "c7c5"]}))
    assert position["ok"] and position["data"]["san"] == ["e4", "c5"]
    explorer = comm.answer(comm.send("api/explorer", {"moves": ["e2e4"]}))
    assert explorer["ok"] and explorer["data"]["book"]["name"] is None  # the engine has no book
    exported = comm.answer(comm.send("api/export", {"tree": widget.tree}))
    assert exported["ok"] and "( 1. d4 d5 )" in exported["data"]["pgn"].replace("\n", " ")
    refused = comm.answer(comm.send("api/analyse", {"client": "x", "multipv": 9}))
    assert refused["ok"] is False and refused["status"] == 400 and refused["field"] == "multipv"


def test_game_follows_the_tree_the_board_sends_back(widget: Any) -> None:
    tree = json.loads(json.dumps(widget.tree))
    nf3 = tree["moves"][2]
    nf3["comment"] = "made on the board"
    nf3["variations"] = [[{"uci": "f1c4", "san": "Bc4", "variations": []},
                          {"uci": "g8f6", "san": "Nf6", "variations": []}]]  # fmt: skip
    widget.tree = tree  # what the front end's onTree does, through the synced trait
    game = widget.game
    nodes = list(game.mainline())
    assert nodes[2].comment == "made on the board"
    alternative = nodes[1].variations[1]
    assert alternative.move.uci() == "f1c4" and alternative.next().move.uci() == "g8f6"
    assert game.headers["White"] == "A"
