"""Guards what the play page does about searches it no longer needs and about other tabs, in a
real browser (Playwright driving Debian's Chromium): a takeback, a new game, a reload and closing
the page each send api/cancel for this tab's client id, so the server stops the search at once
(its api/move is answered 409 and the engine is free again, long before the search's limit); two
tabs on one game: the tab left behind is told the game continues in the other, and takes it back
with a button. Skips without Chromium or Playwright."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest
from browser_helpers import (
    FAST,
    Page,
    Served,
    chromium_fixture,  # noqa: F401 - fixtures
    click_move,
    game_value,
    moves,
    open_page,
    serve,
    shot,
    wait_moves,
    wait_state,
)

if TYPE_CHECKING:
    from conftest import Searching

LONG_SEARCH_SECONDS = 8.0
TIMEOUT = 30.0


@pytest.fixture(scope="module")
def one_engine() -> Iterator[Served]:
    """One engine whose full-strength searches last LONG_SEARCH_SECONDS."""
    config = {
        **FAST,
        "FERROCHESS_ENGINES": 1,
        "FERROCHESS_MAX_THINK_SECONDS": LONG_SEARCH_SECONDS,
        "FERROCHESS_BUSY_WAIT_SECONDS": 1.0,
    }
    with serve(config) as served:
        yield served


def start_a_long_search(page: Page, served: Served, searching: Searching) -> str:
    """The page plays 1.e4 at full strength without the book; returns once the server's only
    engine is searching for the reply. Returns the page's client id."""
    page.select_option('#app [data-role="level"]', "10")
    page.uncheck('#app [data-role="book"]')
    page.click('#app [data-action="new-game"]')
    wait_state(page, "ready")
    click_move(page, "e2", "e4")
    page.wait_for_function("window.ferrochessPlay.game.phase === 'thinking'")
    searching.wait()
    assert served.free_engines() == 0, "the only engine searches"
    return str(game_value(page, "game.clientId"))


def takeback(page: Page) -> None:
    page.click('#app [data-action="takeback"]')
    wait_state(page, "ready")


def new_game(page: Page) -> None:
    page.click('#app [data-action="new-game"]')
    wait_state(page, "ready")


def reload(page: Page) -> None:
    page.reload(wait_until="commit")


def close(page: Page) -> None:
    page.close(run_before_unload=True)


@pytest.mark.parametrize(
    "leave", [takeback, new_game, reload, close], ids=["takeback", "new-game", "reload", "close"]
)
def test_leaving_a_search_cancels_it_on_the_server(
    page: Page, one_engine: Served, leave: Callable[[Page], None], searching: Searching
) -> None:
    open_page(page, one_engine.url)
    one_engine.requests.clear()
    client = start_a_long_search(page, one_engine, searching)
    leave(page)
    # The search ends long before its limit: its request is answered "cancelled" (409), and the
    # cancel is answered once the search has ended.
    searches = one_engine.wait_answered("/api/move", LONG_SEARCH_SECONDS / 2)
    assert searches, "the search was not stopped"
    body, status = searches[0]
    assert status == 409 and body["client"] == client
    cancels = [body for body, _status in one_engine.wait_answered("/api/cancel", TIMEOUT)]
    assert {"client": client} in cancels


def test_a_second_tab_leaves_the_first_one_stale(page: Page, one_engine: Served) -> None:
    first = open_page(page, one_engine.url)
    first.select_option('#app [data-role="level"]', "1")
    first.click('#app [data-action="new-game"]')
    wait_state(first, "ready")
    second = first.context.new_page()
    second.set_default_timeout(30_000)
    second.goto(one_engine.url)
    wait_state(second, "ready")
    wait_state(first, "stale")
    notice = first.locator("#app .stale")
    assert notice.is_visible() and "continues in another tab" in notice.inner_text()
    shot(first, "20-stale-tab")
    click_move(second, "e2", "e4")
    wait_moves(second, 2)
    played = moves(second)
    first.click('#app [data-action="take-over"]')
    wait_state(first, "ready")
    assert moves(first) == played, "the first tab goes on with the game as the second left it"
    wait_state(second, "stale")
    assert not first.locator("#app .stale").is_visible()
