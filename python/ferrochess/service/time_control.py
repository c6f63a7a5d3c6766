"""A game's time control and its clocks, in the one shape they travel and are kept in.

A time control is PGN's TimeControl text, ``"initial+increment"`` in whole seconds (``"300+3"``:
five minutes a side, three seconds added after each move), the same in a request's JSON
(``api/pgn``, ``api/games``), in the games list's query (``/games?time_control=300+3``), in the
archive's ``time_control`` column, in a stored game's record and in the PGN it exports. An
untimed game has none: ``null`` in JSON, ``"-"`` in a query and in PGN.

A game's ``clocks`` are the seconds each mover had left after each move (``null`` where not
known), as PGN's ``[%clk]`` comments hold them (the play page sends them to a tenth).

:func:`read_time_control` is the one reader of a time control and :func:`read_clocks` of the
clocks; :meth:`TimeControl.tag` is the one writer of the TimeControl tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ferrochess.service.reading import BadInput

__all__ = ["MAX_SECONDS", "UNTIMED", "TimeControl", "read_clocks", "read_time_control", "tag_of"]

MAX_SECONDS = 24 * 3600
"""Longest time control (initial or increment) or clock accepted, in seconds: a day."""
UNTIMED = "-"
"""PGN's TimeControl of a game with no clock (also the games list's filter for those)."""
_TEXT = re.compile(r"([0-9]{1,6})\+([0-9]{1,6})")
_SHAPE = 'like "300+3" (initial+increment, in seconds), or null for none'


@dataclass(frozen=True)
class TimeControl:
    """A time control: ``initial`` seconds a side, ``increment`` seconds added after each move
    (whole seconds, each 0 to a day, not both 0)."""

    initial: int
    increment: int

    def tag(self) -> str:
        """PGN's TimeControl: ``"300+3"``."""
        return f"{self.initial}+{self.increment}"

    __str__ = tag

    def key(self) -> list[int]:
        """``[initial, increment]``: the time control as a stored game's content hash covers it
        (what the archive computed before the time control had one shape; kept so that a game
        submitted again still hashes as it did)."""
        return [self.initial, self.increment]


def tag_of(control: TimeControl | None) -> str:
    """PGN's TimeControl of a game: the time control's text, ``"-"`` for an untimed one."""
    return UNTIMED if control is None else control.tag()


def read_time_control(
    value: object, field: str = "time_control", *, untimed: str | None = None
) -> TimeControl | None:
    """The time control of a request, a query or a stored game: ``"300+3"``, or None (and
    ``untimed``, e.g. ``"-"`` in a query or PGN) for none. Also read: ``[initial, increment]``
    in seconds, what the play page sent to the archive before the one shape, which a browser
    may still hold in its outbox of unsent games. BadInput naming ``field`` for anything else,
    for a part over a day, or for ``"0+0"``."""
    if value is None or (untimed is not None and value == untimed):
        return None
    if isinstance(value, str):
        found = _TEXT.fullmatch(value.strip())
        if found is None:
            raise BadInput(field, f"{field} must be {_SHAPE}, not {value!r}")
        parts: list[object] = [int(found[1]), int(found[2])]
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        parts = list(value)
    else:
        raise BadInput(field, f"{field} must be {_SHAPE}, not {value!r}")
    numbers = []
    for name, part in zip(("initial", "increment"), parts):
        if isinstance(part, float) and part.is_integer():
            part = int(part)
        if isinstance(part, bool) or not isinstance(part, int):
            raise BadInput(field, f"{field}'s {name} must be whole seconds, not {part!r}")
        if not 0 <= part <= MAX_SECONDS:
            raise BadInput(
                field, f"{field}'s {name} must be between 0 and {MAX_SECONDS} s, not {part}"
            )
        numbers.append(part)
    if numbers == [0, 0]:
        raise BadInput(field, f"{field} must not be 0+0 (null for a game with no clock)")
    return TimeControl(numbers[0], numbers[1])


def read_clocks(
    value: object, plies: int, control: TimeControl | None, field: str = "clocks"
) -> list[float | None]:
    """A game's ``clocks``: at most ``plies`` numbers of seconds (0 to a day) or None, only
    with a time control; [] when absent. BadInput naming ``field``."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadInput(field, f"{field} must be a list of seconds (or null), one a move")
    if len(value) > plies:
        raise BadInput(field, f"at most one clock a move: {len(value)} for {plies} moves")
    clocks: list[float | None] = []
    for index, seconds in enumerate(value):
        if seconds is None:
            clocks.append(None)
            continue
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise BadInput(field, f"{field}[{index}] must be a number of seconds, not {seconds!r}")
        if not 0 <= seconds <= MAX_SECONDS:  # also refuses NaN
            raise BadInput(field, f"{field}[{index}] must be between 0 and {MAX_SECONDS} s")
        if control is None:
            raise BadInput(field, f"{field} need a time_control")
        clocks.append(float(seconds))
    return clocks
