"""Guards the play page's board and game in a real browser (Playwright driving Debian's Chromium):
the board is chessground, ready only once its piece images are decoded; moves by click (legal
destinations from the server) and by drag; promotion through lichess's chooser (a knight chosen,
Escape puts the pawn back); a premove played on the engine's reply; arrows drawn by right-drag;
stepping through the game by clicks and keys; takeback, resign, rematch with colours swapped, new
game; the rules as the server applies them (threefold on the third occurrence, halfmove clock 99
not over); a set-up position already over credited to nobody; FEN errors in the server's words;
"cannot reach the server" said as such. Screenshots go to tests/artifacts/. Skips without
Chromium or Playwright."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import (
    DRAWN_MS,
    SQUARES_WITH_JS,
    START_FEN,
    Page,
    banner,
    chromium_fixture,  # noqa: F401 - a fixture
    click_move,
    click_square,
    drag_move,
    expect,
    expect_piece,
    expect_placement,
    expect_squares,
    game_value,
    load_fen,
    moves,
    open_page,
    play_fixture,  # noqa: F401 - a fixture
    resign,
    saved_game,
    server_fixture,  # noqa: F401 - a fixture
    shot,
    shown,
    square_center,
    state,
    wait_moves,
    wait_settled,
    wait_state,
)


def test_the_board_is_chessground_and_ready_after_its_piece_images(page: Page, server: str) -> None:
    # The piece set arrives late: held back until the rest of the page is there (its document
    # parsed). Until it comes the page must not say it is ready.
    held: list[Any] = []

    def hold(route: Any) -> None:
        held.append(route)

    page.route("**/chessground.cburnett.css", hold)
    with page.expect_request("**/chessground.cburnett.css"):
        open_page(page, server, settled=False)
    page.wait_for_function("document.readyState !== 'loading'")
    assert len(held) == 1, "the piece set is held back"
    assert state(page) == "loading" and page.locator("#app cg-board piece").count() == 0
    held[0].continue_()
    wait_settled(page)
    assert page.locator("#app .cg-wrap cg-board").count() == 1
    assert page.locator("#app cg-board piece").count() == 32
    assert page.get_attribute("#app .board-wrap", "data-pieces") == "ready"
    image = page.evaluate(
        "getComputedStyle(document.querySelector('#app cg-board piece.king.white')).backgroundImage"
    )
    assert image.startswith('url("data:image/svg+xml')
    expect_piece(page, "e1", "white king")
    expect_piece(page, "d8", "black queen")
    shot(page, "01-start")


def test_a_click_shows_the_legal_destinations_and_plays_the_move(play: Page) -> None:
    click_square(play, "g1")
    expect_squares(play, "move-dest", {"f3", "h3"})
    click_square(play, "f3")
    wait_moves(play, 2)
    assert moves(play)[0] == "Nf3"
    expect_piece(play, "f3", "white knight")
    assert shown(play, f"(cls) => ({SQUARES_WITH_JS})(cls).length", "last-move", 2) == 2


def test_a_drag_plays_the_move(play: Page) -> None:
    drag_move(play, "e2", "e4")
    wait_moves(play, 2)
    assert moves(play)[0] == "e4"
    expect_piece(play, "e4", "white pawn")
    expect_piece(play, "e2", None)
    shot(play, "02-after-a-drag")


def test_a_move_to_no_legal_destination_is_not_played(play: Page) -> None:
    drag_move(play, "e2", "e5")
    expect_piece(play, "e2", "white pawn")
    assert moves(play) == [] and state(play) == "ready"


PROMOTION_FEN = "8/P7/8/8/8/8/p7/k6K w - - 0 1"


def test_promotion_through_the_chooser_to_a_knight(play: Page) -> None:
    load_fen(play, PROMOTION_FEN)
    drag_move(play, "a7", "a8")
    chooser = play.locator("#app .promotion-choice")
    chooser.wait_for()
    assert chooser.locator("button").evaluate_all("bs => bs.map(b => b.dataset.promotion)") == [
        "q",
        "n",
        "r",
        "b",
    ]
    shot(play, "03-promotion-chooser")
    chooser.locator('button[data-promotion="n"]').click()
    wait_moves(play, 2)
    assert moves(play)[0].startswith("a8=N")
    expect_piece(play, "a8", "white knight")


def test_escape_closes_the_promotion_chooser_and_puts_the_pawn_back(play: Page) -> None:
    load_fen(play, PROMOTION_FEN)
    click_move(play, "a7", "a8")
    play.locator("#app .promotion-choice").wait_for()
    play.keyboard.press("Escape")
    assert play.locator("#app .promotion-choice").count() == 0
    expect_piece(play, "a7", "white pawn")
    expect_piece(play, "a8", None)
    assert moves(play) == [] and state(play) == "ready"
    click_square(play, "a7")
    expect_squares(play, "move-dest", {"a8"})


def test_a_premove_is_played_when_the_engine_has_replied(play: Page) -> None:
    held: list[Any] = []
    released: list[bool] = []

    def hold_the_first(route: Any) -> None:
        if released:
            route.continue_()
        else:
            held.append(route)

    play.route("**/api/move", hold_the_first)
    with play.expect_request("**/api/move"):  # the engine is asked to move; held until released
        click_move(play, "e2", "e4")
    play.wait_for_function("window.ferrochessPlay.game.phase === 'thinking'")
    assert held, "the engine's request is held"
    click_move(play, "d2", "d4")  # during the engine's turn: a premove
    expect_squares(play, "current-premove", {"d2", "d4"})
    assert moves(play) == ["e4"]
    released.append(True)
    held[0].continue_()
    wait_moves(play, 3)
    assert moves(play)[2] == "d4", "the premove is the human's second move"


def test_arrows_are_drawn_by_right_drag(play: Page) -> None:
    drag_move(play, "g1", "f3", button="right")
    arrows = play.locator("#app .cg-shapes g[cgHash]")
    expect(arrows).to_have_count(1, timeout=DRAWN_MS)
    assert moves(play) == [], "a drawn arrow is not a move"
    shot(play, "04-arrow")


def test_stepping_through_the_game_by_keys_and_clicks(play: Page) -> None:
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    click_move(play, "d2", "d4")
    wait_moves(play, 4)
    positions = game_value(play, "game.state.positions.map((p) => p.fen)")
    fen_shown = '#app [data-role="fen"]'
    play.keyboard.press("ArrowLeft")  # back to the position after 2.d4
    expect_placement(play, positions[3])
    assert play.input_value(fen_shown) == positions[3]
    assert play.locator("#app .moves .move.active").get_attribute("data-ply") == "3"
    play.keyboard.press("Home")
    expect_placement(play, START_FEN)
    play.keyboard.press("ArrowRight")
    expect_placement(play, positions[1])
    play.locator('#app .moves .move[data-ply="2"]').click()
    expect_placement(play, positions[2])
    assert play.input_value(fen_shown) == positions[2]
    assert play.locator('#app [data-action="live"]').is_visible()
    click_square(play, "g1")
    expect_squares(play, "move-dest", set())  # no move while looking back
    shot(play, "05-stepping-back")
    play.keyboard.press("End")
    expect_placement(play, positions[4])
    assert not play.locator('#app [data-action="live"]').is_visible()
    click_square(play, "g1")  # the live position can be played again
    expect_squares(play, "move-dest", set(game_value(play, "game.state.dests.g1")))


def test_takeback_removes_the_humans_move_and_the_reply(play: Page) -> None:
    click_move(play, "d2", "d4")
    wait_moves(play, 2)
    click_move(play, "c2", "c4")
    wait_moves(play, 4)
    played = moves(play)
    play.click('#app [data-action="takeback"]')
    play.wait_for_function("document.querySelectorAll('#app .moves .move').length === 2")
    wait_settled(play)
    assert moves(play) == played[:2]
    expect_piece(play, "c2", "white pawn")


def test_resign_ends_the_game_for_the_engine(play: Page) -> None:
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    resign(play)
    wait_state(play, "over")
    text = banner(play)
    assert "0-1" in text and "White resigned" in text and "Black wins" in text
    assert game_value(play, "game.end") == {"by": "resign", "color": "white"}


def test_rematch_swaps_the_colours(play: Page) -> None:
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    resign(play)
    wait_state(play, "over")
    play.click('#app [data-action="rematch"]')
    wait_moves(play, 1)  # the engine opens as White
    assert game_value(play, "game.human") == "black"
    assert play.get_attribute("#app .board-wrap", "data-orientation") == "black"
    assert len(moves(play)) == 1 and state(play) == "ready"


def test_new_game_starts_from_the_start(play: Page) -> None:
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    play.click('#app [data-action="new-game"]')
    play.wait_for_function("document.querySelectorAll('#app .moves .move').length === 0")
    wait_settled(play)
    expect_piece(play, "e2", "white pawn")
    expect_piece(play, "e4", None)


def test_threefold_repetition_ends_the_game_on_the_third_occurrence(
    page: Page, server: str
) -> None:
    # 1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Ng1: the position has occurred twice; the human (Black)
    # is to move and the game goes on. 4...Ng8 makes it three times: a draw.
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]
    open_page(page, server, saved_game(shuffle, human="black"))
    assert state(page) == "ready"
    assert not page.locator("#app .game-over").is_visible()
    assert len(moves(page)) == 7
    click_move(page, "f6", "g8")
    wait_state(page, "over")
    assert "threefold repetition" in banner(page) and "½-½" in banner(page)


def test_a_halfmove_clock_of_99_is_not_over(play: Page) -> None:
    load_fen(play, "8/8/4k3/8/8/3K4/8/R7 w - - 99 80")
    assert state(play) == "ready"
    assert not play.locator("#app .game-over").is_visible()
    click_move(play, "a1", "a2")  # the hundredth half-move without capture or pawn move
    wait_state(play, "over")
    assert "fifty-move rule" in banner(play)


def test_a_set_up_mate_is_credited_to_nobody(play: Page) -> None:
    # Black to move is mated: the human plays Black, ferrochess (White) never moved.
    load_fen(play, "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1")
    wait_state(play, "over")
    text = banner(play)
    assert "1-0" in text and "White wins by checkmate" in text
    assert "ferrochess wins" not in text and "set up already over" in text
    expect_squares(play, "check", {"g8"})
    shot(play, "06-set-up-mate")


def test_a_mate_by_the_human_says_you_win(play: Page) -> None:
    load_fen(play, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    click_move(play, "a1", "a8")
    wait_state(play, "over")
    text = banner(play)
    assert "White wins by checkmate" in text and "You win" in text


def test_a_bad_fen_is_refused_in_the_servers_words(play: Page) -> None:
    play.fill('#app [data-role="fen-input"]', "8/8/8/8/8/8/8/8 w - - 0 1")
    play.click('#app [data-action="set-up"]')
    error = play.locator("#app .fen-error")
    error.wait_for()
    text = error.inner_text()
    # The server's words, said as every error is (ui/errors.js): a capitalised sentence.
    assert text.startswith("Impossible position") and "king" in text.lower()
    assert "<Status" not in text and "Status." not in text
    assert game_value(play, "game.fen") == START_FEN, "the game in progress is kept"


def test_cannot_reach_the_server_is_said_as_such(play: Page) -> None:
    play.route("**/api/state", lambda route: route.abort("connectionrefused"))
    click_move(play, "e2", "e4")
    wait_state(play, "error")
    message = play.locator("#app .message").inner_text()
    assert "Cannot reach the server" in message
    assert "refused" not in message
    assert play.locator('#app .message [data-action="retry"]').is_visible()
    play.unroute("**/api/state")
    play.click('#app .message [data-action="retry"]')
    wait_settled(play)
    assert moves(play) == []
    expect_piece(play, "e2", "white pawn")


@pytest.mark.parametrize("width", [390])
def test_the_phone_layout_fits_the_screen(page: Page, server: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    open_page(page, server)
    board = page.locator("#app cg-board").bounding_box()
    assert board is not None
    assert board["x"] >= 0 and board["x"] + board["width"] <= width
    assert board["width"] > 0.85 * width, "the board takes the phone's width"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    x, y = square_center(page, "e2")
    assert 0 < x < width and y > 0
    shot(page, "07-phone")
