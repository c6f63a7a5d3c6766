"""Opening drill cards: where a player left their own line or the book, and it went wrong.

:func:`opening_cards` walks a player's games in the order given (oldest first), each with the
colour the player had. The exact rule:

1. Only the player's moves in the first :data:`OPENING_PLIES` plies count.
2. The player's *usual move* in a position (positions are told apart by their Polyglot key, so
   transpositions meet) is the move they played there most often in *earlier* games (ties: the
   one played first); a position met for the first time has none.
3. The *book moves* are the Polyglot book's moves there (heaviest first; none in Chess960).
4. In each game, the first of the player's moves that is not their usual move (where they have
   one), or, in a position they meet for the first time, not a book move (where the book has
   the position), is where they *left their line*. Only that first point of a game counts.
5. It becomes a card when the player lost that game, or, with an engine, when the move lost at
   least :data:`LOSS_CP` centipawns by the engine (the best move's score before against the
   played move's after, the player's view).
6. The card (a :class:`~ferrochess.training.puzzles.Puzzle` of kind ``"opening"``, theme
   ``"opening"``, one solution move) accepts the book moves and the usual move when the player
   scored at least half the points with it in the earlier games ("their usual winning move"),
   never the move played. With none of those, the engine's best other move, else no card.
7. Each game then adds the player's moves to the repertoire (rule 2) with its result.

The same position left again in a later game makes the same card (same id): the caller keeps one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

import chess
import chess.engine
import chess.pgn
import chess.polyglot

from ferrochess.book import Book, open_book
from ferrochess.engine import DEFAULT_BOOK, Engine
from ferrochess.training.puzzles import DEFAULT_NODES, Puzzle, board_uci

__all__ = ["LOSS_CP", "OPENING_PLIES", "Repertoire", "opening_cards"]

OPENING_PLIES = 20
"""The plies of a game (ten moves each) in which the player's moves are drilled."""
LOSS_CP = 100
"""A move that loses this many centipawns by the engine makes a card even in a game not lost."""

PlayerGame = tuple[chess.pgn.Game, chess.Color]


@dataclass
class _Played:
    count: int = 0
    points: float = 0.0


@dataclass
class Repertoire:
    """What a player played in each position of their openings, and how it scored: ``moves[key]``
    maps a move to its count and the player's points (1 win, 0.5 draw)."""

    moves: dict[int, dict[chess.Move, _Played]] = field(default_factory=dict)

    def usual(self, board: chess.Board) -> tuple[chess.Move | None, float]:
        """The move played most often here (ties: the first played) and its score (0..1)."""
        seen = self.moves.get(chess.polyglot.zobrist_hash(board))
        if not seen:
            return None, 0.0
        move = max(seen, key=lambda played: seen[played].count)  # max keeps the first of equals
        return move, seen[move].points / seen[move].count

    def add(self, game: chess.pgn.Game, color: chess.Color) -> None:
        """Add the player's opening moves of ``game`` with its result."""
        points = _points(game, color)
        board = game.board()
        for ply, move in enumerate(game.mainline_moves()):
            if ply >= OPENING_PLIES:
                break
            if board.turn == color:
                seen = self.moves.setdefault(chess.polyglot.zobrist_hash(board), {})
                entry = seen.setdefault(move, _Played())
                entry.count += 1
                entry.points += points if points is not None else 0.5
            board.push(move)


def _points(game: chess.pgn.Game, color: chess.Color) -> float | None:
    result = game.headers.get("Result", "*")
    if result == "1/2-1/2":
        return 0.5
    if result in ("1-0", "0-1"):
        return 1.0 if (result == "1-0") == (color == chess.WHITE) else 0.0
    return None


def opening_cards(
    games: Iterable[PlayerGame],
    *,
    earlier: Iterable[PlayerGame] = (),
    book: str | os.PathLike[str] | Book | None = DEFAULT_BOOK,
    engine: Engine | None = None,
    nodes: int = DEFAULT_NODES,
) -> list[Puzzle]:
    """The opening cards of ``games`` (``(game, player's colour)`` pairs, oldest first) by the
    rule of the module's docstring. ``earlier``: games before those (already drilled), which
    only build the repertoire. ``book``: ``"default"`` (the compiled-in book), a path, an open
    :class:`~ferrochess.book.Book`, or None. ``engine``: searches ``nodes`` nodes to weigh a move
    (rule 5) and to find an answer (rule 6); None: lost games only."""
    repertoire = Repertoire()
    for game, color in earlier:
        repertoire.add(game, _colour(color))
    opened = open_book(book) if isinstance(book, (str, os.PathLike)) else book
    cards: dict[str, Puzzle] = {}
    try:
        for game, color in games:
            card = _card(game, _colour(color), repertoire, opened, engine, nodes)
            if card is not None:
                cards.setdefault(card.id, card)
            repertoire.add(game, color)
    finally:
        if isinstance(book, (str, os.PathLike)) and opened is not None:
            opened.close()
    return list(cards.values())


def _colour(color: object) -> chess.Color:
    if color not in (chess.WHITE, chess.BLACK):
        raise ValueError(f"a player's colour must be chess.WHITE or chess.BLACK, not {color!r}")
    return bool(color)


def _card(
    game: chess.pgn.Game,
    color: chess.Color,
    repertoire: Repertoire,
    book: Book | None,
    engine: Engine | None,
    nodes: int,
) -> Puzzle | None:
    board = game.board()
    lost = _points(game, color) == 0.0
    for ply, played in enumerate(game.mainline_moves()):
        if ply >= OPENING_PLIES:
            return None
        if board.turn != color:
            board.push(played)
            continue
        usual, usual_points = repertoire.usual(board)
        book_moves = [] if book is None or board.chess960 else [
            entry.move for entry in sorted(book.find_all(board), key=lambda e: -e.weight)
        ]
        if usual is not None:
            left = played != usual
        else:
            left = bool(book_moves) and played not in book_moves
        if not left:
            board.push(played)
            continue
        if not lost and not _loses(board, played, engine, nodes):
            return None
        accept = list(book_moves)
        if usual is not None and usual_points >= 0.5 and usual not in accept:
            accept.append(usual)
        accept = [move for move in accept if move != played]
        if not accept and engine is not None:
            info = engine.analyse(board, chess.engine.Limit(nodes=nodes), exclude_moves=[played])
            if info.get("pv"):
                accept = [info["pv"][0]]
        if not accept:
            return None
        headers = game.headers
        return Puzzle(
            fen=board.fen(),
            moves=tuple(board_uci(board, accept[:1])),
            themes=("opening",),
            kind="opening",
            source={"white": headers.get("White", "?"), "black": headers.get("Black", "?"),
                    "date": headers.get("Date", "????.??.??"), "event": headers.get("Event", "?"),
                    "site": headers.get("Site", "?"), "ply": ply},
            chess960=board.chess960,
            accept=tuple(board.uci(move) for move in accept),
        )
    return None


def _loses(board: chess.Board, played: chess.Move, engine: Engine | None, nodes: int) -> bool:
    """Whether ``played`` loses at least :data:`LOSS_CP` by ``engine`` (False without one)."""
    if engine is None:
        return False
    limit = chess.engine.Limit(nodes=nodes)
    before = engine.analyse(board, limit)["score"].pov(board.turn)
    after_board = board.copy()
    after_board.push(played)
    if after_board.is_game_over():
        return False
    after = engine.analyse(after_board, limit)["score"].pov(board.turn)
    return before.score(mate_score=100_000) - after.score(mate_score=100_000) >= LOSS_CP
