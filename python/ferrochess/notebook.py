"""Play and analyse in a Jupyter notebook: the play page's board and the analysis board as
widgets, and a game controller.

:func:`play` (or :class:`PlayWidget`) shows the same front end as ``ferrochess play``'s page, as an
`anywidget <https://anywidget.dev>`_: lichess's board (chessground), drawn once, played by click or
drag, with the page's clocks, move list, engine panel, review and controls. It runs wherever
anywidget does (JupyterLab, Jupyter Notebook 7, VS Code). The page's ES modules are sent to the
front end as the trait ``_modules`` and loaded by ``static/play/widget.js``; instead of HTTP they
send their requests (docs/play.md) over the widget's comm, and the kernel answers them with a
:class:`~ferrochess.service.game.GameService` over the widget's own engine, in worker threads, so a
cancel gets through while the engine searches. anywidget is imported only here and in
:mod:`ferrochess.notebook_analysis`; without it ``import ferrochess.notebook`` and
:class:`NotebookGame` still work and :func:`play` raises ImportError saying how to install it.

:func:`analyse` (or :class:`AnalysisWidget`, from :mod:`ferrochess.notebook_analysis`) opens the
page's analysis board on a board, a game, a PGN text or a FEN, with the live engine; its ``.game``
is the :class:`chess.pgn.Game` with the variations and comments made on the board.

:func:`train` (or :class:`TrainWidget`, from :mod:`ferrochess.notebook_train`) opens the page's
training board (``/train``) on puzzles made from games (a PGN, a file, a game) or on a player's
cards in the games archive, rated and scheduled as on the page.

:func:`match` (or :class:`MatchWidget`, from :mod:`ferrochess.notebook_match`) starts an engine
match (:func:`ferrochess.match.match`'s arguments) in the background and shows it live: the games
in play on small boards, the score, Elo, the SPRT's LLR, the finished games; :func:`watch` shows
a :class:`ferrochess.match.Match` made elsewhere.

:class:`NotebookGame` (in :mod:`ferrochess.notebook_game`, imported here too) is the same game
without any user interface, driven from code.

>>> from ferrochess.notebook import play  # doctest: +SKIP
>>> play(level=3)  # the last expression of a cell shows the board  # doctest: +SKIP
"""

from __future__ import annotations

import random
import secrets
from typing import TYPE_CHECKING, Any

import chess
import chess.engine
import chess.svg

from ferrochess import rules
from ferrochess.engine import Engine
from ferrochess.notebook_analysis import Analysable, analyse, tree_of
from ferrochess.notebook_game import (
    DEFAULT_LEVEL,
    DEFAULT_THINK_SECONDS,
    ColorChoice,
    NotebookGame,
    check_think_time,
    color_of,
)
from ferrochess.notebook_match import match, watch
from ferrochess.notebook_train import Trainable, train
from ferrochess.service.game import Settings, check_level
from ferrochess.widget_comm import (
    PLAY_UI,
    Message,
)

try:
    import anywidget

    from ferrochess.widget_comm import ServiceWidget
except ImportError:  # pragma: no cover - tested in a subprocess without anywidget
    anywidget = None  # type: ignore[assignment]

__all__ = [
    "Analysable",
    "AnalysisWidget",
    "DEFAULT_LEVEL",
    "DEFAULT_THINK_SECONDS",
    "ColorChoice",
    "MatchWidget",
    "NotebookGame",
    "PlayWidget",
    "Trainable",
    "TrainWidget",
    "analyse",
    "match",
    "play",
    "train",
    "tree_of",
    "watch",
]

INSTALL_HINT = "pip install anywidget"
"""How to get the widget's one extra dependency (``pip install "ferrochess[notebook]"`` also)."""

# -- the widget --------------------------------------------------------------------------------

CLIENT_PREFIX = "nb-"


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

    class PlayWidget(ServiceWidget):
        """The play page's board and game as a notebook widget (see the module's docstring).

        ``color`` is the human's side in the first game (``"random"`` drawn with ``seed``),
        ``level`` a number of :func:`ferrochess.levels`, ``book`` whether the engine plays from
        its opening book, ``fen`` the start position (default the standard one), ``think_time``
        the most seconds a move's search takes. ``engine`` is used as given and not closed;
        otherwise the widget creates ``Engine(seed=seed)`` and :meth:`close` closes it. Bad
        arguments raise ValueError quoting them. The game lives in the front end (saved in the
        synced ``_storage``, so it survives showing the widget again); the kernel answers its
        requests. The trait ``options`` holds the first game's settings: ``{color, level, book,
        fen}``.
        """

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
            super().__init__(
                **self.front_end(PLAY_UI, ("play",)),
                _client_id=CLIENT_PREFIX + secrets.token_hex(8),
                options=options,
                **kwargs,
            )
            self._serve(engine, seed, settings)


if anywidget is not None:
    from ferrochess.notebook_analysis import AnalysisWidget
    from ferrochess.notebook_match import MatchWidget
    from ferrochess.notebook_train import TrainWidget

if not TYPE_CHECKING and anywidget is None:
    # so that ``from ferrochess.notebook import *`` still works
    __all__.remove("PlayWidget")
    __all__.remove("AnalysisWidget")
    __all__.remove("TrainWidget")
    __all__.remove("MatchWidget")

    def __getattr__(name: str) -> Any:
        if name in ("PlayWidget", "AnalysisWidget", "TrainWidget", "MatchWidget"):
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
