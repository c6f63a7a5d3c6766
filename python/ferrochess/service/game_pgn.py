"""A played game as PGN, one way for the play page's download (``api/pgn``) and the games
archive (``/game/<id>.pgn``, ``/games.pgn``): python-chess's writer, the Seven Tag Roster, how the
game ended, its opening, its time control and each move's clock; a game of Chess960 with its
Variant, SetUp and FEN tags, which python-chess's reader takes back as a Chess960 board."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import chess
import chess.pgn

from ferrochess.service.reading import pgn_escape
from ferrochess.service.time_control import TimeControl, tag_of

__all__ = ["game_pgn"]


def game_pgn(
    board: chess.Board,
    *,
    event: str,
    site: str,
    date: str,
    white: str,
    black: str,
    status: dict[str, Any],
    opening: dict[str, str] | None,
    time_control: TimeControl | None,
    clocks: Sequence[float | None],
) -> str:
    """``board``'s game (its start and moves) as PGN text. ``date`` is PGN's ``YYYY.MM.DD``;
    ``status`` is :func:`ferrochess.rules.status`'s (its result; for a finished game the
    Termination tag, "time forfeit" for a flag and "normal" otherwise); ``opening`` is
    ``{eco, name}`` or None; ``time_control`` is written as its tag ("300+3", "-" for None);
    ``clocks`` the seconds each mover had left after each move (None where unknown), written as
    ``[%clk]`` in whole seconds, as a clock shows them. A Chess960 ``board`` is written with
    ``[Variant "Chess960"]``, ``[SetUp "1"]`` and its start's ``[FEN]`` (X-FEN), even from the
    standard array (position 518), so the game never reads back as standard chess."""
    game = chess.pgn.Game.from_board(board)
    headers = game.headers
    if board.chess960:
        headers["Variant"] = "Chess960"
        headers["SetUp"] = "1"
        headers["FEN"] = board.root().fen()
    headers["Event"] = pgn_escape(event)
    headers["Site"] = pgn_escape(site)
    headers["Date"] = date
    headers["White"] = pgn_escape(white)
    headers["Black"] = pgn_escape(black)
    headers["Result"] = status["result"]
    if status["over"]:
        headers["Termination"] = "time forfeit" if status["termination"] == "flag" else "normal"
    if opening is not None:
        headers["ECO"] = opening["eco"]
        headers["Opening"] = pgn_escape(opening["name"])
    headers["TimeControl"] = tag_of(time_control)
    for node, seconds in zip(game.mainline(), clocks):
        if seconds is not None:
            node.set_clock(seconds // 1)
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    return str(game.accept(exporter))
