"""Shared by the play page's browser tests (tests/test_web_*.py that drive Chromium): the play app
served on a free port, Debian's Chromium for pytest-playwright, and helpers that act on
chessground's board the way a person does (clicks and drags at a square's place on the screen)
and read what it shows. A test module imports the fixtures it uses from here."""

from __future__ import annotations

import io
import json
import shutil
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
Page = playwright_sync.Page
expect = playwright_sync.expect

from ferrochess.web import create_app  # noqa: E402
from flask import Flask  # noqa: E402
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
DRAWN_MS = 5_000
"""How long the board may take to show what a test expects (chessground draws on the next
animation frame, and animates moves)."""
STORAGE_KEY = "ferrochess.play.game"
START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
FAST = {
    "FERROCHESS_ENGINES": 2,
    "FERROCHESS_MAX_THINK_SECONDS": 0.3,
    "FERROCHESS_NATURAL_DELAY": False,
    "FERROCHESS_DRAW_NODES": 20_000,
    "FERROCHESS_REVIEW_NODES": 5_000,
    "FERROCHESS_JUDGE_NODES": 5_000,
}
"""A server that answers quickly: short searches, no natural thinking time."""


# The fixtures below are named explicitly, so that a test module imports them as
# ``from browser_helpers import chromium_fixture  # noqa: F401`` and its tests still take the
# arguments ``browser_type_launch_args``, ``server`` and ``play`` without shadowing the import.


@pytest.fixture(scope="session", name="browser_type_launch_args")
def chromium_fixture(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """pytest-playwright launches Debian's Chromium (never a downloaded browser)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM} (Debian package chromium)")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


browser_type_launch_args = chromium_fixture
"""The same fixture under its own name, for modules that import it so."""


@dataclass
class Served:
    """A running play app: its URL (ending in "/"), the Flask app, and every API request it
    answered as ``(path, JSON body or None, status)``, in the order they ended."""

    url: str
    app: Flask
    requests: list[tuple[str, Any, int]] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)
    """Notified whenever a request is added to ``requests``."""

    def record(self, path: str, body: Any, status: int) -> None:
        with self.changed:
            self.requests.append((path, body, status))
            self.changed.notify_all()

    def answered(self, path: str) -> list[tuple[Any, int]]:
        """The bodies and statuses of the requests to ``path`` ("/api/move")."""
        with self.changed:
            return [(body, status) for seen, body, status in self.requests if seen == path]

    def wait_answered(self, path: str, seconds: float) -> list[tuple[Any, int]]:
        """:meth:`answered` once a request to ``path`` has been answered, or after ``seconds``
        without one (an empty list: the caller asserts on it)."""
        with self.changed:
            self.changed.wait_for(lambda: any(seen == path for seen, *_ in self.requests), seconds)
        return self.answered(path)

    def free_engines(self) -> int:
        return int(self.app.extensions["ferrochess_pool"].free())


def recording(app: Flask, served: Served) -> Callable[..., Any]:
    """``app`` as a WSGI app that records each /api/ request's path, body and status in
    ``served`` once it is answered."""

    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO", "")
        if not path.startswith("/api/"):
            return app(environ, start_response)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(raw)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        status: list[int] = []

        def start(status_line: str, headers: Any, *rest: Any) -> Any:
            status.append(int(status_line.split()[0]))
            return start_response(status_line, headers, *rest)

        def answer() -> Iterator[bytes]:
            try:
                yield from app(environ, start)
            finally:
                served.record(path, body, status[0] if status else 0)

        return answer()

    return wsgi


@contextmanager
def serve(config: Mapping[str, Any]) -> Iterator[Served]:
    """The play app with ``config`` on a free port of 127.0.0.1, served by a real HTTP server in
    a thread, its API requests recorded."""
    app = create_app(dict(config))
    served = Served("", app)
    http = make_server("127.0.0.1", 0, recording(app, served), threaded=True)
    served.url = f"http://127.0.0.1:{http.server_port}/"
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        http.shutdown()
        thread.join(10)
        app.extensions["ferrochess_pool"].close()


@pytest.fixture(scope="module", name="server")
def server_fixture() -> Iterator[str]:
    """The play app answering quickly (FAST), one per test module; yields its URL."""
    with serve(FAST) as served:
        yield served.url


def open_page(
    page: Page, url: str, saved: dict[str, Any] | None = None, *, settled: bool = True
) -> Page:
    """The page at ``url`` with localStorage holding ``saved`` (or nothing), ready to play;
    with ``settled=False``, as soon as its document has arrived (its resources may not have)."""
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url + "api/levels")  # the same origin, without a page that would save a game
    page.evaluate(
        "([key, value]) => { localStorage.clear(); if (value) localStorage.setItem(key, value); }",
        [STORAGE_KEY, json.dumps(saved) if saved is not None else None],
    )
    if not settled:
        page.goto(url, wait_until="commit")
        return page
    page.goto(url)
    wait_settled(page)
    return page


@pytest.fixture(name="play")
def play_fixture(page: Page, server: str) -> Page:
    """The page, freshly loaded with no saved game, the human (White) to move."""
    return open_page(page, server)


def saved_game(
    moves: list[str], human: str = "white", fen: str = START_FEN, **extra: Any
) -> dict[str, Any]:
    """What the page keeps in localStorage for a game (app.js's save())."""
    game = {
        "fen": fen,
        "moves": moves,
        "end": None,
        "human": human,
        "level": 4,
        "book": True,
        "timeControl": None,
        "clock": None,
        **extra,
    }
    return {"owner": "a-test", "game": game, "orientation": human, "showEngine": None}


def shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def state(page: Page) -> str:
    return str(page.get_attribute("#app", "data-state"))


def wait_state(page: Page, *states: str) -> None:
    selector = ", ".join(f'#app[data-state="{name}"]' for name in states)
    page.wait_for_selector(selector)


REVIEW_PANEL = '#app [data-panel="review"]'
"""The review's panel (its graph, moves and "learn from your mistakes")."""


def skip_lessons_until(page: Page, text: str) -> None:
    """In "learn from your mistakes", the next lesson until the prompt names ``text`` (each
    skipped lesson's feedback cleared and White to move on the board again)."""
    prompt = page.locator(f"{REVIEW_PANEL} .review-prompt")
    while text not in prompt.inner_text():
        page.click(f"{REVIEW_PANEL} .review-next")
        page.wait_for_function(
            "(panel) => document.querySelector(panel + ' .review-feedback').textContent === ''"
            " && window.ferrochessPlay.board.ground.state.movable.color === 'white'",
            arg=REVIEW_PANEL,
        )


def wait_settled(page: Page) -> None:
    """Until the human is to move or the game is over."""
    wait_state(page, "ready", "over")


def moves(page: Page) -> list[str]:
    return [text.strip() for text in page.locator("#app .moves .move").all_inner_texts()]


def wait_moves(page: Page, count: int) -> None:
    """Until the move list has ``count`` moves and the page is settled."""
    page.wait_for_function(
        f"document.querySelectorAll('#app .moves .move').length >= {count}", timeout=TIMEOUT_MS
    )
    wait_settled(page)


def square_center(page: Page, square: str) -> tuple[float, float]:
    """Where ``square`` is on the screen, from the board's box and orientation (the board is
    scrolled into view first)."""
    page.locator("#app cg-board").scroll_into_view_if_needed()
    x, y = page.evaluate(
        """(square) => {
          const board = document.querySelector('#app cg-board');
          const box = board.getBoundingClientRect();
          const white = board.closest('.cg-wrap').classList.contains('orientation-white');
          const file = square.charCodeAt(0) - 97, rank = square.charCodeAt(1) - 49;
          const column = white ? file : 7 - file, row = white ? 7 - rank : rank;
          const size = box.width / 8;
          return [box.left + (column + 0.5) * size, box.top + (row + 0.5) * size];
        }""",
        square,
    )
    return float(x), float(y)


def click_square(page: Page, square: str) -> None:
    x, y = square_center(page, square)
    page.mouse.click(x, y)


def click_move(page: Page, origin: str, target: str) -> None:
    click_square(page, origin)
    click_square(page, target)


def drag_move(page: Page, origin: str, target: str, button: str = "left") -> None:
    start = square_center(page, origin)
    end = square_center(page, target)
    page.mouse.move(*start)
    page.mouse.down(button=button)  # type: ignore[arg-type]
    page.mouse.move(*end, steps=8)
    page.mouse.up(button=button)  # type: ignore[arg-type]


PIECE_ON_JS = """(square) => {
  const pieces = [...document.querySelectorAll('#app cg-board piece')];
  const piece = pieces.find((p) => p.cgKey === square && !p.classList.contains('ghost')
    && !p.classList.contains('fading'));
  if (!piece) return null;
  const color = ['white', 'black'].find((c) => piece.classList.contains(c));
  const role = ['king', 'queen', 'rook', 'bishop', 'knight', 'pawn']
    .find((r) => piece.classList.contains(r));
  return `${color} ${role}`;
}"""
"""The piece chessground draws on a square, as "white knight", or null."""
SQUARES_WITH_JS = """(cls) => [...document.querySelectorAll(`#app cg-board square.${cls}`)]
  .filter((s) => s.style.display !== 'none').map((s) => s.cgKey).sort()"""
"""The squares chessground marks with a class, sorted; it hides the marks it no longer needs
rather than removing them."""
PLACEMENT_JS = "() => window.ferrochessPlay.board.ground.getFen()"
"""The piece placement the board shows, as chessground writes it (a FEN's first field)."""


def piece_on(page: Page, square: str) -> str | None:
    """The piece chessground draws on ``square``, as "white knight", or None."""
    found = page.evaluate(PIECE_ON_JS, square)
    return None if found is None else str(found)


def shown(page: Page, function: str, arg: Any, expected: Any, timeout_ms: float = DRAWN_MS) -> Any:
    """The page's ``function(arg)`` (JavaScript, returning JSON) once it equals ``expected``, or
    its value after ``timeout_ms`` without it (the caller asserts on it). Playwright evaluates it
    on every animation frame, so it sees the board as soon as chessground has drawn it."""
    try:
        page.wait_for_function(
            f"([arg, expected]) => JSON.stringify(({function})(arg)) === expected",
            arg=[arg, json.dumps(expected, separators=(",", ":"))],
            timeout=timeout_ms,
        )
    except playwright_sync.TimeoutError:
        pass
    return page.evaluate(function, arg)


def squares_with(page: Page, css_class: str) -> set[str]:
    """The squares chessground marks with ``css_class`` (move-dest, last-move, check, ...)."""
    return set(page.evaluate(SQUARES_WITH_JS, css_class))


def expect_piece(page: Page, square: str, piece: str | None) -> None:
    """Asserts that chessground shows ``piece`` ("white pawn", or None) on ``square`` once it
    has drawn."""
    found = shown(page, PIECE_ON_JS, square, piece)
    assert found == piece, f"{square} shows {found!r}, not {piece!r}"


def expect_squares(page: Page, css_class: str, squares: set[str]) -> None:
    """Asserts that chessground marks exactly ``squares`` with ``css_class`` once it has drawn."""
    found = set(shown(page, SQUARES_WITH_JS, css_class, sorted(squares)))
    assert found == squares, f"{css_class}: {sorted(found)}, not {sorted(squares)}"


def expect_placement(page: Page, fen: str) -> None:
    """Asserts that the board shows the piece placement of ``fen`` (as chessground writes it)."""
    placement = fen.split(" ")[0]
    found = shown(page, PLACEMENT_JS, None, placement)
    assert found == placement, f"the board shows {found}, not {placement}"


def load_fen(page: Page, fen: str) -> None:
    """Sets up ``fen`` through the page's form; returns when the new game is settled."""
    page.fill('#app [data-role="fen-input"]', fen)
    page.click('#app [data-action="set-up"]')
    page.wait_for_function(
        "(fen) => window.ferrochessPlay.game.fen === fen && window.ferrochessPlay.game.state"
        " && window.ferrochessPlay.game.state.start_fen === fen",
        arg=chess.Board(fen).fen(),
    )
    wait_settled(page)


def game_value(page: Page, expression: str) -> Any:
    """``expression`` evaluated with ``game`` bound to the page's PlayGame (game.js)."""
    script = f"(() => {{ const game = window.ferrochessPlay.game; return {expression}; }})()"
    return page.evaluate(script)


def banner(page: Page) -> str:
    return page.locator("#app .game-over").inner_text()


RESIGN = '#app [data-action="resign"]'
"""The resign button: its first click asks "Confirm resign?" (data-confirm="yes"), as lichess's."""


def resign(page: Page) -> None:
    """Resigns the game shown, as a player does: "Resign", then the confirmation."""
    page.click(RESIGN)
    page.click(f'{RESIGN}[data-confirm="yes"]')


def review_saved_game(
    page: Page, url: str, moves: list[str], human: str = "white", **extra: Any
) -> Page:
    """The page with the finished game ``moves`` (saved as the page saves it, with ``extra``
    fields of the game), reviewed: the review's panel shown and the page in "reviewed"."""
    open_page(page, url, saved_game(moves, human=human, **extra))
    wait_state(page, "over")
    page.click('#app [data-action="review"]')
    page.wait_for_selector(f'{REVIEW_PANEL}[data-review-state="reviewed"]')
    wait_state(page, "reviewed")
    return page


# --- the analysis board (/analysis, static/analysis/) --------------------------------------------

ANALYSIS_TREE_KEY = "ferrochess.analysis.tree"
"""Where the analysis board keeps its tree, path and engine switch (store.js)."""
ANALYSIS_HANDOFF_KEY = "ferrochess.analysis.handoff"
"""The game the play page hands to the analysis board (read once, then removed)."""


def open_analysis(
    page: Page,
    url: str,
    *,
    saved: dict[str, Any] | None = None,
    handoff: dict[str, Any] | None = None,
    query: str = "",
) -> Page:
    """The analysis board at ``url`` + "analysis" + ``query``, with localStorage holding only the
    ``saved`` board (store.js's shape) and the ``handoff``, once it has drawn its first position."""
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url + "api/levels")  # the same origin, without a page that would save anything
    entries = []
    if saved is not None:
        entries.append([ANALYSIS_TREE_KEY, json.dumps(saved)])
    if handoff is not None:
        entries.append([ANALYSIS_HANDOFF_KEY, json.dumps(handoff)])
    page.evaluate(
        """(entries) => {
          localStorage.clear();
          for (const [key, value] of entries) localStorage.setItem(key, value);
        }""",
        entries,
    )
    page.goto(url + "analysis" + query)
    page.wait_for_selector('#app[data-state="ready"]')
    return page


def wait_analysis_path(page: Page, path: str) -> None:
    """Until the analysis board shows the node at ``path`` ("" the root, "0.0.1") with its
    position drawn."""
    page.wait_for_selector(f'#app[data-path="{path}"][data-shown="{path}"]')


def analysis_path(page: Page) -> str:
    """The path of the node the analysis board shows."""
    return str(page.get_attribute("#app", "data-path"))


# --- the games archive (/games, /game/<id>; the play page's static/play/archive.js) ------------

ARCHIVE_STATUS = "#app .archive-status"
"""Where the play page says where the finished game stands in the server's games archive."""
ARCHIVE_OUTBOX_KEY = "ferrochess.archive.outbox"
"""The play page's outbox: finished games (and reviews) not stored by the server yet."""
ARCHIVE_STORED_KEY = "ferrochess.archive.stored"
"""The games the play page has seen stored (or refused), by the game's client id."""


@contextmanager
def serve_archive(database: Path, config: Mapping[str, Any] = FAST) -> Iterator[Served]:
    """:func:`serve` with a games archive in the SQLite file ``database``."""
    with serve({**config, "FERROCHESS_DATABASE": str(database)}) as served:
        try:
            yield served
        finally:
            served.app.extensions["ferrochess_archive"].close()


def archived_games(served: Served) -> list[dict[str, Any]]:
    """Every game the served app's archive holds, newest first, each in full (its moves, clocks
    and review too: ``Archive.get_game``)."""
    archive = served.app.extensions["ferrochess_archive"]
    games, total = archive.list_games(per_page=100)
    assert total == len(games)
    return [archive.get_game(game["id"]) for game in games]


def wait_archive_state(page: Page, archive_state: str, timeout_ms: float = TIMEOUT_MS) -> str:
    """Until the play page says the game is ``archive_state`` in the archive (saving, waiting,
    saved, refused); returns what it says."""
    selector = f'{ARCHIVE_STATUS}[data-archive-state="{archive_state}"]'
    page.wait_for_selector(selector, state="visible", timeout=timeout_ms)
    return page.inner_text(selector)
