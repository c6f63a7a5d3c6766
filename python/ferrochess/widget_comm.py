"""The notebook widgets' plumbing: the front end's modules and styles sent as traits, and the
kernel's side of the comm that answers their requests (docs/play.md) with the page's services.

Both widgets (:class:`ferrochess.notebook.PlayWidget`, :class:`ferrochess.notebook.AnalysisWidget`)
load ``static/play/widget.js`` as their anywidget entry; it imports the page's own ES modules from
the trait ``_modules`` and mounts the UI the trait ``_entry`` names, over a transport that sends
each request over the widget's comm to a :class:`WidgetBackend`.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ferrochess._closing import Closing
from ferrochess.engine import Engine
from ferrochess.service.analysis_board import AnalysisService
from ferrochess.service.game import BadInput, GameService, Settings
from ferrochess.service.game import refusal as service_refusal
from ferrochess.service.pool import EnginePool

try:
    import anywidget
    import traitlets
except ImportError:  # pragma: no cover - tested in a subprocess without anywidget
    anywidget = None  # type: ignore[assignment]

__all__ = [
    "ANALYSIS_UI",
    "ServiceWidget",
    "PLAY_UI",
    "STATIC",
    "WidgetBackend",
    "module_sources",
    "refusal",
    "widget_css",
]

STATIC = Path(__file__).resolve().parent / "web" / "static"
"""The page's static files: ``ui/`` (the UI kit both pages share), ``play/`` and ``analysis/``
(ES modules and CSS of the play page and the analysis board) and ``vendor/chessground/``."""
WIDGET_ENTRY = "play/widget.js"
"""The anywidget entry (``_esm``) of both widgets; the other modules reach the front end through
``_modules``; the trait ``_entry`` says which UI to mount (:data:`PLAY_UI`, :data:`ANALYSIS_UI`)."""
PLAY_UI = {"module": "play/app.js", "mount": "mountPlay"}
ANALYSIS_UI = {"module": "analysis/app.js", "mount": "mountAnalysis"}
ANALYSIS_FOLDERS = ("play", "analysis")
"""The folders of ``static`` whose modules and styles the analysis widget is sent (the play
widget, ``play/`` only); every widget gets the :data:`UI_KIT` too."""
UI_KIT = "ui"
"""The folder of the UI kit (scores, move numbers, errors, elements) that every page imports:
sent to every widget, whatever its folders."""
CHESSGROUND_MODULE = "vendor/chessground/chessground.min.js"
CHESSGROUND_CSS = (
    "vendor/chessground/chessground.base.css",
    "vendor/chessground/chessground.brown.css",
    "vendor/chessground/chessground.cburnett.css",
)
PAGE_ONLY = frozenset({"play/widget.js", "play/page.js", "play/page.css", "analysis/page.js",
                       "analysis/page.css"})  # fmt: skip
"""Files the widget does not send: its own entry and the pages' DOM wiring."""
WIDGET_CSS = """/* the widget's element: the container play.css sizes the play UI from */
.ferrochess-widget { container-type: inline-size; width: 100%; }
.ferrochess-widget-error { color: #a4261d; white-space: pre-wrap; }
"""
REVIEW_PATH = "api/review"
ANALYSE_PATH = "api/analyse"
"""The requests answered as a stream of lines (the others are request and answer)."""
WORKERS = 4
"""Threads answering one widget's requests: a search holds one, a cancel or a state gets another."""

STATUS_FAILED = 500

Message = dict[str, Any]

logger = logging.getLogger(__name__)


def module_sources(static: Path = STATIC, folders: tuple[str, ...] = ("play",)) -> dict[str, str]:
    """The front end's ES modules by their path under ``static`` (``"play/app.js"``, ...): every
    ``.js`` of the :data:`UI_KIT` and ``folders`` (the play page's, and the analysis board's for its
    widget) but the page-only ones, and chessground's module."""
    names = [
        path.relative_to(static).as_posix()
        for folder in dict.fromkeys((UI_KIT, *folders))
        for path in sorted((static / folder).rglob("*.js"))
    ]
    names = [name for name in names if name not in PAGE_ONLY] + [CHESSGROUND_MODULE]
    return {name: (static / name).read_text(encoding="utf-8") for name in names}


def widget_css(static: Path = STATIC, folders: tuple[str, ...] = ("play",)) -> str:
    """A widget's style sheet: chessground's board and pieces, then the CSS of the :data:`UI_KIT`
    and ``folders`` (the page-only ``page.css`` left out)."""
    own = [
        path.relative_to(static).as_posix()
        for folder in dict.fromkeys((UI_KIT, *folders))
        for path in sorted((static / folder).rglob("*.css"))
    ]
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
    when its game is bad; ``api/analyse`` (with an ``analysis`` service) streams the lines of
    :meth:`AnalysisService.start`'s analysis the same way, after a 400 or 503 refusal instead.
    Messages without an id are ignored.
    """

    def __init__(
        self,
        service: GameService,
        send: Callable[[Message], object],
        *,
        client: str | None = None,
        workers: int = WORKERS,
        analysis: AnalysisService | None = None,
    ) -> None:
        self.service = service
        self.analysis = analysis
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
            elif name == ANALYSE_PATH and self.analysis is not None:
                self._analyse(ident, body)
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

    def _analyse(self, ident: str | int, body: Any) -> None:
        assert self.analysis is not None
        running = self.analysis.start(body)  # a refusal (400, 503) before any line

        def emit(line: Message) -> None:
            self._answer({"id": ident, "line": line})

        try:
            running.run(emit)
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
    words it (:func:`ferrochess.service.game.refusal`); a failure that is no refusal is logged with
    its traceback and answered 500."""
    answer = service_refusal(error)
    if answer is not None:
        status, body = answer
        return {**body, "status": status}
    logger.error("the widget's request failed", exc_info=error)
    return {"error": f"the kernel failed: {error}", "field": None, "status": STATUS_FAILED}




if anywidget is not None:

    class ServiceWidget(anywidget.AnyWidget):
        """What the notebook's widgets share: the page's modules and styles as traits, mounted by
        ``widget.js`` (the UI the trait ``_entry`` names), a client id, storage that lives in the
        kernel, and a comm answered by a :class:`WidgetBackend` over the widget's own engine.
        A subclass calls :meth:`_serve` after ``super().__init__``."""

        _esm = traitlets.Unicode().tag(sync=True)
        _css = traitlets.Unicode().tag(sync=True)
        _modules = traitlets.Dict(value_trait=traitlets.Unicode()).tag(sync=True)
        _entry = traitlets.Dict().tag(sync=True)
        _client_id = traitlets.Unicode().tag(sync=True)
        _storage = traitlets.Dict(value_trait=traitlets.Unicode()).tag(sync=True)
        options = traitlets.Dict().tag(sync=True)
        """The UI's first settings."""

        @staticmethod
        def front_end(ui: dict[str, str], folders: tuple[str, ...]) -> dict[str, Any]:
            """The traits that carry the front end of ``ui`` (modules and styles of ``folders``)."""
            return {
                "_esm": (STATIC / WIDGET_ENTRY).read_text(encoding="utf-8"),
                "_css": widget_css(folders=folders),
                "_modules": module_sources(folders=folders),
                "_entry": ui,
            }

        def _serve(
            self, engine: Engine | None, seed: int | None, settings: Settings,
            analysis: dict[str, Any] | None = None,
        ) -> None:  # fmt: skip
            """Answer the comm: with ``engine`` (kept open) or a new ``Engine(seed=seed)`` (closed
            by :meth:`close`), a :class:`GameService` with ``settings`` and, given ``analysis``
            (:class:`AnalysisService`'s keyword arguments but the engine's book and tables), the
            analysis board's requests too."""
            owned = engine is None
            self.engine = Engine(seed=seed) if engine is None else engine
            self.pool = EnginePool.lending(self.engine, owned=owned)
            self.service = GameService(self.pool, settings)
            self.analysis: AnalysisService | None = None
            if analysis is not None:
                self.analysis = AnalysisService(
                    self.service, book=self.engine.book, syzygy_path=self.engine.syzygy_path,
                    **analysis,
                )  # fmt: skip
            # Through a lambda, so the answers go wherever ``send`` points (tests replace it).
            self.backend = WidgetBackend(
                self.service, lambda message: self.send(message), client=self.client_id,
                analysis=self.analysis,
            )  # fmt: skip
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
                if self.analysis is not None:
                    self.analysis.close()
            super().close()

        def __enter__(self) -> Any:
            return self

        def __exit__(self, *_exc: object) -> None:
            self.close()
