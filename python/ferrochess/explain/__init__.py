"""Why a move is bad, in words: the review's sentence beside "Mistake. Best was Nf3".

Everything is read from the lines the engine searched, never guessed from the position alone
(lichess-puzzler's ``tagger/cook.py`` reads its puzzles' lines the same way: one small function per
motif, and silence when none fits).

:func:`explanation` takes the move, the evaluation after it, the engine's best line from there
(the **refutation**) and, optionally, the evaluation and best line before it. It answers the first
that applies, as a phrase that follows the move's SAN ("Bg4 allows a fork: ..."):

1. **mate**: the evaluation after the move is a mate against the mover: ``"allows mate in 2:
   ...Qxh2+"``, or ``"allows a back-rank mate in 2: ...Re1+"`` / ``"allows a smothered mate..."``
   when the refutation ends in one;
2. **material**: the refutation is walked (:data:`LINE_PLIES` plies, then its last position's
   pending captures are settled by :func:`settle`, a capture-only search over material). The
   pieces of the mover it takes, less the trades (a piece the mover takes back for one of equal
   worth cancels one of them; a capture by the move itself counts as taken back), are what it
   wins; the first of them worth more than half the gain (else the most valuable) is named, with
   the square where it stands, and a piece of lesser worth taken back is named too ("wins the
   queen on d1 for a rook"). Nothing is said unless the mover ends at least a pawn down
   (1/3/3/5/9) and the evaluations fell by :data:`CENTIPAWNS_PER_PAWN` a pawn of it; without a
   motif, only a loss the line takes soon is said. How it is won is
   the first motif that fits, each a small function over the walked line: a **fork** (the piece
   that takes it first attacked it and another piece of more worth, or undefended, or the king),
   a **skewer** (a line piece attacked a more valuable piece, which moved, and took the piece
   behind), a **discovered attack** or **discovered check** (a move opened a line piece's attack),
   a **pin** (the piece could not move off the line to its king or to a more valuable piece), a
   **trapped** piece (attacked, and every square it could go to loses it), a **removed defender**
   (the line first took the piece that guarded it), a **hanging** piece (the refutation's first
   move takes it), a **promotion** (the material comes from a new queen). With none of these it
   says what is lost and the refutation's first move: ``"loses the rook on a1 after ...Nc2+"``.
   When the line reaches its motif only because the mover took back a piece on the way (a
   recapture it could decline), both branches are said: ``"allows Bxb6, which wins the bishop on
   b6: if ...axb6, a fork: Nc7+ attacks the king and the rook, and wins the rook on a8"``;
3. **missed win**: when the refutation wins nothing and the position before had a mate or a
   material win the move let go (read the same way from the best line before the move):
   ``"misses mate in 3: Qxh7+"``, ``"misses a fork: Nc7+ attacks the king and the rook, and wins
   the rook on a8"``;
4. otherwise None: a positional mistake gets no sentence (the judgement and the better move
   already say it): when unsure, say nothing.

:func:`themes` reads a puzzle's solution line the same way and names its motifs as lichess's
puzzle themes do ("mate", "mateIn2", "backRankMate", "fork", "skewer", "pin", "discoveredAttack",
"trappedPiece", "capturingDefender", "hangingPiece", "promotion", "advantage", "crushing").

All of it is python-chess over the lines; the only search here is :func:`settle`'s captures.
"""


from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import chess

from ferrochess.explain.line import (
    LINE_PLIES,
    PIECE_VALUES,
    Line,
    Reading,
    captured,
    material,
    parse,
    read_line,
    san,
    settle,
    square_at,
    static_exchange,
    walk,
)
from ferrochess.explain.motifs import MOTIFS, Explanation, article, exchange_lost, mate_kind

__all__ = [
    "LINE_PLIES",
    "PIECE_VALUES",
    "Explanation",
    "explain",
    "explanation",
    "material",
    "settle",
    "static_exchange",
    "themes",
]

CENTIPAWNS_PER_PAWN = 50
"""The least fall of the mover's evaluation, per pawn of material a line wins, for a sentence to
name that material: a line whose material the evaluations do not bear out (compensation, a longer
tactic) is not explained by it. When unsure, say nothing."""
MATE_CENTIPAWNS = 10_000
FAR_PLIES = 4
"""Without a motif, a loss is named only when the line takes the piece within this many plies."""
FAR_PAWN_PLIES = 2
"""The same for a line that wins a single pawn."""
CRUSHING = 5
"""Material won (pawns) from which a puzzle is "crushing" rather than an "advantage"."""

def explain(
    board: chess.Board,
    move: chess.Move,
    score_after: Mapping[str, Any],
    refutation: Line,
    *,
    score_before: Mapping[str, Any] | None = None,
    best_line: Line | None = None,
) -> str | None:
    """The sentence for ``move`` played at ``board`` (unchanged), or None (see the module docs)."""
    found = explanation(
        board, move, score_after, refutation, score_before=score_before, best_line=best_line
    )
    return None if found is None else found.text


def explanation(
    board: chess.Board,
    move: chess.Move,
    score_after: Mapping[str, Any],
    refutation: Line,
    *,
    score_before: Mapping[str, Any] | None = None,
    best_line: Line | None = None,
) -> Explanation | None:
    """:func:`explain`'s sentence with its motifs.

    ``score_after`` is the evaluation of the position after the move from White's view, as the
    review holds it (``{"cp": n}`` or ``{"mate": n}``); ``refutation`` the engine's best line from
    that position, as moves or SAN; ``score_before`` and ``best_line`` the same for the position
    before the move (the missed win is read from them). A line that stops being legal is walked up
    to there.
    """
    mover = board.turn
    after = board.copy(stack=False)
    after.push(move)
    mate = score_after.get("mate")
    if mate and (mate > 0) != (mover == chess.WHITE):
        return _mate_sentence("allows", after, refutation, abs(mate))
    sign = 1 if mover == chess.WHITE else -1
    after_cp = sign * _centipawns(score_after)
    before_cp = None if score_before is None else sign * _centipawns(score_before)
    reading = read_line(after, refutation, credit=_taken_by(board, move))
    if reading is not None and _borne_out(reading.net, before_cp, after_cp):
        return _material_sentence("allows", reading)
    if reading is not None or not best_line or before_cp is None or score_before is None:
        return None
    best = parse(board, best_line[0])
    if best is None or best == move:
        return None
    mate_before = score_before.get("mate")
    if mate_before and (mate_before > 0) == (mover == chess.WHITE):
        return _mate_sentence("misses", board, best_line, abs(mate_before))
    if not (board.is_capture(best) or board.gives_check(best) or best.promotion):
        return None  # a quiet best move: what it wins is too far to say
    missed = read_line(board, best_line)
    if missed is None or not _borne_out(missed.net, before_cp, after_cp):
        return None
    return _material_sentence("misses", missed)

def _taken_by(board: chess.Board, move: chess.Move) -> chess.PieceType | None:
    """The piece ``move`` takes at ``board``, or None."""
    if not board.is_capture(move):
        return None
    if board.is_en_passant(move):
        return chess.PAWN
    return board.piece_type_at(move.to_square)


def _centipawns(score: Mapping[str, Any]) -> int:
    """A review score (White's view) in centipawns, a mate as +-:data:`MATE_CENTIPAWNS`."""
    mate = score.get("mate")
    if mate:
        return MATE_CENTIPAWNS if mate > 0 else -MATE_CENTIPAWNS
    return int(score.get("cp") or 0)


def _borne_out(net: int, before_cp: int | None, after_cp: int) -> bool:
    """Whether the evaluations agree that ``net`` pawns are at stake: the mover's evaluation fell
    by at least :data:`CENTIPAWNS_PER_PAWN` per pawn (unknown before: it is not checked)."""
    return before_cp is None or before_cp - after_cp >= CENTIPAWNS_PER_PAWN * net

def themes(board: chess.Board, line: Line) -> list[str]:
    """Lichess puzzle themes of ``line``, a solution played by the side to move at ``board``:
    "mate" and "mateInN" (N the solver's moves) when it ends in checkmate, with "backRankMate" or
    "smotheredMate"; else the motif that wins its material ("fork", ...) and "advantage" or
    "crushing" (:data:`CRUSHING` pawns or more). An empty list when the line does neither."""
    walked = walk(board, line)
    if walked.boards[-1].is_checkmate() and walked.boards[-1].turn != board.turn:
        names = ["mate", f"mateIn{(len(walked.plies) + 1) // 2}"]
        kind = mate_kind(walked.boards[-1])
        return names + ([kind] if kind else [])
    reading = read_line(board, line)
    if reading is None:
        return []
    sentence = _material_sentence("allows", reading)
    names = [] if sentence is None else list(sentence.motifs)
    names.append("crushing" if reading.net >= CRUSHING else "advantage")
    return names

def _mate_sentence(verb: str, board: chess.Board, line: Line, moves: int) -> Explanation:
    walked = walk(board, line[: 2 * moves])
    first = san(walked, 0) if walked.plies else None
    kind = mate_kind(walked.boards[-1]) if walked.boards[-1].is_checkmate() else None
    words = {"backRankMate": "a back-rank mate", "smotheredMate": "a smothered mate"}
    what = f"{words[kind]} in {moves}" if kind else f"mate in {moves}"
    motifs = ("mate",) + ((kind,) if kind else ())
    return Explanation(f"{verb} {what}" + (f": {first}" if first else ""), motifs)

def _material_sentence(verb: str, reading: Reading) -> Explanation | None:
    walked = reading.walk
    if reading.primary is None:
        assert reading.promotion is not None
        promotes = san(walked, reading.promotion)
        first = san(walked, 0)
        how = promotes if reading.promotion == 0 else f"{first} and {promotes}"
        return Explanation(f"{verb} {how}, promoting the pawn", ("promotion",))
    piece, square = captured(walked, reading.primary)
    # Named where it stands now (where it is taken if it was not on the board then).
    origin = square_at(walked, square, reading.primary, 0)
    square = square if origin is None else origin
    target = f"the {chess.piece_name(piece)} on {chess.square_name(square)}"
    won = target
    back = max(reading.returned, key=lambda p: PIECE_VALUES[p], default=None)
    # The price is named when it is a piece worth less than the one won: a pawn picked up on the
    # way is not the price, and a dearer piece taken back means the line trades more than this.
    if back is not None and back != chess.PAWN and PIECE_VALUES[back] < PIECE_VALUES[piece]:
        won += f" for {article(back)}"
    for motif in MOTIFS:
        found = motif(reading, verb, target, won)
        if found is not None:
            return _unless_declined(reading, verb, found)
    # No motif: the plain loss is said only when the line wins it soon (a pawn: at once).
    if reading.primary > (FAR_PAWN_PLIES if reading.net <= 1 else FAR_PLIES):
        return None
    first = san(walked, 0)
    if verb == "misses":
        return Explanation(f"misses {first}, which wins {won}", ())
    if exchange_lost(reading):
        return Explanation(f"loses the exchange after {first}: {won}", ())
    return Explanation(f"loses {won} after {first}", ())


def _unless_declined(reading: Reading, verb: str, found: Explanation) -> Explanation:
    """``found``, or, when the line reaches its motif only because the loser took back a piece
    first (it took the winner's piece that had just moved, paying for a piece the line had won:
    a recapture it could decline, which the motif then punishes with more than it took back),
    the piece won before that choice and the motif as its consequence: "allows Bxb6, which wins
    the bishop on b6: if ...axb6, a fork: Nc7+ attacks the king and the rook, and wins the rook
    on a8". True whichever the loser chooses; the engine's line took one branch, the best
    defence may take the other."""
    walked, k = reading.walk, reading.primary
    assert k is not None
    taken: list[int] = []
    for index in range(k):
        board, move = walked.boards[index], walked.plies[index]
        if not board.is_capture(move):
            continue
        if board.turn == reading.winner:
            taken.append(index)
            continue
        # A recapture: it takes the piece the winner has just moved (taking back, or taking a
        # piece offered), and it pays for a piece (not a pawn) the line had won.
        just_moved = index > 0 and walked.plies[index - 1].to_square == move.to_square
        worth = PIECE_VALUES[captured(walked, index)[0]]
        paid = next((h for h in taken if PIECE_VALUES[captured(walked, h)[0]] == worth), None)
        if paid is None or not just_moved or worth < PIECE_VALUES[chess.KNIGHT]:
            continue
        if PIECE_VALUES[captured(walked, k)[0]] <= worth:
            return found  # taking back costs less than declining: the motif is the point
        piece, square = captured(walked, paid)
        origin = square_at(walked, square, paid, 0)
        square = square if origin is None else origin
        first = f"the {chess.piece_name(piece)} on {chess.square_name(square)}"
        rest = found.text.removeprefix(f"{verb} ")
        between = " ".join(san(walked, ply) for ply in range(paid + 1, index))
        choice = (f"after {between}, " if between else "") + f"if {san(walked, index)}"
        text = f"{verb} {san(walked, paid)}, which wins {first}: {choice}, {rest}"
        return Explanation(text, found.motifs)
    return found
