"""The game service behind the play page and the notebook board: every request of docs/play.md.

Flask-free: :class:`GameService` takes a request's path and JSON body as plain Python values and
answers a JSON-ready dict, so the Flask blueprint (:mod:`ferrochess.web.play`) and the notebook
widget (:mod:`ferrochess.notebook`, over its comm) serve the same answers. Bad input raises
:class:`BadInput` naming the field (HTTP 400); a search cancelled by its client raises
:class:`Cancelled` (409); no free engine raises :class:`~ferrochess.service.pool.Busy` (503).

The service keeps no game: each request carries it whole (``fen``, ``moves``, ``end``), and
python-chess judges its moves; how it stands and ends, in which words, is
:func:`ferrochess.rules.status` (the notebook's :class:`~ferrochess.notebook.NotebookGame` asks the
same), and a level is one of :func:`ferrochess.levels` (:func:`check_level`). What it keeps is the
searches in flight, by ``client`` (one id per browser tab or widget), so a client can cancel its
own search (takeback, new game, reload, closing the page) and never runs two at once: a new search
of a client first stops that client's previous one.
"""

from __future__ import annotations

import datetime
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import chess
import chess.engine
import chess.pgn

from ferrochess import rules
from ferrochess._core import DEFAULT_LEVEL
from ferrochess.analysis import analyse_game, final_score, judgement, winning_chances
from ferrochess.engine import Engine, levels
from ferrochess.exceptions import IllegalMoveError, InvalidFenError
from ferrochess.interop import MATE_CP, san_line, tablebase_pov, white_score
from ferrochess.openings import opening
from ferrochess.service.game_pgn import game_pgn
from ferrochess.service.pool import Busy, EnginePool
from ferrochess.service.reading import (
    BadInput,
    Game,
    as_object,
    boolean,
    bounded,
    client_field,
    color_field,
    read_clock,
    read_game,
    read_move,
    text,
)
from ferrochess.service.time_control import read_clocks, read_time_control

__all__ = [
    "BadInput",
    "Busy",
    "Cancelled",
    "GameService",
    "Searching",
    "Settings",
    "check_level",
    "refusal",
]

FULL_STRENGTH = max(level.number for level in levels())
LOWEST_LEVEL = min(level.number for level in levels())
"""The levels' range, from :func:`ferrochess.levels` (nowhere written by hand)."""
START_POSITION_CODE = "A00a"
"""Scid's name for the standard start position, which is no opening."""

NATURAL_THINK_SECONDS = (0.6, 1.8)
"""Below full strength the engine replies after a natural time drawn from this range (seconds),
shorter from the book, instead of at once."""
BOOK_THINK_FACTOR = 0.5
NATURAL_SHARE_OF_CLOCK = 1 / 40
"""The natural time never takes more than this share of the engine's clock."""
DRAW_LEVEL_CP = 20
"""The engine accepts a draw when its evaluation is at most this many centipawns in its favour."""
DRAW_EARLIEST_MOVE = 30
"""Before this move number (the position's, as its FEN counts moves) the engine declines a draw,
however level the position, unless it cannot win it: a game barely begun is no draw."""
STOP_POLL_SECONDS = 0.005
"""How often a cancel repeats its stop until the search has ended (a stop that arrives just before
a search starts would otherwise be lost)."""

CHESS960_POSITIONS = 960
"""Chess960's start positions, numbered 0 to 959."""

VERDICT_BEST = "best"
VERDICT_GOOD = "good"


class Cancelled(Exception):
    """The client cancelled this search (or started another); answered with 409."""


def check_level(level: object, field: str = "level") -> int:
    """``level`` when it is the number of one of :func:`ferrochess.levels`; BadInput (a
    ValueError) naming ``field`` and quoting it otherwise. The play API, the service's settings
    and the notebook all check a level here."""
    return bounded(level, field, LOWEST_LEVEL, FULL_STRENGTH)


def refusal(error: Exception) -> tuple[int, dict[str, Any]] | None:
    """The status and ``{"error", "field"}`` body that answer ``error`` (400 bad input, 409
    cancelled, 503 busy), worded once for the HTTP API and the notebook widget; None for an
    exception that is no refusal (a failure)."""
    if isinstance(error, BadInput):
        return 400, {"error": error.message, "field": error.field}
    if isinstance(error, InvalidFenError):  # a game python-chess accepted but the engine cannot
        return 400, {"error": str(error), "field": "fen"}
    if isinstance(error, IllegalMoveError):
        return 400, {"error": str(error), "field": "moves"}
    if isinstance(error, Cancelled):
        return 409, {"error": "the search was cancelled", "field": None}
    if isinstance(error, Busy):
        return 503, {"error": "every engine is busy; try again in a moment", "field": None}
    return None


@dataclass(frozen=True)
class Settings:
    """How the service searches (the app's ``FERROCHESS_*`` configuration)."""

    max_think_seconds: float = 3.0
    """The longest a move's search may take; weaker levels stop much sooner."""
    busy_wait_seconds: float = 2.0
    """How long a request waits for a free engine before :class:`Busy`."""
    default_level: int = DEFAULT_LEVEL
    """The level a game starts at when the page does not say (the core's default)."""
    natural_delay: bool = True
    """Whether levels below full strength take a natural time to reply."""
    review_nodes: int = 150_000
    """Nodes searched per position of a review."""
    judge_nodes: int = 300_000
    """Nodes searched for the best move and for a try in "learn from your mistakes"."""
    draw_nodes: int = 300_000
    """Nodes searched to decide on a draw offer."""

    def __post_init__(self) -> None:
        if not self.max_think_seconds > 0:  # also refuses NaN
            raise ValueError(f"max_think_seconds must be above 0, not {self.max_think_seconds!r}")
        if not self.busy_wait_seconds >= 0:
            raise ValueError(f"busy_wait_seconds must be 0 or more, not {self.busy_wait_seconds!r}")
        check_level(self.default_level, "default_level")
        for name in ("review_nodes", "judge_nodes", "draw_nodes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)!r}")


class Searching:
    """One search in flight for a client (:meth:`GameService.searching`): cancelled by setting
    the event and stopping the engine until the search has ended."""

    def __init__(self) -> None:
        self.engine: Engine | None = None
        self.cancelled = threading.Event()
        self.done = threading.Event()

    def cancel(self, patience: float) -> None:
        self.cancelled.set()
        while not self.done.wait(STOP_POLL_SECONDS) and patience > 0:
            engine = self.engine
            if engine is not None:
                engine.stop()
            patience -= STOP_POLL_SECONDS


class GameService:
    """Answers the requests of the play page and the notebook board over one engine pool."""

    def __init__(self, pool: EnginePool, settings: Settings | None = None) -> None:
        self.pool = pool
        self.settings = settings or Settings()
        self._searches: dict[str, Searching] = {}
        self._lock = threading.Lock()
        self._random = random.Random()
        self._routes: dict[str, Callable[[Any], dict[str, Any]]] = {
            "api/levels": lambda _body: self.levels(),
            "api/state": self.state,
            "api/move": self.move,
            "api/draw": self.draw,
            "api/judge": self.judge,
            "api/pgn": self.pgn,
            "api/cancel": self.cancel,
            "api/chess960": self.chess960,
        }

    def add_routes(self, routes: dict[str, Callable[[Any], dict[str, Any]]]) -> None:
        """Answer these requests too (the analysis board's: :mod:`.analysis_board`)."""
        self._routes.update(routes)

    # --- dispatch (the notebook widget's way in) --------------------------------------------------

    def request(self, path: str, body: Any) -> dict[str, Any]:
        """Answer the request ``path`` (``"api/state"``, ...) with ``body``; ``api/review`` is
        :meth:`review`. Raises BadInput, Cancelled or Busy."""
        route = self._routes.get(path.strip("/"))
        if route is None:
            raise BadInput("path", f"no such request: {path!r}")
        return route(body)

    # --- the requests -----------------------------------------------------------------------------

    def levels(self) -> dict[str, Any]:
        return {
            "levels": [level._asdict() for level in levels()],
            "default": self.settings.default_level,
        }

    def state(self, body: Any) -> dict[str, Any]:
        return describe(read_game(body))

    def chess960(self, body: Any) -> dict[str, Any]:
        """A Chess960 start: ``position`` is its number (0 to 959, Scharnagl's numbering as
        :meth:`chess.Board.from_chess960_pos` has it; 518 is the standard array; or its decimal
        text, as typed) or ``"random"`` (the default); BadInput naming ``position`` for anything
        else. Answers ``{"position": n, "fen", "state"}``: the start's
        FEN (X-FEN, as python-chess writes it) and its State, for the game's requests to carry
        with ``chess960: true``."""
        data = as_object(body)
        chosen = data.get("position", "random")
        if isinstance(chosen, str) and chosen.strip().isdigit() and len(chosen.strip()) <= 9:
            chosen = int(chosen.strip())
        if chosen is None or chosen == "random":
            number = self._random.randrange(CHESS960_POSITIONS)
        elif isinstance(chosen, int) and not isinstance(chosen, bool):
            number = bounded(chosen, "position", 0, CHESS960_POSITIONS - 1)
        else:
            raise BadInput(
                "position",
                f"position must be a Chess960 start's number from 0 to "
                f"{CHESS960_POSITIONS - 1} or \"random\", not {chosen!r}",
            )
        board = chess.Board.from_chess960_pos(number)
        return {"position": number, "fen": board.fen(), "state": describe(Game(board, None))}

    def move(self, body: Any) -> dict[str, Any]:
        """The engine's move in the game of ``body`` at ``level``, from the book when ``book``."""
        data = as_object(body)
        game = read_game(data)
        board = game.board
        chosen = data.get("level")
        level = check_level(self.settings.default_level if chosen is None else chosen)
        use_book = boolean(data, "book", True)
        clock = read_clock(data)
        result, seconds = self.reply(game, level, use_book, clock, client_field(data))
        move = result.move
        assert move is not None  # reply() refuses a game without a legal move
        info: dict[str, Any] = dict(result.info)
        source = info.get("source", "search")
        answer: dict[str, Any] = {
            "move": move.uci(),
            "san": board.san(move),
            "source": source,
            "level": level,
            "think_ms": round(1000 * seconds, 1),
        }
        if source == "book":
            answer["book_weight"] = info.get("book_weight")
        else:
            answer["score"] = white_score(info)
            answer["pv"] = san_line(board, info.get("pv", [move]))
            answer["depth"] = info.get("depth", 0)
            answer["nodes"] = info.get("nodes", 0)
            answer["time_ms"] = round(1000 * info.get("time", 0.0), 1)
        if source == "tablebase":
            answer["wdl"] = info.get("wdl")
            answer["dtz"] = info.get("dtz")
            answer["tablebase"] = info.get("tablebase")  # the engine's view: it is to move
        board.push(move)
        answer["state"] = describe(Game(board, None))
        return answer

    def reply(
        self,
        game: Game,
        level: int,
        use_book: bool = True,
        clock: dict[str, float] | None = None,
        client: str | None = None,
    ) -> tuple[chess.engine.PlayResult, float]:
        """The engine's move in ``game`` at ``level`` (from the book when ``use_book``) and the
        seconds it took: refused (BadInput) when the game is over, searched within the service's
        think time and ``clock``, taking a natural time below full strength (when the settings
        say so). A newer search of ``client`` cancels this one (Cancelled); Busy when no engine
        is free. The play page's moves and the notebook's :class:`NotebookGame` both come here."""
        refuse_if_over(game)
        board = game.board
        limit = self._limit(board, clock)
        with self.searching(client) as search:
            started = time.monotonic()
            with self.borrowing(search) as engine:
                result = engine.play(board, limit, level=level, use_book=use_book)
            if search.cancelled.is_set():
                raise Cancelled
            source = str(result.info.get("source", "search"))
            delay = self._natural_delay(board, level, source, clock) - (time.monotonic() - started)
            if delay > 0 and search.cancelled.wait(delay):
                raise Cancelled
        if result.move is None:  # pragma: no cover - ruled out by the game-over check above
            raise BadInput("moves", "there is no legal move")
        return result, time.monotonic() - started

    def draw(self, body: Any) -> dict[str, Any]:
        """A draw offered by ``color`` (the human's side), answered by the engine, playing the
        other side, with its ``reason`` in words: it accepts when it cannot win (too little
        material ever to mate, or the tablebases say it does not win), else declines before
        :data:`DRAW_EARLIEST_MOVE`, else accepts when its evaluation says the position is level
        or worse for it (:data:`DRAW_LEVEL_CP`)."""
        data = as_object(body)
        game = read_game(data)
        refuse_if_over(game)
        offered_by = color_field(data, "color")
        engine_color = not offered_by
        with self.searching(client_field(data)) as search, self.borrowing(search) as engine:
            info = engine.analyse(game.board, chess.engine.Limit(nodes=self.settings.draw_nodes))
        if search.cancelled.is_set():
            raise Cancelled
        score = info["score"].pov(engine_color)
        white = white_score(info)
        assert white is not None, "a position where the game goes on is searched with a score"
        verdict = white.get("tablebase")  # White's view
        cannot_win = game.board.has_insufficient_material(engine_color) or (
            verdict is not None and tablebase_pov(verdict, chess.WHITE, engine_color) != "win"
        )
        if cannot_win:
            accepted, reason = True, "it cannot win this position"
        elif game.board.fullmove_number < DRAW_EARLIEST_MOVE:
            accepted = False
            reason = f"it is too early for a draw (before move {DRAW_EARLIEST_MOVE})"
        elif score.score(mate_score=MATE_CP) <= DRAW_LEVEL_CP:
            accepted, reason = True, "the position is level or worse for it"
        else:
            accepted, reason = False, "it stands better"
        answer: dict[str, Any] = {
            "accepted": accepted,
            "reason": f"ferrochess {'accepts' if accepted else 'declines'}: {reason}",
            "score": white,
        }
        end = {"by": "agreement"} if accepted else game.end
        answer["state"] = describe(Game(game.board, end))
        return answer

    def judge(self, body: Any) -> dict[str, Any]:
        """How good ``move`` is in the game's last position, against the engine's best there."""
        data = as_object(body)
        game = read_game(data)
        board = game.board
        refuse_if_over(game)
        move = read_move(data, "move", board)
        limit = chess.engine.Limit(nodes=self.settings.judge_nodes)
        with self.searching(client_field(data)) as search, self.borrowing(search) as engine:
            best_info = engine.analyse(board, limit)
            best_pv = best_info.get("pv") or []
            best = best_pv[0] if best_pv else move
            after = board.copy()
            after.push(move)
            ended = rules.outcome(after)
            after_info = None if ended is not None or move == best else engine.analyse(after, limit)
        if search.cancelled.is_set():
            raise Cancelled
        best_white = white_score(best_info)
        if move == best:
            after_white = best_white
        elif ended is not None:
            after_white = final_score(ended)
        else:
            assert after_info is not None
            after_white = white_score(after_info)
        assert best_white is not None and after_white is not None
        sign = 1 if board.turn == chess.WHITE else -1
        drop = sign * (winning_chances(best_white) - winning_chances(after_white))
        verdict = VERDICT_BEST if move == best else judgement(drop) or VERDICT_GOOD
        return {
            "move": move.uci(),
            "san": board.san(move),
            "verdict": verdict,
            "best_move": best.uci(),
            "best_san": board.san(best),
            "score": after_white,
            "best_score": best_white,
        }

    def review(self, body: Any, emit: Callable[[dict[str, Any]], object]) -> None:
        """Review the game with :func:`~ferrochess.analysis.analyse_game`, emitting
        ``{"progress": k, "total": n}`` as it goes, then ``{"review": ...}``; a cancelled review
        ends with ``{"cancelled": True}``. Bad input raises BadInput before anything is emitted."""
        data = as_object(body)
        self.review_game(read_game(data), data, emit)

    def review_game(
        self, game: Game, data: dict[str, Any], emit: Callable[[dict[str, Any]], object]
    ) -> None:
        """:meth:`review` of a game already read from ``data`` (the request, for its client)."""
        pgn_game = chess.pgn.Game.from_board(game.board)
        limit = chess.engine.Limit(nodes=self.settings.review_nodes)

        try:
            with self.searching(client_field(data)) as search:

                def progress(done: int, total: int) -> None:
                    if search.cancelled.is_set():
                        raise Cancelled
                    emit({"progress": done, "total": total})

                with self.borrowing(search) as engine:
                    review = analyse_game(pgn_game, limit, engine=engine, progress=progress)
                if search.cancelled.is_set():
                    raise Cancelled
        except Cancelled:
            emit({"cancelled": True})
            return
        emit({"review": review})

    def pgn(self, body: Any, site: str = "ferrochess") -> dict[str, Any]:
        """The game as PGN, written by python-chess, with ``white`` and ``black`` as names, the
        ``time_control`` ("300+3" or null, :mod:`ferrochess.service.time_control`) as its
        TimeControl tag and each move's ``clocks`` (seconds) as its ``[%clk]``."""
        data = as_object(body)
        game = read_game(data)
        white = text(data, "white", "White")
        black = text(data, "black", "Black")
        control = read_time_control(data.get("time_control"))
        clocks = read_clocks(data.get("clocks"), len(game.board.move_stack), control)
        today = datetime.date.today()
        written = game_pgn(
            game.board, event="ferrochess play", site=site, date=today.strftime("%Y.%m.%d"),
            white=white, black=black, status=rules.status(game.board, game.end),
            opening=opening_of(game.board),
            time_control=control, clocks=clocks,
        )  # fmt: skip
        return {"pgn": written, "filename": f"ferrochess-{today:%Y%m%d}.pgn"}

    def cancel(self, body: Any) -> dict[str, Any]:
        """Stop ``client``'s search or review, if one is running; waits until it has ended."""
        data = as_object(body)
        client = client_field(data)
        if client is None:
            raise BadInput("client", "client is required to cancel")
        with self._lock:
            search = self._searches.get(client)
        if search is None:
            return {"cancelled": False}
        search.cancel(self.settings.max_think_seconds + 1.0)
        return {"cancelled": True}

    # --- searches by client (also the analysis board's) -------------------------------------------

    @contextmanager
    def searching(self, client: str | None) -> Iterator[Searching]:
        """Register a search for ``client`` (cancelling its previous one; None: no client)."""
        search = Searching()
        previous = None
        if client is not None:
            with self._lock:
                previous = self._searches.get(client)
                self._searches[client] = search
        if previous is not None:
            previous.cancel(self.settings.max_think_seconds + 1.0)
        try:
            yield search
        finally:
            search.done.set()
            if client is not None:
                with self._lock:
                    if self._searches.get(client) is search:
                        del self._searches[client]

    @contextmanager
    def borrowing(self, search: Searching) -> Iterator[Engine]:
        """Borrow an engine for ``search``; Cancelled when the search was cancelled meanwhile."""
        with self.pool.engine(self.settings.busy_wait_seconds) as engine:
            search.engine = engine
            try:
                if search.cancelled.is_set():
                    raise Cancelled
                yield engine
            finally:
                search.engine = None

    def _limit(self, board: chess.Board, clock: dict[str, float] | None) -> chess.engine.Limit:
        think = float(self.settings.max_think_seconds)
        if clock is None:
            return chess.engine.Limit(time=think)
        return chess.engine.Limit(
            time=think,
            white_clock=clock["white"],
            black_clock=clock["black"],
            white_inc=clock["increment"],
            black_inc=clock["increment"],
        )

    def _natural_delay(
        self, board: chess.Board, level: int, source: str, clock: dict[str, float] | None
    ) -> float:
        """Seconds a level below full strength takes to reply in all (0 at full strength)."""
        if not self.settings.natural_delay or level >= FULL_STRENGTH:
            return 0.0
        low, high = NATURAL_THINK_SECONDS
        seconds = self._random.uniform(low, high)
        if source == "book":
            seconds *= BOOK_THINK_FACTOR
        if clock is not None:
            own = clock["white"] if board.turn == chess.WHITE else clock["black"]
            seconds = min(seconds, own * NATURAL_SHARE_OF_CLOCK)
        return min(seconds, float(self.settings.max_think_seconds))


# --- describing positions -------------------------------------------------------------------------


def describe(game: Game) -> dict[str, Any]:
    """The State of docs/play.md: what a client needs to draw the game and every position of it."""
    board = game.board
    root = board.root()
    replay = root.copy()
    sans = []
    positions = [{**position_of(replay, None), "material": material_of(replay)}]
    for move in board.move_stack:
        sans.append(replay.san(move))
        replay.push(move)
        positions.append({**position_of(replay, move), "material": material_of(replay)})
    status = rules.status(board, game.end)
    legal = [] if status["over"] else list(board.legal_moves)
    dests: dict[str, list[str]] = {}
    for move in legal:
        dests.setdefault(chess.square_name(move.from_square), []).append(
            chess.square_name(move.to_square)
        )
    for targets in dests.values():
        targets[:] = sorted(set(targets))
    current = positions[-1]
    return {
        "fen": board.fen(),
        "start_fen": root.fen(),
        "chess960": board.chess960,
        "moves": [move.uci() for move in board.move_stack],
        "san": sans,
        "turn": current["turn"],
        "fullmove": board.fullmove_number,
        "positions": positions,
        "legal_moves": [move.uci() for move in legal],
        "dests": dests,
        "last_move": current["last_move"],
        "check": current["check"],
        "status": status,
        "end": game.end,
        "opening": opening_of(board),
        "material": current["material"],
    }


def refuse_if_over(game: Game) -> None:
    """BadInput naming ``moves`` when the game has ended: nothing is searched in it."""
    status = rules.status(game.board, game.end)
    if status["over"]:
        raise BadInput("moves", f"the game is over ({status['reason']})")


def position_of(board: chess.Board, move: chess.Move | None) -> dict[str, Any]:
    king = board.king(board.turn) if board.is_check() else None
    return {
        "fen": board.fen(),
        "last_move": move.uci() if move is not None else None,
        "check": chess.square_name(king) if king is not None else None,
        "turn": "white" if board.turn == chess.WHITE else "black",
    }


def opening_of(board: chess.Board) -> dict[str, str] | None:
    """The opening the game is in; None before it has one (the start position is not one)."""
    named = opening(board)
    if named is None or named.code == START_POSITION_CODE:
        return None
    return {"eco": named.eco, "code": named.code, "name": named.name}


PIECE_POINTS = {chess.QUEEN: 9, chess.ROOK: 5, chess.BISHOP: 3, chess.KNIGHT: 3, chess.PAWN: 1}
"""The pieces' usual values in pawns, in the order lichess lists a side's extra pieces."""


def material_of(board: chess.Board) -> dict[str, dict[str, Any]]:
    """The material difference as lichess shows it beside each player: per colour, the pieces it
    has more of than the other side (``pieces``, names by role, queen first) and the points it is
    ahead by (``points``, 0 unless ahead)."""
    pieces: dict[str, list[str]] = {"white": [], "black": []}
    balance = 0
    for piece_type, points in PIECE_POINTS.items():
        white, black = (len(board.pieces(piece_type, color)) for color in chess.COLORS)
        balance += points * (white - black)
        more = "white" if white > black else "black"
        pieces[more].extend([chess.piece_name(piece_type)] * abs(white - black))
    return {
        "white": {"pieces": pieces["white"], "points": max(balance, 0)},
        "black": {"pieces": pieces["black"], "points": max(-balance, 0)},
    }
