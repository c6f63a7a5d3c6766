"""Guards the play page against the defects a newcomer found (issue 35's last list), one
behaviour each, in a real browser (Playwright driving Debian's Chromium) or through the API: a
draw's banner ends with its reason (never the text "null") and shows the result as lichess does
("½-½"); learning from mistakes shows the lesson's position in the move list and the FEN box; on a
phone "New game" brings the board back into view; "Review the game" goes once the review is
shown; a custom clock is named as lichess names it ("¼+0"); the PGN has a TimeControl tag and each
move's clock ([%clk]), from the API and as the page downloads it; the material difference (the
pieces a side is up and "+N") is the server's and shows beside the right player. Skips without
Chromium or Playwright."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from browser_helpers import (
    REVIEW_PANEL,
    Page,
    banner,
    chromium_fixture,  # noqa: F401 - a fixture
    click_move,
    expect,
    load_fen,
    open_page,
    play_fixture,  # noqa: F401 - a fixture
    resign,
    saved_game,
    server_fixture,  # noqa: F401 - a fixture
    shown,
    skip_lessons_until,
    wait_moves,
    wait_state,
)
from ferrochess.web import create_app
from flask.testing import FlaskClient

PANEL = REVIEW_PANEL
FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
"""1.f3 e5 2.g4?? Qh4#: White's second move is the blunder (mate in one follows)."""
REPETITION = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"]
"""The start position a third time after 4...Ng8: drawn by threefold repetition."""
MINUTES_3 = 180
INCREMENT_2 = 2


@pytest.fixture
def client() -> Iterator[FlaskClient]:
    app = create_app({"TESTING": True, "FERROCHESS_ENGINES": 1})
    yield app.test_client()
    app.extensions["ferrochess_pool"].close()


def banner_parts(page: Page) -> list[str]:
    """The banner's pieces of text, one per child node (elements and bare text alike)."""
    return list(
        page.evaluate(
            "[...document.querySelector('#app .game-over').childNodes].map((n) => n.textContent)"
        )
    )


# --- the banner ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("moves", "end", "reason"),
    [
        (REPETITION, None, "Draw by threefold repetition"),
        (["d2d4"], {"by": "agreement"}, "Draw by agreement"),
    ],
    ids=["repetition", "agreement"],
)
def test_a_draws_banner_ends_with_its_reason_not_null(
    page: Page, server: str, moves: list[str], end: dict[str, str] | None, reason: str
) -> None:
    open_page(page, server, saved_game(moves, end=end))
    wait_state(page, "over")
    parts = banner_parts(page)
    assert "null" not in banner(page), parts
    assert parts[-1] == reason, parts


def test_a_draw_shows_its_result_as_lichess_does(page: Page, server: str) -> None:
    open_page(page, server, saved_game(REPETITION))
    wait_state(page, "over")
    expect(page.locator("#app .game-over .result")).to_have_text("½-½")


# --- learn from your mistakes ---------------------------------------------------------------------


def test_learning_shows_the_lessons_position_in_the_move_list_and_the_fen_box(
    page: Page, server: str
) -> None:
    open_page(page, server, saved_game(FOOLS_MATE))
    wait_state(page, "over")
    page.click('#app [data-action="review"]')
    wait_state(page, "reviewed")
    page.click('#app .moves .move[data-ply="1"]')  # 1.f3 viewed before the lessons
    expect(page.locator('#app [data-role="fen"]')).to_have_value(after(["f2f3"]))
    page.click(f"{PANEL} .review-learn")
    wait_state(page, "learning")
    prompt = page.locator(f"{PANEL} .review-prompt")
    expect(prompt).not_to_be_empty()
    skip_lessons_until(page, "g4")  # an earlier lesson (1.f3?) may come first
    # The position before 2.g4: after 1.f3 e5, the move list on 1...e5.
    expect(page.locator('#app [data-role="fen"]')).to_have_value(after(["f2f3", "e7e5"]))
    expect(page.locator("#app .moves .move.active")).to_have_attribute("data-ply", "2")


def after(moves: list[str]) -> str:
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    return board.fen()


# --- the phone ------------------------------------------------------------------------------------


def test_new_game_on_a_phone_brings_the_board_into_view(page: Page, server: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, server)
    page.click('#app [data-action="new-game"]')  # far below the board: the page scrolls to it
    wait_state(page, "ready")
    in_view = shown(
        page,
        """() => {
          const box = document.querySelector('#app cg-board').getBoundingClientRect();
          return box.top >= 0 && box.bottom <= window.innerHeight;
        }""",
        None,
        True,
    )
    assert in_view, "the board is scrolled off the screen"


# --- the review -----------------------------------------------------------------------------------


def test_review_the_game_goes_once_the_review_is_shown(page: Page, server: str) -> None:
    open_page(page, server, saved_game(FOOLS_MATE))
    wait_state(page, "over")
    button = page.locator('#app [data-action="review"]')
    expect(button).to_be_visible()
    button.click()
    wait_state(page, "reviewed")
    expect(page.locator(PANEL)).to_be_visible()
    expect(button).to_be_hidden()


# --- the time control -----------------------------------------------------------------------------


def test_a_custom_quarter_minute_clock_is_named_as_lichess_names_it(play: Page) -> None:
    play.select_option('#app [data-role="time"]', "custom")
    play.fill('#app [data-role="custom-minutes"]', "0.25")
    play.fill('#app [data-role="custom-increment"]', "0")
    play.click('#app [data-action="new-game"]')
    wait_state(play, "ready")
    expect(play.locator("#app .time-note")).to_have_text("This game: ¼+0")


def test_time_controls_are_named_in_minutes_with_lichess_fractions(play: Page) -> None:
    names = play.evaluate(
        """async () => {
          const { describeTimeControl } = await import('/static/ui/time_control.js');
          return [[15, 0], [30, 2], [45, 1], [60, 0], [90, 0], [180, 2], [300, 3]].map(
            ([seconds, increment]) => describeTimeControl(
              { initial: seconds * 1000, increment: increment * 1000 }));
        }"""
    )
    assert names == ["¼+0", "½+2", "¾+1", "1+0", "1.5+0", "3+2", "5+3"]


# --- the PGN: time control and clocks -------------------------------------------------------------


def read_pgn(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return game


def test_the_pgn_has_the_time_control_and_each_moves_clock(client: FlaskClient) -> None:
    body: dict[str, Any] = {
        "moves": ["e2e4", "e7e5", "g1f3"],
        "time_control": "300+3",
        "clocks": [300, 300, 296.9],
    }
    answer = client.post("/api/pgn", json=body)
    assert answer.status_code == 200, answer.json
    game = read_pgn(answer.json["pgn"])
    assert game.headers["TimeControl"] == "300+3"
    assert [node.clock() for node in game.mainline()] == [300.0, 300.0, 296.0]
    assert "[%clk 0:05:00]" in answer.json["pgn"]


def test_the_pgn_without_a_clock_says_so(client: FlaskClient) -> None:
    answer = client.post("/api/pgn", json={"moves": ["e2e4", "e7e5"]})
    game = read_pgn(answer.json["pgn"])
    assert game.headers["TimeControl"] == "-"
    assert [node.clock() for node in game.mainline()] == [None, None]


@pytest.mark.parametrize(
    "extra",
    [
        {"time_control": "5 min"},
        {"time_control": "-1+0"},
        {"time_control": {"initial": 300_000, "increment": 3_000}},  # not the shape
        {"time_control": "60+0", "clocks": [1, 2, 3]},  # more clocks than moves
        {"clocks": ["0:05:00"]},
        {"clocks": 300},
    ],
)
def test_bad_clocks_in_the_pgn_request_are_refused(
    client: FlaskClient, extra: dict[str, Any]
) -> None:
    answer = client.post("/api/pgn", json={"moves": ["e2e4"], **extra})
    assert answer.status_code == 400, answer.json
    assert answer.json["field"] in ("time_control", "clocks")


def test_the_downloaded_pgn_has_the_time_control_and_the_clocks(play: Page) -> None:
    play.select_option('#app [data-role="time"]', "3+2")
    play.click('#app [data-action="new-game"]')
    wait_state(play, "ready")
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    click_move(play, "d2", "d4")
    wait_moves(play, 4)
    resign(play)
    wait_state(play, "over")
    with play.expect_download() as download:
        play.click('#app [data-action="pgn"]')
    game = read_pgn(Path(download.value.path()).read_text())
    assert game.headers["TimeControl"] == f"{MINUTES_3}+{INCREMENT_2}"
    clocks = [node.clock() for node in game.mainline()]
    assert len(clocks) == 4
    # Before each side has moved once no clock runs (lichess's rule): the first two are full.
    assert clocks[:2] == [MINUTES_3, MINUTES_3]
    assert all(clock is not None and 0 < clock <= MINUTES_3 + INCREMENT_2 for clock in clocks)


# --- the material difference ----------------------------------------------------------------------


def test_the_state_has_the_material_difference(client: FlaskClient) -> None:
    fen = "r3k3/8/8/3p4/4P3/8/8/4K2R w - - 0 1"  # a rook each, a pawn each
    state = client.post("/api/state", json={"fen": fen, "moves": ["e4d5"]}).json
    assert state["material"] == {
        "white": {"pieces": ["pawn"], "points": 1},
        "black": {"pieces": [], "points": 0},
    }
    assert state["positions"][0]["material"] == {
        "white": {"pieces": [], "points": 0},
        "black": {"pieces": [], "points": 0},
    }
    uneven = client.post("/api/state", json={"fen": "k7/8/8/8/8/8/8/1NBRQK2 w - - 0 1"}).json
    assert uneven["material"]["white"] == {
        "pieces": ["queen", "rook", "bishop", "knight"],
        "points": 20,
    }


def test_a_capture_shows_the_piece_and_the_points_beside_the_player(play: Page) -> None:
    load_fen(play, "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")  # the engine cannot take back on d5
    human = play.locator('#app .player[data-player="human"] .material')
    engine = play.locator('#app .player[data-player="engine"] .material')
    expect(human.locator("[data-piece]")).to_have_count(0)
    click_move(play, "e4", "d5")
    wait_moves(play, 2)
    expect(human.locator("[data-piece]")).to_have_count(1)
    expect(human.locator('[data-piece="pawn"]')).to_have_count(1)
    expect(human.locator(".material-score")).to_have_text("+1")
    expect(engine.locator("[data-piece]")).to_have_count(0)
    expect(engine.locator(".material-score")).to_have_count(0)
