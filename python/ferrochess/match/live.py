"""The state a live view of a match keeps from the runner's events, free of any widget or
browser: :class:`LiveMatch` takes the events of :mod:`ferrochess.match.events` (from the match's
worker threads, under its lock, which costs the games nothing) and gives the match as JSON-ready
snapshots ``(state, games)``. ``state`` is what changes with every move: the status
(``"waiting"``, ``"running"``, ``"stopping"``, then ``"finished"``, ``"stopped"`` or
``"error"``, with the error that ended the match in ``state["error"]``), the players, the games
in play as boards with their clocks, the first player's score (:func:`summary`), the SPRT's LLR
between its bounds and its history, and a crosstable (:func:`crosstable`) when more than two
players play. ``games`` is the latest finished games (at most :data:`RECENT_GAMES`), each a
:func:`game_row`.

The notebook's match widget (:mod:`ferrochess.notebook_match`) publishes these snapshots as its
synced traits ``state`` and ``games``.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import chess
import chess.engine

from ferrochess.match.events import (
    Event,
    GameFinished,
    GameStarted,
    MatchFinished,
    MatchStarted,
    MovePlayed,
    Progress,
)
from ferrochess.match.result import GameRecord, MatchResult
from ferrochess.match.runner import Match
from ferrochess.match.stats import SPRT, Estimate

__all__ = ["LLR_POINTS", "RECENT_GAMES", "LiveMatch", "crosstable", "game_row", "summary"]

RECENT_GAMES = 200
"""How many finished games the trait ``games`` holds (the latest); :meth:`MatchWidget.pgn
<ferrochess.notebook_match.MatchWidget.pgn>` and the match's result have them all."""
LLR_POINTS = 400
"""The most points of the LLR's history sent to the front end (the chart is thinned out)."""

RUNNING, WAITING, STOPPING = "running", "waiting", "stopping"
FINISHED, STOPPED, FAILED = "finished", "stopped", "error"
ENDED = frozenset({FINISHED, STOPPED, FAILED})

Message = dict[str, Any]


# --- what the front end is sent -----------------------------------------------------------------


def _number(value: float | None) -> float | None:
    """A float JSON can carry: None for a missing, infinite or NaN one."""
    return float(value) if value is not None and math.isfinite(value) else None


def _estimate(estimate: Estimate, pairs: int) -> Message | None:
    """``{value, low, high}``, None before any pair (no interval yet)."""
    if pairs == 0 or not math.isfinite(estimate.value):
        return None
    return {"value": estimate.value, "low": _number(estimate.low),
            "high": _number(estimate.high)}  # fmt: skip


def _score(score: chess.engine.PovScore | None) -> Message | None:
    """A mover's score as the UI kit reads it: White's view, ``{cp}`` or ``{mate}``."""
    if score is None:
        return None
    white = score.white()
    mate = white.mate()
    return {"cp": white.score()} if mate is None else {"mate": mate}


def _color(turn: chess.Color) -> str:
    return "white" if turn == chess.WHITE else "black"


def _kind(players: int, pairings: Sequence[tuple[int, int]]) -> str:
    """``"match"``, ``"gauntlet"`` or ``"roundrobin"``, as the match's pairings say."""
    if players == 2:
        return "match"
    if len(pairings) == players - 1 and all(first == 0 for first, _ in pairings):
        return "gauntlet"
    return "roundrobin"


def _thinned(points: list[tuple[int, float]], most: int = LLR_POINTS) -> list[list[float]]:
    """``points`` as JSON pairs, evenly thinned out to ``most`` (the first and last kept)."""
    if len(points) <= most:
        return [[games, llr] for games, llr in points]
    step = (len(points) - 1) / (most - 1)
    return [list(points[round(i * step)]) for i in range(most)]


def _opening_text(record: GameRecord) -> str:
    """The opening's name; else its moves in SAN; else where it starts."""
    opening = record.opening
    if opening.name:
        return opening.name
    if opening.moves:
        start = opening.start()
        return start.variation_san([chess.Move.from_uci(uci) for uci in opening.moves])
    return "Start position" if opening.fen == chess.STARTING_FEN else "From a position"


def game_row(record: GameRecord) -> Message:
    """A finished game as the front end lists it: ``index``, ``round``, ``white``, ``black``,
    ``result``, ``reason``, ``termination``, ``opening`` (in words), ``plies`` (the players'),
    and its final position: ``fen``, ``last_move`` (UCI or None), ``turn``, ``check``."""
    board = record.opening.board()
    for uci in record.moves:
        board.push_uci(uci)
    last = board.move_stack[-1].uci() if board.move_stack else None
    return {
        "index": record.index, "round": record.round, "white": record.white,
        "black": record.black, "result": record.result, "reason": record.reason,
        "termination": record.termination, "opening": _opening_text(record),
        "plies": len(record.moves), "fen": board.fen(shredder=board.chess960),
        "last_move": last, "turn": _color(board.turn), "check": board.is_check(),
    }  # fmt: skip


def summary(result: MatchResult | None, players: Sequence[str]) -> Message:
    """The first player's numbers over its pairings: ``first``, ``second`` (None with more than
    two players), ``games``, ``wins``, ``draws``, ``losses``, ``points``, ``score`` (0..1),
    ``elo`` and ``nelo`` (``{value, low, high}``, None before a pair is finished), ``los``
    (None likewise), ``pentanomial`` (the five counts, fishtest's order) and ``pairs``."""
    second = players[1] if len(players) == 2 else None
    if result is None:
        return {"first": players[0], "second": second, "games": 0, "wins": 0, "draws": 0,
                "losses": 0, "points": 0.0, "score": 0.5, "elo": None, "nelo": None,
                "los": None, "pentanomial": [0, 0, 0, 0, 0], "pairs": 0}  # fmt: skip
    penta = result.pentanomial
    pairs = penta.pairs
    return {
        "first": players[0], "second": second,
        "games": result.wins + result.draws + result.losses,
        "wins": result.wins, "draws": result.draws, "losses": result.losses,
        "points": result.points, "score": result.score,
        "elo": _estimate(result.elo, pairs), "nelo": _estimate(result.nelo, pairs),
        "los": _number(result.los) if pairs else None,
        "pentanomial": list(penta.counts()), "pairs": pairs,
    }  # fmt: skip


def crosstable(result: MatchResult | None, players: Sequence[str]) -> Message:
    """The players in standings order (``players``, ``points``, ``games``) and ``cells``: row
    ``i``, column ``j`` holds ``{points, games}`` of player ``i`` against player ``j`` (the row
    player's points), or None where they do not meet (and on the diagonal)."""
    count = len(players)
    points = [[0.0] * count for _ in range(count)]
    games = [[0] * count for _ in range(count)]
    met = [[False] * count for _ in range(count)]
    if result is not None:
        for pairing in result.pairings:
            a, b = pairing.first_player, pairing.second_player
            met[a][b] = met[b][a] = True
            points[a][b] += pairing.points
            points[b][a] += pairing.losses + pairing.draws / 2
            games[a][b] += pairing.games
            games[b][a] += pairing.games
        standings = result.standings()
        order = [players.index(name) for name, _points, _games in standings]
    else:
        order = list(range(count))
    return {
        "players": [players[i] for i in order],
        "points": [sum(points[i]) for i in order],
        "games": [sum(games[i]) for i in order],
        "cells": [[{"points": points[i][j], "games": games[i][j]} if met[i][j] else None
                   for j in order] for i in order],
    }  # fmt: skip


# --- the live state ------------------------------------------------------------------------------


class LiveMatch:
    """What a match's widget shows, kept up to date from the match's events (:meth:`observe`,
    any thread, cheap: the work is done by :meth:`snapshot`) and read as JSON-ready snapshots.

    ``plan`` is the :class:`~ferrochess.match.Match` (its players, planned games, pairings,
    limits and SPRT). :attr:`changed` is set by every change and cleared by :meth:`snapshot`;
    :attr:`ended` once the match has ended (:class:`MatchFinished`, :meth:`finish` or
    :meth:`fail`). ``clock`` gives the seconds the boards' clocks run by (monotonic).
    """

    def __init__(self, plan: Match, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.plan = plan
        self.clock = clock
        self.changed = threading.Event()
        self._lock = threading.Lock()
        self._players = tuple(plan.names)
        self._status = WAITING
        self._error: str | None = None
        self._boards: dict[int, Message] = {}
        self._moved_at: dict[int, float] = {}
        self._records: list[GameRecord] = []
        self._rows: dict[int, Message] = {}
        self._result: MatchResult | None = None
        self._llr: list[tuple[int, float]] = []
        self._games_version = 0

    # -- events, from the match's threads

    def observe(self, event: Event) -> None:
        """Take one of the match's events into the state."""
        with self._lock:
            if isinstance(event, MovePlayed):
                self._moved(event)
            elif isinstance(event, GameStarted):
                self._started(event)
            elif isinstance(event, GameFinished):
                self._boards.pop(event.record.index, None)
                self._moved_at.pop(event.record.index, None)
                self._records.append(event.record)
                self._games_version += 1
            elif isinstance(event, Progress):
                self._take(event.result)
            elif isinstance(event, MatchStarted):
                if self._status == WAITING:
                    self._status = RUNNING
            elif isinstance(event, MatchFinished):
                self._end(event.result)
            self.changed.set()

    def stopping(self) -> None:
        """The match was asked to stop: "stopping" until it has."""
        with self._lock:
            if self._status in (WAITING, RUNNING):
                self._status = STOPPING
                self.changed.set()

    def running(self) -> None:
        """The match has been started (its MatchStarted may come later)."""
        with self._lock:
            if self._status == WAITING:
                self._status = RUNNING
                self.changed.set()

    def finish(self, result: MatchResult) -> None:
        """The match ended with ``result`` (what MatchFinished says; for a match watched after
        its end)."""
        with self._lock:
            if self._status not in ENDED:
                self._end(result)
                self.changed.set()

    def fail(self, error: BaseException) -> None:
        """The match ended with ``error``: shown as the widget's error, the games in play
        dropped."""
        with self._lock:
            self._status = FAILED
            self._error = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            self._boards.clear()
            self.changed.set()

    @property
    def ended(self) -> bool:
        with self._lock:
            return self._status in ENDED

    def _started(self, event: GameStarted) -> None:
        board = chess.Board(event.fen, chess960=event.chess960)
        for uci in event.opening:
            board.push_uci(uci)
        spec = self._spec(event.game)
        self._boards[event.game] = {
            "game": event.game, "round": event.round, "white": event.white,
            "black": event.black,
            "opening": spec.opening.name if spec is not None else "",
            "clocks": {"white": self._initial_clock(spec, chess.WHITE),
                       "black": self._initial_clock(spec, chess.BLACK)},
            **self._position(board.fen(shredder=board.chess960), event.opening[-1]
                             if event.opening else None, None),
        }  # fmt: skip
        self._moved_at[event.game] = self.clock()
        if self._status == WAITING:
            self._status = RUNNING

    def _moved(self, event: MovePlayed) -> None:
        board = self._boards.get(event.game)
        if board is None:  # watched from the middle of the game
            spec = self._spec(event.game)
            if spec is None:
                return
            board = self._boards[event.game] = {
                "game": event.game, "round": spec.round,
                "white": self._players[spec.white], "black": self._players[spec.black],
                "opening": spec.opening.name,
            }  # fmt: skip
        board.update(self._position(event.fen, event.move, _score(event.score)))
        board["clocks"] = {"white": _number(event.white_clock),
                           "black": _number(event.black_clock)}  # fmt: skip
        self._moved_at[event.game] = self.clock()

    @staticmethod
    def _position(fen: str, last_move: str | None, score: Message | None) -> Message:
        board = chess.Board(fen, chess960=True)
        return {"fen": fen, "last_move": last_move, "turn": _color(board.turn),
                "check": board.is_check(), "score": score}  # fmt: skip

    def _spec(self, game: int) -> Any:
        specs = getattr(self.plan, "specs", ())
        return specs[game] if 0 <= game < len(specs) else None

    def _initial_clock(self, spec: Any, color: chess.Color) -> float | None:
        """The seconds on a side's clock at the start (None without a clock)."""
        limits = getattr(self.plan, "limits", ())
        if spec is None or not limits:
            return None
        limit = limits[spec.white if color == chess.WHITE else spec.black]
        clock = None if limit is None else limit.clock
        return None if clock is None else float(clock.base)

    def _take(self, result: MatchResult) -> None:
        self._result = result
        if result.llr is not None and math.isfinite(result.llr):
            point = (len(result.games), result.llr)
            while self._llr and self._llr[-1][0] > point[0]:
                self._llr.pop()  # the final result drops games finished past the SPRT's pair
            if not self._llr or self._llr[-1] != point:
                self._llr.append(point)

    def _end(self, result: MatchResult) -> None:
        self._take(result)
        if {record.index for record in result.games} != {r.index for r in self._records}:
            self._records = list(result.games)  # watched after its end, or the SPRT cut it
            self._games_version += 1
        self._boards.clear()
        if self._status != FAILED:
            self._status = STOPPED if result.cancelled else FINISHED

    # -- snapshots, for the front end

    @property
    def games_version(self) -> int:
        """A number that changes whenever the finished games do."""
        with self._lock:
            return self._games_version

    def record(self, index: int) -> GameRecord | None:
        """The finished game number ``index``, or None."""
        with self._lock:
            return next((record for record in self._records if record.index == index), None)

    def snapshot(self) -> tuple[Message, list[Message]]:
        """``(state, games)``: the traits' values now (see the module's docstring); clears
        :attr:`changed`."""
        with self._lock:
            self.changed.clear()
            now = self.clock()
            records = self._records[-RECENT_GAMES:]
            result, status, error = self._result, self._status, self._error
            boards = []
            for index in sorted(self._boards):
                board = dict(self._boards[index])
                board["elapsed"] = max(0.0, now - self._moved_at.get(index, now))
                boards.append(board)
            llr = list(self._llr)
        rows = []
        for record in records:
            if record.index not in self._rows:
                self._rows[record.index] = game_row(record)
            rows.append(self._rows[record.index])
        return self._state(status, error, result, boards, llr), rows

    def _state(self, status: str, error: str | None, result: MatchResult | None,
               boards: list[Message], llr: list[tuple[int, float]]) -> Message:  # fmt: skip
        plan, players = self.plan, self._players
        sprt: SPRT | None = getattr(plan, "sprt", None)
        state: Message = {
            "status": status, "error": error, "players": list(players),
            "kind": _kind(len(players), getattr(plan, "pairings", ())),
            "time_control": getattr(plan, "time_control", "-"),
            "planned": result.planned_games if result else len(getattr(plan, "specs", ())),
            "played": len(result.games) if result else 0,
            "boards": boards,
            "score": summary(result, players),
            "sprt": None,
            "crosstable": crosstable(result, players) if len(players) > 2 else None,
        }  # fmt: skip
        if sprt is not None:
            low, high = sprt.bounds
            state["sprt"] = {
                "elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta,
                "model": sprt.model, "lower": low, "upper": high,
                "llr": _number(result.llr) if result else None,
                "decision": result.decision if result else None,
                "history": _thinned(llr),
            }  # fmt: skip
        return state
