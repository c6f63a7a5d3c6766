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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import chess

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

PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9,
                chess.KING: 0}  # fmt: skip
"""Material in pawns; the king counts nothing in a balance."""
KING_IN_EXCHANGE = 100
"""The king's worth as a capturer in an exchange: it may take last, never into a defended square."""
LINE_PLIES = 10
"""The most plies of an engine line walked before its last position is settled."""
SETTLE_PLIES = 6
"""The deepest capture sequence :func:`settle` looks at."""
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

Line = Sequence["chess.Move | str"]


@dataclass(frozen=True)
class Explanation:
    """A sentence and the motifs it names (lichess puzzle theme names)."""

    text: str
    motifs: tuple[str, ...] = ()


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
    best = _parse(board, best_line[0])
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
    walked = _walk(board, line)
    if walked.boards[-1].is_checkmate() and walked.boards[-1].turn != board.turn:
        names = ["mate", f"mateIn{(len(walked.plies) + 1) // 2}"]
        kind = _mate_kind(walked.boards[-1])
        return names + ([kind] if kind else [])
    reading = read_line(board, line)
    if reading is None:
        return []
    sentence = _material_sentence("allows", reading)
    names = [] if sentence is None else list(sentence.motifs)
    names.append("crushing" if reading.net >= CRUSHING else "advantage")
    return names


def material(board: chess.Board, color: chess.Color) -> int:
    """``color``'s material minus the other side's, in pawns (1/3/3/5/9)."""
    total = 0
    for piece_type, value in PIECE_VALUES.items():
        own, other = board.pieces(piece_type, color), board.pieces(piece_type, not color)
        total += value * (len(own) - len(other))
    return total


def static_exchange(board: chess.Board, square: chess.Square) -> int:
    """What the side to move wins, in pawns, by the best legal capture on ``square`` followed by
    the exchange there (each side taking with its least valuable piece, or stopping when that
    pays better); 0 or less when no capture pays. Only the first capture must be legal."""
    target = board.piece_type_at(square)
    if target is None:
        return 0
    best = None
    for capture in board.generate_legal_captures(to_mask=chess.BB_SQUARES[square]):
        if board.is_en_passant(capture):
            continue
        rest = board.copy(stack=False)
        piece = rest.remove_piece_at(capture.from_square)
        rest.set_piece_at(square, piece)
        gain = PIECE_VALUES[target] - _exchange(rest, square, not board.turn)
        best = gain if best is None else max(best, gain)
    return 0 if best is None else best


def settle(board: chess.Board, plies: int = SETTLE_PLIES) -> list[chess.Move]:
    """The captures (and promotions) that best end ``board``'s pending exchanges, for the side to
    move and then each side in turn: a capture-only search over material where either side may
    stop (stand pat) instead; [] when standing pat is best. At most ``plies`` deep."""
    _, line = _quiesce(board, -10_000, 10_000, plies)
    return line


# --- reading a line ------------------------------------------------------------------------


@dataclass
class _Walk:
    """A line played from its start: ``boards[i]`` is the position before ``plies[i]``, the last
    board the position after the whole line."""

    boards: list[chess.Board]
    plies: list[chess.Move]


@dataclass
class Reading:
    """What a line wins for the side to move at its start (the winner) from the loser."""

    walk: _Walk
    winner: chess.Color
    net: int
    """The loser's material drop over the line, settled (pawns, > 0)."""
    won: list[int]
    """Ply indexes of the winner's captures that stand, trades taken out."""
    returned: list[chess.PieceType]
    """The winner's pieces the loser took back and that no capture of equal worth pays for."""
    primary: int | None
    """The ply index of the capture of the most valuable piece won (None: won by promotion)."""
    promotion: int | None = None
    """The ply index of the winner's first promotion, if any."""
    settled_from: int = 0
    """The ply index where the engine's line ended and :func:`settle` went on."""
    motifs: list[str] = field(default_factory=list)


def read_line(
    board: chess.Board, line: Line, *, credit: chess.PieceType | None = None
) -> Reading | None:
    """What ``line`` (the side to move's best line at ``board``) wins, or None when the side not
    to move ends less than a pawn down. ``credit`` is what the loser's move just before ``board``
    took, if it took something: it counts as taken back (a capture answered by a recapture is a
    trade, not a loss)."""
    walked = _walk(board, line[:LINE_PLIES])
    engine_plies = len(walked.plies)
    for move in settle(walked.boards[-1]):
        _push(walked, move)
    winner = board.turn
    paid = 0 if credit is None else PIECE_VALUES[credit]
    net = material(walked.boards[-1], winner) - material(board, winner) - paid
    if net < 1:
        return None
    taken: list[int] = []
    back: list[chess.PieceType] = [] if credit is None else [credit]
    for index, move in enumerate(walked.plies):
        position = walked.boards[index]
        if not position.is_capture(move):
            continue
        if position.turn == winner:
            taken.append(index)
        else:
            back.append(_captured(walked, index)[0])
    won = list(taken)
    returned: list[chess.PieceType] = []
    # A piece taken back for one of equal worth is a trade; the latest such capture of the
    # winner's cancels, so the line's first win is what it names.
    for piece in back:
        value = PIECE_VALUES[piece]
        match = next(
            (w for w in reversed(won) if PIECE_VALUES[_captured(walked, w)[0]] == value), None
        )
        if match is None:
            returned.append(piece)
        else:
            won.remove(match)
    promotion = next(
        (i for i, move in enumerate(walked.plies)
         if move.promotion and walked.boards[i].turn == winner),
        None,
    )  # fmt: skip
    if not won and promotion is None:
        return None
    primary = None
    if won:
        # The first piece won that is worth more than half the line's gain: the later a line's
        # move, the less sure it is, so a line that wins a bishop at once and a rook later
        # names the bishop (when the rook is not most of the gain); a pawn taken on the way to
        # a rook does not count.
        primary = next(
            (i for i in won if 2 * PIECE_VALUES[_captured(walked, i)[0]] > net),
            max(won, key=lambda i: (PIECE_VALUES[_captured(walked, i)[0]], -i)),
        )
    return Reading(walked, winner, net, won, returned, primary, promotion, engine_plies)


def _walk(board: chess.Board, line: Line) -> _Walk:
    walked = _Walk([board.copy(stack=False)], [])
    for entry in line:
        move = _parse(walked.boards[-1], entry)
        if move is None:
            break
        _push(walked, move)
    return walked


def _push(walked: _Walk, move: chess.Move) -> None:
    following = walked.boards[-1].copy(stack=False)
    following.push(move)
    walked.plies.append(move)
    walked.boards.append(following)


def _parse(board: chess.Board, entry: chess.Move | str) -> chess.Move | None:
    try:
        move = board.parse_san(entry) if isinstance(entry, str) else entry
    except ValueError:
        return None
    return move if move in board.legal_moves else None


def _captured(walked: _Walk, index: int) -> tuple[chess.PieceType, chess.Square]:
    """The piece a capture takes and the square it stood on."""
    board, move = walked.boards[index], walked.plies[index]
    if board.is_en_passant(move):
        return chess.PAWN, chess.square(
            chess.square_file(move.to_square), chess.square_rank(move.from_square)
        )
    return board.piece_type_at(move.to_square) or chess.PAWN, move.to_square


def _san(walked: _Walk, index: int) -> str:
    board = walked.boards[index]
    return ("..." if board.turn == chess.BLACK else "") + board.san(walked.plies[index])


def _square_at(walked: _Walk, square: chess.Square, index: int, then: int) -> chess.Square | None:
    """Where the piece standing on ``square`` before ply ``index`` stood before ply ``then``
    (``then`` <= ``index``), following its own moves back; None if it was not on the board."""
    for back in range(index - 1, then - 1, -1):
        move = walked.plies[back]
        if move.to_square == square:
            if walked.boards[back].is_castling(move):
                return None
            square = move.from_square
        elif move.from_square == square:
            return None
    return square


def _worth(piece_type: chess.PieceType | None) -> int:
    if piece_type == chess.KING:
        return KING_IN_EXCHANGE
    return PIECE_VALUES.get(piece_type or chess.PAWN, 0)


def _exchange(board: chess.Board, square: chess.Square, side: chess.Color) -> int:
    """What ``side`` gains by going on with the exchange on ``square`` (0 if it had better not)."""
    attackers = board.attackers(side, square)
    if not attackers:
        return 0
    taker = min(attackers, key=lambda at: _worth(board.piece_type_at(at)))
    captured = _worth(board.piece_type_at(square))
    rest = board.copy(stack=False)
    piece = rest.remove_piece_at(taker)
    rest.set_piece_at(square, piece)
    return max(0, captured - _exchange(rest, square, not side))


def _quiesce(board: chess.Board, alpha: int, beta: int, plies: int) -> tuple[int, list[chess.Move]]:
    """Material for the side to move after the best captures (fail-hard, stand pat)."""
    if board.is_checkmate():
        return -1000, []
    stand = material(board, board.turn)
    if plies == 0 or stand >= beta:
        return stand, []
    best_line: list[chess.Move] = []
    alpha = max(alpha, stand)
    moves = [m for m in board.legal_moves if board.is_capture(m) or m.promotion == chess.QUEEN]
    moves.sort(key=lambda m: -_worth(board.piece_type_at(m.to_square)) * 10
               + _worth(board.piece_type_at(m.from_square)))  # fmt: skip
    for move in moves:
        board.push(move)
        score, line = _quiesce(board, -beta, -alpha, plies - 1)
        board.pop()
        score = -score
        if score >= beta:
            return beta, []
        if score > alpha:
            alpha, best_line = score, [move, *line]
    return alpha, best_line


# --- sentences -----------------------------------------------------------------------------


def _mate_sentence(verb: str, board: chess.Board, line: Line, moves: int) -> Explanation:
    walked = _walk(board, line[: 2 * moves])
    first = _san(walked, 0) if walked.plies else None
    kind = _mate_kind(walked.boards[-1]) if walked.boards[-1].is_checkmate() else None
    words = {"backRankMate": "a back-rank mate", "smotheredMate": "a smothered mate"}
    what = f"{words[kind]} in {moves}" if kind else f"mate in {moves}"
    motifs = ("mate",) + ((kind,) if kind else ())
    return Explanation(f"{verb} {what}" + (f": {first}" if first else ""), motifs)


def _mate_kind(board: chess.Board) -> str | None:
    """ "backRankMate" or "smotheredMate" for a checkmated ``board``, else None."""
    king = board.king(board.turn)
    if king is None:
        return None
    checkers = board.checkers()
    neighbours = chess.SquareSet(chess.BB_KING_ATTACKS[king])
    if len(checkers) == 1:
        checker = next(iter(checkers))
        piece = board.piece_type_at(checker)
        own = board.occupied_co[board.turn]
        if piece == chess.KNIGHT and all(own & chess.BB_SQUARES[s] for s in neighbours):
            return "smotheredMate"
        back = 0 if board.turn == chess.WHITE else 7
        if (
            piece in (chess.ROOK, chess.QUEEN)
            and chess.square_rank(king) == back
            and chess.square_rank(checker) == back
        ):
            forward = [s for s in neighbours if chess.square_rank(s) != back]
            if all(board.piece_at(s) is not None and board.color_at(s) == board.turn
                   for s in forward):  # fmt: skip
                return "backRankMate"
    return None


def _material_sentence(verb: str, reading: Reading) -> Explanation | None:
    walked = reading.walk
    if reading.primary is None:
        assert reading.promotion is not None
        promotes = _san(walked, reading.promotion)
        first = _san(walked, 0)
        how = promotes if reading.promotion == 0 else f"{first} and {promotes}"
        return Explanation(f"{verb} {how}, promoting the pawn", ("promotion",))
    piece, square = _captured(walked, reading.primary)
    # Named where it stands now (where it is taken if it was not on the board then).
    origin = _square_at(walked, square, reading.primary, 0)
    square = square if origin is None else origin
    target = f"the {chess.piece_name(piece)} on {chess.square_name(square)}"
    won = target
    back = max(reading.returned, key=lambda p: PIECE_VALUES[p], default=None)
    # The price is named when it is a piece worth less than the one won: a pawn picked up on the
    # way is not the price, and a dearer piece taken back means the line trades more than this.
    if back is not None and back != chess.PAWN and PIECE_VALUES[back] < PIECE_VALUES[piece]:
        won += f" for {_a(back)}"
    for motif in (_fork, _skewer, _discovered, _pin, _trapped, _removed_defender, _hanging):
        found = motif(reading, verb, target, won)
        if found is not None:
            return _unless_declined(reading, verb, found)
    # No motif: the plain loss is said only when the line wins it soon (a pawn: at once).
    if reading.primary > (FAR_PAWN_PLIES if reading.net <= 1 else FAR_PLIES):
        return None
    first = _san(walked, 0)
    if verb == "misses":
        return Explanation(f"misses {first}, which wins {won}", ())
    if _exchange_lost(reading):
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
        worth = PIECE_VALUES[_captured(walked, index)[0]]
        paid = next((h for h in taken if PIECE_VALUES[_captured(walked, h)[0]] == worth), None)
        if paid is None or not just_moved or worth < PIECE_VALUES[chess.KNIGHT]:
            continue
        if PIECE_VALUES[_captured(walked, k)[0]] <= worth:
            return found  # taking back costs less than declining: the motif is the point
        piece, square = _captured(walked, paid)
        origin = _square_at(walked, square, paid, 0)
        square = square if origin is None else origin
        first = f"the {chess.piece_name(piece)} on {chess.square_name(square)}"
        rest = found.text.removeprefix(f"{verb} ")
        between = " ".join(_san(walked, ply) for ply in range(paid + 1, index))
        choice = (f"after {between}, " if between else "") + f"if {_san(walked, index)}"
        text = f"{verb} {_san(walked, paid)}, which wins {first}: {choice}, {rest}"
        return Explanation(text, found.motifs)
    return found


def _exchange_lost(reading: Reading) -> bool:
    """A rook won for a knight or a bishop."""
    walked, k = reading.walk, reading.primary
    return (
        k is not None
        and _captured(walked, k)[0] == chess.ROOK
        and max(reading.returned, key=lambda p: PIECE_VALUES[p], default=None)
        in (chess.KNIGHT, chess.BISHOP)
    )


def _a(piece: chess.PieceType) -> str:
    name = chess.piece_name(piece)
    return ("an " if name[0] in "aeiou" else "a ") + name


def _hanging(reading: Reading, verb: str, prey: str, won: str) -> Explanation | None:
    """The refutation's first move takes the piece (a missed win: the best move takes it)."""
    if reading.primary != 0:
        return None
    walked = reading.walk
    if verb == "misses":
        return Explanation(f"misses {_san(walked, 0)}, which wins {won}", ("hangingPiece",))
    if _exchange_lost(reading):
        return Explanation(f"loses the exchange: {_san(walked, 0)} wins {won}", ("hangingPiece",))
    if won != prey:
        return Explanation(f"loses {won} to {_san(walked, 0)}", ("hangingPiece",))
    return Explanation(f"leaves {prey} hanging", ("hangingPiece",))


def _fork(reading: Reading, verb: str, prey: str, won: str) -> Explanation | None:
    """The piece that takes the primary piece had, on arriving, attacked it and another piece
    of more worth than itself, or undefended, or the king."""
    walked, k = reading.walk, reading.primary
    assert k is not None
    taker = walked.plies[k].from_square
    loser = not reading.winner
    for j in range(k - 1, -1, -1):
        if walked.plies[j].to_square != taker or walked.boards[j].turn != reading.winner:
            continue
        position = walked.boards[j + 1]
        fork_piece = position.piece_type_at(taker)
        target = _square_at(walked, walked.plies[k].to_square, k, j + 1)
        if fork_piece is None or target is None:
            return None
        targets = []
        for attacked in position.attacks(taker) & position.occupied_co[loser]:
            kind = position.piece_type_at(attacked)
            if kind in (None, chess.PAWN):
                continue  # a pawn is not forked: a fork wins a piece
            if (kind == chess.KING or _worth(kind) > _worth(fork_piece)
                    or not position.is_attacked_by(loser, attacked)):  # fmt: skip
                targets.append((attacked, kind))
        if len(targets) >= 2 and any(square == target for square, _ in targets):
            names = sorted({kind for _, kind in targets}, key=lambda p: -_worth(p))
            listed = " and the ".join(chess.piece_name(p) for p in names)
            if len(names) == 1:
                listed = f"two {chess.piece_name(names[0])}s"
            else:
                listed = "the " + listed
            key = _san(walked, j)
            return Explanation(f"{verb} a fork: {key} attacks {listed}, and wins {won}", ("fork",))
        return None
    return None


def _skewer(reading: Reading, verb: str, prey: str, won: str) -> Explanation | None:
    """A line piece attacked a piece of more worth (or the king), which moved off the line, and
    took the piece behind it."""
    walked, k = reading.walk, reading.primary
    assert k is not None
    if k < 2 or walked.boards[k - 2].turn != reading.winner:
        return None
    attack, escape, capture = walked.plies[k - 2], walked.plies[k - 1], walked.plies[k]
    if capture.from_square != attack.to_square:
        return None
    position = walked.boards[k - 1]
    piece = position.piece_type_at(attack.to_square)
    if piece not in (chess.BISHOP, chess.ROOK, chess.QUEEN):
        return None
    front = escape.from_square
    front_piece = position.piece_type_at(front)
    behind = capture.to_square
    if front_piece is None or front not in position.attacks(attack.to_square):
        return None
    if _worth(front_piece) <= _worth(walked.boards[k].piece_type_at(behind)):
        return None
    if front not in chess.SquareSet(chess.between(attack.to_square, behind)):
        return None
    name = chess.piece_name(front_piece)
    return Explanation(
        f"{verb} a skewer: {_san(walked, k - 2)} attacks the {name} and, behind it, wins {won}",
        ("skewer",),
    )


def _discovered(reading: Reading, verb: str, prey: str, won: str) -> Explanation | None:
    """A move of the winner opened a line piece's attack on the primary piece (which that piece
    then takes) or on the king (and the moved piece then takes the primary piece)."""
    walked, k = reading.walk, reading.primary
    assert k is not None
    loser = not reading.winner
    for j in range(k - 1, -1, -1):
        if walked.boards[j].turn != reading.winner:
            continue
        before, after, moved = walked.boards[j], walked.boards[j + 1], walked.plies[j]
        target = _square_at(walked, walked.plies[k].to_square, k, j + 1)
        taker = _square_at(walked, walked.plies[k].from_square, k, j + 1)
        if target is None or taker is None:
            continue
        king = after.king(loser)
        for slider in (
            after.pieces(chess.BISHOP, reading.winner)
            | after.pieces(chess.ROOK, reading.winner)
            | after.pieces(chess.QUEEN, reading.winner)
        ):
            if slider == moved.to_square:
                continue
            opened = chess.SquareSet(chess.between(slider, target))
            newly = target in after.attacks(slider) and target not in before.attacks(slider)
            if slider == taker and newly and moved.from_square in opened:
                name = chess.piece_name(after.piece_type_at(target) or chess.PAWN)
                return Explanation(
                    f"{verb} a discovered attack: {_san(walked, j)} opens the "
                    f"{chess.piece_name(after.piece_type_at(slider) or chess.QUEEN)}'s line to "
                    f"the {name}, and wins {won}",
                    ("discoveredAttack",),
                )
            unmasked = king is not None and moved.from_square in chess.SquareSet(
                chess.between(slider, king)
            )
            if unmasked and taker == moved.to_square and slider in after.checkers():
                return Explanation(
                    f"{verb} a discovered check: {_san(walked, j)}, and wins {won}",
                    ("discoveredAttack",),
                )
    return None


def _pin(reading: Reading, verb: str, prey: str, won: str) -> Explanation | None:
    """The primary piece stood pinned (to its king, or to a piece of more worth behind it on a
    line piece's line) after the blunder, or became pinned on the way, by a move of the winner
    (named) or by blocking the winner's check, and stayed pinned until the line took it. A pawn
    counts as pinned only to its king."""
    walked, k = reading.walk, reading.primary
    assert k is not None
    if k == 0:
        return None
    loser = not reading.winner
    square = walked.plies[k].to_square
    piece = walked.boards[k].piece_type_at(square) or chess.PAWN
    name = chess.piece_name(piece)

    def pinned(index: int) -> chess.PieceType | None:
        """What the piece is pinned to before ply ``index``, if it already stands where it is
        taken."""
        there = _square_at(walked, square, k, index)
        if there != square:
            return None
        behind = _pinned_to(walked.boards[index], square, loser)
        return behind if piece != chess.PAWN or behind == chess.KING else None

    if pinned(0) is not None:
        if verb != "allows":
            return None
        behind = chess.piece_name(pinned(0) or chess.KING)
        return Explanation(
            f"leaves the {name} on {chess.square_name(square)} pinned to the {behind}: "
            f"{_san(walked, k)} wins it",
            ("pin",),
        )
    for j in range(k):
        behind_type = pinned(j + 1)
        if behind_type is None:
            continue
        behind = chess.piece_name(behind_type)
        if walked.boards[j].turn == reading.winner:
            return Explanation(
                f"{verb} a pin: {_san(walked, j)} pins the {name} to the {behind}, "
                f"and wins {won}",
                ("pin",),
            )
        if j > 0 and walked.boards[j].is_check() and walked.plies[j].to_square == square:
            return Explanation(
                f"{verb} a pin: after {_san(walked, j - 1)} the {name} blocks the check and is "
                f"pinned to the {behind}, and it wins {won}",
                ("pin",),
            )
        return None
    return None


def _pinned_to(
    board: chess.Board, square: chess.Square, color: chess.Color
) -> chess.PieceType | None:
    """The piece of ``color`` that the one on ``square`` is pinned to (its king, or a piece of
    more worth behind it on an enemy line piece's line), or None."""
    piece = board.piece_type_at(square)
    if piece is None or board.color_at(square) != color:
        return None
    if board.is_pinned(color, square):
        return chess.KING
    for attacker in board.attackers(not color, square):
        kind = board.piece_type_at(attacker)
        if kind not in (chess.BISHOP, chess.ROOK, chess.QUEEN):
            continue
        ray = chess.ray(attacker, square)
        beyond = [s for s in chess.SquareSet(ray)
                  if square in chess.SquareSet(chess.between(attacker, s))]  # fmt: skip
        beyond.sort(key=lambda s: chess.square_distance(square, s))
        for s in beyond:
            if board.piece_at(s) is None:
                continue
            if (
                board.color_at(s) == color
                and _worth(board.piece_type_at(s)) > _worth(piece)
                and (chess.square_distance(square, s) >= 1)
            ):
                if _line_slides(kind, attacker, s):
                    return board.piece_type_at(s)
            break
    return None


def _line_slides(kind: chess.PieceType | None, start: chess.Square, end: chess.Square) -> bool:
    diagonal = abs(chess.square_file(start) - chess.square_file(end)) == abs(
        chess.square_rank(start) - chess.square_rank(end)
    )
    if kind == chess.BISHOP:
        return diagonal
    if kind == chess.ROOK:
        return not diagonal
    return True


def _trapped(reading: Reading, verb: str, prey: str, won: str) -> Explanation | None:
    """The primary piece (not a pawn), attacked after the winner's first move, had nowhere to go
    that does not lose it, and was taken later."""
    walked, k = reading.walk, reading.primary
    assert k is not None
    if k < 2:
        return None
    position = walked.boards[1]  # the loser to move, after the winner's first move
    square = _square_at(walked, walked.plies[k].to_square, k, 1)
    if square is None or position.is_check():
        return None  # in check, a piece may not move for another reason than being trapped
    piece = position.piece_type_at(square)
    if piece in (None, chess.PAWN, chess.KING) or position.color_at(square) == reading.winner:
        return None
    if not position.is_attacked_by(reading.winner, square):
        return None
    if _pinned_to(position, square, position.turn) is not None:
        return None  # a pinned piece is not trapped: it is pinned
    for move in position.legal_moves:
        if move.from_square != square:
            continue
        rest = position.copy(stack=False)
        rest.push(move)
        if static_exchange(rest, move.to_square) <= 0 and not (
            rest.is_capture(move)
            and position.piece_type_at(move.to_square) is not None
            and _worth(position.piece_type_at(move.to_square)) >= _worth(piece)
        ):
            return None
    name = f"the {chess.piece_name(piece)} on {chess.square_name(square)}"
    return Explanation(
        f"{verb} {_san(walked, 0)}, which traps {name} and wins it", ("trappedPiece",)
    )


def _removed_defender(reading: Reading, verb: str, prey: str, won: str) -> Explanation | None:
    """An earlier capture of the line took a piece that defended the primary piece."""
    walked, k = reading.walk, reading.primary
    assert k is not None
    loser = not reading.winner
    for j in range(k):
        if walked.boards[j].turn != reading.winner or not walked.boards[j].is_capture(
            walked.plies[j]
        ):
            continue
        target = _square_at(walked, walked.plies[k].to_square, k, j)
        taken_square = _captured(walked, j)[1]
        if target != walked.plies[k].to_square or taken_square == target:
            continue  # the piece won moved after the capture (it took back, say): no defender
        if taken_square in walked.boards[j].attackers(loser, target):
            return Explanation(
                f"{verb} {_san(walked, j)}, which removes the defender of {prey} and wins it",
                ("capturingDefender",),
            )  # fmt: skip
    return None
