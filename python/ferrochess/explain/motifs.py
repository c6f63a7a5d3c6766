"""The motifs an explanation names, each a small function over a line that
:func:`~ferrochess.explain.line.read_line` read (lichess-puzzler's ``tagger/cook.py`` habit): it
answers the sentence when its motif is how the line wins, else None. :data:`MOTIFS` is the order
they are tried in."""

from __future__ import annotations

from dataclasses import dataclass

import chess

from ferrochess.explain.line import (
    PIECE_VALUES,
    Reading,
    captured,
    san,
    square_at,
    static_exchange,
    worth,
)

__all__ = ["MOTIFS", "Explanation", "article", "exchange_lost", "mate_kind"]


@dataclass(frozen=True)
class Explanation:
    """A sentence and the motifs it names (lichess puzzle theme names)."""

    text: str
    motifs: tuple[str, ...] = ()

def mate_kind(board: chess.Board) -> str | None:
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

def exchange_lost(reading: Reading) -> bool:
    """A rook won for a knight or a bishop."""
    walked, k = reading.walk, reading.primary
    return (
        k is not None
        and captured(walked, k)[0] == chess.ROOK
        and max(reading.returned, key=lambda p: PIECE_VALUES[p], default=None)
        in (chess.KNIGHT, chess.BISHOP)
    )


def article(piece: chess.PieceType) -> str:
    name = chess.piece_name(piece)
    return ("an " if name[0] in "aeiou" else "a ") + name

def _hanging(reading: Reading, verb: str, prey: str, won: str) -> Explanation | None:
    """The refutation's first move takes the piece (a missed win: the best move takes it)."""
    if reading.primary != 0:
        return None
    walked = reading.walk
    if verb == "misses":
        return Explanation(f"misses {san(walked, 0)}, which wins {won}", ("hangingPiece",))
    if exchange_lost(reading):
        return Explanation(f"loses the exchange: {san(walked, 0)} wins {won}", ("hangingPiece",))
    if won != prey:
        return Explanation(f"loses {won} to {san(walked, 0)}", ("hangingPiece",))
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
        target = square_at(walked, walked.plies[k].to_square, k, j + 1)
        if fork_piece is None or target is None:
            return None
        targets = []
        for attacked in position.attacks(taker) & position.occupied_co[loser]:
            kind = position.piece_type_at(attacked)
            if kind in (None, chess.PAWN):
                continue  # a pawn is not forked: a fork wins a piece
            if (kind == chess.KING or worth(kind) > worth(fork_piece)
                    or not position.is_attacked_by(loser, attacked)):  # fmt: skip
                targets.append((attacked, kind))
        if len(targets) >= 2 and any(square == target for square, _ in targets):
            names = sorted({kind for _, kind in targets}, key=lambda p: -worth(p))
            listed = " and the ".join(chess.piece_name(p) for p in names)
            if len(names) == 1:
                listed = f"two {chess.piece_name(names[0])}s"
            else:
                listed = "the " + listed
            key = san(walked, j)
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
    if worth(front_piece) <= worth(walked.boards[k].piece_type_at(behind)):
        return None
    if front not in chess.SquareSet(chess.between(attack.to_square, behind)):
        return None
    name = chess.piece_name(front_piece)
    return Explanation(
        f"{verb} a skewer: {san(walked, k - 2)} attacks the {name} and, behind it, wins {won}",
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
        target = square_at(walked, walked.plies[k].to_square, k, j + 1)
        taker = square_at(walked, walked.plies[k].from_square, k, j + 1)
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
                    f"{verb} a discovered attack: {san(walked, j)} opens the "
                    f"{chess.piece_name(after.piece_type_at(slider) or chess.QUEEN)}'s line to "
                    f"the {name}, and wins {won}",
                    ("discoveredAttack",),
                )
            unmasked = king is not None and moved.from_square in chess.SquareSet(
                chess.between(slider, king)
            )
            if unmasked and taker == moved.to_square and slider in after.checkers():
                return Explanation(
                    f"{verb} a discovered check: {san(walked, j)}, and wins {won}",
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
        there = square_at(walked, square, k, index)
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
            f"{san(walked, k)} wins it",
            ("pin",),
        )
    for j in range(k):
        behind_type = pinned(j + 1)
        if behind_type is None:
            continue
        behind = chess.piece_name(behind_type)
        if walked.boards[j].turn == reading.winner:
            return Explanation(
                f"{verb} a pin: {san(walked, j)} pins the {name} to the {behind}, "
                f"and wins {won}",
                ("pin",),
            )
        if j > 0 and walked.boards[j].is_check() and walked.plies[j].to_square == square:
            return Explanation(
                f"{verb} a pin: after {san(walked, j - 1)} the {name} blocks the check and is "
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
                and worth(board.piece_type_at(s)) > worth(piece)
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
    square = square_at(walked, walked.plies[k].to_square, k, 1)
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
            and worth(position.piece_type_at(move.to_square)) >= worth(piece)
        ):
            return None
    name = f"the {chess.piece_name(piece)} on {chess.square_name(square)}"
    return Explanation(
        f"{verb} {san(walked, 0)}, which traps {name} and wins it", ("trappedPiece",)
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
        target = square_at(walked, walked.plies[k].to_square, k, j)
        taken_square = captured(walked, j)[1]
        if target != walked.plies[k].to_square or taken_square == target:
            continue  # the piece won moved after the capture (it took back, say): no defender
        if taken_square in walked.boards[j].attackers(loser, target):
            return Explanation(
                f"{verb} {san(walked, j)}, which removes the defender of {prey} and wins it",
                ("capturingDefender",),
            )  # fmt: skip
    return None


MOTIFS = (_fork, _skewer, _discovered, _pin, _trapped, _removed_defender, _hanging)
"""The motifs in the order they are tried: the first that fits names how the line wins."""
