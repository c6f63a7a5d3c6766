"""Guards Chess960 on the play page end to end, in a real browser (Playwright driving Debian's
Chromium) against the play app with a real SQLite archive: the new-game card's "Chess960" choice
refuses a bad position number in the server's words, then sets up the numbered start the server
gives (python-chess's ``from_chess960_pos``); the human castles by putting the king on its rook,
as chessground does it in Chess960, and the server takes it; the engine replies at level 3; the
game ends (the human resigns), is reviewed on the page, stored in the archive as a Chess960 game,
and its exported PGN reads back in python-chess as a Chess960 game with the same moves; the
game's page opens it on the analysis board. Skips where Chromium or Playwright is missing."""

from __future__ import annotations

import io
import random
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import chess
import chess.pgn
import pytest
from browser_helpers import (
    REVIEW_PANEL,
    Page,
    Served,
    archived_games,
    browser_type_launch_args,  # noqa: F401 - a fixture
    click_move,
    drag_move,
    expect_piece,
    game_value,
    open_page,
    resign,
    serve_archive,
    wait_archive_state,
    wait_moves,
    wait_state,
)

MAX_HUMAN_MOVES = 200
"""More than a level-3 engine needs to mate a player of random moves (or the game to be drawn)."""
START = 747
"""RKNNBQRB: the king on b1 beside its rook on a1; with both knights out it castles queenside
(king takes rook: the king to c1, the rook to d1)."""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with serve_archive(tmp_path / "games.sqlite3") as app:
        yield app


def test_a_chess960_game_is_played_reviewed_archived_and_exported(
    page: Page, served: Served
) -> None:
    open_page(page, served.url)
    page.select_option('#app [data-role="color"]', "white")
    page.select_option('#app [data-role="level"]', "3")
    page.select_option('#app [data-role="variant"]', "chess960")
    field = page.locator('#app [data-role="chess960-position"]')
    field.fill("1000")
    page.click('#app [data-action="new-game"]')
    error = page.locator('#app [data-role="setup-error"]')
    error.wait_for(state="visible")
    assert "Position must be between 0 and 959, not 1000" in error.inner_text()
    assert game_value(page, "game.chess960") is False  # the game on the board goes on

    field.fill(str(START))
    page.click('#app [data-action="new-game"]')
    page.wait_for_function("window.ferrochessPlay.game.chess960 === true")
    wait_state(page, "ready")
    start = chess.Board.from_chess960_pos(START)
    assert game_value(page, "game.fen") == start.fen()
    assert error.inner_text() == ""
    expect_piece(page, "b1", "white king")
    expect_piece(page, "a1", "white rook")
    # The engine's line in the header names the variant, as lichess's does.
    detail = page.locator('#app .player[data-player="engine"] .player-detail').inner_text()
    assert detail.endswith("· Chess960"), detail

    board = start.copy()
    for number, (origin, target) in enumerate([("c1", "d3"), ("d1", "e3")], start=1):
        click_move(page, origin, target)
        wait_moves(page, 2 * number)
    played = game_value(page, "game.moves")
    for uci in played:
        board.push(chess.Move.from_uci(uci))
    castle = board.parse_uci("b1a1")
    assert board.is_castling(castle), board.fen()
    drag_move(page, "b1", "a1")  # the king onto its own rook
    wait_moves(page, 6)
    expect_piece(page, "c1", "white king")
    expect_piece(page, "d1", "white rook")
    moves = game_value(page, "game.moves")
    assert moves[4] == "b1a1" and moves[:4] == played
    assert game_value(page, "game.reply.level") == 3

    resign(page)
    wait_state(page, "over")
    assert game_value(page, "game.state.status.result") == "0-1"
    wait_archive_state(page, "saved")
    page.click('#app [data-action="review"]')
    page.wait_for_selector(f'{REVIEW_PANEL}[data-review-state="reviewed"]')
    review = page.evaluate("() => window.ferrochessPlay.review.review")
    assert [entry["move"] for entry in review["moves"]] == moves

    [game] = archived_games(served)
    assert game["variant"] == "chess960" and game["moves"] == moves
    assert chess.Board(game["fen"], chess960=True) == start
    assert game["termination"] == "resign"
    served.wait_answered(f"/api/games/{game['id']}/review", 10)
    with urllib.request.urlopen(served.url + f"game/{game['id']}.pgn") as answer:
        text = answer.read().decode()
    read = chess.pgn.read_game(io.StringIO(text))
    assert read is not None
    assert read.headers["Variant"] == "Chess960" and read.headers["SetUp"] == "1"
    end = read.end().board()
    assert end.chess960 and [move.uci() for move in end.move_stack] == moves
    assert read.headers["Result"] == "0-1"

    page.goto(served.url + f"game/{game['id']}")
    page.wait_for_selector('#app.fc-analysis[data-state="ready"]')
    page.click('#app .move[data-path="0.0.0.0.0"]')  # after the castling
    expect_piece(page, "c1", "white king")
    expect_piece(page, "d1", "white rook")


def test_a_chess960_game_at_level_3_is_played_on_the_page_to_its_natural_end(
    page: Page, served: Served
) -> None:
    # The human plays seeded random moves (no castling, no promotion: those are covered above
    # and by the play page's own tests) by clicking on the board until the game ends by the
    # rules: the engine at level 3 mates, or the game is drawn.
    chooser = random.Random(960)
    open_page(page, served.url)
    page.select_option('#app [data-role="color"]', "white")
    page.select_option('#app [data-role="level"]', "3")
    page.select_option('#app [data-role="variant"]', "chess960")
    page.locator('#app [data-role="chess960-position"]').fill("0")
    page.click('#app [data-action="new-game"]')
    page.wait_for_function("window.ferrochessPlay.game.chess960 === true")
    wait_state(page, "ready")
    start = chess.Board.from_chess960_pos(0)
    for turn in range(1, MAX_HUMAN_MOVES + 1):
        board = start.copy()
        for uci in game_value(page, "game.moves"):
            board.push(chess.Move.from_uci(uci))
        if board.is_game_over(claim_draw=False) or game_value(page, "game.state.status.over"):
            break
        plain = [move for move in board.legal_moves
                 if not board.is_castling(move) and move.promotion is None]  # fmt: skip
        assert plain, board.fen()
        move = chooser.choice(plain)
        click_move(page, chess.square_name(move.from_square), chess.square_name(move.to_square))
        page.wait_for_function(
            f"window.ferrochessPlay.game.moves.length >= {2 * turn}"
            " || window.ferrochessPlay.game.state.status.over"
        )
    wait_state(page, "over")
    moves = game_value(page, "game.moves")
    status = game_value(page, "game.state.status")
    # Over on the board (checkmate, stalemate, repetition...), not resigned or flagged.
    assert status["over"] and status["result"] in ("0-1", "1-0", "1/2-1/2"), status
    end = start.copy()
    for uci in moves:
        end.push(chess.Move.from_uci(uci))
    assert end.is_game_over(claim_draw=True), end.fen()  # a real end by the rules

    wait_archive_state(page, "saved")
    page.click('#app [data-action="review"]')
    page.wait_for_selector(f'{REVIEW_PANEL}[data-review-state="reviewed"]')
    [game] = archived_games(served)
    assert game["variant"] == "chess960" and game["moves"] == moves
    with urllib.request.urlopen(served.url + f"game/{game['id']}.pgn") as answer:
        read = chess.pgn.read_game(io.StringIO(answer.read().decode()))
    assert read is not None and read.headers["Variant"] == "Chess960"
    assert read.headers["Result"] == status["result"]
    assert [move.uci() for move in read.end().board().move_stack] == moves
