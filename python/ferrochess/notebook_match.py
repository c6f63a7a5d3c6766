"""An engine match, live in a Jupyter notebook: :func:`match` starts a
:class:`ferrochess.match.Match` in the background and returns a :class:`MatchWidget` that draws it
while it is played; :func:`watch` (or ``MatchWidget(a_match)``) draws a match made elsewhere.

The widget shows, on lichess's board (chessground) and the pages' UI kit: the games in play as
small boards with the players' names and clocks; the first player's score (W/D/L), its Elo and
normalized Elo with their 95% intervals and its LOS; with an SPRT, the LLR between its two bounds
(a small chart over the games played) and the decision once made; the pentanomial; a crosstable
when more than two players play (gauntlet, round robin); the finished games (result, reason,
opening), where a click shows the game's final position and a link to its PGN; and a Stop button
that stops the match and leaves its partial result (:meth:`MatchWidget.stop` does the same).

How it is fed: the match's observer (:mod:`ferrochess.match.events`, called from its worker
threads) updates a :class:`LiveMatch` under its lock, which costs the games nothing. A thread of
the widget publishes its snapshot to the front end as the synced traits ``state`` (what changes
with every move) and ``games`` (the finished games), at most every :data:`UPDATE_SECONDS` and only
after a change, and a last time once the match has ended (at once when :meth:`MatchWidget.result`
sees the end): then ``state`` holds the final result, or the error that ended the match
(``state["error"]``). Between two updates the front end
(``static/match/``) counts the running clock down. Its requests (Stop, a game's PGN) come over
the widget's comm as ``{id, path, body}`` (``match/stop``, ``match/pgn``) and are answered as
:mod:`ferrochess.widget_comm` answers the pages' requests. Like every comm message they are heard
while the kernel is idle: a cell waiting in :meth:`MatchWidget.result` holds them until it returns.

>>> from ferrochess.match import Ferrochess, Limit  # doctest: +SKIP
>>> from ferrochess.notebook import match  # doctest: +SKIP
>>> live = match([Ferrochess(level=8), Ferrochess(level=3)], games=40, limit=Limit(nodes=3000),
...              concurrency=2, sprt=(0, 100))  # doctest: +SKIP
>>> live  # a cell's last expression shows it  # doctest: +SKIP
>>> live.result()  # waits, then the MatchResult  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ferrochess.match import (
    SPRT,
    Adjudication,
    Event,
    EventCallback,
    Match,
    MatchResult,
    Player,
    Tournament,
)
from ferrochess.match.limits import LimitSpec
from ferrochess.match.live import FAILED, RECENT_GAMES, LiveMatch, Message
from ferrochess.match.openings import OpeningsSpec
from ferrochess.match.players import MoveFunction
from ferrochess.widget_comm import STATIC, module_sources, widget_css

try:
    import anywidget
    import traitlets
except ImportError:  # pragma: no cover - tested in a subprocess without anywidget
    anywidget = None  # type: ignore[assignment]

__all__ = ["LiveMatch", "MatchWidget", "RECENT_GAMES", "UPDATE_SECONDS", "match", "watch"]

UPDATE_SECONDS = 0.25
"""The shortest time between two updates sent to the front end: at most four a second, however
many games are played at once."""
FINAL_WAIT_SECONDS = 5.0
"""How long :meth:`MatchWidget.result` waits for the final state to be published."""
MATCH_ENTRY = "match/widget.js"
"""The widget's anywidget entry (``_esm``); it mounts ``match/app.js`` over the widget's model."""
LOADER = "play/widget.js"
"""The notebook widgets' module loader and comm transport, which the match widget's entry
imports from the trait ``_modules`` (the other widgets load it as their entry)."""
BORROWED = (LOADER, "play/clock.js")
"""The play page's modules the widget is sent too: the loader, and the clocks' reading."""
FOLDERS = ("match",)
"""The folders of ``static`` whose modules the widget is sent (and the UI kit, and chessground)."""
STYLE_FOLDERS = ("play", "match")
"""The folders whose styles it is sent: the play page's cards, buttons and clocks, then its own."""
INSTALL_HINT = "pip install anywidget"
STATUS_BAD_REQUEST = 400

logger = logging.getLogger(__name__)


def _was_started(plan: Match) -> bool:
    """Whether ``plan`` was started in the background (``Match.start()``)."""
    try:
        plan.wait(0)
    except RuntimeError:
        return False
    return True


def _answer(ident: Any, path: Any, body: Any, handlers: dict[str, Callable[[Any], Any]]
            ) -> Message:  # fmt: skip
    """The answer to a front end's request ``{id, path, body}`` by ``handlers`` (by path):
    ``{id, ok: true, data}``, or ``{id, ok: false, error, field, status: 400}``."""
    handler = handlers.get(path) if isinstance(path, str) else None
    if handler is None:
        return {"id": ident, "ok": False, "error": f"no such request: {path!r}", "field": "path",
                "status": STATUS_BAD_REQUEST}  # fmt: skip
    try:
        return {"id": ident, "ok": True, "data": handler(body)}
    except ValueError as error:
        return {"id": ident, "ok": False, "error": str(error), "field": None,
                "status": STATUS_BAD_REQUEST}  # fmt: skip


def _require_anywidget() -> None:
    if anywidget is None:
        raise ImportError(f"the notebook's match view needs anywidget: {INSTALL_HINT}")


def front_end() -> Message:
    """The traits that carry the widget's front end: its entry, its modules (``match/``, the UI
    kit, chessground and :data:`BORROWED`) and its styles (the play page's, then its own)."""
    modules = module_sources(folders=FOLDERS)
    modules = {name: text for name, text in modules.items() if name != MATCH_ENTRY}
    modules.update({name: (STATIC / name).read_text(encoding="utf-8") for name in BORROWED})
    return {
        "_esm": (STATIC / MATCH_ENTRY).read_text(encoding="utf-8"),
        "_css": widget_css(folders=STYLE_FOLDERS),
        "_modules": modules,
    }


if anywidget is not None:

    class MatchWidget(anywidget.AnyWidget):
        """A live view of ``match`` (a :class:`ferrochess.match.Match`; see the module's
        docstring). It observes the match's events (chained before the match's own
        ``on_event``, which still gets every event) and, with ``start`` (the default), starts
        a match that was not started yet; :meth:`close` then stops it too. A match watched
        after its start shows its results from the next finished game, and its games from
        their next move if the match already had an observer, else from the next game; one
        that has ended shows its result. A match played by ``run()`` in the calling thread is
        drawn from its events alone (its error is raised by ``run()``).

        ``update_seconds``: the shortest time between two updates of the front end. The synced
        traits ``state`` and ``games`` hold what the front end draws (see :class:`LiveMatch`).
        """

        _esm = traitlets.Unicode().tag(sync=True)
        _css = traitlets.Unicode().tag(sync=True)
        _modules = traitlets.Dict(value_trait=traitlets.Unicode()).tag(sync=True)
        state = traitlets.Dict().tag(sync=True)
        """The match now: status, players, boards in play, score, SPRT, crosstable."""
        games: traitlets.List[Message] = traitlets.List().tag(sync=True)
        """The latest finished games (at most :data:`RECENT_GAMES`), in the order they ended."""

        def __init__(
            self,
            match: Match,
            *,
            start: bool = True,
            update_seconds: float = UPDATE_SECONDS,
            **kwargs: Any,
        ) -> None:
            if not isinstance(match, Match):
                raise TypeError(f"MatchWidget watches a ferrochess.match.Match, not {match!r}")
            if isinstance(update_seconds, bool) or not isinstance(update_seconds, (int, float)) \
                    or not 0 < update_seconds <= 60:  # fmt: skip
                raise ValueError(f"update_seconds = {update_seconds!r}: must be in (0, 60]")
            self._match = match
            self.live = LiveMatch(match)
            """The state the widget publishes (:class:`LiveMatch`)."""
            state, games = self.live.snapshot()
            super().__init__(**front_end(), state=state, games=games, **kwargs)
            self.update_seconds = float(update_seconds)
            self._closing = threading.Event()
            self._wake = threading.Event()  # ends the pause between two updates: close, result
            self._published = -1
            self._previous = match.on_event
            match.on_event = self._observe
            self.on_msg(self._on_message)
            self._owned = False
            if start and not _was_started(match):
                match.start()
                self._owned = True
            if _was_started(match):
                self.live.running()
            self._publisher = threading.Thread(target=self._publish_loop, daemon=True,
                                               name="ferrochess-match-widget")  # fmt: skip
            self._publisher.start()

        @property
        def match(self) -> Match:
            """The match drawn."""
            return self._match

        def result(self, timeout: float | None = None) -> MatchResult:
            """Wait up to ``timeout`` seconds (None: until the match ends) and return its
            :class:`~ferrochess.match.MatchResult` (its error re-raised), once the widget shows
            it; TimeoutError when the time runs out first."""
            try:
                return self._match.result(timeout)
            finally:
                if self._match.done:
                    self.live.changed.set()  # publish the end now, not after update_seconds
                    self._wake.set()
                    self._publisher.join(FINAL_WAIT_SECONDS)

        def stop(self) -> None:
            """Stop the match (from any thread): no new game starts, the games in play are
            abandoned, and the widget shows the partial result."""
            self.live.stopping()
            self._match.stop()

        def pgn(self, index: int) -> str:
            """The PGN of the finished game number ``index`` (0-based); ValueError naming it
            when no such game has finished."""
            record = self.live.record(index)
            if record is None:
                raise ValueError(f"game {index!r} has not finished (or is not in this match)")
            return record.pgn

        def close(self) -> None:
            """Stop updating the front end, leave the match's observer as it was, stop the
            match when this widget started it, and close the widget's comm; idempotent."""
            closing = getattr(self, "_closing", None)  # None: __init__ refused its arguments
            if closing is not None and not closing.is_set():
                closing.set()
                self._wake.set()
                if self._match.on_event == self._observe:
                    self._match.on_event = self._previous
                if self._owned:
                    self._match.stop()
            super().close()

        def __enter__(self) -> MatchWidget:
            return self

        def __exit__(self, *_exc: object) -> None:
            self.close()

        # -- the match's side

        def _observe(self, event: Event) -> None:
            try:
                self.live.observe(event)
            except Exception:  # noqa: BLE001 - a view's failure must not stop the match
                logger.exception("the match widget could not take %r", event)
            if self._previous is not None:
                self._previous(event)

        def _publish_loop(self) -> None:
            """Publish the state after each change, at most every ``update_seconds``, until the
            match has ended and its last state is published."""
            while not self._closing.is_set():
                self.live.changed.wait(self.update_seconds)
                ended = self._check_end()
                if self.live.changed.is_set():
                    self._publish()
                    if not ended:
                        self._wake.wait(self.update_seconds)
                        self._wake.clear()
                if ended and not self.live.changed.is_set():
                    return

        def _check_end(self) -> bool:
            """Whether the match has ended (its error, if any, taken into the state)."""
            if _was_started(self._match):
                if not self._match.done:
                    return False
                try:
                    self.live.finish(self._match.result(0))
                except BaseException as error:  # noqa: BLE001 - shown in the widget
                    self.live.fail(error)
                return True
            return self.live.ended

        def _publish(self) -> None:
            try:
                # The version first: a game finished after the snapshot then changes it again,
                # and the next update sends the games (read after it, a game would be lost).
                version = self.live.games_version
                state, games = self.live.snapshot()
                with self.hold_sync():
                    self.state = state
                    if version != self._published:
                        self.games = games
                        self._published = version
            except Exception as error:  # noqa: BLE001 - the front end shows it
                logger.exception("the match widget could not publish its state")
                self.state = {**dict(self.state), "status": FAILED,
                              "error": f"the widget failed: {error}"}  # fmt: skip

        # -- the front end's requests

        def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
            if not isinstance(content, dict) or "id" not in content:
                return
            answer = _answer(content["id"], content.get("path"), content.get("body"), {
                "match/stop": self._stop_request,
                "match/pgn": self._pgn_request,
            })  # fmt: skip
            try:
                self.send(answer)
            except Exception:  # noqa: BLE001 - a front end that went away cannot be told
                logger.exception("the match widget's answer could not be sent")

        def _stop_request(self, _body: Any) -> Message:
            self.stop()
            return {"stopping": True}

        def _pgn_request(self, body: Any) -> Message:
            game = body.get("game") if isinstance(body, dict) else None
            if isinstance(game, bool) or not isinstance(game, int):
                raise ValueError(f"game must be a game's number, not {game!r}")
            return {"game": game, "pgn": self.pgn(game)}


if not TYPE_CHECKING and anywidget is None:
    __all__.remove("MatchWidget")

    def __getattr__(name: str) -> Any:
        if name == "MatchWidget":
            _require_anywidget()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def watch(match: Match, *, start: bool = True) -> MatchWidget:
    """A :class:`MatchWidget` on ``match``, made elsewhere (``Match(...)``): started here when it
    was not yet and ``start``; a cell's last expression shows it. ImportError without anywidget
    (``pip install anywidget``)."""
    _require_anywidget()
    return MatchWidget(match, start=start)


def match(
    players: Sequence[Player | MoveFunction | str],
    *,
    games: int = 2,
    openings: OpeningsSpec | None = None,
    limit: LimitSpec | None = None,
    concurrency: int = 1,
    sprt: SPRT | tuple[float, float] | None = None,
    seed: int = 1,
    pgn: str | Path | None = None,
    adjudication: Adjudication | None = None,
    chess960: bool = False,
    tournament: Tournament = "match",
    client: Any = None,
    on_event: EventCallback | None = None,
    progress: bool | None = None,
    cancel: threading.Event | None = None,
    event: str = "ferrochess match",
) -> MatchWidget:
    """Start a match (or a tournament) in the background and return its live
    :class:`MatchWidget`: ``match(...)`` as a cell's last expression shows it. The arguments are
    :func:`ferrochess.match.match`'s, checked at once (ValueError naming a bad one); ``on_event``
    still hears every event. ``.result()`` waits for the :class:`~ferrochess.match.MatchResult`,
    ``.stop()`` (or the widget's Stop button) stops the match with its partial result,
    ``.match`` is the :class:`~ferrochess.match.Match`; ``close()`` stops the match and the
    widget. ImportError without anywidget (``pip install anywidget``)."""
    _require_anywidget()
    plan = Match(
        players, games=games, openings=openings, limit=limit, concurrency=concurrency,
        sprt=sprt, seed=seed, pgn=pgn, adjudication=adjudication, chess960=chess960,
        tournament=tournament, client=client, on_event=on_event, progress=progress,
        cancel=cancel, event=event,
    )  # fmt: skip
    return MatchWidget(plan)
