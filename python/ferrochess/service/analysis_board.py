"""The analysis board's requests (docs/play.md, "The analysis board"), beside the game's.

Flask-free like :class:`~ferrochess.service.game.GameService`, whose engines, searches by client and
refusals it shares: :class:`AnalysisService` adds its routes to a GameService, so the page's
blueprint and the notebook widget's comm answer them the same way.

``api/position``  a node of the tree (start FEN + the moves to it) -> what the board needs there
``api/analyse``   a live analysis: :meth:`AnalysisService.start` borrows an engine (Busy now, not
                  later), then :meth:`Analysis.run` streams the engine's lines as it deepens
``api/explorer``  the book's moves with their weights, the opening's name, the tablebases' verdict
                  on each move
``api/import``    a PGN text (a list of its games, or one of them), a FEN, or a played game with
                  its review -> a tree (:mod:`ferrochess.pgn_tree`)
``api/export``    a tree -> PGN, by python-chess's writer
"""

from __future__ import annotations

import datetime
import os
import re
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import chess
import chess.engine
import chess.pgn

from ferrochess import pgn_tree, rules
from ferrochess._core import MAX_DEPTH
from ferrochess.book import Book, open_book
from ferrochess.engine import Engine
from ferrochess.interop import TABLEBASE_VERDICTS, san_line, white_score
from ferrochess.service.game import Cancelled, GameService, Searching, describe, opening_of
from ferrochess.service.reading import BadInput, as_object, bounded, client_field, read_game
from ferrochess.tablebase import Tablebase, open_tablebase

__all__ = ["Analysis", "AnalysisService", "MAX_LINES"]

MAX_LINES = 5
"""The most lines (multipv) an analysis shows, as lichess's local engine."""
DEFAULT_ANALYSIS_SECONDS = 60.0
"""How long an analysis runs at most unless the server says otherwise (``--analysis-seconds``)."""
ANALYSIS_LIMIT = chess.engine.Limit(depth=MAX_DEPTH)
"""An analysis searches as deep as the engine goes; the cap or the client stops it."""

Emit = Callable[[dict[str, Any]], object]


@dataclass
class Analysis:
    """One live analysis, its engine already borrowed: :meth:`run` searches and emits, in the
    calling thread; :meth:`stop` (any thread) ends it and :meth:`run` then returns."""

    board: chess.Board
    lines: int
    seconds: float
    engine: Engine | None
    search: Searching | None
    resources: ExitStack
    stopped: threading.Event
    over: dict[str, Any] | None
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held while the engine is stopped and while it is given back: a stop never reaches an
    engine that another request has borrowed since."""
    finished: bool = False

    def run(self, emit: Emit) -> None:
        """Emit ``{"lines": [...], "depth", "nodes", "nps", "time", "source"}`` after each
        iteration, then ``{"done": True, "reason", "time"}``; the engine is given back before the
        last line."""
        started = time.monotonic()
        reason = "over"
        try:
            if self.engine is not None and self.over is None:
                reason = self._search(emit)
        finally:
            with self.lock:
                self.finished = True
                self.resources.close()
        done: dict[str, Any] = {"done": True, "reason": reason,
                                "time": round(time.monotonic() - started, 3)}  # fmt: skip
        if self.over is not None:
            done["status"] = self.over
        emit(done)

    def stop(self) -> None:
        """End the analysis (harmless when it has ended)."""
        self.stopped.set()
        self._stop_engine()

    def _stop_engine(self) -> None:
        with self.lock:
            if self.engine is not None and not self.finished:
                self.engine.stop()

    def _search(self, emit: Emit) -> str:
        assert self.engine is not None
        board = self.board
        expected = min(self.lines, board.legal_moves.count())
        pending: list[chess.engine.InfoDict] = []
        emitted = [False]

        def flush() -> None:
            if pending:
                emit(report(board, pending))
                emitted[0] = True
                pending.clear()

        def collect(info: chess.engine.InfoDict) -> None:
            """The engine calls back once per line after each iteration: the lines of one
            iteration (multipv 1, 2, ...) go out together."""
            if self.is_stopped():
                raise Cancelled
            if info.get("multipv", 1) == 1:
                flush()
            pending.append(info)
            if len(pending) >= expected:
                flush()

        # As UCI's "go infinite" with a cap: as deep as the search goes, until stopped.
        capped = threading.Event()

        def cap() -> None:
            capped.set()
            self._stop_engine()

        engine = self.engine
        timer = threading.Timer(self.seconds, cap)
        timer.daemon = True
        timer.start()
        try:
            infos = engine.analyse(board, ANALYSIS_LIMIT, self.lines, callback=collect)
        except Cancelled:
            return "stopped"
        finally:
            timer.cancel()
        if self.is_stopped():
            return "stopped"
        flush()
        if infos and (not emitted[0] or infos[0].get("source") == "tablebase"):
            emit(report(board, infos))
        return "cap" if capped.is_set() else "finished"

    def is_stopped(self) -> bool:
        """Whether :meth:`stop` was called, or the client cancelled (api/cancel, a new search)."""
        return self.stopped.is_set() or (self.search is not None and
                                         self.search.cancelled.is_set())  # fmt: skip


def report(board: chess.Board, infos: list[chess.engine.InfoDict]) -> dict[str, Any]:
    """An iteration's lines as the stream sends them: scores from White's view, moves in UCI and
    SAN, best first; the search's counters from the first line."""
    lines = []
    for number, info in enumerate(infos, start=1):
        pv = info.get("pv", [])
        lines.append({
            "multipv": info.get("multipv", number),
            "score": white_score(info),
            "depth": info.get("depth", 0),
            "seldepth": info.get("seldepth", 0),
            "pv": [move.uci() for move in pv],
            "san": san_line(board, pv),
        })  # fmt: skip
    first = infos[0]
    return {
        "lines": lines,
        "depth": first.get("depth", 0),
        "nodes": first.get("nodes", 0),
        "nps": first.get("nps", 0),
        "time": round(float(first.get("time", 0.0)), 3),
        "source": first.get("source", "search"),
    }


class AnalysisService:
    """The analysis board's requests over ``games``'s engines; ``book`` (a path or ``"default"``)
    and ``syzygy_path`` are what the explorer shows (None: no book, no tables), ``seconds`` the
    longest an analysis runs. Adds its routes to ``games`` (:meth:`GameService.request`)."""

    def __init__(
        self,
        games: GameService,
        *,
        book: str | os.PathLike[str] | None,
        syzygy_path: str | None,
        seconds: float = DEFAULT_ANALYSIS_SECONDS,
    ) -> None:
        if not seconds > 0:
            raise ValueError(f"the analysis cap must be above 0 seconds, not {seconds!r}")
        self.games = games
        self.seconds = float(seconds)
        named = None if book is None else os.fspath(book)
        self.book_name = named if named in (None, "default") else os.path.basename(str(named))
        self._book: Book | None = None if book is None else open_book(book)
        self._tablebase: Tablebase | None = open_tablebase(syzygy_path) if syzygy_path else None
        games.add_routes({
            "api/position": self.position,
            "api/explorer": self.explorer,
            "api/import": self.import_tree,
            "api/export": self.export_tree,
        })  # fmt: skip

    def close(self) -> None:
        if self._book is not None:
            self._book.close()
        if self._tablebase is not None:
            self._tablebase.close()

    # --- api/position ---------------------------------------------------------------------------

    def position(self, body: Any) -> dict[str, Any]:
        """The State of api/state without its ``positions``: one node of the tree."""
        state = describe(read_game(body))
        del state["positions"]
        return state

    # --- api/analyse ----------------------------------------------------------------------------

    def start(self, body: Any) -> Analysis:
        """An analysis of ``body``'s position (``fen``, ``moves``, ``multipv`` 1..5, ``client``),
        registered for its client (whose previous search it stops) with an engine borrowed:
        BadInput or Busy now, before anything is streamed. The caller must :meth:`Analysis.run`
        it (or stop it and run it, which gives the engine back)."""
        data = as_object(body)
        game = read_game(data)
        lines = bounded(data.get("multipv", 1), "multipv", 1, MAX_LINES)
        client = client_field(data)
        if client is None:
            raise BadInput("client", "client is required for an analysis (it is how one stops)")
        status = rules.status(game.board)
        resources = ExitStack()
        stopped = threading.Event()
        board = game.board
        if status["over"]:
            return Analysis(board, lines, self.seconds, None, None, resources, stopped, status)
        try:
            search = resources.enter_context(self.games.searching(client))
            engine = resources.enter_context(self.games.borrowing(search))
        except BaseException:
            resources.close()
            raise
        return Analysis(board, lines, self.seconds, engine, search, resources, stopped, None)

    # --- api/explorer ---------------------------------------------------------------------------

    def explorer(self, body: Any) -> dict[str, Any]:
        """The book's moves (in the book's order: heaviest first), the opening, and with tables
        that cover the position, its verdict and each move's, from the side to move's view."""
        board = read_game(body).board
        return {
            "opening": opening_of(board),
            "book": self._book_moves(board),
            "tablebase": self._tablebase_moves(board),
        }

    def _book_moves(self, board: chess.Board) -> dict[str, Any]:
        if self._book is None:
            return {"name": None, "moves": []}
        if board.chess960:  # a Polyglot book holds standard chess only
            return {"name": self.book_name, "moves": []}
        entries = list(self._book.find_all(board))
        total = sum(entry.weight for entry in entries) or 1
        moves = [
            {"uci": entry.move.uci(), "san": board.san(entry.move), "weight": entry.weight,
             "share": round(100 * entry.weight / total, 1)}  # fmt: skip
            for entry in entries
        ]
        return {"name": self.book_name, "moves": moves}

    def _tablebase_moves(self, board: chess.Board) -> dict[str, Any] | None:
        tables = self._tablebase
        if tables is None or chess.popcount(board.occupied) > tables.max_pieces:
            return None
        if board.castling_rights or rules.status(board)["over"]:
            return None
        if board.chess960:  # without castling rights the same position as standard chess
            board = board.copy(stack=False)
            board.chess960 = False
        wdl = tables.get_wdl(board)
        dtz = tables.get_dtz(board)
        if wdl is None:
            return None
        moves = []
        for move in board.legal_moves:
            san = board.san(move)
            zeroing = board.is_zeroing(move)
            board.push(move)
            try:
                found = _after_move(tables, board)
            finally:
                board.pop()
            if found is None:
                return None  # a table is missing: show nothing rather than half
            after, after_dtz, ended = found
            moves.append({
                "uci": move.uci(), "san": san, "wdl": after, "dtz": after_dtz,
                "verdict": verdict(after), "checkmate": ended == "checkmate",
                "ends": ended, "zeroing": zeroing,
            })  # fmt: skip
        moves.sort(key=best_first)
        return {"wdl": wdl, "dtz": dtz, "verdict": verdict(wdl),
                "pieces": chess.popcount(board.occupied), "moves": moves}  # fmt: skip

    # --- api/import and api/export --------------------------------------------------------------

    def import_tree(self, body: Any) -> dict[str, Any]:
        """A PGN text's games (and the tree of the one asked for, or of the only one), a FEN's
        tree, or a played game's tree with its review (``fen``, ``moves``, ``headers``,
        ``review``)."""
        data = as_object(body)
        if "pgn" in data:
            return self._import_pgn(data)
        game = read_game(data)
        headers = data.get("headers") or {}
        if not isinstance(headers, dict) or not all(
            isinstance(key, str) and isinstance(value, str) for key, value in headers.items()
        ):
            raise BadInput("headers", "headers must be an object of tag names to strings")
        review = data.get("review")
        if review is not None and not isinstance(review, dict):
            raise BadInput("review", "review must be the object api/review answered")
        try:
            return {"tree": pgn_tree.tree_from_review(game.board, headers, review)}
        except pgn_tree.TreeError as error:
            raise BadInput(error.field, error.message) from None

    def _import_pgn(self, data: dict[str, Any]) -> dict[str, Any]:
        text = data["pgn"]
        if not isinstance(text, str):
            raise BadInput("pgn", f"pgn must be the text of a PGN file, not {type(text).__name__}")
        stripped = text.strip()
        if stripped and "\n" not in stripped and "[" not in stripped:
            try:
                board = rules.position(stripped)
            except ValueError as error:
                if "/" in stripped.split()[0] and stripped.split()[0] != "1/2-1/2":
                    raise BadInput("pgn", str(error)) from None  # its rows: meant as a FEN
                # not a FEN: read it as PGN movetext
            else:
                return {"games": [], "truncated": False, "warnings": [],
                        "tree": pgn_tree.tree_from_review(board, {}, None)}  # fmt: skip
        games, truncated = pgn_tree.read_games(text)
        if not games:
            raise BadInput("pgn", "no game found in the PGN text")
        index = data.get("index")
        if index is None and len(games) > 1:
            return {"games": games, "truncated": truncated, "warnings": []}
        number = 0 if index is None else bounded(index, "index", 0, 10**7)
        try:
            game, warnings = pgn_tree.read_game_at(text, number)
            tree = pgn_tree.tree_from_game(game)
        except pgn_tree.TreeError as error:
            raise BadInput(error.field, error.message) from None
        tagless = number < len(games) and not games[number]["headers"]
        if not tree["moves"] and (warnings or tagless):
            reason = warnings[0] if warnings else "no tags and no moves"
            raise BadInput("pgn", f"no game found in the PGN text ({reason})")
        return {"games": games, "truncated": truncated, "warnings": warnings, "tree": tree}

    def export_tree(self, body: Any) -> dict[str, Any]:
        """The tree as PGN, written by python-chess, with a file name for it."""
        data = as_object(body)
        try:
            game = pgn_tree.game_from_tree(data.get("tree"))
        except pgn_tree.TreeError as error:
            raise BadInput(error.field, error.message) from None
        return {"pgn": pgn_tree.write_pgn(game), "filename": export_filename(game.headers)}


def export_filename(headers: chess.pgn.Headers) -> str:
    """The export's file name: "White_vs_Black_2026.11.28.pgn" (the date when the PGN knows it
    whole) for a game with players, "Unknown" for a side not named; "analysis-20261128.pgn"
    (today) for one with none. Names keep letters, digits and "-"; every other run is one "_"."""

    def safe(name: str) -> str:
        return re.sub(r"[^\w-]+", "_", name).strip("_-")

    white, black = (safe(headers.get(side, "?")) for side in ("White", "Black"))
    if not white and not black:
        return f"analysis-{datetime.date.today():%Y%m%d}.pgn"
    date = headers.get("Date", "")
    day = f"_{date}" if re.fullmatch(r"\d{4}\.\d{2}\.\d{2}", date) else ""
    return f"{white or 'Unknown'}_vs_{black or 'Unknown'}{day}.pgn"


def _after_move(
    tables: Tablebase, board: chess.Board
) -> tuple[int, int | None, str | None] | None:
    """WDL and DTZ of the position after a move, from the view of the side that made it, and how
    the move ends the game if it does (:func:`ferrochess.rules.status`'s reason: "checkmate",
    "stalemate", ...); None when the tables do not have the position."""
    status = rules.status(board)
    if status["over"]:
        return (2 if status["winner"] else 0), 0, status["reason"]
    wdl = tables.get_wdl(board)
    if wdl is None:
        return None
    dtz = tables.get_dtz(board)
    return -wdl, None if dtz is None else -dtz, None


def verdict(wdl: int) -> str:
    """The tables' word for a WDL value (2 win ... -2 loss)."""
    return TABLEBASE_VERDICTS[2 - wdl]


def best_first(move: dict[str, Any]) -> tuple[int, int, int]:
    """Order of the explorer's tablebase moves, as lichess lists them: mates, then wins soonest
    to zero (a capture or pawn move first), draws, then losses that hold out longest."""
    wdl = move["wdl"]
    plies = abs(move["dtz"] or 0)
    return (-wdl, 0 if move["checkmate"] else 1, plies if wdl > 0 else -plies if wdl < 0 else 0)
