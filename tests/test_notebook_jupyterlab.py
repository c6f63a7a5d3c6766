"""Guards the notebook boards in a real JupyterLab and a real Jupyter Notebook 7: a ``jupyter lab``
server on a free port with a token, a notebook whose one cell is ``play(level=1, book=False)``,
opened in Debian's Chromium by Playwright, in JupyterLab's interface and (when the ``notebook``
package is installed) in Notebook 7's. The cell is run, e2 and then e4 are clicked on the
chessground board, the engine's reply arrives over the widget's comm (a black piece moves), and
exactly one board is on screen (no second board beside it, as the old glyph grid plus SVG had).
The widget is screenshotted to tests/artifacts/notebook-widget*.png for a person to look at.
In JupyterLab, ``analyse(...)``'s analysis board too: the live engine's lines appear, a click on
the board makes a variation, and the kernel's ``board.game`` holds it (a later cell prints it);
screenshotted to tests/artifacts/notebook-analysis.png. And ``match(...)``'s live match: the
games in play on small boards with running clocks, the SPRT's LLR chart, the finished games,
and Stop; screenshotted to tests/artifacts/notebook-match.png.

Skips with the reason when jupyterlab, anywidget, Playwright, Chromium (or, for Notebook 7, the
notebook package) is missing.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.notebook

pytest.importorskip("jupyterlab", reason="jupyterlab is not installed (pip install jupyterlab)")
pytest.importorskip("anywidget", reason="anywidget is not installed (pip install anywidget)")
playwright_sync = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Page = playwright_sync.Page

from browser_helpers import CHROMIUM, CHROMIUM_ARGS  # noqa: E402 - after the skips

VIEWPORT = {"width": 1280, "height": 1000}
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
NOTEBOOK = "play.ipynb"
CELL = "from ferrochess.notebook import play\nplay(level=1, book=False)"
AGAIN = "_  # the widget of the cell above, shown again"
ANALYSIS_NOTEBOOK = "analysis.ipynb"
ANALYSIS_CELLS = [
    "from ferrochess.notebook import analyse\n"
    "board = analyse('1. e4 e5 2. Nf3 *', engine_on=True, lines=2, max_seconds=30)\nboard",
    "print(board.game.variations[0].variations[1])  # 1...d5, made on the board",
]
ANALYSIS_READY = ".ferrochess-widget .fc-analysis[data-state='ready']"
TRAIN_NOTEBOOK = "train.ipynb"
TRAIN_CELLS = [
    "from ferrochess.notebook import train\n"
    "train('1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0', color='black', nodes=20_000)",
]
"""Black's 3...Nf6?? punished by 4.Qxf7#: one puzzle, White to move."""
TRAIN_STATE = ".ferrochess-widget > div[data-state='{}']"
MATCH_NOTEBOOK = "match.ipynb"
MATCH_CELLS = [
    "from ferrochess.match import SPRT, Ferrochess, Limit, TimeControl\n"
    "from ferrochess.notebook import match\n"
    "live = match([Ferrochess(level=8), Ferrochess(level=6)], games=8, concurrency=2,\n"
    "             limit=Limit(clock=TimeControl(10, 0.1)), sprt=SPRT(0, 50))\n"
    "live",
    "result = live.result(timeout=120)\n"
    "print('cancelled' if result.cancelled else 'complete', len(result.games), 'games')",
]
"""Two games at once on a 10+0.1 clock (about ten seconds a pair), an SPRT that cannot decide in
four pairs: the boards are in play long enough to be seen, and the match is stopped."""
MATCH = ".ferrochess-widget .fc-match"
MATCH_VIEWPORT_HEIGHT = 1600
MATCH_TIMEOUT_MS = 180_000
"""For a pair of games to finish while JupyterLab and Chromium share two cores with them."""
SERVER_START_SECONDS = 120
TIMEOUT_MS = 60_000
"""Generous: JupyterLab, a kernel and an engine share two cores with other work in the tests."""

# The squares' centres in chessground's board, White at the bottom: x from the file, y from the
# rank, as fractions of the board's box.
SQUARE_CENTRE_JS = """
([board, square]) => {
  const box = board.getBoundingClientRect();
  const file = square.charCodeAt(0) - 97, rank = square.charCodeAt(1) - 49;
  const white = !board.closest('.cg-wrap').classList.contains('orientation-black');
  const x = white ? file : 7 - file, y = white ? 7 - rank : rank;
  return [box.left + (x + 0.5) * box.width / 8, box.top + (y + 0.5) * box.height / 8];
}
"""
RUN_ATTEMPTS = 5
RUN_WAIT_MS = 5_000
STARTED = re.compile(r"\[(\*|\d+)\]")
"""A cell's prompt once it has been sent to the kernel: ``[*]`` running, ``[1]`` done."""
PIECES_JS = """
(board) => [...document.querySelectorAll('cg-board')[board].querySelectorAll('piece')]
  .filter((piece) => !piece.classList.contains('fading'))
  .map((piece) => `${piece.classList.contains('white') ? 'w' : 'b'}:${piece.cgKey}`)
  .sort().join(' ')
"""
ANIMATION_OVER_JS = "() => !document.querySelector('cg-board piece.anim, cg-board piece.fading')"
"""chessground marks a moving piece ``anim`` and a captured one ``fading`` until it has arrived."""
READY = ".ferrochess-widget .fc-play[data-state='ready']"
"""The play UI waiting for the human's move (app.js writes its state on its root)."""
BLACK_SQUARES_JS = """
() => [...document.querySelectorAll('cg-board piece.black')]
  .filter((piece) => !piece.classList.contains('fading'))
  .map((piece) => piece.cgKey).sort().join(' ')
"""


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright launches Debian's Chromium (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} (Debian package chromium)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any]) -> dict[str, Any]:
    """A laptop's window: JupyterLab's side bar open, the notebook beside it."""
    return {**browser_context_args, "viewport": VIEWPORT}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def write_notebook(path: Path, sources: list[str]) -> None:
    notebook = {
        "cells": [
            {"cell_type": "code", "execution_count": None, "id": f"cell-{index}", "metadata": {},
             "outputs": [], "source": source}
            for index, source in enumerate(sources)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")


def quiet_settings(settings: Path) -> None:
    """User settings that keep JupyterLab from asking about news and updates."""
    extension = settings / "@jupyterlab" / "apputils-extension"
    notification = extension / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))


INTERFACES = {"jupyterlab": "lab/tree", "notebook7": "notebooks"}
"""Where each interface opens a notebook on the server (Notebook 7 comes with the notebook
package, which adds itself to the server)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A ``jupyter lab`` server serving a directory with the play notebook; yields its base URL
    and token."""
    home = tmp_path_factory.mktemp("lab")
    root = home / "notebooks"
    root.mkdir()
    write_notebook(root / NOTEBOOK, [CELL, AGAIN])
    write_notebook(root / ANALYSIS_NOTEBOOK, ANALYSIS_CELLS)
    write_notebook(root / TRAIN_NOTEBOOK, TRAIN_CELLS)
    write_notebook(root / MATCH_NOTEBOOK, MATCH_CELLS)
    quiet_settings(home / "settings")
    port = free_port()
    token = secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "MPLBACKEND": "Agg",
    }
    command = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        "--allow-root",  # containers and CI often run as root; the server listens on 127.0.0.1
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.user_settings_dir={home / 'settings'}",
        f"--LabApp.workspaces_dir={home / 'workspaces'}",
    ]  # fmt: skip
    log = (home / "server.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for_server(base, token, server, home / "server.log")
        yield base, token
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)
        log.close()


def wait_for_server(base: str, token: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"jupyter lab exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        # Polled: the server has no "listening" event to wait for (jupyter_server logs its
        # address before its event loop binds the port).
        time.sleep(0.5)
    tail = log.read_text()[-3000:]
    pytest.fail(f"jupyter lab did not answer in {SERVER_START_SECONDS} s:\n{tail}")


def click_square(page: Page, square: str) -> None:
    board = page.locator("cg-board").first.element_handle()
    x, y = page.evaluate(SQUARE_CENTRE_JS, [board, square])
    page.mouse.click(x, y)


def shot(page: Page, name: str) -> Path:
    """A picture of the first cell's output (the widget, as much as the output area shows)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    output = page.locator(".jp-Cell-outputArea").first
    output.scroll_into_view_if_needed()
    box = output.bounding_box()
    view = page.locator(".jp-Notebook").first.bounding_box()
    assert box is not None and view is not None
    top = max(box["y"], view["y"])
    bottom = min(box["y"] + box["height"], view["y"] + view["height"])
    clip = {"x": box["x"], "y": top, "width": box["width"], "height": bottom - top}
    page.screenshot(path=str(path), clip=clip)
    return path


def open_notebook(page: Page, lab: str) -> None:
    page.goto(lab)
    page.locator(".jp-Notebook .jp-CodeCell .cm-content").first.wait_for()
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']")


def run_cell(page: Page, index: int) -> None:
    """Run the notebook's cell ``index``, again until its prompt shows it running (a key pressed
    while JupyterLab is still settling can be lost)."""
    cell = page.locator(".jp-Notebook .jp-CodeCell").nth(index)
    for _attempt in range(RUN_ATTEMPTS):
        try:
            cell.locator(".cm-content").click()
        except playwright_sync.TimeoutError:
            # Something covered the cell for the whole timeout: a dialog of JupyterLab's (seen
            # once, under load) says what it wants in its text.
            pytest.fail(f"cell {index} could not be clicked; {open_dialogs(page)}")
        page.keyboard.press("Control+Enter")
        try:
            cell.locator(".jp-InputPrompt").filter(has_text=STARTED).wait_for(timeout=RUN_WAIT_MS)
            return
        except playwright_sync.TimeoutError:
            continue
    pytest.fail(f"cell {index} did not start after {RUN_ATTEMPTS} tries; {open_dialogs(page)}")


def open_dialogs(page: Page) -> str:
    """The texts of JupyterLab's open dialogs, for a failure's message."""
    dialogs = page.locator(".jp-Dialog")
    return f"dialogs open: {[dialogs.nth(i).inner_text() for i in range(dialogs.count())]!r}"


def piece_squares(page: Page, board: int) -> str:
    """Where the pieces of chessground board number ``board`` stand (``"b:e7 ... w:e4 ..."``)."""
    return str(page.evaluate(PIECES_JS, board))


INTERFACE_CODE = re.compile(r"^\s*at .*/static/(lab|notebook)/[^/]+\.js", re.M)
"""A stack frame in the interface's own bundles (not the widget's modules, which are blob URLs
named ferrochess/...)."""


def widget_error(error: Any) -> list[str]:
    """``[message]`` for an error the widget's code threw; ``[]`` for one thrown inside the
    interface's own code (Notebook 7.6 throws one while it loads any notebook)."""
    frames = [line for line in (error.stack or "").splitlines() if line.strip().startswith("at ")]
    if frames and INTERFACE_CODE.match(frames[0]):
        return []
    return [str(error)]


@pytest.fixture(params=sorted(INTERFACES))
def lab(request: pytest.FixtureRequest, server: tuple[str, str]) -> str:
    """The URL that opens the play notebook in one interface (token included)."""
    if request.param == "notebook7":
        pytest.importorskip("notebook", reason="Notebook 7 is not installed (pip install notebook)")
    base, token = server
    return f"{base}/{INTERFACES[request.param]}/{NOTEBOOK}?token={token}"


def test_play_in_jupyterlab_click_e2_e4_and_the_engine_replies(
    page: Page, lab: str, request: pytest.FixtureRequest
) -> None:
    interface = request.node.callspec.params["lab"]
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.extend(widget_error(error)))
    open_notebook(page, lab)
    run_cell(page, 0)

    page.wait_for_selector(f"{READY} cg-board piece, .ferrochess-widget-error")
    failure = page.locator(".ferrochess-widget-error")
    assert not failure.count(), failure.first.inner_text()
    page.wait_for_function("() => document.querySelectorAll('cg-board piece').length === 32")
    # play()'s arguments reached the front end: the first game is played without the book.
    assert not page.get_by_label("Opening book").is_checked()
    start = page.evaluate(BLACK_SQUARES_JS)
    shot(page, f"notebook-widget-start-{interface}")

    click_square(page, "e2")
    click_square(page, "e4")
    page.wait_for_function(
        "() => [...document.querySelectorAll('cg-board piece.white.pawn')]"
        ".some((piece) => piece.cgKey === 'e4')"
    )
    page.wait_for_function(f"() => ({BLACK_SQUARES_JS})() !== {json.dumps(start)}")
    page.wait_for_selector(READY)  # the human's turn again, after the engine's move
    # The board is the only one: chessground's, drawn once (no glyph grid, no SVG beside it).
    assert page.locator("cg-board").count() == 1
    assert page.locator(".jp-OutputArea svg .square").count() == 0
    page.wait_for_function(ANIMATION_OVER_JS)  # the reply's animation ends before the picture
    shot(page, f"notebook-widget-{interface}")

    # Shown again (a second view of the same widget), the game is there: the front end saved it
    # in the widget's synced storage, which lives in the kernel.
    after = piece_squares(page, 0)
    run_cell(page, 1)
    page.wait_for_function("() => document.querySelectorAll('cg-board').length === 2")
    page.wait_for_function(f"() => ({PIECES_JS})(1) === {json.dumps(after)}", timeout=TIMEOUT_MS)
    assert not errors, errors


def test_analyse_in_jupyterlab_engine_lines_and_a_variation_reach_the_kernel(
    page: Page, server: tuple[str, str]
) -> None:
    base, token = server
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.extend(widget_error(error)))
    # A workspace of its own, reset: only this notebook is open (the play tests left theirs).
    workspace = f"{base}/lab/workspaces/analyse/tree/{ANALYSIS_NOTEBOOK}"
    open_notebook(page, f"{workspace}?reset&token={token}")
    run_cell(page, 0)

    try:
        page.wait_for_selector(f"{ANALYSIS_READY}, .ferrochess-widget-error")
    except playwright_sync.TimeoutError:
        shot(page, "notebook-analysis-failed")
        outputs = page.locator(".jp-Notebook .jp-CodeCell").first.locator(".jp-OutputArea")
        pytest.fail(f"no analysis board; the cell's output: {outputs.inner_text()!r}")
    failure = page.locator(".ferrochess-widget-error")
    assert not failure.count(), failure.first.inner_text()
    board = page.locator(ANALYSIS_READY)
    # The engine was asked on: its two lines come over the comm, for the start position.
    page.wait_for_function(
        "() => document.querySelectorAll('.fc-analysis [data-testid=ceval-line]').length === 2"
    )
    # After 1.e4, Black's 1...d5 instead of 1...e5: a variation, and the board goes to it.
    board.locator('.move[data-path="0"]').click()
    page.wait_for_function("() => document.querySelector('.fc-analysis').dataset.shown === '0'")
    click_square(page, "d7")
    click_square(page, "d5")
    page.wait_for_function("() => document.querySelector('.fc-analysis').dataset.path === '0.1'")
    page.wait_for_function(
        "() => document.querySelectorAll('.fc-analysis [data-testid=ceval-line]').length === 2"
    )
    page.wait_for_function(ANIMATION_OVER_JS)
    ARTIFACTS.mkdir(exist_ok=True)
    board.screenshot(path=str(ARTIFACTS / "notebook-analysis.png"))

    # The kernel has the variation: board.game is the game as it stands on the board.
    run_cell(page, 1)
    output = page.locator(".jp-Notebook .jp-CodeCell").nth(1).locator(".jp-OutputArea-output")
    output.filter(has_text="d5").wait_for()
    assert "1... d5" in output.inner_text()
    assert not errors, errors


def test_train_in_jupyterlab_a_puzzle_from_a_game_is_solved_on_the_board(
    page: Page, server: tuple[str, str]
) -> None:
    base, token = server
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.extend(widget_error(error)))
    open_notebook(page, f"{base}/lab/workspaces/train/tree/{TRAIN_NOTEBOOK}?reset&token={token}")
    run_cell(page, 0)
    try:
        page.wait_for_selector(f"{TRAIN_STATE.format('solving')}, .ferrochess-widget-error")
    except playwright_sync.TimeoutError:
        shot(page, "notebook-train-failed")
        outputs = page.locator(".jp-Notebook .jp-CodeCell").first.locator(".jp-OutputArea")
        pytest.fail(f"no training board; the cell's output: {outputs.inner_text()!r}")
    failure = page.locator(".ferrochess-widget-error")
    assert not failure.count(), failure.first.inner_text()
    page.wait_for_function(ANIMATION_OVER_JS)
    ARTIFACTS.mkdir(exist_ok=True)
    widget = page.locator(".ferrochess-widget").first
    widget.screenshot(path=str(ARTIFACTS / "notebook-train.png"))
    # A game without headers is named as such, not by PGN's "?" placeholders.
    source = widget.locator('[data-testid="source"]').inner_text()
    assert source == "From the game (move 4.)", source
    click_square(page, "h5")
    click_square(page, "f7")
    page.wait_for_selector(TRAIN_STATE.format("solved"))
    assert not errors, errors


def test_match_in_jupyterlab_shows_the_games_in_play_the_llr_and_stops(
    page: Page, server: tuple[str, str]
) -> None:
    """``ferrochess.notebook.match(...)`` in a cell: the two games in play on small chessground
    boards with the players' names and running clocks, the SPRT's LLR chart between its bounds,
    finished games listed (a row shows its final position), and Stop ends the match with its
    partial result (the kernel's ``result()`` says so)."""
    base, token = server
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.extend(widget_error(error)))
    open_notebook(page, f"{base}/lab/workspaces/match/tree/{MATCH_NOTEBOOK}?reset&token={token}")
    run_cell(page, 0)
    failed = ".ferrochess-widget-error, .fc-match [data-testid=error]:not([hidden])"
    try:
        page.wait_for_selector(f"{MATCH} [data-testid=live-game] cg-board piece, {failed}")
    except playwright_sync.TimeoutError:
        shot(page, "notebook-match-failed")
        outputs = page.locator(".jp-Notebook .jp-CodeCell").first.locator(".jp-OutputArea")
        pytest.fail(f"no match view; the cell's output: {outputs.inner_text()!r}")
    for failure in (page.locator(".ferrochess-widget-error"),
                    page.locator(".fc-match [data-testid=error]:not([hidden])")):  # fmt: skip
        assert not failure.count(), failure.first.inner_text()

    # The games in play: two small boards, each with both players and a running clock.
    page.wait_for_function(
        "() => document.querySelectorAll('.fc-match [data-testid=live-game] cg-board').length === 2"
    )
    tile = page.locator(f"{MATCH} [data-testid=live-game]").first
    names = tile.locator(".mini-name").all_inner_texts()
    assert sorted(names) == ["ferrochess level 6", "ferrochess level 8"], names
    clocks = tile.locator(".mini-time").all_inner_texts()
    assert len(clocks) == 2 and all(re.fullmatch(r"0:\d\d(\.\d)?", c) for c in clocks), clocks
    assert tile.locator(".mini-time.running").count() == 1
    # The SPRT: its LLR drawn between the bounds +-2.94, with their values.
    llr = page.locator(f"{MATCH} [data-testid=llr] svg.llr-chart")
    llr.wait_for()
    labels = llr.locator(".llr-label").all_text_contents()
    assert "2.94" in labels and "\u22122.94" in labels, labels
    assert page.locator(f"{MATCH} [data-testid=status]").inner_text() == "Playing"

    # A pair finishes while the next is played: its games are listed, and a row shows its end.
    rows = page.locator(f"{MATCH} [data-testid=games-table] tbody tr")
    page.wait_for_function(
        "() => document.querySelectorAll('.fc-match [data-testid=games-table] tbody tr').length"
        " >= 2 && document.querySelectorAll('.fc-match [data-testid=live-game]').length > 0",
        timeout=MATCH_TIMEOUT_MS,
    )
    rows.last.click()
    chosen = rows.last.get_attribute("data-game")
    viewer = page.locator(f"{MATCH} [data-testid=final-position] [data-testid=final-game]")
    page.wait_for_function(
        f"() => document.querySelector('.fc-match [data-testid=final-game]')?.dataset.game"
        f" === {json.dumps(chosen)}"
    )
    assert viewer.locator("cg-board piece").count() > 0
    assert page.locator(f"{MATCH} [data-testid=ptnml]").inner_text().startswith("Ptnml(0-2): ")
    # A taller window, so the whole widget is inside JupyterLab's notebook panel for its picture.
    page.set_viewport_size({"width": VIEWPORT["width"], "height": MATCH_VIEWPORT_HEIGHT})
    page.wait_for_function(ANIMATION_OVER_JS)
    ARTIFACTS.mkdir(exist_ok=True)
    widget = page.locator(".ferrochess-widget").first
    widget.screenshot(path=str(ARTIFACTS / "notebook-match.png"))

    # Stop: the match ends with the games finished so far, in the widget and in the kernel.
    page.locator(f"{MATCH} [data-action=stop]").click()
    page.wait_for_selector(f"{MATCH}[data-status='stopped']", timeout=MATCH_TIMEOUT_MS)
    assert page.locator(f"{MATCH} [data-testid=live-game]").count() == 0
    assert not page.locator(f"{MATCH} [data-action=stop]").is_visible()
    listed = rows.count()
    widget.screenshot(path=str(ARTIFACTS / "notebook-match-stopped.png"))
    run_cell(page, 1)
    output = page.locator(".jp-Notebook .jp-CodeCell").nth(1).locator(".jp-OutputArea-output")
    output.filter(has_text="games").wait_for()
    assert output.inner_text().strip() == f"cancelled {listed} games"
    assert not errors, errors
