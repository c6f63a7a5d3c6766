"""The analysis board in a Jupyter notebook: :func:`analyse` shows ``ferrochess play``'s analysis
board (``/analysis``) as an anywidget, with the live engine beside it.

The front end is the page's own: ``static/play/widget.js`` mounts ``analysis/app.js``'s
``mountAnalysis`` (the trait ``_entry``) over the widget's comm, and the kernel answers its
requests (docs/play.md: ``api/position``, ``api/analyse`` streamed, ``api/explorer``,
``api/import``, ``api/export``) with the same services as the page, over the widget's own engine.
Every change of the tree on the board (a move, a variation, a comment, a promotion) comes back as
the synced trait ``tree``, so :attr:`AnalysisWidget.game` is the :class:`chess.pgn.Game` as it
stands on the board and a notebook can go on from it.

>>> from ferrochess.notebook import analyse  # doctest: +SKIP
>>> board = analyse("1. e4 e5 2. Nf3 Nc6 3. Bb5 *")  # the last expression of a cell shows it
... # doctest: +SKIP
>>> board.game  # later: the game with the variations made on the board  # doctest: +SKIP
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any, Union

import chess
import chess.pgn

from ferrochess import pgn_tree, rules
from ferrochess.engine import Engine
from ferrochess.service.analysis_board import DEFAULT_ANALYSIS_SECONDS, MAX_LINES
from ferrochess.service.game import Settings
from ferrochess.widget_comm import ANALYSIS_FOLDERS, ANALYSIS_UI

try:
    import anywidget
    import traitlets

    from ferrochess.widget_comm import ServiceWidget
except ImportError:  # pragma: no cover - tested in a subprocess without anywidget
    anywidget = None  # type: ignore[assignment]

__all__ = ["AnalysisWidget", "Analysable", "analyse", "tree_of"]

Analysable = Union[chess.Board, chess.pgn.Game, str, None]
"""What :func:`analyse` opens: a board (with its moves), a game, a PGN text or a FEN, or None for
the standard start."""
CLIENT_PREFIX = "nba-"
INSTALL_HINT = "pip install anywidget"


def tree_of(source: Analysable) -> dict[str, Any]:
    """The analysis board's tree (:mod:`ferrochess.pgn_tree`) of ``source``: a
    :class:`chess.Board` (its start and moves), a :class:`chess.pgn.Game` (variations, comments
    and all), a PGN text (its first game) or a FEN, or None (the start). ValueError names what is
    wrong with a text; TypeError for anything else."""
    if source is None:
        return pgn_tree.tree_from_game(chess.pgn.Game())
    if isinstance(source, chess.pgn.Game):
        return pgn_tree.tree_from_game(source)
    if isinstance(source, chess.Board):
        return pgn_tree.tree_from_game(chess.pgn.Game.from_board(source))
    if not isinstance(source, str):
        raise TypeError(f"analyse() takes a chess.Board, a chess.pgn.Game, a PGN text or a FEN, "
                        f"not {type(source).__name__}")  # fmt: skip
    text = source.strip()
    if "\n" not in text and "[" not in text:
        try:
            return pgn_tree.tree_from_game(chess.pgn.Game.from_board(rules.position(text)))
        except ValueError:
            pass  # not a FEN: movetext
    try:
        game, warnings = pgn_tree.read_game_at(source, 0)
    except pgn_tree.TreeError as error:
        raise ValueError(f"not a PGN game or a FEN: {error.message}") from None
    if warnings:
        raise ValueError(f"the PGN could not be read: {warnings[0]}")
    return pgn_tree.tree_from_game(game)


def _require_anywidget() -> None:
    if anywidget is None:
        raise ImportError(f"the notebook's analysis board needs anywidget: {INSTALL_HINT}")


if anywidget is not None:

    class AnalysisWidget(ServiceWidget):
        """The page's analysis board as a notebook widget (see the module's docstring).

        ``source`` is what it opens (:data:`Analysable`); ``engine_on`` starts the live engine
        at once with ``lines`` lines (1 to 5); ``max_seconds`` is the longest the engine
        analyses one position. ``engine`` is used as given and not closed; otherwise the widget
        creates ``Engine(seed=seed)`` and :meth:`close` closes it. The tree lives in the front
        end and comes back in the trait ``tree``; :attr:`game` reads it. The trait ``options``
        holds the board's first settings: ``{engine, lines}``.
        """

        tree = traitlets.Dict().tag(sync=True)
        """The tree as it stands on the board (:mod:`ferrochess.pgn_tree`'s JSON)."""

        def __init__(
            self,
            source: Analysable = None,
            *,
            engine_on: bool = False,
            lines: int = 1,
            max_seconds: float = DEFAULT_ANALYSIS_SECONDS,
            engine: Engine | None = None,
            seed: int | None = None,
            **kwargs: Any,
        ) -> None:
            tree = tree_of(source)
            if isinstance(lines, bool) or not isinstance(lines, int) or not 1 <= lines <= MAX_LINES:
                raise ValueError(f"lines must be 1 to {MAX_LINES}, not {lines!r}")
            if not isinstance(engine_on, bool):
                raise ValueError(f"engine_on must be True or False, not {engine_on!r}")
            super().__init__(
                **self.front_end(ANALYSIS_UI, ANALYSIS_FOLDERS),
                _client_id=CLIENT_PREFIX + secrets.token_hex(8),
                options={"engine": engine_on, "lines": lines},
                tree=tree,
                **kwargs,
            )
            self._serve(engine, seed, Settings(), analysis={"seconds": max_seconds})

        @property
        def game(self) -> chess.pgn.Game:
            """The game on the board now, with its variations, comments, NAGs and the engine's
            evaluations where the board has them (a new object at each call)."""
            return pgn_tree.game_from_tree(self.tree)


if not TYPE_CHECKING and anywidget is None:
    __all__.remove("AnalysisWidget")

    def __getattr__(name: str) -> Any:
        if name == "AnalysisWidget":
            _require_anywidget()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def analyse(
    source: Analysable = None,
    *,
    engine_on: bool = False,
    lines: int = 1,
    max_seconds: float = DEFAULT_ANALYSIS_SECONDS,
    engine: Engine | None = None,
    seed: int | None = None,
) -> AnalysisWidget:
    """The analysis board on ``source`` (a :class:`chess.Board`, a :class:`chess.pgn.Game`, a
    PGN text or a FEN; None: the start) in a notebook: ``analyse(game)`` as a cell's last
    expression shows it; ``.game`` afterwards is the game with what was made on the board.
    The arguments are :class:`AnalysisWidget`'s; ``close()`` releases its engine. Raises
    ImportError without anywidget (``pip install anywidget``)."""
    _require_anywidget()
    return AnalysisWidget(
        source, engine_on=engine_on, lines=lines, max_seconds=max_seconds, engine=engine,
        seed=seed,
    )  # fmt: skip
