"""Guards the play page's panels and controls in a real browser (Playwright driving Debian's
Chromium): sounds for a move, a capture, a check and the game's end, and a mute that is
remembered; the "show engine" switch (off by default below full strength, on at full strength and
after the game); a book move shown as a book move with the evaluation bar left where it was; the
tables' verdict shown as "TB win" (or cursed, blessed, draw) from the reply's field; the
levels named with their Elo and calibration as the core states them; a draw offer declined and
one accepted (the engine judges); resign asks for a confirmation as lichess does (a second click
confirms; cancel, Escape or a few seconds without it leave the game going); "Download PGN" after
the game; a natural thinking time below full strength; the review panel opened after the game.
Saves the desktop and phone screenshots (into docs/ when FERROCHESS_DOCS_SCREENSHOTS=1). Skips
without Chromium or Playwright."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    FAST,
    RESIGN,
    Page,
    banner,
    chromium_fixture,  # noqa: F401 - a fixture
    click_move,
    expect_placement,
    game_value,
    load_fen,
    moves,
    open_page,
    play_fixture,  # noqa: F401 - a fixture
    resign,
    serve,
    server_fixture,  # noqa: F401 - a fixture
    shot,
    state,
    wait_moves,
    wait_state,
)
from ferrochess.engine import levels
from ferrochess.service.game import NATURAL_THINK_SECONDS

DOCS = Path(__file__).resolve().parent.parent / "docs"


def hold_engine_replies(page: Page) -> list[Any]:
    """The engine's replies are held back (never answered): what the human's move did shows."""
    held: list[Any] = []
    page.route("**/api/move", lambda route: held.append(route))
    return held


def last_sound(page: Page) -> str | None:
    return page.get_attribute("#app", "data-last-sound")


def test_a_capture_plays_the_capture_sound(play: Page) -> None:
    load_fen(play, "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    hold_engine_replies(play)
    click_move(play, "e4", "d5")
    wait_state(play, "thinking")
    play.wait_for_function("document.querySelector('#app').dataset.lastSound !== undefined")
    assert last_sound(play) == "capture"


def test_a_check_plays_the_check_sound(play: Page) -> None:
    load_fen(play, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    hold_engine_replies(play)
    click_move(play, "a1", "a8")
    play.wait_for_function("document.querySelector('#app').dataset.lastSound !== undefined")
    assert last_sound(play) == "check"


def test_the_end_of_the_game_plays_its_sound(play: Page) -> None:
    load_fen(play, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    click_move(play, "a1", "a8")
    wait_state(play, "over")
    assert last_sound(play) == "end"


def test_mute_silences_the_moves_and_is_remembered(play: Page) -> None:
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    assert last_sound(play) == "move"
    played = play.get_attribute("#app", "data-sounds")
    play.uncheck('#app [data-role="sound"]')
    play.reload()
    wait_state(play, "ready")
    assert not play.is_checked('#app [data-role="sound"]'), "the mute survives a reload"
    click_move(play, "d2", "d4")
    wait_moves(play, 4)
    assert play.get_attribute("#app", "data-sounds") in (None, "0"), "nothing was played"
    assert played == "2"


def test_the_engine_panel_is_hidden_below_full_strength_until_the_game_ends(play: Page) -> None:
    toggle = '#app [data-role="show-engine"]'
    body = "#app .engine-body"
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    assert not play.is_checked(toggle) and not play.locator(body).is_visible()
    assert "concealed" in (play.get_attribute("#app .eval-bar", "class") or "")
    play.check(toggle)
    assert play.locator(body).is_visible()
    play.uncheck(toggle)
    resign(play)
    wait_state(play, "over")
    assert play.is_checked(toggle) and play.locator(body).is_visible(), "shown after the game"


def test_the_engine_panel_is_shown_at_full_strength(play: Page) -> None:
    play.select_option('#app [data-role="level"]', "10")
    play.uncheck('#app [data-role="book"]')
    play.click('#app [data-action="new-game"]')
    wait_state(play, "ready")
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    assert play.is_checked('#app [data-role="show-engine"]')
    summary = play.locator("#app .engine-summary").inner_text()
    assert "from the search" in summary
    assert play.locator('#app [data-stat="depth"]').inner_text() not in ("", "–", "0")
    assert play.locator("#app .engine-line .pv").inner_text().startswith("1… ")
    assert play.get_attribute("#app .eval-bar", "aria-valuenow") is not None
    shot(play, "30-engine-panel")


def test_a_book_move_is_shown_as_a_book_move(play: Page) -> None:
    play.check('#app [data-role="show-engine"]')
    click_move(play, "e2", "e4")  # level 4 with its book: the reply comes from the book
    wait_moves(play, 2)
    assert game_value(play, "game.reply.source") == "book"
    assert "Book move" in play.locator("#app .engine-summary").inner_text()
    assert not play.locator("#app .engine-stats").is_visible(), "no depth, nodes or time"
    bar = play.locator("#app .eval-bar")  # a book move has no score: the bar stays level
    assert bar.get_attribute("aria-valuenow") == "50"
    assert bar.get_attribute("title") == "No evaluation yet"


def test_a_book_move_leaves_the_evaluation_bar_where_the_search_left_it(play: Page) -> None:
    """The first reply is shaped as a search that found +3 (the bar leans to White); the second as
    a book move, which has no score: the bar stays where it was instead of jumping to level."""
    play.check('#app [data-role="show-engine"]')
    answered: list[str] = []

    def reshaped(route: Any) -> None:
        response = route.fetch()
        body = {key: value for key, value in response.json().items()
                if key not in ("score", "pv", "depth", "nodes", "time_ms", "book_weight")}
        if not answered:
            body.update(source="search", score={"cp": 300}, pv=[body["san"]], depth=6,
                        nodes=5000, time_ms=12.0)
        else:
            body.update(source="book", book_weight=10)
        answered.append(body["source"])
        route.fulfill(response=response, json=body)  # fmt: skip

    play.route("**/api/move", reshaped)
    bar = play.locator("#app .eval-bar")
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    after_search = bar.get_attribute("aria-valuenow")
    assert after_search is not None and float(after_search) > 50
    click_move(play, "d2", "d4")  # legal after any first reply of Black's
    wait_moves(play, 4)
    assert answered == ["search", "book"]
    assert "Book move" in play.locator("#app .engine-summary").inner_text()
    assert bar.get_attribute("aria-valuenow") == after_search


def test_the_tables_verdict_is_shown_from_the_replys_field(page: Page, syzygy: Path) -> None:
    """With tables, the engine (Black, lost in KQ v K) answers from them: the panel and the bar
    say "TB win" (White's view). The second reply is reshaped to a cursed win scored 0: the page
    shows the verdict it is given, not one read from the centipawns."""
    with serve({**FAST, "FERROCHESS_SYZYGY_PATH": str(syzygy)}) as served:
        play = open_page(page, served.url)
        play.select_option('#app [data-role="level"]', "10")
        load_fen(play, "8/8/8/8/8/8/3QK3/k7 w - - 0 1")
        play.check('#app [data-role="show-engine"]')
        bar = play.locator("#app .eval-bar")
        click_move(play, "e2", "e3")
        wait_moves(play, 2)  # 1...Kb1, the only move
        assert game_value(play, "game.reply.source") == "tablebase"
        summary = play.locator("#app .engine-summary").inner_text()
        assert "tablebase (loss for the engine)" in summary
        assert play.locator('#app [data-stat="score"]').inner_text() == "TB win"
        assert bar.get_attribute("title") == "Evaluation TB win"
        assert bar.get_attribute("aria-valuenow") == "100"

        def cursed(route: Any) -> None:
            response = route.fetch()
            body = {**response.json(), "score": {"cp": 0, "tablebase": "cursed win"}}
            route.fulfill(response=response, json=body)

        play.route("**/api/move", cursed)
        click_move(play, "e3", "e2")
        wait_moves(play, 4)
        assert play.locator('#app [data-stat="score"]').inner_text() == "TB cursed win"
        assert bar.get_attribute("aria-valuenow") == "50"


def test_the_levels_are_named_with_their_elo_and_calibration(play: Page) -> None:
    shown = play.locator('#app [data-role="level"] option').all_inner_texts()
    expected = []
    for level in levels():
        elo = f"~{level.elo}" + (", not yet re-measured" if level.calibration == "stale" else "")
        expected.append(f"{level.number} · {level.name} ({elo})")
    assert shown == expected
    # the marker shows exactly when the table has a stale level (every level from the fifth
    # network on, until `make calibrate` measures them again)
    stale = any(level.calibration == "stale" for level in levels())
    assert any("not yet re-measured" in text for text in shown) == stale



def test_a_stale_level_is_marked_not_yet_re_measured(page: Page, server: str) -> None:
    """A level whose table row was measured with other settings (here level 4, as the server
    would say after a change of the search) is shown as not yet re-measured, the others (made
    measured here, whatever the table says today) not."""

    def stale_level_4(route: Any) -> None:
        body = route.fetch().json()
        for level in body["levels"]:
            level["calibration"] = "stale" if level["number"] == 4 else "measured"
        route.fulfill(json=body)

    page.route("**/api/levels", stale_level_4)
    play = open_page(page, server)
    shown = play.locator('#app [data-role="level"] option').all_inner_texts()
    marked = [text for text in shown if "not yet re-measured" in text]
    four = next(level for level in levels() if level.number == 4)
    assert marked == [f"4 · {four.name} (~{four.elo}, not yet re-measured)"]

def test_a_draw_offer_is_declined_when_the_engine_is_better(play: Page) -> None:
    # The engine (Black) has a queen, at move 40 (before move 30 it declines any offer as early).
    load_fen(play, "q3k3/8/8/8/8/8/8/4K3 w - - 0 40")
    play.click('#app [data-action="draw"]')
    play.wait_for_function(
        "document.querySelector('#app .message').textContent.includes('declines')"
    )
    message = play.locator("#app .message").inner_text()
    assert "ferrochess declines: it stands better." in message, message
    assert play.get_attribute("#app", "data-state") == "ready", "the game goes on"


def test_a_draw_offer_is_accepted_when_the_engine_is_worse(play: Page) -> None:
    load_fen(play, "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1")  # the human (White) has a queen
    play.click('#app [data-action="draw"]')
    wait_state(play, "over")
    text = banner(play)
    assert "½-½" in text and "Draw by agreement" in text
    assert game_value(play, "game.end") == {"by": "agreement"}


def test_resign_asks_for_a_confirmation_as_lichess_does(play: Page) -> None:
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    asking = f'{RESIGN}[data-confirm="yes"]'
    cancel = '#app [data-action="cancel-resign"]'
    play.click(RESIGN)
    play.wait_for_selector(asking)
    assert play.inner_text(asking) == "Confirm resign?" and play.is_visible(cancel)
    assert state(play) == "ready", "one click does not resign"
    play.click(cancel)
    play.wait_for_selector(f"{RESIGN}:not([data-confirm])")
    assert play.inner_text(RESIGN) == "Resign" and play.is_hidden(cancel)
    play.click(RESIGN)
    play.wait_for_selector(asking)
    play.keyboard.press("Escape")
    play.wait_for_selector(f"{RESIGN}:not([data-confirm])")
    play.click(RESIGN)
    play.wait_for_selector(asking)
    play.wait_for_selector(f"{RESIGN}:not([data-confirm])", timeout=10_000)  # it times out
    assert state(play) == "ready" and game_value(play, "game.end") is None
    resign(play)
    wait_state(play, "over")
    assert game_value(play, "game.end") == {"by": "resign", "color": "white"}


def test_download_pgn_after_the_game(play: Page) -> None:
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    resign(play)
    wait_state(play, "over")
    with play.expect_download() as download:
        play.click('#app [data-action="pgn"]')
    path = download.value.path()
    pgn = Path(path).read_text()
    assert download.value.suggested_filename.endswith(".pgn")
    assert '[Result "0-1"]' in pgn and '[White "You"]' in pgn and "1. e4" in pgn


def test_the_review_opens_after_the_game(play: Page) -> None:
    assert not play.locator('#app [data-action="review"]').is_visible()
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    resign(play)
    wait_state(play, "over")
    play.click('#app [data-action="review"]')
    wait_state(play, "reviewing", "reviewed")
    assert play.locator('#app [data-panel="review"]').is_visible()
    wait_state(play, "reviewed")


@pytest.fixture(scope="module")
def natural() -> Iterator[str]:
    """A server whose levels below full strength take a natural time to reply."""
    config = {**FAST, "FERROCHESS_NATURAL_DELAY": True, "FERROCHESS_MAX_THINK_SECONDS": 2.0}
    with serve(config) as served:
        yield served.url


def test_a_weak_level_takes_a_natural_time_to_reply(page: Page, natural: str) -> None:
    open_page(page, natural)
    page.select_option('#app [data-role="level"]', "1")
    page.uncheck('#app [data-role="book"]')
    page.click('#app [data-action="new-game"]')
    wait_state(page, "ready")
    with page.expect_response("**/api/move") as response:
        click_move(page, "e2", "e4")
        page.locator('#app .player[data-player="engine"] .thinking').wait_for()
    reply = response.value.json()
    assert reply["think_ms"] >= 1000 * NATURAL_THINK_SECONDS[0]
    wait_moves(page, 2)


def test_screenshots_of_the_page_on_a_desktop_and_a_phone(page: Page, server: str) -> None:
    docs = os.environ.get("FERROCHESS_DOCS_SCREENSHOTS") == "1"
    for name, size in (("desktop", (1280, 860)), ("phone", (390, 844))):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        open_page(page, server)
        page.select_option('#app [data-role="time"]', "5+3")
        page.uncheck('#app [data-role="book"]')  # the engine's own moves, with its analysis
        page.click('#app [data-action="new-game"]')
        wait_state(page, "ready")
        page.check('#app [data-role="show-engine"]')
        for origin, target in (("e2", "e4"), ("g1", "f3"), ("f1", "c4")):
            count = len(moves(page)) + 2
            click_move(page, origin, target)
            wait_moves(page, count)
            if page.get_attribute("#app", "data-state") == "over":
                break
        expect_placement(page, game_value(page, "game.state.fen"))
        page.wait_for_function("!document.querySelector('#app cg-board piece.anim')")
        path = shot(page, f"40-play-{name}")
        assert path.stat().st_size > 10_000
        if docs:
            page.screenshot(path=str(DOCS / f"play-{name}.png"), full_page=name == "phone")


@pytest.mark.parametrize(("status", "words"), [(503, "Every engine is busy"),
                                               (429, "Too many engine requests")])  # fmt: skip
def test_a_busy_or_rate_limited_server_is_waited_for(play: Page, status: int, words: str) -> None:
    """The first api/move is refused (503: every engine busy; 429: this address over the rate
    limit) with Retry-After: 1; the page says so, waits, asks again, and the engine replies."""
    refused: list[int] = []

    def refuse_once(route: Any) -> None:
        if refused:
            route.continue_()
            return
        refused.append(status)
        route.fulfill(status=status, headers={"Retry-After": "1"}, content_type="application/json",
                      body='{"error": "not now", "field": null}')  # fmt: skip

    play.route("**/api/move", refuse_once)
    click_move(play, "e2", "e4")
    play.wait_for_function(
        "(words) => document.querySelector('#app').innerText.includes(words)", arg=words
    )
    wait_moves(play, 2)
    assert refused == [status]
