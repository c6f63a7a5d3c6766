"""The players of a match, as picklable descriptions (a Dask worker rebuilds them from these):
:class:`Ferrochess` (the engine in this process), :class:`Uci` (any UCI or XBoard engine, run by
python-chess) and :class:`Function` (a Python function from a board to a move).

Each may carry its own :class:`~ferrochess.match.Limit`, which replaces the match's for its moves;
its ``name`` (derived when not given) is how results, PGN headers and events call it.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, Union

import chess

from ferrochess import _core
from ferrochess.engine import SearchOptions
from ferrochess.exceptions import FerrochessError
from ferrochess.match.limits import Limit, LimitSpec, as_limit

__all__ = ["Ferrochess", "Function", "MoveFunction", "Player", "PlayerError", "Uci", "as_player"]

MIN_ELO, MAX_ELO = 800, 2800
"""The ``elo`` range :meth:`ferrochess.Engine.play` takes."""
DEFAULT_UCI_TIMEOUT = 60.0
"""Seconds a UCI engine may take to start, to answer, or to move when no clock bounds the move."""

MoveFunction = Callable[[chess.Board], Union[chess.Move, str, None]]
"""A move function: gets a copy of the board, returns its move (a chess.Move or UCI string)."""


class PlayerError(FerrochessError, RuntimeError):
    """A player could not be started: its command does not run, or does not speak its protocol,
    or rejects an option. The message names the player and the reason; the match stops."""


def _limit(value: LimitSpec | None) -> Limit | None:
    return None if value is None else as_limit(value)


@dataclass(frozen=True)
class Ferrochess:
    """ferrochess itself, played in this process through :class:`ferrochess.Engine`: one Engine
    per game, without its opening book (a match's openings are the book), seeded from the
    match's seed and the game's number, so a game at fixed nodes with one thread is reproducible.

    ``level`` (1-10) or ``elo`` (800-2800) weakens it as :meth:`ferrochess.Engine.play` does
    (None: full strength); ``search_options`` switches parts of the search off; ``evaluation``
    is anything :class:`ferrochess.Engine` accepts (``"network"``, ``"classic"``, custom
    weights) and ``eval_file`` a network file; ``syzygy_path`` names tablebases the engine uses
    (``""``: none). Bad values raise ValueError naming the field.
    """

    level: int | None = None
    elo: int | None = None
    search_options: SearchOptions | None = None
    evaluation: Any = "network"
    eval_file: str | None = None
    hash_mb: int = _core.DEFAULT_HASH_MB
    threads: int = 1
    syzygy_path: str = ""
    limit: Limit | None = None
    name: str = ""

    def __post_init__(self) -> None:
        if self.level is not None and self.elo is not None:
            raise ValueError("give level or elo, not both")
        if self.level is not None and (not isinstance(self.level, int) or not 1 <= self.level
                                       <= 10):  # fmt: skip
            raise ValueError(f"level = {self.level!r}: must be 1 to 10")
        if self.elo is not None and (not isinstance(self.elo, int)
                                     or not MIN_ELO <= self.elo <= MAX_ELO):  # fmt: skip
            raise ValueError(f"elo = {self.elo!r}: must be {MIN_ELO} to {MAX_ELO}")
        for name in ("hash_mb", "threads"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"{name} = {getattr(self, name)!r}: must be a whole number >= 1")
        if self.eval_file is not None:
            object.__setattr__(self, "eval_file", os.fspath(self.eval_file))
        object.__setattr__(self, "limit", _limit(self.limit))
        if not self.name:
            object.__setattr__(self, "name", self._default_name())

    def _default_name(self) -> str:
        name = "ferrochess"
        if self.level is not None:
            name += f" level {self.level}"
        elif self.elo is not None:
            name += f" elo {self.elo}"
        if isinstance(self.evaluation, str) and self.evaluation != "network":
            name += f" {self.evaluation}"
        elif not isinstance(self.evaluation, str):
            name += " custom weights"
        if self.eval_file is not None:
            name += f" {Path(self.eval_file).name}"
        if self.search_options is not None and self.search_options != SearchOptions():
            off = [f.name for f in fields(SearchOptions) if not getattr(self.search_options,
                                                                         f.name)]  # fmt: skip
            name += " without " + ", ".join(off)
        return name


@dataclass(frozen=True)
class Uci:
    """An engine run as a separate process and spoken to by python-chess: UCI, or XBoard with
    ``protocol="xboard"``. One process per concurrent game slot; it gets ``ucinewgame`` before
    each game and ``options`` once after it starts (``UCI_Chess960`` is set by python-chess for
    Chess960 games).

    ``command`` is a path or a list of arguments (a string is split like a shell would);
    ``cwd`` is the directory it runs in. ``timeout`` is the seconds it may take to start and to
    answer, and to move when no clock or movetime bounds the move: past it the engine loses
    ("stalls") and is restarted.
    """

    command: str | Sequence[str]
    options: Mapping[str, Any] = field(default_factory=dict)
    protocol: Literal["uci", "xboard"] = "uci"
    name: str = ""
    limit: Limit | None = None
    timeout: float = DEFAULT_UCI_TIMEOUT
    cwd: str | None = None

    def __post_init__(self) -> None:
        command = self.command
        if isinstance(command, (str, os.PathLike)):
            text = os.fspath(command)
            command = [text] if Path(text).exists() else shlex.split(text)
        command = tuple(os.fspath(part) for part in command)
        if not command:
            raise ValueError("command is empty")
        object.__setattr__(self, "command", command)
        object.__setattr__(self, "options", dict(self.options))
        if self.protocol not in ("uci", "xboard"):
            raise ValueError(f"protocol = {self.protocol!r}: must be 'uci' or 'xboard'")
        if not isinstance(self.timeout, (int, float)) or not self.timeout > 0:
            raise ValueError(f"timeout = {self.timeout!r}: must be seconds > 0")
        object.__setattr__(self, "limit", _limit(self.limit))
        if not self.name:
            strength = "".join(
                f" {key}={value}" for key, value in self.options.items()
                if key.startswith("UCI_") and key != "UCI_LimitStrength"
            )  # fmt: skip
            object.__setattr__(self, "name", Path(command[0]).name + strength)


@dataclass(frozen=True)
class Function:
    """A Python function that plays: it gets a copy of the board (with its history) and returns
    a :class:`chess.Move` or a UCI string. Returning None, an illegal move or raising loses the
    game (the reason is recorded). It runs in a thread of its own; with a clock, a function that
    never returns loses on time and is abandoned. On Dask it is pickled with cloudpickle, so a
    lambda works there too."""

    function: MoveFunction
    name: str = ""
    limit: Limit | None = None

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise ValueError(f"function = {self.function!r}: must be callable")
        object.__setattr__(self, "limit", _limit(self.limit))
        if not self.name:
            name = getattr(self.function, "__name__", "") or "function"
            object.__setattr__(self, "name", "function" if name == "<lambda>" else name)


Player = Union[Ferrochess, Uci, Function]
"""A match player."""


def as_player(value: Player | MoveFunction | str) -> Player:
    """``value`` as a player: players unchanged, a callable as :class:`Function`, a string as
    :class:`Uci` (a command). Anything else raises ValueError."""
    if isinstance(value, (Ferrochess, Uci, Function)):
        return value
    if isinstance(value, str):
        return Uci(value)
    if callable(value):
        return Function(value)
    raise ValueError(f"player {value!r}: expected Ferrochess(...), Uci(...), Function(...)")


def unique_names(players: Sequence[Player]) -> list[str]:
    """The players' names, with `` (2)``, `` (3)``... added to repeated ones."""
    names: list[str] = []
    for player in players:
        name, number = player.name, 2
        while name in names:
            name, number = f"{player.name} ({number})", number + 1
        names.append(name)
    return names
