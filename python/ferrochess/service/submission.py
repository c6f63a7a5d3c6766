"""A finished game as the games archive takes it in and gives it back
(:mod:`ferrochess.service.archive` keeps the schema and every query; this module holds no SQL).

:func:`read_submission` judges a submitted game (python-chess replays its moves with
:func:`~ferrochess.service.reading.read_game`; the game must be over; its result, termination
(:func:`ferrochess.rules.status`), opening and length are computed here, never taken from the
client) and gives the row to store, with a hash of what was submitted, so that the same
submission again is told from another under the same ``client_id``. Bad input raises
:class:`~ferrochess.service.reading.BadInput` naming the field. :func:`game_record` and
:func:`row_pgn` give a stored row back as the web layer shows it and as PGN.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

import chess

from ferrochess import rules
from ferrochess.service.game import check_level, opening_of
from ferrochess.service.game_pgn import game_pgn
from ferrochess.service.reading import (
    CLIENT_PATTERN,
    MAX_CLIENT_LENGTH,
    BadInput,
    as_object,
    color_field,
    read_game,
    text,
)
from ferrochess.service.time_control import read_clocks, read_time_control

__all__ = ["game_record", "read_player", "read_submission", "row_pgn", "whole"]
MAX_TIME_LENGTH = 64
"""Longest ISO-8601 text accepted for a date."""


# --- reading a submitted game ---------------------------------------------------------------------


def read_submission(game: Mapping[str, Any]) -> dict[str, Any]:
    """The ``games`` row of a submitted game (without ``id`` and ``created_at``), checked and
    judged. Fields: ``client_id`` (1 to 64 of ``[A-Za-z0-9_-]``), ``fen`` (the start; default
    the standard one), ``chess960`` (true for a game of Chess960: stored with variant
    "chess960"), ``moves`` (UCI), ``end`` (how it ended off the board, or None),
    ``human`` ("white"/"black"), ``level`` (a level's number), ``white`` and ``black`` (names:
    one line, at most 100 characters; default "White", "Black"), ``time_control``
    ("300+3", or None; :mod:`ferrochess.service.time_control`), ``clocks`` (seconds each mover
    had left after each move, None where unknown; at most one a move, only with a time control),
    ``started_at`` and ``finished_at`` (ISO-8601 or None; naive times are UTC; finished_at
    defaults to now and is never later than now). BadInput naming the field; a game that is
    not over names ``moves``; ``player`` (optional: the page's player id, 1 to 64 of
    ``[A-Za-z0-9_-]``, whose training the game feeds; stored, never shown back). The content hash
    covers every field above (``chess960`` only when true, so a standard game hashes as it did
    before the variant was stored; ``player`` only when given)."""
    data = as_object(dict(game) if isinstance(game, Mapping) else game)
    client_id = data.get("client_id")
    if not isinstance(client_id, str) or not CLIENT_PATTERN.fullmatch(client_id):
        raise BadInput(
            "client_id", f"client_id must be 1 to {MAX_CLIENT_LENGTH} letters, digits, '-' or '_'"
        )
    player = read_player(data.get("player"), required=False)
    judged = read_game(data)
    board = judged.board
    status = rules.status(board, judged.end)
    if not status["over"]:
        raise BadInput(
            "moves", "the game is not over: only a finished game is stored (its moves end it, "
            "or end says how it ended)"
        )
    human = color_field(data, "human")
    level = check_level(data.get("level"))
    names = {side: data[side] for side in ("white", "black") if data.get(side) is not None}
    white = text(names, "white", "White")
    black = text(names, "black", "Black")
    control = read_time_control(data.get("time_control"))
    plies = len(board.move_stack)
    clocks = read_clocks(data.get("clocks"), plies, control)
    started_at = read_time(data.get("started_at"), "started_at")
    finished_given = read_time(data.get("finished_at"), "finished_at")
    now = now_text()
    finished_at = now if finished_given is None or finished_given > now else finished_given
    start_fen = board.root().fen()
    moves = [move.uci() for move in board.move_stack]
    content = {
        "client_id": client_id,
        "fen": start_fen,
        "moves": moves,
        "end": judged.end,
        "human": chess.COLOR_NAMES[human],
        "level": level,
        "white": white,
        "black": black,
        "time_control": None if control is None else control.key(),
        "clocks": clocks,
        "started_at": started_at,
        "finished_at": finished_given,
    }
    if board.chess960:
        content["chess960"] = True
    if player is not None:
        content["player"] = player
    named = opening_of(board)
    row = {
        "client_id": client_id,
        "content_hash": hashlib.sha256(canonical_json(content).encode()).hexdigest(),
        "finished_at": finished_at,
        "start_fen": start_fen,
        "moves": " ".join(moves),
        "plies": plies,
        "result": status["result"],
        "termination": status["termination"],
        "end_json": None if judged.end is None else canonical_json(judged.end),
        "human": chess.COLOR_NAMES[human],
        "level": level,
        "white": white,
        "black": black,
        "time_control": None if control is None else control.tag(),
        "clocks_json": canonical_json(clocks),
        "opening_eco": None if named is None else named["eco"],
        "opening_name": None if named is None else named["name"],
        "started_at": started_at,
        "variant": "chess960" if board.chess960 else "standard",
    }
    if player is not None:  # left out otherwise: an archive opened older has no such column
        row["player"] = player
    return row


def read_player(value: object, *, required: bool = True, field: str = "player") -> str | None:
    """A player id (the page's random id, kept in the browser): 1 to 64 of ``[A-Za-z0-9_-]``;
    None for None when not ``required``. BadInput naming ``field`` otherwise."""
    if value is None and not required:
        return None
    if not isinstance(value, str) or not CLIENT_PATTERN.fullmatch(value):
        raise BadInput(
            field, f"{field} must be 1 to {MAX_CLIENT_LENGTH} letters, digits, '-' or '_'"
        )
    return value


def read_time(value: object, field: str) -> str | None:
    """An ISO-8601 date and time (or date) as :func:`time_text` writes it; None for None.
    A time without an offset is UTC."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_TIME_LENGTH:
        raise BadInput(field, f"{field} must be an ISO-8601 date and time, or null")
    written = value.strip()
    if written[-1:] in ("Z", "z"):  # Python before 3.11 reads no "Z"
        written = written[:-1] + "+00:00"
    try:
        moment = datetime.datetime.fromisoformat(written)
    except ValueError:
        raise BadInput(field, f"{field} {value!r} is not an ISO-8601 date and time") from None
    return time_text(moment)


def whole(
    value: object, name: str, low: int, high: int, field: str | None = None
) -> int:
    """``value`` when it is a whole number (or its decimal text) from ``low`` to ``high``;
    BadInput naming ``field`` (default ``name``)."""
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,9}", value.strip()):
        value = int(value.strip())
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(field or name, f"{name} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise BadInput(field or name, f"{name} must be between {low} and {high}, not {value}")
    return value


# --- the stored game ------------------------------------------------------------------------------


def game_record(row: Mapping[Any, Any], *, full: bool) -> dict[str, Any]:
    """A stored game as the web layer shows it: ``id``, ``result``, ``termination`` (the name
    of :func:`ferrochess.rules.status`), ``plies``, ``human``, ``level``, ``white``, ``black``,
    ``time_control`` ("300+3" or None), ``opening`` ({eco, name} or None),
    ``started_at``, ``finished_at``, ``variant`` ("standard" or "chess960"); ``full`` adds
    ``fen`` (the start), ``moves`` (UCI), ``end``, ``clocks`` and ``status``
    (:func:`ferrochess.rules.status` of the game: its reason in words). The client's id is not
    shown."""
    record: dict[str, Any] = {
        "id": row["id"],
        "result": row["result"],
        "termination": row["termination"],
        "plies": row["plies"],
        "human": row["human"],
        "level": row["level"],
        "white": row["white"],
        "black": row["black"],
        "time_control": row["time_control"],
        "opening": None if row["opening_eco"] is None else {
            "eco": row["opening_eco"], "name": row["opening_name"]
        },
        "started_at": row["started_at"],
        "finished_at": row["finished_at"],
        "variant": variant_of(row),
    }
    if full:
        end = None if row["end_json"] is None else json.loads(row["end_json"])
        record["fen"] = row["start_fen"]
        record["moves"] = split_moves(row["moves"])
        record["end"] = end
        record["clocks"] = json.loads(row["clocks_json"])
        record["status"] = rules.status(row_board(row), end)
    return record


def variant_of(row: Mapping[Any, Any]) -> str:
    """The stored game's variant: "standard" or "chess960" (a row read before schema version 3
    has none: standard)."""
    return str(row.get("variant") or "standard")


def row_board(row: Mapping[Any, Any]) -> chess.Board:
    """The stored game's final position, its moves on the move stack (a Chess960 board for a
    game of Chess960)."""
    board = chess.Board(row["start_fen"], chess960=variant_of(row) == "chess960")
    for uci in split_moves(row["moves"]):
        board.push_uci(uci)
    return board


def row_pgn(row: Mapping[Any, Any], base_url: str | None = None) -> str:
    """The stored game as PGN, written by python-chess as ``api/pgn`` writes a game
    (:meth:`ferrochess.service.game.GameService.pgn`): Event, Site, Date, White, Black, Result,
    Termination ("normal" or "time forfeit"), ECO and Opening, TimeControl ("300+3" or "-"),
    and each move's ``[%clk]`` where it is known."""
    board = row_board(row)
    end = None if row["end_json"] is None else json.loads(row["end_json"])
    opening = None if row["opening_eco"] is None else {
        "eco": row["opening_eco"], "name": row["opening_name"]
    }  # fmt: skip
    return game_pgn(
        board, event="ferrochess",
        site="ferrochess" if base_url is None else base_url + row["id"],
        date=(row["started_at"] or row["finished_at"])[:10].replace("-", "."),
        white=row["white"], black=row["black"],
        status=rules.status(board, end),
        opening=opening, time_control=read_time_control(row["time_control"]),
        clocks=json.loads(row["clocks_json"]),
    )  # fmt: skip


# --- small helpers --------------------------------------------------------------------------------


def split_moves(moves: str) -> list[str]:
    return moves.split() if moves else []


def canonical_json(value: object) -> str:
    """One JSON text per value (sorted keys, no spaces), for hashing and storing."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def time_text(moment: datetime.datetime) -> str:
    """A time as the archive stores it: UTC, ISO-8601 with microseconds (sorts as time does);
    a naive time is taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.astimezone(datetime.timezone.utc).isoformat(timespec="microseconds")


def now_text() -> str:
    return time_text(datetime.datetime.now(datetime.timezone.utc))
