"""Guards the play page in a real browser (Playwright driving Debian's Chromium): a game played by
clicking and by dragging, an underpromotion, takeback, flip, new game, a reload that keeps the
game, a game-over banner after a mate, the engine panel filled in. Screenshots of each scene are
saved in tests/artifacts/ for a person to look at. Skips without Chromium or Playwright."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
Page = playwright_sync.Page

from ferrochess.web import create_app  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
TIMEOUT_MS = 30_000


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright launches Debian's Chromium (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} (Debian package chromium)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The play app on a free port of 127.0.0.1, served by a real HTTP server in a thread."""
    app = create_app({"FERROCHESS_ENGINES": 2, "FERROCHESS_MAX_THINK_SECONDS": 1.0})
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_port}"
    http.shutdown()
    thread.join(10)
    app.extensions["ferrochess_pool"].close()


@pytest.fixture
def play(page: Page, server: str) -> Page:
    """The page, freshly loaded with no saved game, the human to move."""
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server + "/")
    page.evaluate("localStorage.clear()")
    page.goto(server + "/")
    wait_ready(page)
    return page


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def wait_ready(page: Page) -> None:
    page.wait_for_selector('body[data-state="ready"], body[data-state="over"]')


def square(square_name: str) -> str:
    return f'#board [data-square="{square_name}"]'


def moves(page: Page) -> list[str]:
    return [text.strip() for text in page.locator("#moves .move").all_inner_texts()]


def wait_moves(page: Page, count: int) -> None:
    page.wait_for_function(
        f"document.querySelectorAll('#moves .move').length >= {count}", timeout=TIMEOUT_MS
    )
    wait_ready(page)


def click_move(page: Page, origin: str, target: str) -> None:
    page.click(square(origin))
    page.click(square(target))


def drag_move(page: Page, origin: str, target: str) -> None:
    start = page.locator(square(origin)).bounding_box()
    end = page.locator(square(target)).bounding_box()
    assert start is not None and end is not None
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=8)
    page.mouse.up()


def load_fen(page: Page, fen: str) -> None:
    page.fill("#fen-input", fen)
    page.click("#load-fen")
    wait_ready(page)


def test_click_and_drag_a_short_game(play: Page) -> None:
    shot(play, "01-start")
    assert play.locator("#board .square").count() == 64
    assert play.locator('#board img.piece[data-piece="wK"]').count() == 1
    play.click(square("g1"))
    legal = play.locator("#board .square.legal")
    assert {legal.nth(i).get_attribute("data-square") for i in range(legal.count())} == {"f3", "h3"}
    play.click(square("f3"))
    wait_moves(play, 2)
    assert moves(play)[0] == "Nf3"
    assert play.locator(square("f3") + " img.piece").get_attribute("data-piece") == "wN"
    assert play.locator("#source").inner_text().strip() != ""
    drag_move(play, "e2", "e4")
    wait_moves(play, 4)
    assert moves(play)[2] == "e4"
    last = play.locator("#board .square.last-move")
    assert last.count() == 2
    shot(play, "02-after-click-and-drag")


def test_underpromotion_to_a_knight(play: Page) -> None:
    load_fen(play, "8/P7/8/8/8/8/p7/k6K w - - 0 1")
    click_move(play, "a7", "a8")
    play.wait_for_selector("#promotion:not([hidden])")
    shot(play, "03-promotion-chooser")
    play.click('#promotion button[data-promotion="n"]')
    wait_moves(play, 2)
    assert moves(play)[0].startswith("a8=N")
    assert play.locator(square("a8") + " img.piece").get_attribute("data-piece") == "wN"


def test_takeback_flip_new_game_and_reload(play: Page, server: str) -> None:
    click_move(play, "d2", "d4")
    wait_moves(play, 2)
    click_move(play, "c2", "c4")
    wait_moves(play, 4)
    played = moves(play)
    play.click("#takeback")
    wait_ready(play)
    assert moves(play) == played[:2]
    play.click("#flip")
    assert play.locator("#board").get_attribute("data-orientation") == "black"
    shot(play, "04-flipped")
    # A reload finds the same game and orientation.
    play.reload()
    wait_ready(play)
    assert moves(play) == played[:2]
    assert play.locator("#board").get_attribute("data-orientation") == "black"
    play.click("#flip")
    play.click("#new-game")
    wait_ready(play)
    assert moves(play) == []
    assert play.locator(square("d2") + " img.piece").get_attribute("data-piece") == "wP"


def test_mate_shows_the_game_over_banner(play: Page) -> None:
    load_fen(play, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
    click_move(play, "a1", "a8")
    play.wait_for_selector('body[data-state="over"]')
    banner = play.locator("#game-over")
    assert banner.is_visible()
    text = banner.inner_text().lower()
    assert "checkmate" in text and "1-0" in text
    assert play.locator("#board .square.check").count() == 1
    shot(play, "05-checkmate")


def test_engine_panel_and_hint(play: Page) -> None:
    play.select_option("#level", "6")
    play.uncheck("#book")
    click_move(play, "e2", "e4")
    wait_moves(play, 2)
    assert play.locator("#source").inner_text().lower().find("search") >= 0
    assert play.locator("#depth").inner_text().strip() not in ("", "0")
    assert play.locator("#pv").inner_text().strip() != ""
    play.click("#hint")
    play.wait_for_function("document.querySelector('#hint-text').textContent.includes('Hint:')")
    assert play.locator("#board .square.hint").count() == 2
    assert len(moves(play)) == 2, "a hint is shown, not played"
    shot(play, "06-engine-panel-and-hint")
