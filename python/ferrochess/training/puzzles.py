"""Puzzles made from one's own games, the way ornicar/lichess-puzzler's generator makes them.

:func:`puzzles` reads games and keeps the positions where the side to move (the *solver*) has one
move clearly better than every other, reached because the opponent blundered or missed by the
solver in the game, and plays the line on while the solver's move stays the only good one. The
rules (the numbers are lichess-puzzler's unless said otherwise; "win chances" are lichess's curve,
:func:`ferrochess.analysis.winning_chances`, on -1..1, centipawns clamped to +-1000):

1. **Scan.** Each position of the game's main line is searched at ``nodes // SCAN_SHARE`` nodes
   (one line). ``score`` is its evaluation for the side to move, ``previous`` the evaluation of the
   position before the opponent's last move, for the same side (``+20 cp`` at the start).
2. **Candidates.** Skipped: fewer than two legal moves; ``previous`` above :data:`MAX_PREVIOUS_CP`
   unless ``score`` is a mate; the solver already up material (1/3/3/5/9). A *mate* candidate has
   ``score`` a mate in under :data:`MATE_HORIZON` moves (lichess-puzzler leaves mate in 1 out;
   here a single mating move is kept: in one's own games a missed mate in 1 is worth drilling).
   An *advantage* candidate has ``score`` >= :data:`ADVANTAGE_CP` and win chances more than
   :data:`JUMP` above ``previous``'s; below :data:`CLEAR_CP` only when the solver is down material.
3. **The line.** At ``nodes`` nodes: at the solver's turns ``Engine.analyse(multipv=2)``; the
   best move must be the only good one (:func:`only_good`: at least :data:`UNIQUE_CP` centipawns
   and :data:`UNIQUE_WIN_CHANCES` win chances better than the second best, or the only legal
   move, or a mate in 1 where the second best is no mate; after the first move any mate in 1,
   since any mating move solves it). At the
   opponent's turns their best reply (one line). A mate line must stay a mate and stay unique
   until checkmate, else the candidate is dropped; an advantage line stops at the first solver
   turn whose best move is not unique, and is dropped if the best falls under
   :data:`ADVANTAGE_CP` or a position repeats. At most :data:`MAX_SOLVER_MOVES` solver moves.
4. **Trim.** An advantage line is cut back until it ends on a solver move that had an
   alternative (an odd number of moves, the solver's first and last); then, counting the
   opponent's best reply to that last move, the solver must have won more than one pawn of
   material (lichess-puzzler's ``gain > 1``). Nothing is rejected for an "obvious recapture":
   lichess-puzzler does not.
5. **Kind.** With ``player_color`` given: a position where the player is the solver is a
   ``"missed_win"`` (kept only when the game's move was not the solution), one where the
   opponent is the solver a ``"blunder"`` (the player's last move was the blunder). Without it:
   ``"missed_win"`` when the game's move was not the solution, else ``"blunder"``.

The searches are at a fixed node count on a one-thread engine whose table is cleared before each
game, so the same games give the same puzzles. A game is mined for at most one puzzle per
position, and a position inside an earlier puzzle's line is not made a puzzle again.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO, Union

import chess
import chess.engine
import chess.pgn
from chess.engine import Cp, Mate, Score

from ferrochess.analysis import winning_chances
from ferrochess.engine import Engine
from ferrochess.explain import themes as motif_themes

__all__ = [
    "ADVANTAGE_CP",
    "DEFAULT_NODES",
    "KINDS",
    "Puzzle",
    "game_puzzles",
    "line_themes",
    "only_good",
    "puzzles",
    "win_chances",
]

KINDS = ("blunder", "missed_win", "opening")
"""What a puzzle drills: punishing a blunder, the win missed in the game, an opening move."""
DEFAULT_NODES = 400_000
"""Nodes searched per position of a puzzle's line (about half a second)."""
SCAN_SHARE = 8
"""The scan of a game searches ``nodes // SCAN_SHARE`` nodes per position."""
ADVANTAGE_CP = 200
"""The least evaluation (centipawns, the solver's view) of an advantage puzzle's line."""
CLEAR_CP = 400
"""Below this, an advantage candidate needs the solver to be down material."""
JUMP = 0.6
"""How much the solver's win chances must jump by the opponent's last move (on -1..1)."""
MAX_PREVIOUS_CP = 300
"""A solver already this much better before the opponent's move is not a candidate (unless
mate)."""
MATE_HORIZON = 15
"""Mates in fewer moves than this are mate candidates."""
UNIQUE_CP = 200
"""The least lead in centipawns of the best move over the second for it to be the only good one."""
UNIQUE_WIN_CHANCES = 0.42
"""The least lead in win chances (on -1..1) of the best move over the second
(lichess-puzzler's ``is_valid_attack``)."""
MAX_SOLVER_MOVES = 6
"""The most solver moves in one puzzle."""
CRUSHING_CP = 600
"""Above this (the solver's view at the last move), lichess tags a line "crushing", else
"advantage"."""
VALUE_THEMES = frozenset({"mate", "crushing", "advantage", "equality"})
MATE_AS_CP = 100_000
"""A mate's centipawns when two scores are subtracted."""
PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}

Progress = Callable[[int, int], object]
"""``progress(games_done, puzzles_so_far)``, called after each game."""
PgnInput = Union[str, chess.pgn.Game, TextIO]


@dataclass(frozen=True)
class Puzzle:
    """One training card's position and its solution; :meth:`to_dict` is its JSON.

    ``fen`` has the solver to move; ``moves`` is the solution in UCI, the solver's moves at even
    indexes and the opponent's best replies at odd ones (an opening card has one move). ``id`` is
    stable: the first 16 hex digits of SHA-256 over the FEN and the moves. ``source`` holds the
    game's ``white``, ``black``, ``date``, ``event``, ``site``, the ``ply`` of ``fen`` in it, and
    ``game_id`` when the game is in the archive. ``accept``: the moves accepted as right at the
    first move (an opening card's book moves; otherwise just the first solution move).
    """

    fen: str
    moves: tuple[str, ...]
    themes: tuple[str, ...]
    kind: str
    source: Mapping[str, Any] = field(default_factory=dict)
    chess960: bool = False
    accept: tuple[str, ...] = ()
    id: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if not self.moves:
            raise ValueError(f"a puzzle needs a solution: moves is empty for {self.fen!r}")
        object.__setattr__(self, "moves", tuple(self.moves))
        object.__setattr__(self, "themes", tuple(self.themes))
        object.__setattr__(self, "accept", tuple(self.accept) or (self.moves[0],))
        object.__setattr__(self, "source", dict(self.source))
        if not self.id:
            object.__setattr__(self, "id", puzzle_id(self.fen, self.moves))

    def to_dict(self) -> dict[str, Any]:
        """The puzzle as JSON-ready data: ``id``, ``fen``, ``moves``, ``themes``, ``kind``,
        ``source``, ``chess960``, ``accept``."""
        return {
            "id": self.id,
            "fen": self.fen,
            "moves": list(self.moves),
            "themes": list(self.themes),
            "kind": self.kind,
            "source": dict(self.source),
            "chess960": self.chess960,
            "accept": list(self.accept),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Puzzle:
        """The puzzle of :meth:`to_dict`'s data."""
        return cls(
            fen=data["fen"],
            moves=tuple(data["moves"]),
            themes=tuple(data.get("themes", ())),
            kind=data["kind"],
            source=dict(data.get("source", {})),
            chess960=bool(data.get("chess960", False)),
            accept=tuple(data.get("accept", ())),
            id=data.get("id", ""),
        )

    def board(self) -> chess.Board:
        """The puzzle's start position."""
        return chess.Board(self.fen, chess960=self.chess960)


def puzzle_id(fen: str, moves: Sequence[str]) -> str:
    """16 hex digits of SHA-256 over ``fen`` and the moves: the same puzzle, the same id."""
    return hashlib.sha256(f"{fen}|{' '.join(moves)}".encode()).hexdigest()[:16]


def win_chances(score: Score) -> float:
    """The winning chances of ``score`` (-1..1, the side whose score it is), lichess's curve with
    centipawns clamped to +-1000."""
    if score.is_mate():
        mate = score.mate()
        assert mate is not None
        return 1.0 if mate > 0 else -1.0
    cp = max(-1000, min(1000, score.score() or 0))
    return winning_chances({"cp": cp})


def only_good(best: Score, second: Score | None, *, first: bool = True) -> bool:
    """Whether the move scored ``best`` is the only good one when the next best scores
    ``second`` (None: no other legal move): at least :data:`UNIQUE_CP` centipawns and
    :data:`UNIQUE_WIN_CHANCES` better, a mate against no mate counting as far better; a mate in
    1 against anything but another mate (lichess-puzzler's rule). Two mates are two answers,
    except after the first move (``first=False``), where any mate in 1 solves the last move."""
    if second is None:
        return True
    two_mates = _mates(best) and _mates(second)
    if best == Mate(1) and (not first or not two_mates):
        return True  # lichess-puzzler's rule: a mate in 1 is an attack
    if two_mates:
        return False  # two mates: two answers
    lead = best.score(mate_score=MATE_AS_CP) - second.score(mate_score=MATE_AS_CP)
    return lead >= UNIQUE_CP and win_chances(best) - win_chances(second) >= UNIQUE_WIN_CHANCES


def _mates(score: Score) -> bool:
    return score.is_mate() and (score.mate() or 0) > 0


def material_diff(board: chess.Board, color: chess.Color) -> int:
    """``color``'s material minus the other side's, in pawns (1/3/3/5/9)."""
    total = 0
    for piece_type, value in PIECE_VALUES.items():
        total += value * (
            len(board.pieces(piece_type, color)) - len(board.pieces(piece_type, not color))
        )
    return total


def puzzles(
    pgn: PgnInput,
    *,
    engine: Engine | None = None,
    nodes: int = DEFAULT_NODES,
    player_color: chess.Color | None = None,
    progress: Progress | None = None,
) -> list[Puzzle]:
    """The puzzles of the games in ``pgn`` (see the module's docstring for the rules).

    ``pgn``: PGN text (one or many games), a :class:`chess.pgn.Game`, or a text stream of many
    games. ``engine``: the :class:`~ferrochess.Engine` that searches (its table is cleared before
    each game); None makes a one-thread engine without book or tablebases for the call.
    ``nodes``: nodes per position of a line (the scan uses an eighth). ``player_color``: whose
    games these are (``chess.WHITE``/``chess.BLACK``), to keep only the puzzles that drill that
    player's own blunders and missed wins; None keeps both sides'. ``progress(games, puzzles)``
    is called after each game. TypeError for a ``pgn`` of another type; ValueError for
    ``nodes`` below 1000 or a ``player_color`` that is not a colour.
    """
    if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1000:
        raise ValueError(f"nodes must be a whole number of at least 1000, not {nodes!r}")
    if player_color is not None and player_color not in (chess.WHITE, chess.BLACK):
        raise ValueError(f"player_color must be chess.WHITE, chess.BLACK or None, not "
                         f"{player_color!r}")
    games = _games(pgn)
    own = engine is None
    searcher = Engine(book=None, seed=0, threads=1, syzygy_path="") if own else engine
    assert searcher is not None
    found: list[Puzzle] = []
    try:
        for done, game in enumerate(games, start=1):
            found.extend(game_puzzles(game, searcher, nodes=nodes, player_color=player_color))
            if progress is not None:
                progress(done, len(found))
    finally:
        if own:
            searcher.close()
    return found


def _games(pgn: PgnInput) -> Iterator[chess.pgn.Game]:
    if isinstance(pgn, chess.pgn.Game):
        yield pgn
        return
    if isinstance(pgn, str):
        stream: TextIO = io.StringIO(pgn)
    elif hasattr(pgn, "read"):
        stream = pgn
    else:
        raise TypeError(
            f"pgn must be PGN text, a chess.pgn.Game or a text stream, not {type(pgn).__name__}"
        )
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            return
        yield game


@dataclass
class _Step:
    move: chess.Move
    had_second: bool
    score: Score  # the solver's view, after this move is chosen (the best line's score)


def game_puzzles(
    game: chess.pgn.Game,
    engine: Engine,
    *,
    nodes: int = DEFAULT_NODES,
    player_color: chess.Color | None = None,
) -> list[Puzzle]:
    """The puzzles of one game (:func:`puzzles` for many)."""
    engine.new_game()
    board = game.board()
    moves = list(game.mainline_moves())
    scan = chess.engine.Limit(nodes=max(1000, nodes // SCAN_SHARE))
    limit = chess.engine.Limit(nodes=nodes)
    found: list[Puzzle] = []
    covered = 0  # plies up to here lie inside an earlier puzzle's line
    previous: Score = Cp(20)
    for ply, played in enumerate(moves):
        if board.is_game_over():
            break
        solver = board.turn
        info = engine.analyse(board, scan)
        score = info["score"].pov(solver) if "score" in info else Cp(0)
        if ply >= covered:
            puzzle = _candidate(board, played, previous, score, engine, limit, player_color)
            if puzzle is not None:
                found.append(_with_source(puzzle, game, ply))
                covered = ply + len(puzzle.moves)
        previous = -score  # the next mover sees this position from the other side
        board.push(played)
    return found


def _candidate(
    board: chess.Board,
    played: chess.Move,
    previous: Score,
    score: Score,
    engine: Engine,
    limit: chess.engine.Limit,
    player_color: chess.Color | None,
) -> Puzzle | None:
    solver = board.turn
    if board.legal_moves.count() < 2:
        return None
    mate = score.is_mate() and 0 < (score.mate() or 0) < MATE_HORIZON
    if previous > Cp(MAX_PREVIOUS_CP) and not mate:
        return None
    if material_diff(board, solver) > 0:
        return None
    if not mate:
        if score < Cp(ADVANTAGE_CP) or win_chances(score) <= win_chances(previous) + JUMP:
            return None
        if score < Cp(CLEAR_CP) and material_diff(board, solver) > -1:
            return None
    line = _line(board, solver, engine, limit, mate=mate)
    if line is None:
        return None
    solution = [step.move for step in line]
    if player_color is None:
        kind = "blunder" if played == solution[0] else "missed_win"
    elif player_color == solver:
        if played == solution[0]:
            return None  # the player found it
        kind = "missed_win"
    else:
        kind = "blunder"
    return Puzzle(
        fen=board.fen(),
        moves=tuple(board_uci(board, solution)),
        themes=tuple(line_themes(board, solution, line[-1].score)),
        kind=kind,
        chess960=board.chess960,
    )


def _line(
    start: chess.Board,
    solver: chess.Color,
    engine: Engine,
    limit: chess.engine.Limit,
    *,
    mate: bool,
) -> list[_Step] | None:
    """The trimmed solution from ``start`` (the solver to move), or None (rules 3 and 4)."""
    board = start.copy()
    steps: list[_Step] = []
    while not board.is_game_over(claim_draw=False):
        if board.turn == solver:
            if (len(steps) + 1) // 2 >= MAX_SOLVER_MOVES:
                break
            lines = [line for line in engine.analyse(board, limit, multipv=2) if line.get("pv")]
            if not lines:
                return None
            best = lines[0]["score"].pov(solver)
            second = lines[1]["score"].pov(solver) if len(lines) > 1 else None
            if not only_good(best, second, first=not steps):
                if mate:
                    return None
                break
            if mate and not (best.is_mate() and (best.mate() or 0) > 0):
                return None  # the mate was lost: not deep enough
            if not mate and best < Cp(ADVANTAGE_CP):
                return None
            steps.append(_Step(lines[0]["pv"][0], second is not None, best))
        else:
            info = engine.analyse(board, limit)
            if not info.get("pv"):
                return None
            steps.append(_Step(info["pv"][0], True, -info["score"].pov(board.turn)))
        board.push(steps[-1].move)
        if board.is_repetition(2):
            return None
    if mate:
        return steps if board.is_checkmate() and len(steps) % 2 == 1 else None
    untrimmed = list(steps)
    while steps and (len(steps) % 2 == 0 or not steps[-1].had_second):
        steps.pop()
    if not steps:
        return None
    after = start.copy()
    for step in untrimmed[: len(steps) + 1]:
        after.push(step.move)
    if material_diff(after, solver) - material_diff(start, solver) <= 1:
        return None
    return steps


def board_uci(board: chess.Board, moves: Iterable[chess.Move]) -> list[str]:
    """The moves in UCI as the board writes them (king to rook in Chess960)."""
    walked = board.copy(stack=False)
    written = []
    for move in moves:
        written.append(walked.uci(move))
        walked.push(move)
    return written


def line_themes(board: chess.Board, line: Sequence[chess.Move], final: Score) -> list[str]:
    """The lichess theme names of the solution ``line`` from ``board``: those of
    :func:`ferrochess.explain.themes`; the value tag when that names none: ``mate``
    and ``mateInN`` (N = solver moves, up to 5) when the line mates, else ``crushing``
    (``final`` above :data:`CRUSHING_CP`, the solver's view) or ``advantage``; and always the
    length: ``oneMove`` (one solver move),
    ``short`` (two), ``long`` (three), ``veryLong`` (four or more) as lichess counts plies with
    the opponent's blunder first."""
    themes = motif_themes(board.copy(), list(line))
    end = board.copy(stack=False)
    for move in line:
        end.push(move)
    if VALUE_THEMES.isdisjoint(themes):  # explain.themes names none: the line's value by eval
        if end.is_checkmate():
            themes += ["mate", f"mateIn{min(5, (len(line) + 1) // 2)}"]
        elif final.score(mate_score=MATE_AS_CP) > CRUSHING_CP:
            themes.append("crushing")
        else:
            themes.append("advantage")
    plies = len(line) + 1
    themes.append("oneMove" if plies <= 2 else "short" if plies <= 4 else
                  "long" if plies < 8 else "veryLong")
    return list(dict.fromkeys(themes))


def _with_source(puzzle: Puzzle, game: chess.pgn.Game, ply: int) -> Puzzle:
    headers = game.headers
    source = {
        "white": headers.get("White", "?"),
        "black": headers.get("Black", "?"),
        "date": headers.get("Date", "????.??.??"),
        "event": headers.get("Event", "?"),
        "site": headers.get("Site", "?"),
        "ply": ply,
    }
    return Puzzle(
        fen=puzzle.fen, moves=puzzle.moves, themes=puzzle.themes, kind=puzzle.kind,
        source=source, chess960=puzzle.chess960, accept=puzzle.accept,
    )

