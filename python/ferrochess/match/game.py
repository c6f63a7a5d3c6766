"""One game of a match: :func:`play_game` plays a :class:`GameSpec` between two seats, keeps the
clocks, judges the moves and the end, and writes the :class:`~ferrochess.match.GameRecord` with
its PGN.

A game ends by the rules (:func:`ferrochess.rules.outcome`: mate, stalemate, insufficient
material, and threefold repetition and the fifty-move rule once they have happened, as fastchess
ends them; never a move early, as python-chess's ``outcome(claim_draw=True)`` would), by
adjudication (:mod:`ferrochess.match.adjudication`), or by a player's fault, which loses: a move
past its clock or movetime plus margin ("loses on time"; a draw when the opponent has no mating
material), an illegal or missing move, a crash ("disconnects"), no answer within a UCI
engine's ``timeout`` when nothing else bounds the move ("stalls"), a function that raises.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Optional

import chess
import chess.engine
import chess.pgn

from ferrochess import rules
from ferrochess.match._seeds import derive_seed
from ferrochess.match.adjudication import Adjudication, Adjudicator
from ferrochess.match.events import Event, GameStarted, MovePlayed
from ferrochess.match.limits import Clock, Limit, engine_limit
from ferrochess.match.openings import Opening
from ferrochess.match.result import GameRecord
from ferrochess.match.seats import Seat, Thought
from ferrochess.tablebase import Tablebase

__all__ = ["GameSpec", "Setup", "play_game"]

WAIT_SLACK_SECONDS = 0.5
"""How long past its allowed time a move is waited for before the player is stopped."""

_DRAWS = {
    chess.Termination.STALEMATE: "Draw by stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "Draw by insufficient mating material",
    chess.Termination.THREEFOLD_REPETITION: "Draw by 3-fold repetition",
    chess.Termination.FIVEFOLD_REPETITION: "Draw by 5-fold repetition",
    chess.Termination.FIFTY_MOVES: "Draw by fifty moves rule",
    chess.Termination.SEVENTYFIVE_MOVES: "Draw by seventy-five moves rule",
}


@dataclass(frozen=True)
class GameSpec:
    """Which game to play: its ``index`` in the match, ``pairing``, ``round`` (1-based), the
    opening (and its number), the player indices of ``white`` and ``black``, and its ``seed``."""

    index: int
    pairing: int
    round: int
    opening_index: int
    opening: Opening
    white: int
    black: int
    seed: int


@dataclass(frozen=True)
class Setup:
    """What every game of a match shares: the players' ``names`` and ``limits`` (each player's
    own or the match's; None for a function without one), the ``adjudication`` rules and the
    PGN ``event``. Picklable, for Dask."""

    names: tuple[str, ...]
    limits: tuple[Limit | None, ...]
    adjudication: Adjudication
    event: str


def _color_name(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


def _loses(color: chess.Color) -> str:
    return "0-1" if color == chess.WHITE else "1-0"


_Mark = tuple[Optional[float], Optional[chess.engine.PovScore], Optional[int]]
"""A player move's clock after it (None without a clock), its score and depth, for the PGN."""


@dataclass
class _End:
    result: str
    termination: str
    reason: str


def _time_loss(board: chess.Board, turn: chess.Color, over: float) -> _End:
    side, ms = _color_name(turn), over * 1000
    if board.has_insufficient_material(not turn):
        return _End("1/2-1/2", "time forfeit", f"{side} loses on time ({ms:.0f} ms over), "
                    f"but {_color_name(not turn)} cannot mate: draw")  # fmt: skip
    return _End(_loses(turn), "time forfeit", f"{side} loses on time ({ms:.0f} ms over)")


def _fault(board: chess.Board, thought: Thought, allowed: float | None,
           turn: chess.Color) -> _End | None:  # fmt: skip
    """The end a failed or illegal move makes, or None for a legal move (its time is checked
    apart)."""
    side = _color_name(turn)
    failure = thought.failure
    if failure == "expired":
        if allowed is None:
            return _End(_loses(turn), "abandoned", f"{side}'s connection stalls (no answer)")
        return _time_loss(board, turn, max(thought.elapsed - allowed, 0.0))
    if failure == "crashed":
        detail = f" ({thought.detail})" if thought.detail else ""
        return _End(_loses(turn), "abandoned", f"{side} disconnects{detail}")
    if failure == "illegal":
        return _End(_loses(turn), "rules infraction", f"{side} makes an illegal move: "
                    f"{thought.detail}")  # fmt: skip
    if failure == "no move":
        return _End(_loses(turn), "rules infraction", f"{side} sends no move")
    if failure == "raised":
        return _End(_loses(turn), "rules infraction", f"{side}'s function raised {thought.detail}")
    if thought.move is None or thought.move not in board.legal_moves:
        move = "none" if thought.move is None else thought.move.uci()
        return _End(_loses(turn), "rules infraction", f"{side} makes an illegal move: {move}")
    return None


def play_game(spec: GameSpec, setup: Setup, seats: Mapping[int, Seat],
              tablebase: Tablebase | None, cancel: threading.Event,
              emit: Callable[[Event], None] | None) -> GameRecord | None:  # fmt: skip
    """Play ``spec`` with ``seats`` (by player index); None when ``cancel`` stopped it.
    ``emit`` receives the game's events; None when nobody listens (no event is built)."""
    board = spec.opening.board()
    players = {chess.WHITE: spec.white, chess.BLACK: spec.black}
    limits = {color: setup.limits[players[color]] for color in chess.COLORS}
    clocks = {color: Clock(limit.clock, limit.margin) if limit and limit.clock else None
              for color, limit in limits.items()}  # fmt: skip
    adjudicator = Adjudicator(setup.adjudication, tablebase)
    for color in chess.COLORS:
        seats[players[color]].new_game(derive_seed(spec.seed, _color_name(color)))
    if emit is not None:
        emit(GameStarted(spec.index, spec.pairing, spec.round, setup.names[spec.white],
                         setup.names[spec.black], spec.opening.fen, spec.opening.moves,
                         spec.opening.chess960))  # fmt: skip
    marks: list[_Mark] = []
    end = None
    while end is None:
        outcome = rules.outcome(board)
        if outcome is not None:
            winner = outcome.winner
            reason = (f"{_color_name(winner)} mates" if winner is not None
                      else _DRAWS.get(outcome.termination, outcome.termination.name.lower()))
            end = _End(outcome.result(), "normal", reason)  # fmt: skip
            break
        verdict = adjudicator.verdict(board)
        if verdict is not None:
            end = _End(verdict.result, "adjudication", verdict.reason)
            break
        if cancel.is_set():
            return None
        turn = board.turn
        limit, clock = limits[turn], clocks[turn]
        searched = engine_limit(limit, turn, clocks) if limit else chess.engine.Limit()
        if clock is not None:
            allowed: float | None = clock.allowed()
        elif limit is not None and limit.movetime is not None:
            allowed = limit.movetime + limit.margin
        else:
            allowed = None
        wait = None if allowed is None else allowed + WAIT_SLACK_SECONDS
        thought = seats[players[turn]].think(board, searched, wait, cancel)
        if thought.failure == "cancelled":
            return None
        end = _fault(board, thought, allowed, turn)
        if end is None:
            if clock is not None:
                over = clock.spend(thought.elapsed)
            else:
                over = 0.0 if allowed is None else thought.elapsed - allowed
            if over > 0:
                end = _time_loss(board, turn, over)
        if end is not None:
            break
        assert thought.move is not None
        san = None if emit is None else board.san(thought.move)
        board.push(thought.move)
        score = None if thought.score is None else chess.engine.PovScore(thought.score, turn)
        marks.append((None if clock is None else clock.remaining, _after(thought.score, turn),
                      thought.info.get("depth")))  # fmt: skip
        adjudicator.moved(board, turn, thought.score)
        if emit is not None and san is not None:
            white_clock, black_clock = (None if c is None else c.remaining for c in
                                        (clocks[chess.WHITE], clocks[chess.BLACK]))  # fmt: skip
            emit(MovePlayed(spec.index, board.ply(), thought.move.uci(), san,
                            board.fen(shredder=board.chess960), white_clock, black_clock, score,
                            thought.elapsed))  # fmt: skip
    return _record(spec, setup, board, end, marks)


def _after(score: chess.engine.Score | None, mover: chess.Color) -> chess.engine.PovScore | None:
    """The PGN ``[%eval]`` of the position after a move the mover scored ``score`` (lichess
    writes the evaluation after the move): a mate for the mover is one move nearer; the mating
    move itself has none."""
    if score is None:
        return None
    mate = score.mate()
    if mate is not None and mate > 0:
        if mate == 1:
            return None
        score = chess.engine.Mate(mate - 1)
    return chess.engine.PovScore(score, mover)


def _record(spec: GameSpec, setup: Setup, board: chess.Board, end: _End,
            marks: list[_Mark]) -> GameRecord:
    game = chess.pgn.Game.from_board(board)
    white, black = setup.names[spec.white], setup.names[spec.black]
    headers = game.headers
    headers["Event"] = setup.event
    headers["Site"] = "?"
    headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    headers["Round"] = str(spec.round)
    headers["White"], headers["Black"] = white, black
    headers["Result"] = end.result
    headers["Termination"] = end.termination
    controls = [limit.pgn_time_control if limit else "-" for limit in
                (setup.limits[spec.white], setup.limits[spec.black])]  # fmt: skip
    if controls[0] == controls[1]:
        headers["TimeControl"] = controls[0]
    else:
        headers["TimeControl"] = "?"
        headers["WhiteTimeControl"], headers["BlackTimeControl"] = controls
    if spec.opening.name:
        headers["Opening"] = spec.opening.name
    nodes = list(game.mainline())[len(spec.opening.moves):]
    for node, (seconds, score, depth) in zip(nodes, marks):
        if seconds is not None:
            node.set_clock(seconds)
        if score is not None:
            node.set_eval(score, depth)
    last = game.end()
    last.comment = f"{last.comment} {end.reason}".strip()
    moves = tuple(move.uci() for move in board.move_stack[len(spec.opening.moves):])
    return GameRecord(
        spec.index, spec.pairing, spec.round, spec.index // 2, spec.opening_index, spec.opening,
        white, black, spec.white, spec.black, end.result, end.termination, end.reason, moves,
        str(game),
    )  # fmt: skip
