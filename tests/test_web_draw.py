"""Guards the engine's answer to a draw offer (``POST /api/draw``), with Flask's test client: it
declines before move 30 however level the position (a beginner's engine that takes a draw on move
1 is no opponent), unless it cannot win (too little material to mate, or the tablebases call the
position a draw for it); from move 30 it accepts when it stands level or worse and declines when it
stands better. Every answer gives its reason in words the page shows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ferrochess.service.game import DRAW_EARLIEST_MOVE
from ferrochess.web import create_app
from flask import Flask
from flask.testing import FlaskClient

SETTINGS = {
    "TESTING": True, "FERROCHESS_ENGINES": 1, "FERROCHESS_NATURAL_DELAY": False,
    "FERROCHESS_DRAW_NODES": 50_000,
}  # fmt: skip
# King and pawn each, the pawns blocked: level, whoever moves. Used at several move numbers.
BLOCKED_PAWNS = "4k3/8/8/3p4/3P4/8/8/4K3 w - - 0 {move}"
# The engine (Black) has two queens: it stands far better.
QUEENS_FOR_BLACK = "4k3/3qq3/8/8/8/8/8/4K3 w - - 0 {move}"
# A rook each: the tables say draw, though a search sees nothing decisive either way.
ROOKS = "8/8/3k4/1r6/8/4K3/6R1/8 w - - 0 1"
# The engine (Black) has a bare king: it can never mate.
BARE_KING = "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"


@pytest.fixture
def app() -> Iterator[Flask]:
    app = create_app(SETTINGS)
    yield app
    app.extensions["ferrochess_pool"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def offer(client: FlaskClient, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/api/draw", json={"color": "white", "level": 1, **body})
    assert response.status_code == 200, response.json
    answer: dict[str, Any] = response.json
    return answer


def test_an_offer_after_one_move_is_declined_as_too_early(client: FlaskClient) -> None:
    """The newcomer's game: 1.d4, then a draw offered to the level-1 engine."""
    answer = offer(client, {"moves": ["d2d4"]})
    assert answer["accepted"] is False, answer
    assert answer["reason"] == "ferrochess declines: it is too early for a draw (before move 30)"
    assert answer["state"]["status"]["over"] is False


def test_the_same_level_position_is_declined_early_and_accepted_from_move_30(
    client: FlaskClient,
) -> None:
    assert DRAW_EARLIEST_MOVE == 30
    early = offer(client, {"fen": BLOCKED_PAWNS.format(move=DRAW_EARLIEST_MOVE - 1)})
    assert early["accepted"] is False and "too early" in early["reason"], early
    late = offer(client, {"fen": BLOCKED_PAWNS.format(move=DRAW_EARLIEST_MOVE)})
    assert late["accepted"] is True, late
    assert late["reason"] == "ferrochess accepts: the position is level or worse for it"
    assert late["state"]["status"]["termination"] == "agreement"


def test_a_better_engine_declines_at_any_move(client: FlaskClient) -> None:
    answer = offer(client, {"fen": QUEENS_FOR_BLACK.format(move=60)})
    assert answer["accepted"] is False
    assert answer["reason"] == "ferrochess declines: it stands better"


def test_an_engine_that_cannot_mate_accepts_even_early(client: FlaskClient) -> None:
    answer = offer(client, {"fen": BARE_KING})
    assert answer["accepted"] is True, answer
    assert answer["reason"] == "ferrochess accepts: it cannot win this position"


def test_a_draw_by_the_tables_is_accepted_even_early(syzygy: Path) -> None:
    app = create_app({**SETTINGS, "FERROCHESS_SYZYGY_PATH": str(syzygy)})
    try:
        answer = offer(app.test_client(), {"fen": ROOKS})
        assert answer["score"]["tablebase"] == "draw", answer
        assert answer["accepted"] is True
        assert answer["reason"] == "ferrochess accepts: it cannot win this position"
    finally:
        app.extensions["ferrochess_pool"].close()
    # Without the tables the same offer is too early.
    plain = create_app(SETTINGS)
    try:
        answer = offer(plain.test_client(), {"fen": ROOKS})
        assert answer["accepted"] is False and "too early" in answer["reason"], answer
    finally:
        plain.extensions["ferrochess_pool"].close()
