"""Puzzles from one's games in a Jupyter notebook: :func:`train` shows ``ferrochess play``'s
training page (``/train``) as an anywidget, to solve on lichess's board.

The front end is the page's own: ``static/play/widget.js`` mounts ``train/app.js``'s
``mountTrain`` (the trait ``_entry``) over the widget's comm, and the kernel answers its requests
(``api/train/next``, ``api/train/attempt``, ``api/train/mine`` and ``api/state``, which judges
every move) as the page's server does. The puzzles come from either

- an archive and a player (``train(archive=..., player=...)``): the page's own
  :class:`~ferrochess.service.training.TrainingService`, so the notebook and the page share the
  player's cards, schedule and rating; "Find puzzles in my games" mines the player's games; or
- games (``train(pgn)``: PGN text, a ``.pgn`` file, a text stream or a :class:`chess.pgn.Game`):
  their puzzles are made at once (:func:`ferrochess.training.puzzles`, seconds a game) and kept
  in the kernel by a :class:`PuzzleDeck`, scheduled and rated as the service does (FSRS and
  Glicko-2), for as long as the widget lives.

>>> from ferrochess.notebook import train  # doctest: +SKIP
>>> train("games.pgn", color="white")  # a cell's last expression shows it  # doctest: +SKIP
"""

from __future__ import annotations

import datetime
import io
import math
import os
import secrets
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, Union
from urllib.parse import parse_qsl

import chess
import chess.pgn

from ferrochess.engine import Engine
from ferrochess.service.game import GameService, Settings
from ferrochess.service.pool import EnginePool
from ferrochess.service.reading import BadInput, as_object
from ferrochess.service.submission import read_player
from ferrochess.training import START, Glicko, rate, schedule
from ferrochess.training import puzzles as make_puzzles
from ferrochess.training.puzzles import DEFAULT_NODES, Puzzle
from ferrochess.widget_comm import WidgetBackend

if TYPE_CHECKING:
    from ferrochess.service.archive import Archive
    from ferrochess.service.training import TrainingService

try:
    import anywidget

    from ferrochess.widget_comm import ServiceWidget
except ImportError:  # pragma: no cover - tested in a subprocess without anywidget
    anywidget = None  # type: ignore[assignment]

__all__ = ["DEFAULT_PLAYER", "PuzzleDeck", "TRAIN_UI", "Trainable", "TrainWidget", "train"]

TRAIN_UI = {"module": "train/app.js", "mount": "mountTrain"}
TRAIN_FOLDERS = ("play", "train")
"""The folders of ``static`` whose modules and styles the widget is sent (the board and the
transport are the play page's)."""
PAGE_ONLY = frozenset({"train/page.js"})
"""The page's own wiring, not sent to the widget."""
DEFAULT_PLAYER = "notebook"
"""The player of a widget on games (a :class:`PuzzleDeck` keeps one player's cards)."""
CLIENT_PREFIX = "nb-"
INSTALL_HINT = "pip install anywidget"
COLORS = {"white": chess.WHITE, "black": chess.BLACK}

Trainable = Union[str, "os.PathLike[str]", chess.pgn.Game, TextIO, None]
"""What :func:`train` makes puzzles from: PGN text, a PGN file's path, a text stream, a game."""


# --- the games' puzzles, kept in the kernel -------------------------------------------------------


class PuzzleDeck:
    """The training requests of :class:`TrainingService` (``next``, ``attempt``, ``mine``, the
    same answers) over ``puzzles`` kept in memory for one player: each a card due at once,
    rescheduled by FSRS at each attempt, the player's first attempt at a puzzle rated by
    Glicko-2 (both players start at :data:`ferrochess.training.START`). ``clock`` says what "now"
    is (UTC-aware); ``scheduler`` is an ``fsrs.Scheduler`` (default the package's, fuzzing)."""

    def __init__(
        self,
        puzzles: list[Puzzle],
        *,
        player: str = DEFAULT_PLAYER,
        clock: Callable[[], datetime.datetime] | None = None,
        scheduler: Any = None,
    ) -> None:
        self.player = read_player(player)
        self.clock = clock or schedule.now_utc
        self.scheduler = scheduler
        now = self.clock()
        self.puzzles = {puzzle.id: puzzle for puzzle in puzzles}
        self._cards = {puzzle_id: schedule.new_card(now) for puzzle_id in self.puzzles}
        self._order = list(self.puzzles)  # the games' order: the first puzzle first
        self._rating = START
        self._puzzle_ratings: dict[str, Glicko] = {}
        self._tried: set[str] = set()
        self.attempts: list[dict[str, Any]] = []
        """Every attempt answered: ``{"puzzle", "solved", "seconds"}``, in order."""
        self._lock = threading.Lock()

    def _check_player(self, player: object) -> None:
        if read_player(player) != self.player:
            raise BadInput("player", f"this deck's player is {self.player!r}, not {player!r}")

    def counts(self, now: datetime.datetime) -> dict[str, int]:
        due = sum(1 for card in self._cards.values() if card.due <= now)
        return {"due": due, "total": len(self._cards)}

    def next(self, player: object) -> dict[str, Any]:
        """The card due longest ago (ties in the games' order), as
        :meth:`TrainingService.next` answers it: ``puzzle`` and ``card`` null when none is due."""
        self._check_player(player)
        with self._lock:
            now = self.clock()
            due = [pid for pid in self._order if self._cards[pid].due <= now]
            if not due:
                return {"puzzle": None, "card": None, "rating": self._public(self._rating),
                        "counts": self.counts(now)}  # fmt: skip
            first = min(due, key=lambda pid: self._cards[pid].due)
            return {
                "puzzle": self.puzzles[first].to_dict(),
                "card": schedule.card_summary(self._cards[first], now),
                "rating": self._public(self._rating),
                "counts": self.counts(now),
            }

    def attempt(
        self, player: object, puzzle_id: object, solved: object, seconds: object = None
    ) -> dict[str, Any]:
        """An attempt, answered as :meth:`TrainingService.attempt` answers it."""
        self._check_player(player)
        if not isinstance(puzzle_id, str) or puzzle_id not in self.puzzles:
            raise BadInput("puzzle", f"puzzle {puzzle_id!r} is not one of this deck's"[:120])
        if not isinstance(solved, bool):
            raise BadInput("solved", f"solved must be true or false, not {solved!r}"[:120])
        if seconds is not None and (
            isinstance(seconds, bool) or not isinstance(seconds, (int, float))
            or not math.isfinite(seconds) or seconds < 0
        ):  # fmt: skip
            raise BadInput("seconds", "seconds must be a number of at least 0, or null")
        took = None if seconds is None else float(seconds)
        with self._lock:
            now = self.clock()
            self._cards[puzzle_id] = schedule.review(
                self._cards[puzzle_id], solved, seconds=took, now=now, using=self.scheduler
            )
            rated = puzzle_id not in self._tried
            puzzle = self._puzzle_ratings.get(puzzle_id, START)
            if rated:
                self._rating, puzzle = rate(self._rating, puzzle, solved)
                self._puzzle_ratings[puzzle_id] = puzzle
                self._tried.add(puzzle_id)
            self.attempts.append({"puzzle": puzzle_id, "solved": solved, "seconds": took})
            return {
                "card": schedule.card_summary(self._cards[puzzle_id], now),
                "rating": self._public(self._rating),
                "puzzle_rating": self._public(puzzle),
                "rated": rated,
                "counts": self.counts(now),
            }

    def mine(self, player: object, **_options: Any) -> dict[str, int]:
        """Nothing to mine: the deck's puzzles were made from its games at once."""
        self._check_player(player)
        return {"games": 0, "cards": 0, "left": 0}

    @property
    def rating(self) -> dict[str, float]:
        """The player's rating now: ``{"rating", "deviation"}``."""
        return self._public(self._rating)

    @staticmethod
    def _public(glicko: Glicko) -> dict[str, float]:
        return {"rating": glicko.rating, "deviation": glicko.deviation}


Training = Union["TrainingService", PuzzleDeck]


class TrainingRoutes(GameService):
    """The page's requests a training widget sends: the game service's (``api/state`` judges
    each move) and ``api/train/next`` (its player in the query string, as the page sends it),
    ``api/train/attempt`` and ``api/train/mine``, answered by ``training``."""

    def __init__(self, pool: Any, training: Training) -> None:
        super().__init__(pool, Settings())
        self.training = training
        self.add_routes({
            "api/train/next": self._next,
            "api/train/attempt": self._attempt,
            "api/train/mine": lambda body: self.training.mine(as_object(body).get("player")),
        })  # fmt: skip

    def request(self, path: str, body: Any) -> dict[str, Any]:
        name, _, query = path.partition("?")
        if query:
            body = {**as_object(body), **dict(parse_qsl(query))}
        return super().request(name, body)

    def _next(self, body: Any) -> Any:
        return self.training.next(as_object(body).get("player"))  # None: nothing due

    def _attempt(self, body: Any) -> dict[str, Any]:
        data = as_object(body)
        return self.training.attempt(
            data.get("player"), data.get("puzzle"), data.get("solved"), data.get("seconds")
        )


# --- what train() takes ---------------------------------------------------------------------------


def read_games(source: Trainable) -> list[chess.pgn.Game]:
    """The games of ``source`` (see :data:`Trainable`), each with its moves. TypeError for
    another type; FileNotFoundError naming a missing file; ValueError when the PGN holds no
    game with moves, or a game python-chess could not read."""
    if isinstance(source, chess.pgn.Game):
        games = [source]
    else:
        if isinstance(source, os.PathLike) or (
            isinstance(source, str) and "\n" not in source
            and (source.strip().endswith(".pgn") or Path(source).is_file())
        ):  # fmt: skip
            path = Path(source)
            if not path.is_file():
                raise FileNotFoundError(f"no PGN file at {os.fspath(path)!r}")
            source = path.read_text(encoding="utf-8", errors="replace")
        if isinstance(source, str):
            stream: TextIO = io.StringIO(source)
        elif source is not None and hasattr(source, "read"):
            stream = source
        else:
            raise TypeError(
                "train() takes PGN text, a .pgn file's path, a text stream or a chess.pgn.Game, "
                f"not {type(source).__name__}"
            )
        games = []
        while (game := chess.pgn.read_game(stream)) is not None:
            if game.errors:
                raise ValueError(f"the PGN could not be read: {game.errors[0]}")
            games.append(game)
    if not any(game.next() is not None for game in games):
        raise ValueError("the PGN holds no game with moves to make puzzles from")
    return games


def _color(color: object) -> chess.Color | None:
    if color is None:
        return None
    if not isinstance(color, str) or color not in COLORS:
        raise ValueError(f"color must be 'white', 'black' or None (both sides), not {color!r}")
    return COLORS[color]


def _require_anywidget() -> None:
    if anywidget is None:
        raise ImportError(f"the notebook's training board needs anywidget: {INSTALL_HINT}")


if anywidget is not None:

    class TrainWidget(ServiceWidget):
        """The page's training board as a notebook widget (see the module's docstring), on
        ``training`` (a :class:`TrainingService` or a :class:`PuzzleDeck`) for ``player``, its
        engine lent by ``pool`` (mining searches on it; :meth:`close` closes the pool, and the
        engine when the pool owns it, and ``archive`` when given: one :func:`train` opened). The
        trait ``options`` holds ``{player, keyboard}``."""

        def __init__(
            self,
            training: Training,
            player: str,
            *,
            pool: EnginePool,
            archive: Archive | None = None,
            **kwargs: Any,
        ) -> None:
            front = self.front_end(TRAIN_UI, TRAIN_FOLDERS)
            front["_modules"] = {name: text for name, text in front["_modules"].items()
                                 if name not in PAGE_ONLY}  # fmt: skip
            super().__init__(
                **front,
                _client_id=CLIENT_PREFIX + secrets.token_hex(8),
                options={"player": player, "keyboard": "root"},
                **kwargs,
            )
            self.training = training
            self.player = player
            self.pool = pool
            self.service = TrainingRoutes(pool, training)
            self.analysis = None
            self._archive = archive
            # Through a lambda, so the answers go wherever ``send`` points (tests replace it).
            self.backend = WidgetBackend(
                self.service, lambda message: self.send(message), client=self.client_id
            )
            self.on_msg(self._on_message)

        @property
        def puzzles(self) -> list[Puzzle]:
            """The puzzles of a widget on games (its :class:`PuzzleDeck`'s), in order; [] for
            one on an archive (its cards are the archive's)."""
            if isinstance(self.training, PuzzleDeck):
                return list(self.training.puzzles.values())
            return []

        def close(self) -> None:
            """Stop the widget, close its engine (when :func:`train` made it) and the archive
            :func:`train` opened; idempotent."""
            super().close()
            if self._archive is not None:
                self._archive.close()
                self._archive = None


def train(
    source: Trainable = None,
    *,
    archive: Archive | str | os.PathLike[str] | None = None,
    player: str | None = None,
    color: str | None = None,
    nodes: int = DEFAULT_NODES,
    engine: Engine | None = None,
    seed: int | None = None,
) -> TrainWidget:
    """The training board in a notebook, on puzzles from ``source`` (games: :data:`Trainable`;
    ``color`` "white"/"black" keeps only the puzzles of that side's blunders and missed wins,
    None both sides') or from ``archive`` (an :class:`~ferrochess.service.archive.Archive`, a
    database path or URL) for ``player`` (the page's player id: the same cards, schedule and
    rating as on ``/train``). ``nodes``: nodes searched per position of a puzzle's line.
    ``engine`` is used as given and not closed; otherwise the widget makes
    ``Engine(seed=seed)`` and ``close()`` closes it. ValueError naming a bad argument (both or
    neither of ``source`` and ``archive``, a bad ``player``, ``color`` or ``nodes``), TypeError
    for a source of another type, FileNotFoundError for a missing PGN file; ImportError
    without anywidget (``pip install anywidget``)."""
    _require_anywidget()
    if (source is None) == (archive is None):
        raise ValueError("train() takes games (PGN text, a file, a game) or archive=: one of them")
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1000:
        raise ValueError(f"nodes must be a whole number of at least 1000, not {nodes!r}")
    if archive is not None and player is None:
        raise ValueError("train(archive=...) needs the player whose cards to drill (player=...)")
    try:
        name = read_player(DEFAULT_PLAYER if player is None else player)
    except BadInput:
        raise ValueError(
            f"player must be a player id (1 to 64 letters, digits, '-' or '_'), not {player!r}"
        ) from None
    assert name is not None
    side = _color(color)
    games = read_games(source) if source is not None else []
    owned = engine is None
    pool = EnginePool.lending(Engine(seed=seed) if engine is None else engine, owned=owned)
    opened: Archive | None = None
    try:
        training: Training
        if archive is None:
            found: list[Puzzle] = []
            with pool.engine(0) as searcher:
                for game in games:
                    found += make_puzzles(game, engine=searcher, nodes=nodes, player_color=side)
            training = PuzzleDeck(found, player=name)
        else:
            # The database's modules only here: importing the notebook loads no SQLAlchemy.
            from ferrochess.service.archive import Archive
            from ferrochess.service.training import TrainingService

            if not isinstance(archive, Archive):
                archive = opened = Archive.open(archive)
            training = TrainingService(archive, pool, nodes=nodes)
        return TrainWidget(training, name, pool=pool, archive=opened)
    except BaseException:
        pool.close()
        if opened is not None:
            opened.close()
        raise


if not TYPE_CHECKING and anywidget is None:
    __all__.remove("TrainWidget")

    def __getattr__(name: str) -> Any:
        if name == "TrainWidget":
            _require_anywidget()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
