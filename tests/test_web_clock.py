"""Guards the play page's clocks in a real browser (Playwright driving Debian's Chromium): the
time-control chooser (none, 3+2, 5+3, 10+5, 15+10, custom), both clocks shown and the side to
move's running, the engine's request carrying the real clocks, the engine's round trip charged to
its clock, a flag losing the game (and drawing it when the opponent cannot mate: the server
decides), and the clocks surviving a reload. Time is moved on with Playwright's fake clock, never
waited for. Skips without Chromium or Playwright."""

from __future__ import annotations

import json
from typing import Any

from browser_helpers import (
    Page,
    banner,
    chromium_fixture,  # noqa: F401 - a fixture
    click_move,
    game_value,
    load_fen,
    moves,
    open_page,
    play_fixture,  # noqa: F401 - a fixture
    server_fixture,  # noqa: F401 - a fixture
    shot,
    wait_moves,
    wait_state,
)

MINUTES_3 = 180_000
INCREMENT_2 = 2_000


def new_game_with_clock(page: Page, control: str) -> None:
    page.select_option('#app [data-role="time"]', control)
    page.click('#app [data-action="new-game"]')
    page.wait_for_function("document.querySelectorAll('#app .moves .move').length === 0")
    wait_state(page, "ready")


def clock_text(page: Page, who: str) -> str:
    return page.locator(f'#app .player[data-player="{who}"] .clock').inner_text()


def clock_running(page: Page, who: str) -> bool:
    classes = page.locator(f'#app .player[data-player="{who}"] .clock').get_attribute("class")
    return "running" in (classes or "").split()


def test_the_time_control_chooser_offers_lichess_controls(play: Page) -> None:
    options = play.locator('#app [data-role="time"] option').evaluate_all(
        "options => options.map(o => o.value)"
    )
    assert options == ["none", "3+2", "5+3", "10+5", "15+10", "custom"]
    assert not play.locator("#app .clock").first.is_visible(), "no clock by default"
    play.select_option('#app [data-role="time"]', "custom")
    play.fill('#app [data-role="custom-minutes"]', "1.5")
    play.fill('#app [data-role="custom-increment"]', "1")
    play.click('#app [data-action="new-game"]')
    wait_state(play, "ready")
    assert clock_text(play, "human") == "1:30" and clock_text(play, "engine") == "1:30"


def test_both_clocks_run_and_the_engine_gets_them(play: Page) -> None:
    bodies: list[dict[str, Any]] = []
    play.on(
        "request",
        lambda request: (
            bodies.append(json.loads(request.post_data or "{}"))
            if request.url.endswith("/api/move")
            else None
        ),
    )
    new_game_with_clock(play, "3+2")
    assert clock_text(play, "human") == "3:00" and clock_text(play, "engine") == "3:00"
    assert not clock_running(play, "human"), "the clocks start once each side has moved"
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    assert clock_running(play, "human") and not clock_running(play, "engine")
    click_move(play, "d2", "d4")
    wait_moves(play, 4)
    assert len(bodies) == 2
    # Before each side has moved once, no clock runs: the first search gets them full.
    assert bodies[0]["clock"] == {"white": MINUTES_3, "black": MINUTES_3, "increment": INCREMENT_2}
    # Black's clock runs from White's 2.d4: its second search gets what is left of it.
    clock = bodies[1]["clock"]
    assert set(clock) == {"white", "black", "increment"}
    assert MINUTES_3 - 60_000 < clock["black"] <= MINUTES_3
    assert 0 < clock["white"] <= MINUTES_3 + INCREMENT_2
    shot(play, "10-clocks")


def test_the_engines_round_trip_is_charged_to_its_clock(play: Page) -> None:
    new_game_with_clock(play, "3+2")
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    click_move(play, "d2", "d4")
    wait_moves(play, 4)
    # Black's clock ran from White's 2.d4 until the reply arrived, then gained the increment.
    black = game_value(play, "game.clock.times.black")
    assert 0 < black < MINUTES_3 + INCREMENT_2
    assert game_value(play, "game.clock.running") == "white"


def test_a_flag_loses_the_game(page: Page, server: str) -> None:
    page.clock.install()
    open_page(page, server)
    new_game_with_clock(page, "3+2")
    click_move(page, "e2", "e4")
    wait_moves(page, 2)  # White's clock now runs
    page.clock.fast_forward("03:05")
    wait_state(page, "over")
    text = banner(page)
    assert "0-1" in text and "White's time ran out" in text
    assert game_value(page, "game.end") == {"by": "flag", "color": "white"}
    assert page.locator('#app .player[data-player="human"] .clock').inner_text() == "0:00.0"
    shot(page, "11-flag")


def test_the_engine_loses_on_time_while_it_thinks(page: Page, server: str) -> None:
    page.clock.install()
    open_page(page, server)
    new_game_with_clock(page, "3+2")
    click_move(page, "e2", "e4")
    wait_moves(page, 2)
    held: list[Any] = []
    page.route("**/api/move", lambda route: held.append(route))  # the reply never comes
    click_move(page, "d2", "d4")
    page.wait_for_function("window.ferrochessPlay.game.phase === 'thinking'")
    page.clock.fast_forward("03:05")
    wait_state(page, "over")
    text = banner(page)
    assert "1-0" in text and "Black's time ran out" in text and "You win" in text


def test_a_flag_is_a_draw_when_the_opponent_cannot_mate(page: Page, server: str) -> None:
    page.clock.install()
    open_page(page, server)
    page.select_option('#app [data-role="time"]', "3+2")
    load_fen(page, "4k3/8/8/8/8/8/8/R3K3 w - - 0 1")  # the engine has a lone king
    click_move(page, "a1", "a2")
    wait_moves(page, 2)
    page.clock.fast_forward("03:05")
    wait_state(page, "over")
    text = banner(page)
    assert "½-½" in text and "cannot mate" in text


def test_a_reload_keeps_the_game_and_the_clocks(play: Page) -> None:
    new_game_with_clock(play, "5+3")
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    click_move(play, "d2", "d4")
    wait_moves(play, 4)
    played = moves(play)
    engine_before = game_value(play, "game.clock.times.black")
    human_before = game_value(play, "game.clock.remaining('white')")
    play.reload()
    wait_state(play, "ready")
    assert moves(play) == played
    assert game_value(play, "game.clock.times.black") == engine_before, "a stopped clock keeps"
    human_after = game_value(play, "game.clock.remaining('white')")
    assert 0 < human_after <= human_before, "the running clock went on during the reload"
    assert clock_running(play, "human") and not clock_running(play, "engine")
    assert play.locator('#app [data-role="time"]').input_value() == "5+3"
