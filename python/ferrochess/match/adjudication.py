"""Ending games early, with fastchess's rules (``-tb``, ``-resign``, ``-draw``, ``-maxmoves``):
:class:`Adjudication` says which rules apply, an :class:`Adjudicator` applies them to one game.

Before each move, after the rules of chess (mate, stalemate, insufficient material, threefold
repetition and the fifty-move rule, claimed at once), in this order:

- **tablebase**: right after a capture or pawn move (half-move clock 0), without castling rights,
  with at most ``tb_pieces`` pieces (0: as many as the tables hold), the tables' WDL decides: a
  win or loss ends the game (``tb_results`` "both" or "win_loss"), a draw too ("both" or "draw");
  cursed wins and blessed losses are draws unless ``tb_ignore_50``.
- **resign**: the side that just moved loses when its own score was at most ``-score``
  centipawns (or a mate against it) for ``movecount`` of its consecutive moves, the last one
  included; ``twosided``: when both sides agreed, ``|score| >= score`` for ``2 * movecount``
  plies, and its last score is negative (fastchess's check, before the opponent moves).
- **draw**: from full move ``movenumber`` on (the board's full-move number minus one), when both
  sides' scores were within ``score`` centipawns for ``2 * movecount`` consecutive plies, a capture
  or pawn move restarting the count and a mate score resetting it.
- **max moves**: a draw once ``max_moves`` moves (``2 * max_moves`` plies) were played after the
  opening.

Scores are the engines' own reports, from the mover's point of view; a move without a score resets
that side's counts (a function player never reports one, so only the tablebase and max moves can
end its games early).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

import chess
import chess.engine

from ferrochess.tablebase import Tablebase

__all__ = ["Adjudication", "Adjudicator", "DrawRule", "ResignRule", "Verdict"]


def _check_whole(owner: str, name: str, value: object, low: int) -> None:
    if not isinstance(value, int) or value < low:
        raise ValueError(f"{owner} {name} = {value!r}: must be a whole number >= {low}")


@dataclass(frozen=True)
class ResignRule:
    """fastchess's ``-resign movecount= score= twosided=`` (score in centipawns)."""

    movecount: int = 3
    score: int = 600
    twosided: bool = False

    def __post_init__(self) -> None:
        _check_whole("resign", "movecount", self.movecount, 1)
        _check_whole("resign", "score", self.score, 0)


@dataclass(frozen=True)
class DrawRule:
    """fastchess's ``-draw movenumber= movecount= score=`` (score in centipawns)."""

    movenumber: int = 0
    movecount: int = 8
    score: int = 20

    def __post_init__(self) -> None:
        _check_whole("draw", "movenumber", self.movenumber, 0)
        _check_whole("draw", "movecount", self.movecount, 1)
        _check_whole("draw", "score", self.score, 0)


@dataclass(frozen=True)
class Adjudication:
    """Which adjudication rules a match applies (none by default; see the module docs).

    ``tablebase`` names Syzygy directories (a path list like ``a:b``), opened once per match
    (and once per Dask task) with :func:`ferrochess.open_tablebase`.
    """

    max_moves: int | None = None
    resign: ResignRule | None = None
    draw: DrawRule | None = None
    tablebase: str | None = None
    tb_pieces: int = 0
    tb_ignore_50: bool = False
    tb_results: Literal["both", "win_loss", "draw"] = "both"

    def __post_init__(self) -> None:
        if self.max_moves is not None:
            _check_whole("adjudication", "max_moves", self.max_moves, 1)
        _check_whole("adjudication", "tb_pieces", self.tb_pieces, 0)
        if self.tb_results not in ("both", "win_loss", "draw"):
            raise ValueError(
                f"tb_results = {self.tb_results!r}: must be 'both', 'win_loss' or 'draw'"
            )
        if self.tablebase is not None:
            object.__setattr__(self, "tablebase", os.fspath(self.tablebase))

    @classmethod
    def fishtest(cls) -> Adjudication:
        """fishtest's rules: resign after 3 moves at -600 cp, draw from move 34 after 8 moves
        within 20 cp."""
        return cls(resign=ResignRule(3, 600), draw=DrawRule(34, 8, 20))


@dataclass(frozen=True)
class Verdict:
    """An adjudicated end: ``result`` ("1-0", "0-1", "1/2-1/2") and the ``reason`` in words."""

    result: str
    reason: str


def _color_name(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


def _win(color: chess.Color) -> str:
    return "1-0" if color == chess.WHITE else "0-1"


class Adjudicator:
    """Applies an :class:`Adjudication` to one game: call :meth:`moved` after each player move
    and :meth:`verdict` before each."""

    def __init__(self, rules: Adjudication, tablebase: Tablebase | None) -> None:
        self.rules = rules
        self.tablebase = tablebase
        self.draw_plies = 0
        self.resign_moves = {chess.WHITE: 0, chess.BLACK: 0}
        self.resign_plies = 0  # twosided
        self.last_score: dict[chess.Color, chess.engine.Score | None] = {
            chess.WHITE: None, chess.BLACK: None,
        }  # fmt: skip
        self.played = 0

    def moved(self, board: chess.Board, mover: chess.Color,
              score: chess.engine.Score | None) -> None:  # fmt: skip
        """Count a move just played by ``mover`` (``board`` is after it) with its own
        ``score``."""
        self.played += 1
        self.last_score[mover] = score
        draw, resign = self.rules.draw, self.rules.resign
        if score is None:
            self.draw_plies = 0
            self.resign_moves[mover] = 0
            self.resign_plies = 0
            return
        mate, cp = score.is_mate(), score.score()
        if draw is not None:
            if board.halfmove_clock == 0:
                self.draw_plies = 0
            within = not mate and cp is not None and abs(cp) <= draw.score
            self.draw_plies = self.draw_plies + 1 if within else 0
        if resign is not None:
            if resign.twosided:
                decisive = mate or (cp is not None and abs(cp) >= resign.score)
                self.resign_plies = self.resign_plies + 1 if decisive else 0
            else:
                losing = ((mate and (score.mate() or 0) < 0)
                          or (not mate and cp is not None and cp <= -resign.score))  # fmt: skip
                self.resign_moves[mover] = self.resign_moves[mover] + 1 if losing else 0

    def verdict(self, board: chess.Board) -> Verdict | None:
        """The adjudicated end of ``board``'s game, or None to play on."""
        rules = self.rules
        found = self._tablebase(board)
        if found is not None:
            return found
        resign, draw = rules.resign, rules.draw
        mover = not board.turn  # the side that just moved, as fastchess checks it
        last = self.last_score[mover]
        if resign is not None and last is not None and _negative(last):
            if resign.twosided:
                resignable = self.resign_plies >= 2 * resign.movecount
            else:
                resignable = self.resign_moves[mover] >= resign.movecount
            if resignable:
                winner = board.turn
                return Verdict(_win(winner), f"{_color_name(winner)} wins by adjudication (resign)")
        if draw is not None and board.fullmove_number - 1 >= draw.movenumber and (
            self.draw_plies >= 2 * draw.movecount
        ):
            return Verdict("1/2-1/2", "Draw by adjudication (draw rule)")
        if rules.max_moves is not None and self.played >= 2 * rules.max_moves:
            return Verdict("1/2-1/2", "Draw by adjudication (max moves)")
        return None

    def _tablebase(self, board: chess.Board) -> Verdict | None:
        tables, rules = self.tablebase, self.rules
        if tables is None or board.halfmove_clock != 0 or board.castling_rights:
            return None
        pieces = chess.popcount(board.occupied)
        if pieces > tables.max_pieces or (rules.tb_pieces and pieces > rules.tb_pieces):
            return None
        probe = chess.Board(board.fen()) if board.chess960 else board
        wdl = tables.get_wdl(probe)
        if wdl is None:
            return None
        if rules.tb_ignore_50 and wdl in (1, -1):
            wdl *= 2
        if wdl in (2, -2) and rules.tb_results in ("both", "win_loss"):
            winner = board.turn if wdl == 2 else not board.turn
            return Verdict(_win(winner), f"{_color_name(winner)} wins by adjudication (tablebase)")
        if wdl in (1, 0, -1) and rules.tb_results in ("both", "draw"):
            return Verdict("1/2-1/2", "Draw by adjudication (tablebase)")
        return None


def _negative(score: chess.engine.Score) -> bool:
    if score.is_mate():
        return (score.mate() or 0) < 0
    return (score.score() or 0) < 0
