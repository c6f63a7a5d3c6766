"""A game against ferrochess without any user interface: :class:`NotebookGame`, the controller
the notebook board (:mod:`ferrochess.notebook`) stands beside, driven from code.

:class:`NotebookGame` holds a :class:`chess.Board`, the
human's colour, the playing level (one of :func:`ferrochess.levels`), whether the engine uses its
opening book, the board orientation and the selected square. :meth:`NotebookGame.click` takes square
clicks (select a piece, then its destination), :meth:`NotebookGame.push_san_or_uci` a typed move;
after the human's move the engine replies at once (``auto_reply``) unless the game is over.
:meth:`NotebookGame.takeback` undoes the human's last move together with the reply,
:meth:`NotebookGame.new_game` starts again (the engine moves first when the human plays Black).
:meth:`NotebookGame.svg` draws the position with python-chess (a static board, also the game's
display in a notebook); :meth:`NotebookGame.status_text` and :meth:`NotebookGame.engine_text` say
whose move it is, how the game ended and what the engine last thought. It is a client of the play
service's judge: how the game stands and ends, and in which words, is
:func:`ferrochess.rules.status` (lichess's rules: threefold repetition on the third occurrence, the
fifty-move rule at the hundredth half-move, never a move earlier), a FEN is read by
:func:`ferrochess.rules.position` and a level checked by
:func:`ferrochess.service.game.check_level`, and the engine's reply comes from
:meth:`ferrochess.service.game.GameService.reply`, as for the play page. What it does itself
is the controller's part: selection and clicks, typed SAN or UCI, takeback, and drawing the
board.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Literal, Optional, Union

import chess
import chess.engine
import chess.svg

from ferrochess import _core, rules
from ferrochess._closing import Closing
from ferrochess.engine import Engine
from ferrochess.interop import white_score
from ferrochess.service.game import GameService, Settings, check_level
from ferrochess.service.pool import EnginePool
from ferrochess.service.reading import Game

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_THINK_SECONDS",
    "ColorChoice",
    "NotebookGame",
    "check_think_time",
    "color_of",
]

DEFAULT_LEVEL = _core.DEFAULT_LEVEL
"""The level a new game is played at (``"Improver"``), as on the web page."""
DEFAULT_THINK_SECONDS = 1.0
"""The most time the engine spends on a move, in seconds: the notebook waits for the reply."""

ColorChoice = Literal["white", "black", "random"]
"""The colour the human plays; ``"random"`` draws one for each new game."""

ChangeCallback = Optional[Callable[[], object]]
"""Called after every change to a game: a move, a selection, a takeback, a new game, a flip."""

SquareLike = Union[str, int]
"""A square as a name (``"e4"``) or a python-chess square number (``chess.E4``)."""

PROMOTION_PIECES = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)

# Colours of the SVG highlights (python-chess takes CSS colours with alpha).
SELECTED_FILL = "#14551e80"
DESTINATION_FILL = "#14551e40"



def _square(square: SquareLike) -> chess.Square:
    """The square number of ``square``; ValueError quoting it when it names no square."""
    if isinstance(square, str):
        try:
            return chess.parse_square(square.strip().lower())
        except ValueError:
            raise ValueError(f"not a square: {square!r} (expected a name like 'e4')") from None
    if isinstance(square, int) and not isinstance(square, bool) and 0 <= square < 64:
        return square
    raise ValueError(f"not a square: {square!r} (expected a name like 'e4')")


def color_of(choice: ColorChoice, rng: random.Random) -> chess.Color:
    if choice == "white":
        return chess.WHITE
    if choice == "black":
        return chess.BLACK
    if choice == "random":
        return rng.choice([chess.WHITE, chess.BLACK])
    raise ValueError(f"not a colour: {choice!r} (expected 'white', 'black' or 'random')")


def check_think_time(think_time: float) -> float:
    if isinstance(think_time, bool) or not isinstance(think_time, (int, float)):
        raise ValueError(f"not a think time: {think_time!r} (expected seconds above 0)")
    if not 0 < think_time < float("inf"):  # also refuses NaN
        raise ValueError(f"not a think time: {think_time!r} (expected seconds above 0)")
    return float(think_time)


def _color_name(color: chess.Color) -> str:
    return chess.COLOR_NAMES[color].capitalize()


def _headline(reason: str) -> str:
    """A reason of :data:`ferrochess.rules.TERMINATIONS` as the start of a sentence
    (``"the fifty-move rule"`` -> ``"Fifty-move rule"``)."""
    words = reason.removeprefix("the ")
    return words[:1].upper() + words[1:]


def _score_text(score: chess.engine.PovScore, tablebase: str | None = None) -> str:
    """The score from White's point of view: ``+0.35`` in pawns or ``#3``/``#-3`` for a mate;
    where the tables judged the position, their verdict instead of the pawns: ``tablebase`` as an
    InfoDict gives it (the side to move's view, see :data:`ferrochess.interop.TABLEBASE_VERDICTS`),
    turned to White's: ``TB win``, ``TB cursed win``, ``TB draw``, ``TB blessed loss``,
    ``TB loss``. The numbers are the play API's (:func:`ferrochess.interop.white_score`)."""
    white = white_score({"score": score, "tablebase": tablebase})
    assert white is not None
    if "mate" in white:
        return f"#{white['mate']}"
    if "tablebase" in white:
        return f"TB {white['tablebase']}"
    return f"{white['cp'] / 100:+.2f}"


class NotebookGame(Closing):
    """A game against ferrochess, driven by clicks or typed moves; no user interface needed.

    ``fen`` is the start position (default the standard one); ``color`` the human's side
    (``"white"``, ``"black"`` or ``"random"``); ``level`` a number of :func:`ferrochess.levels`;
    ``book`` whether the engine plays from its opening book; ``think_time`` the most seconds the
    engine takes per move; ``promotion`` the piece a pawn clicked to the last rank becomes;
    ``auto_reply`` whether the engine answers each human move at once. ``engine`` is used as given
    (and not closed by :meth:`close`); otherwise one is created at the first engine move with
    ``Engine(seed=seed)``. ``seed`` also makes ``"random"`` colours reproducible. When it is the
    engine's turn in the start position, it moves before the constructor returns (with
    ``auto_reply``). A bad ``fen``, ``color`` or ``level`` raises ValueError quoting it.

    ``on_change`` (settable) is called after every change: a move (the human's is reported before
    the engine starts thinking), a selection, a takeback, a new game, a flip.

    State for display: :attr:`board` (the game, with its history; change it through the
    methods), :attr:`human`, :attr:`selected`, :attr:`flipped`, :attr:`last_result` (the engine's
    last PlayResult, None after a takeback or new game) and :attr:`last_engine_san`
    (``"12... Nf6"``). :attr:`level`, :attr:`book`, :attr:`think_time`, :attr:`promotion` and
    :attr:`auto_reply` may be changed between moves.
    """

    def __init__(
        self,
        *,
        fen: str | None = None,
        color: ColorChoice = "white",
        level: int = DEFAULT_LEVEL,
        book: bool = True,
        think_time: float = DEFAULT_THINK_SECONDS,
        promotion: chess.PieceType = chess.QUEEN,
        auto_reply: bool = True,
        engine: Engine | None = None,
        seed: int | None = None,
        on_change: ChangeCallback = None,
    ) -> None:
        self.level = level
        self.book = book
        self.think_time = check_think_time(think_time)
        self.promotion = promotion
        self.auto_reply = auto_reply
        self.flipped = False
        self.on_change = on_change
        self._engine = engine
        self._owns_engine = engine is None
        self._seed = seed
        self._rng = random.Random(seed)
        self._start_fen = chess.STARTING_FEN
        self.board = chess.Board()
        self.human: chess.Color = chess.WHITE
        self.selected: chess.Square | None = None
        self.last_result: chess.engine.PlayResult | None = None
        self.last_engine_san: str | None = None
        self.new_game(color, fen=fen)

    def __repr__(self) -> str:
        return (
            f"<NotebookGame human={_color_name(self.human)} level={self.level} "
            f"fen={self.board.fen()!r}>"
        )

    # -- state ---------------------------------------------------------------------------------

    @property
    def level(self) -> int:
        """The engine's playing level, the number of one of :func:`ferrochess.levels` (the
        lowest a beginner, the highest full strength)."""
        return self._level

    @level.setter
    def level(self, level: int) -> None:
        self._level = check_level(level)

    @property
    def promotion(self) -> chess.PieceType:
        """The piece a pawn clicked to the last rank becomes (queen, rook, bishop or knight)."""
        return self._promotion

    @promotion.setter
    def promotion(self, piece: chess.PieceType) -> None:
        if piece not in PROMOTION_PIECES:
            raise ValueError(f"not a promotion piece: {piece!r} (expected queen to knight)")
        self._promotion = piece

    @property
    def engine(self) -> Engine:
        """The engine that plays the other side, created on first use."""
        if self._engine is None:
            self._engine = Engine(seed=self._seed)
        return self._engine

    @property
    def start_fen(self) -> str:
        """The position the game started from (:meth:`new_game` starts there again)."""
        return self._start_fen

    def is_over(self) -> bool:
        """Whether the game has ended, as :func:`ferrochess.rules.status` says: mate, stalemate,
        too little material, or a draw by threefold repetition (on the third occurrence) or the
        fifty-move rule (at the hundredth half-move), never a move earlier."""
        return bool(rules.status(self.board)["over"])

    def is_human_turn(self) -> bool:
        """Whether the human is to move in a game that is still going."""
        return self.board.turn == self.human and not self.is_over()

    def legal_destinations(self) -> chess.SquareSet:
        """The squares the selected piece may move to (empty when none is selected)."""
        if self.selected is None:
            return chess.SquareSet()
        return chess.SquareSet(
            move.to_square for move in self.board.legal_moves if move.from_square == self.selected
        )

    # -- moves ---------------------------------------------------------------------------------

    def click(self, square: SquareLike) -> chess.Move | None:
        """Handle a click on ``square`` (a name like ``"e2"`` or a square number).

        With nothing selected, a human's piece that has a legal move becomes selected. With a
        piece selected, a legal destination plays the move (a pawn reaching the last rank becomes
        :attr:`promotion`) and returns it; another of the human's movable pieces is selected
        instead; anything else clears the selection. Clicks are ignored (None) when it is not
        the human's turn or the game is over. A bad square name raises ValueError.
        """
        target = _square(square)
        if not self.is_human_turn():
            return None
        if self.selected is not None:
            move = self._move_to(self.selected, target)
            if move is not None:
                self._play_human(move)
                return move
        self.selected = target if self._movable(target) else None
        self._changed()
        return None

    def push_san_or_uci(self, text: str) -> chess.Move:
        """Play the human's move typed as SAN (``"Nf3"``, ``"e8=Q"``) or UCI (``"g1f3"``).

        Returns the move; the engine then replies (with ``auto_reply``). Raises ValueError naming
        ``text`` when it is no legal move here, when the game is over, or when it is the engine's
        turn; the game is then unchanged.
        """
        if self.is_over():
            raise ValueError(f"cannot play {text!r}: the game is over ({self.status_text()})")
        if self.board.turn != self.human:
            raise ValueError(f"cannot play {text!r}: it is the engine's move")
        move = self._parse(text)
        self._play_human(move)
        return move

    def engine_move(self) -> chess.engine.PlayResult:
        """The engine plays for the side to move (at :attr:`level`, within :attr:`think_time`
        seconds, from the book when :attr:`book` is on) and returns its PlayResult, which
        :meth:`engine_text` then describes. Raises ValueError when the game is over. The move
        comes from the play page's judge, :meth:`GameService.reply
        <ferrochess.service.game.GameService.reply>`, over this game's engine (without the page's
        natural delay)."""
        if self.is_over():
            raise ValueError(f"the game is over ({self.status_text()})")
        service = GameService(
            EnginePool.lending(self.engine, owned=False),
            Settings(max_think_seconds=self.think_time, natural_delay=False),
        )
        result, _seconds = service.reply(Game(self.board, None), self.level, self.book)
        assert result.move is not None  # reply() refuses a game without a legal move
        number = f"{self.board.fullmove_number}{'.' if self.board.turn == chess.WHITE else '...'}"
        self.last_engine_san = f"{number} {self.board.san(result.move)}"
        self.last_result = result
        self.selected = None
        self.board.push(result.move)
        self._changed()
        return result

    def takeback(self) -> bool:
        """Undo the human's last move and the engine's reply to it, if any.

        Returns whether anything was undone (False when the human has made no move in this
        game). Afterwards it is the human's turn in the position before that move.
        """
        first = chess.Board(self._start_fen).turn
        human_plies = [
            ply
            for ply in range(len(self.board.move_stack))
            if (first if ply % 2 == 0 else not first) == self.human
        ]
        if not human_plies:
            return False
        while len(self.board.move_stack) > human_plies[-1]:
            self.board.pop()
        self.selected = None
        self.last_result = None
        self.last_engine_san = None
        self._changed()
        return True

    def new_game(self, color: ColorChoice = "white", *, fen: str | None = None) -> None:
        """Start again from ``fen`` (default: where this game started) with the human playing
        ``color``; when the engine is to move (the human plays Black from the standard start)
        it moves first, with ``auto_reply``. Raises ValueError quoting a bad ``fen`` or
        ``color``; the current game is then unchanged."""
        human = color_of(color, self._rng)
        board = rules.position(self._start_fen if fen is None else fen)
        self._start_fen = board.fen()
        self.board = board
        self.human = human
        self.selected = None
        self.last_result = None
        self.last_engine_san = None
        if self._owns_engine and self._engine is not None:
            self._engine.new_game()
        self._changed()
        self._reply_if_due()

    def flip(self) -> None:
        """Turn the board around (the human's side is at the bottom until flipped)."""
        self.flipped = not self.flipped
        self._changed()

    @property
    def orientation(self) -> chess.Color:
        """The side shown at the bottom: the human's, or the other after :meth:`flip`."""
        return self.human if not self.flipped else not self.human

    # -- display -------------------------------------------------------------------------------

    def svg(self, size: int | None = 360) -> str:
        """The position as python-chess SVG: seen from :attr:`orientation`, with the last move,
        a king in check, the selected square and its legal destinations highlighted."""
        fill: dict[chess.Square, str] = {}
        destinations = self.legal_destinations()
        for square in destinations:
            fill[square] = DESTINATION_FILL
        if self.selected is not None:
            fill[self.selected] = SELECTED_FILL
        return chess.svg.board(
            self.board,
            orientation=self.orientation,
            lastmove=self.board.peek() if self.board.move_stack else None,
            check=self.board.king(self.board.turn) if self.board.is_check() else None,
            fill=fill,
            squares=destinations,
            size=size,
        )

    def _repr_svg_(self) -> str:
        return self.svg()

    def status_text(self) -> str:
        """Whose move it is, or how the game ended with its result, e.g. ``"Checkmate: 1-0"``
        (followed by who won; a start position that is already over names only the colour, as
        nobody played the deciding move)."""
        status = rules.status(self.board)
        if status["over"]:
            text = f"{_headline(status['reason'])}: {status['result']}"
            winner = status["winner"]
            if winner is not None and not self.board.move_stack:
                text += f" ({winner.capitalize()} wins in the set-up position)"
            elif winner is not None:
                who = "you win" if winner == chess.COLOR_NAMES[self.human] else "ferrochess wins"
                text += f" ({winner.capitalize()} wins, {who})"
            return text
        player = "you" if self.board.turn == self.human else "ferrochess"
        check = "Check! " if self.board.is_check() else ""
        return f"{check}{_color_name(self.board.turn)} to move ({player})"

    def engine_text(self) -> str:
        """The engine's last move and how it was found: the score (from White's point of view),
        depth and nodes of a search, or that it came from the book or the tablebases."""
        result = self.last_result
        if result is None or self.last_engine_san is None:
            return "No engine move to show yet."
        info: dict[str, Any] = dict(result.info)
        source = info.get("source", "search")
        parts = [f"ferrochess played {self.last_engine_san}"]
        if source == "book":
            parts.append(f"from its opening book (weight {info.get('book_weight', '?')})")
            return ", ".join(parts)
        if source == "tablebase":
            parts.append(f"from the tablebases (WDL {info.get('wdl')}, DTZ {info.get('dtz')})")
        score = info.get("score")
        if score is not None:
            parts.append(f"score {_score_text(score, info.get('tablebase'))}")
        if source != "tablebase":
            parts.append(f"depth {info.get('depth', 0)}")
            parts.append(f"{info.get('nodes', 0):,} nodes")
            parts.append(f"{info.get('time', 0.0):.2f} s (search)")
        return ", ".join(parts)

    def moves_text(self) -> str:
        """The moves played so far in SAN with move numbers (``"1. e4 e5 2. Nf3"``)."""
        return chess.Board(self._start_fen).variation_san(self.board.move_stack)

    def close(self) -> None:
        """Close the engine if this game created it; idempotent."""
        if self._owns_engine and self._engine is not None:
            self._engine.close()
            self._engine = None

    # -- helpers -------------------------------------------------------------------------------

    def _movable(self, square: chess.Square) -> bool:
        piece = self.board.piece_at(square)
        if piece is None or piece.color != self.human:
            return False
        return any(move.from_square == square for move in self.board.legal_moves)

    def _move_to(self, origin: chess.Square, target: chess.Square) -> chess.Move | None:
        piece = self.board.piece_at(origin)
        promotion = None
        if piece is not None and piece.piece_type == chess.PAWN:
            if chess.square_rank(target) in (0, 7):
                promotion = self.promotion
        move = chess.Move(origin, target, promotion=promotion)
        return move if self.board.is_legal(move) else None

    def _parse(self, text: str) -> chess.Move:
        typed = text.strip()
        if not typed:
            raise ValueError("no move typed: enter one like 'e4', 'Nf3' or 'g1f3'")
        try:
            return self.board.parse_san(typed)
        except ValueError:
            pass
        try:
            move = chess.Move.from_uci(typed.lower())
        except ValueError:
            move = None
        if move is not None and self.board.is_legal(move):
            return move
        legal = ", ".join(sorted(self.board.san(move) for move in self.board.legal_moves))
        raise ValueError(
            f"not a legal move here: {text!r} (as SAN like 'Nf3' or UCI like 'g1f3'); "
            f"legal: {legal}"
        )

    def _play_human(self, move: chess.Move) -> None:
        self.selected = None
        self.board.push(move)
        self._changed()
        self._reply_if_due()

    def _reply_if_due(self) -> None:
        if self.auto_reply and self.board.turn != self.human and not self.is_over():
            self.engine_move()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
