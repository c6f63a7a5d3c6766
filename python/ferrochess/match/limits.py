"""What limits a player's moves in a match: a clock (:class:`TimeControl`), nodes, depth or a fixed
time per move, gathered in a :class:`Limit`; and the running :class:`Clock` of one side.

A clock runs as cutechess-cli and fastchess keep it: each move's wall time is taken off the mover's
clock, then the increment is added; with ``moves`` (moves to go) the base time is added again each
time a period of ``moves`` moves is complete. A move that overdraws the clock by more than the
limit's ``margin`` loses on time; one that overdraws it by less leaves the clock at zero
(fastchess's ``timemargin``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Union

import chess
import chess.engine

__all__ = ["Clock", "Limit", "LimitSpec", "TimeControl", "as_limit"]

_TIME_CONTROL = re.compile(
    r"^(?:(?P<moves>\d+)/)?(?P<base>(?:\d+:)?\d+(?:\.\d*)?|\.\d+)(?:\+(?P<inc>\d+(?:\.\d*)?|\.\d+))?$"
)


def _seconds(text: str) -> float:
    """``"90"``, ``"1.5"`` or ``"1:30"`` (minutes:seconds) in seconds."""
    minutes, _, seconds = text.rpartition(":")
    return (int(minutes) * 60 if minutes else 0) + float(seconds)


def _number(value: float) -> str:
    return f"{value:.6g}"


@dataclass(frozen=True)
class TimeControl:
    """A chess clock: ``base`` seconds at the start, ``increment`` seconds added after each move,
    and with ``moves`` the base added again every ``moves`` moves (``40/60``: 60 s per 40 moves).

    ``str()`` gives the PGN ``TimeControl`` tag (``"10+0.1"``, ``"40/60"``). Negative or
    non-finite times, ``moves`` below 1 and a clock with neither base nor increment raise
    ValueError naming the field.
    """

    base: float
    increment: float = 0.0
    moves: int | None = None

    def __post_init__(self) -> None:
        for name in ("base", "increment"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} = {value!r}: a time control needs seconds >= 0")
        if self.base + self.increment <= 0:
            raise ValueError("base = 0 and increment = 0: the clock would start empty")
        if self.moves is not None and (not isinstance(self.moves, int) or self.moves < 1):
            raise ValueError(f"moves = {self.moves!r}: moves per period must be at least 1")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read cutechess/fastchess notation ``[moves/]base[+increment]``, times in seconds or
        ``minutes:seconds``: ``"10+0.1"``, ``"60"``, ``"40/60+0.6"``, ``"1:30+1"``. Anything
        else raises ValueError quoting ``text``."""
        found = _TIME_CONTROL.match(text.strip()) if isinstance(text, str) else None
        if found is None:
            raise ValueError(
                f"time control {text!r}: expected [moves/]base[+increment] in seconds, "
                "e.g. '10+0.1', '40/60' or '1:30+1'"
            )
        moves = found["moves"]
        return cls(
            _seconds(found["base"]),
            float(found["inc"]) if found["inc"] else 0.0,
            int(moves) if moves else None,
        )

    def __str__(self) -> str:
        text = _number(self.base)
        if self.moves is not None:
            text = f"{self.moves}/{text}"
        if self.increment:
            text += f"+{_number(self.increment)}"
        return text


@dataclass(frozen=True)
class Limit:
    """How a player's moves are limited: a ``clock``, ``nodes``, ``depth``, ``movetime`` (seconds
    per move), or several at once (the engine stops at the first reached). ``margin`` is the
    seconds a move may overdraw the clock or the movetime before it loses on time (fastchess's
    ``timemargin``; 0 by default).

    Use :func:`as_limit` to turn a time control string, a :class:`TimeControl` or a
    :class:`chess.engine.Limit` into one. A limit with nothing set, or a value out of range,
    raises ValueError naming the field.
    """

    clock: TimeControl | None = None
    nodes: int | None = None
    depth: int | None = None
    movetime: float | None = None
    margin: float = 0.0

    def __post_init__(self) -> None:
        if self.clock is None and self.nodes is None and self.depth is None and (
            self.movetime is None
        ):
            raise ValueError("limit: set at least one of clock, nodes, depth or movetime")
        if self.clock is not None and not isinstance(self.clock, TimeControl):
            raise ValueError(f"clock = {self.clock!r}: expected a TimeControl")
        for name in ("nodes", "depth"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"{name} = {value!r}: must be a whole number >= 1")
        for name in ("movetime", "margin"):
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} = {value!r}: must be seconds >= 0")
        if self.movetime == 0:
            raise ValueError("movetime = 0: a move needs some time")

    def __str__(self) -> str:
        parts = []
        if self.clock is not None:
            parts.append(str(self.clock))
        if self.movetime is not None:
            parts.append(f"{_number(self.movetime)}s/move")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        return " ".join(parts)

    @property
    def pgn_time_control(self) -> str:
        """The PGN ``TimeControl`` tag: the clock, ``"N/move"`` seconds for a movetime, else
        ``"-"`` (no time control)."""
        if self.clock is not None:
            return str(self.clock)
        if self.movetime is not None:
            return f"{_number(self.movetime)}/move"
        return "-"


LimitSpec = Union[Limit, TimeControl, str, chess.engine.Limit]
"""What ``limit=`` accepts: a :class:`Limit`, a :class:`TimeControl`, a time control string
(``"10+0.1"``) or a :class:`chess.engine.Limit` (its ``nodes``, ``depth`` and ``time``, the time
being the movetime)."""


def as_limit(value: LimitSpec) -> Limit:
    """``value`` as a :class:`Limit` (see :data:`LimitSpec`); anything else raises ValueError."""
    if isinstance(value, Limit):
        return value
    if isinstance(value, TimeControl):
        return Limit(clock=value)
    if isinstance(value, str):
        return Limit(clock=TimeControl.parse(value))
    if isinstance(value, chess.engine.Limit):
        clocks = (value.white_clock, value.black_clock, value.white_inc, value.black_inc)
        if any(clock is not None for clock in clocks) or value.mate is not None:
            raise ValueError(
                f"limit = {value!r}: give clocks as a TimeControl (a match keeps the clocks)"
            )
        return Limit(nodes=value.nodes, depth=value.depth, movetime=value.time)
    raise ValueError(
        f"limit = {value!r}: expected a Limit, a TimeControl, a time control such as '10+0.1' "
        "or a chess.engine.Limit"
    )


class Clock:
    """One side's clock during a game (see the module docs for how it runs)."""

    def __init__(self, control: TimeControl, margin: float) -> None:
        self.control = control
        self.margin = margin
        self.remaining = control.base
        """Seconds left (never negative between moves)."""
        self.moves_left = control.moves
        """Moves to the end of the period, or None without periods."""

    def spend(self, elapsed: float) -> float:
        """Take a move of ``elapsed`` seconds off the clock. Returns the seconds by which the
        move overdrew the clock beyond the margin (0 when it did not lose on time)."""
        self.remaining -= elapsed
        if self.remaining < -self.margin:
            return -self.remaining - self.margin
        self.remaining = max(self.remaining, 0.0) + self.control.increment
        if self.moves_left is not None:
            self.moves_left -= 1
            if self.moves_left == 0:
                self.moves_left = self.control.moves
                self.remaining += self.control.base
        return 0.0

    def allowed(self) -> float:
        """The longest the next move may take before it loses on time."""
        return self.remaining + self.margin


def engine_limit(
    limit: Limit, turn: chess.Color, clocks: dict[chess.Color, Clock | None]
) -> chess.engine.Limit:
    """The :class:`chess.engine.Limit` the side to move (``turn``) searches with: its nodes,
    depth and movetime, and when it has a clock both clocks (a side without a clock is shown the
    mover's own) with the increments and the moves to go."""
    mover = clocks[turn]
    result = chess.engine.Limit(nodes=limit.nodes, depth=limit.depth, time=limit.movetime)
    if mover is None:
        return result
    shown = {color: clocks[color] or mover for color in chess.COLORS}
    result.white_clock = max(shown[chess.WHITE].remaining, 0.0)
    result.black_clock = max(shown[chess.BLACK].remaining, 0.0)
    result.white_inc = shown[chess.WHITE].control.increment
    result.black_inc = shown[chess.BLACK].control.increment
    result.remaining_moves = mover.moves_left
    return result
