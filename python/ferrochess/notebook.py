"""Play ferrochess in a Jupyter notebook: the play page's board as a widget, and a game controller.

:func:`play` (or :class:`PlayWidget`) shows the same front end as ``ferrochess play``'s page, as an
`anywidget <https://anywidget.dev>`_: lichess's board (chessground), drawn once, played by click or
drag, with the page's clocks, move list, engine panel, review and controls. It runs wherever
anywidget does (JupyterLab, Jupyter Notebook 7, VS Code). The page's ES modules are sent to the
front end as the trait ``_modules`` and loaded by ``static/play/widget.js``; instead of HTTP they
send their requests (docs/play.md) over the widget's comm, and the kernel answers them with a
:class:`~ferrochess.web.service.GameService` over the widget's own engine, in worker threads, so a
cancel gets through while the engine searches. anywidget is imported only here; without it
``import ferrochess.notebook`` and :class:`NotebookGame` still work and :func:`play` raises
ImportError saying how to install it.

:class:`NotebookGame` (in :mod:`ferrochess.notebook_game`, imported here too) is the same game
without any user interface, driven from code.

>>> from ferrochess.notebook import play  # doctest: +SKIP
>>> play(level=3)  # the last expression of a cell shows the board  # doctest: +SKIP
"""

from __future__ import annotations

import concurrent.futures
import logging
import random
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import chess
import chess.engine
import chess.svg

from ferrochess import rules
from ferrochess._closing import Closing
from ferrochess.engine import Engine
from ferrochess.notebook_game import (
    DEFAULT_LEVEL,
    DEFAULT_THINK_SECONDS,
    ColorChoice,
    NotebookGame,
    check_think_time,
    color_of,
)
from ferrochess.web.pool import EnginePool
from ferrochess.web.service import BadInput, GameService, Settings, check_level
from ferrochess.web.service import refusal as service_refusal

try:
    import anywidget
    import traitlets
except ImportError:  # pragma: no cover - tested in a subprocess without anywidget
    anywidget = None  # type: ignore[assignment]

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_THINK_SECONDS",
    "ColorChoice",
    "NotebookGame",
    "PlayWidget",
    "play",
]

INSTALL_HINT = "pip install anywidget"
"""How to get the widget's one extra dependency (``pip install "ferrochess[notebook]"`` also)."""

# -- the widget --------------------------------------------------------------------------------

STATIC = Path(__file__).resolve().parent / "web" / "static"
"""The play page's static files: ``play/`` (its ES modules and CSS) and ``vendor/chessground/``."""
WIDGET_ENTRY = "play/widget.js"
"""The anywidget entry (``_esm``); the other modules reach the front end through ``_modules``."""
CHESSGROUND_MODULE = "vendor/chessground/chessground.min.js"
CHESSGROUND_CSS = (
    "vendor/chessground/chessground.base.css",
    "vendor/chessground/chessground.brown.css",
    "vendor/chessground/chessground.cburnett.css",
)
PAGE_ONLY = frozenset({"play/widget.js", "play/page.js", "play/page.css"})
"""Files of ``play/`` that the widget does not send: its own entry and the page's DOM wiring."""
WIDGET_CSS = """/* the widget's element: the container play.css sizes the play UI from */
.ferrochess-widget { container-type: inline-size; width: 100%; }
.ferrochess-widget-error { color: #a4261d; white-space: pre-wrap; }
"""
REVIEW_PATH = "api/review"
"""The one request answered as a stream of lines (the others are request and answer)."""
WORKERS = 4
"""Threads answering one widget's requests: a search holds one, a cancel or a state gets another."""
CLIENT_PREFIX = "nb-"

STATUS_FAILED = 500

Message = dict[str, Any]

logger = logging.getLogger(__name__)


def module_sources(static: Path = STATIC) -> dict[str, str]:
    """The front end's ES modules by their path under ``static`` (``"play/app.js"``, ...): every
    ``.js`` of ``play/`` but the page-only ones, and chessground's module."""
    names = [
        path.relative_to(static).as_posix() for path in sorted((static / "play").rglob("*.js"))
    ]
    names = [name for name in names if name not in PAGE_ONLY] + [CHESSGROUND_MODULE]
    return {name: (static / name).read_text(encoding="utf-8") for name in names}


def widget_css(static: Path = STATIC) -> str:
    """The widget's style sheet: chessground's board and pieces, then the CSS of ``play/`` (the
    page-only ``page.css`` left out)."""
    own = [path.relative_to(static).as_posix() for path in sorted((static / "play").rglob("*.css"))]
    names = list(CHESSGROUND_CSS) + [name for name in own if name not in PAGE_ONLY]
    sheets = [f"/* {name} */\n{(static / name).read_text(encoding='utf-8')}" for name in names]
    return "\n".join([*sheets, WIDGET_CSS])


class WidgetBackend(Closing):
    """The kernel's side of the widget's comm: answers the front end's messages with ``service``.

    A message is ``{id, path, body}``. :meth:`submit` answers it in a worker thread (so a long
    search does not hold the kernel's comm and a cancel gets through meanwhile); :meth:`handle`
    answers it in the calling thread. Answers go to ``send``: ``{id, ok: true, data}``, or
    ``{id, ok: false, error, field, status}`` with the HTTP API's status (400 bad input, 409
    cancelled, 503 busy, 500 a failure, logged); ``api/review`` answers ``{id, line}`` for each
    line of :meth:`GameService.review` and then ``{id, done: true}``, after a 400 refusal instead
    when its game is bad. Messages without an id are ignored.
    """

    def __init__(
        self,
        service: GameService,
        send: Callable[[Message], object],
        *,
        client: str | None = None,
        workers: int = WORKERS,
    ) -> None:
        self.service = service
        self.client = client
        self._send = send
        self._executor = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="ferrochess-widget"
        )
        self._lock = threading.Lock()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def submit(self, content: Any) -> concurrent.futures.Future[None] | None:
        """Answer ``content`` in a worker thread; None once closed."""
        with self._lock:
            if self._closed:
                return None
            return self._executor.submit(self.handle, content)

    def handle(self, content: Any) -> None:
        """Answer ``content`` now (see the class); never raises."""
        if not isinstance(content, dict):
            return
        ident = content.get("id")
        if isinstance(ident, bool) or not isinstance(ident, (str, int)):
            return
        path = content.get("path")
        body = content.get("body", {})
        try:
            if not isinstance(path, str):
                raise BadInput("path", f"path must be a string like 'api/move', not {path!r}")
            name = path.strip("/")
            if name == REVIEW_PATH:
                self._review(ident, body)
            else:
                self._answer({"id": ident, "ok": True, "data": self.service.request(name, body)})
        except Exception as error:  # noqa: BLE001 - every failure is answered, none kills a thread
            self._answer({"id": ident, "ok": False, **refusal(error)})

    def close(self) -> None:
        """Stop the client's search (if any) and the worker threads; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self.client is not None:
            try:
                self.service.cancel({"client": self.client})
            except Exception:  # noqa: BLE001 - closing goes on
                logger.exception("cancelling the widget's search failed")
        self._executor.shutdown(wait=False, cancel_futures=True)

    def _review(self, ident: str | int, body: Any) -> None:
        self.service.state(body)  # a bad game is refused (400) before any line

        def emit(line: Message) -> None:
            self._answer({"id": ident, "line": line})

        try:
            self.service.review(body, emit)
        except Exception as error:  # noqa: BLE001 - the stream's last line says what went wrong
            emit({"error": refusal(error)["error"]})
        finally:
            self._answer({"id": ident, "done": True})

    def _answer(self, message: Message) -> None:
        try:
            self._send(message)
        except Exception:  # noqa: BLE001 - a front end that went away cannot be told
            logger.exception("the widget's answer could not be sent")


def refusal(error: Exception) -> Message:
    """``{error, field, status}`` for an exception raised while answering, worded as the HTTP API
    words it (:func:`ferrochess.web.service.refusal`); a failure that is no refusal is logged with
    its traceback and answered 500."""
    answer = service_refusal(error)
    if answer is not None:
        status, body = answer
        return {**body, "status": status}
    logger.error("the widget's request failed", exc_info=error)
    return {"error": f"the kernel failed: {error}", "field": None, "status": STATUS_FAILED}


def _options(
    color: ColorChoice, level: int, book: bool, fen: str | None, seed: int | None
) -> Message:
    """The first game's settings for the front end; ValueError quoting a bad one."""
    human = color_of(color, random.Random(seed))
    check_level(level)
    if not isinstance(book, bool):
        raise ValueError(f"not a book switch: {book!r} (expected True or False)")
    if fen is not None:
        rules.position(fen)
    return {"color": "white" if human == chess.WHITE else "black", "level": level, "book": book,
            "fen": fen}  # fmt: skip


def _require_anywidget() -> None:
    if anywidget is None:
        raise ImportError(
            f"the notebook board needs anywidget: {INSTALL_HINT} (NotebookGame works without it)"
        )


if anywidget is not None:

    class PlayWidget(anywidget.AnyWidget):
        """The play page's board and game as a notebook widget (see the module's docstring).

        ``color`` is the human's side in the first game (``"random"`` drawn with ``seed``),
        ``level`` a number of :func:`ferrochess.levels`, ``book`` whether the engine plays from
        its opening book, ``fen`` the start position (default the standard one), ``think_time``
        the most seconds a move's search takes. ``engine`` is used as given and not closed;
        otherwise the widget creates ``Engine(seed=seed)`` and :meth:`close` closes it. Bad
        arguments raise ValueError quoting them. The game lives in the front end (saved in the
        synced ``_storage``, so it survives showing the widget again); the kernel answers its
        requests.
        """

        _esm = traitlets.Unicode().tag(sync=True)
        _css = traitlets.Unicode().tag(sync=True)
        _modules = traitlets.Dict(value_trait=traitlets.Unicode()).tag(sync=True)
        _client_id = traitlets.Unicode().tag(sync=True)
        _storage = traitlets.Dict(value_trait=traitlets.Unicode()).tag(sync=True)
        options = traitlets.Dict().tag(sync=True)
        """The first game's settings: ``{color, level, book, fen}``."""

        def __init__(
            self,
            *,
            color: ColorChoice = "white",
            level: int = DEFAULT_LEVEL,
            book: bool = True,
            fen: str | None = None,
            think_time: float = DEFAULT_THINK_SECONDS,
            engine: Engine | None = None,
            seed: int | None = None,
            **kwargs: Any,
        ) -> None:
            options = _options(color, level, book, fen, seed)
            settings = Settings(max_think_seconds=check_think_time(think_time),
                                default_level=level)  # fmt: skip
            client = CLIENT_PREFIX + secrets.token_hex(8)
            super().__init__(
                _esm=(STATIC / WIDGET_ENTRY).read_text(encoding="utf-8"),
                _css=widget_css(),
                _modules=module_sources(),
                _client_id=client,
                options=options,
                **kwargs,
            )
            owned = engine is None
            self.engine = Engine(seed=seed) if engine is None else engine
            self.pool = EnginePool.lending(self.engine, owned=owned)
            self.service = GameService(self.pool, settings)
            # Through a lambda, so the answers go wherever ``send`` points (tests replace it).
            self.backend = WidgetBackend(
                self.service, lambda message: self.send(message), client=client
            )
            self.on_msg(self._on_message)

        @property
        def client_id(self) -> str:
            """This widget's client id: its searches are cancelled by it."""
            return str(self._client_id)

        def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
            self.backend.submit(content)

        def close(self) -> None:
            """Stop the engine's search, close an engine the widget created, and close the
            widget's comm; idempotent."""
            backend = getattr(self, "backend", None)
            if backend is not None and not backend.closed:
                backend.close()
                self.pool.close()
            super().close()

        def __enter__(self) -> PlayWidget:
            return self

        def __exit__(self, *_exc: object) -> None:
            self.close()


if not TYPE_CHECKING and anywidget is None:
    __all__.remove("PlayWidget")  # so that ``from ferrochess.notebook import *`` still works

    def __getattr__(name: str) -> Any:
        if name == "PlayWidget":
            _require_anywidget()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def play(
    color: ColorChoice = "white",
    level: int = DEFAULT_LEVEL,
    *,
    book: bool = True,
    fen: str | None = None,
    think_time: float = DEFAULT_THINK_SECONDS,
    engine: Engine | None = None,
    seed: int | None = None,
) -> PlayWidget:
    """The play page's board to play ferrochess on in a notebook: ``play()`` as a cell's last
    expression shows it. The arguments are :class:`PlayWidget`'s; ``close()`` on the widget
    releases its engine. Raises ImportError without anywidget (``pip install anywidget``)."""
    _require_anywidget()
    return PlayWidget(
        color=color, level=level, book=book, fen=fen, think_time=think_time, engine=engine,
        seed=seed,
    )  # fmt: skip
