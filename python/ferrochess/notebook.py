"""Play ferrochess in a Jupyter notebook: a game controller and an ipywidgets board around it.

:class:`NotebookGame` is the game without any user interface, so it can be driven (and tested)
from code: it holds a :class:`chess.Board`, the human's colour, the playing level (1 to 10, see
:func:`ferrochess.levels`), whether the engine uses its opening book, the board orientation and
the selected square. :meth:`NotebookGame.click` takes square clicks (select a piece, then its
destination), :meth:`NotebookGame.push_san_or_uci` a typed move; after the human's move the engine
replies at once (``auto_reply``) unless the game is over. :meth:`NotebookGame.takeback` undoes the
human's last move together with the reply, :meth:`NotebookGame.new_game` starts again (the engine
moves first when the human plays Black). :meth:`NotebookGame.svg` draws the position with
python-chess; :meth:`NotebookGame.status_text` and :meth:`NotebookGame.engine_text` say whose move
it is, how the game ended and what the engine last thought.

:class:`BoardWidget` (or :func:`play`, which builds one) puts the controller on screen with
ipywidgets only, no custom JavaScript, so it works in classic Jupyter, JupyterLab and VS Code: an
8x8 grid of buttons to click, the python-chess SVG redrawn after every move, a box for typed
moves, and buttons and menus for takeback, new game, flip, level, colour, book and promotion.
ipywidgets is imported only when a widget is built; without it, ``import ferrochess.notebook``
and :class:`NotebookGame` still work.

>>> from ferrochess.notebook import play  # doctest: +SKIP
>>> play(level=3)  # the last expression of a cell shows the board  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable
from typing import Any, Literal, Optional, Union

import chess
import chess.engine
import chess.svg

from ferrochess._closing import Closing
from ferrochess.engine import Engine, levels

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_THINK_SECONDS",
    "BoardWidget",
    "ColorChoice",
    "NotebookGame",
    "play",
]

DEFAULT_LEVEL = 4
"""The level a new game is played at (``"Improver"``), as on the web page."""
DEFAULT_THINK_SECONDS = 1.0
"""The most time the engine spends on a move, in seconds: the notebook waits for the reply."""

ColorChoice = Literal["white", "black", "random"]
"""The colour the human plays; ``"random"`` draws one for each new game."""

ChangeCallback = Optional[Callable[[], object]]
"""Called after every change to a game: a move, a selection, a takeback, a new game, a flip."""

SquareLike = Union[str, int]
"""A square as a name (``"e4"``) or a python-chess square number (``chess.E4``)."""

TERMINATIONS = {
    chess.Termination.CHECKMATE: "Checkmate",
    chess.Termination.STALEMATE: "Stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "Insufficient material",
    chess.Termination.THREEFOLD_REPETITION: "Threefold repetition",
    chess.Termination.FIFTY_MOVES: "Fifty-move rule",
    chess.Termination.FIVEFOLD_REPETITION: "Fivefold repetition",
    chess.Termination.SEVENTYFIVE_MOVES: "Seventy-five-move rule",
}
"""How a finished game is announced by :meth:`NotebookGame.status_text`."""

PROMOTION_PIECES = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)

# Colours of the SVG highlights (python-chess takes CSS colours with alpha) and of the grid.
SELECTED_FILL = "#14551e80"
DESTINATION_FILL = "#14551e40"
LIGHT_SQUARE = "#f0d9b5"
DARK_SQUARE = "#b58863"
LIGHT_LAST_MOVE = "#cdd26a"
DARK_LAST_MOVE = "#aaa23a"
LIGHT_SELECTED = "#8fc98f"
DARK_SELECTED = "#5f9e5f"
LIGHT_DESTINATION = "#c6dfa8"
DARK_DESTINATION = "#94b57a"
CHECK_SQUARE = "#e36b6b"
ERROR_COLOR = "#b00020"
EMPTY_SQUARE = "\u00a0"
"""An empty square's label: a no-break space, because the browser's button view keeps its old text
when the label becomes the empty string (a vacated square would still show its piece)."""

# Outlined glyphs for White, filled for Black, drawn in black on the grid's buttons. U+FE0E asks
# for the text form of the black pawn, which some systems draw as an emoji otherwise.
GLYPHS = {
    "K": "\u2654", "Q": "\u2655", "R": "\u2656", "B": "\u2657", "N": "\u2658", "P": "\u2659",
    "k": "\u265a", "q": "\u265b", "r": "\u265c", "b": "\u265d", "n": "\u265e", "p": "\u265f\ufe0e",
}  # fmt: skip


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


def _color(choice: ColorChoice, rng: random.Random) -> chess.Color:
    if choice == "white":
        return chess.WHITE
    if choice == "black":
        return chess.BLACK
    if choice == "random":
        return rng.choice([chess.WHITE, chess.BLACK])
    raise ValueError(f"not a colour: {choice!r} (expected 'white', 'black' or 'random')")


def _check_level(level: int) -> int:
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 10:
        raise ValueError(f"not a level: {level!r} (expected 1 to 10)")
    return level


def _color_name(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


def _score_text(score: chess.engine.PovScore) -> str:
    """The score from White's point of view: ``+0.35`` in pawns or ``#3``/``#-3`` for a mate."""
    white = score.white()
    mate = white.mate()
    if mate is not None:
        return f"#{mate}"
    return f"{(white.score() or 0) / 100:+.2f}"


class NotebookGame(Closing):
    """A game against ferrochess, driven by clicks or typed moves; no user interface needed.

    ``fen`` is the start position (default the standard one); ``color`` the human's side
    (``"white"``, ``"black"`` or ``"random"``); ``level`` 1 to 10 (see :func:`ferrochess.levels`);
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
        if not think_time > 0:
            raise ValueError(f"not a think time: {think_time!r} (expected seconds above 0)")
        self.level = level
        self.book = book
        self.think_time = float(think_time)
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
        """The engine's playing level, 1 (Beginner) to 10 (Full strength)."""
        return self._level

    @level.setter
    def level(self, level: int) -> None:
        self._level = _check_level(level)

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
        """Whether the game has ended (a draw that may be claimed counts as ended)."""
        return self.board.outcome(claim_draw=True) is not None

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
        :meth:`engine_text` then describes. Raises ValueError when the game is over."""
        if self.is_over():
            raise ValueError(f"the game is over ({self.status_text()})")
        result = self.engine.play(
            self.board,
            chess.engine.Limit(time=self.think_time),
            level=self.level,
            use_book=self.book,
        )
        if result.move is None:  # pragma: no cover - ruled out by the game-over check above
            raise ValueError("the engine found no legal move")
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
        human = _color(color, self._rng)
        start = self._start_fen if fen is None else fen
        try:
            board = chess.Board(start)
        except ValueError as error:
            raise ValueError(f"not a FEN: {start!r} ({error})") from None
        if not board.is_valid():
            raise ValueError(f"not a legal position: {start!r} ({board.status()!r})")
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
        (followed by who won)."""
        outcome = self.board.outcome(claim_draw=True)
        if outcome is not None:
            reason = TERMINATIONS.get(outcome.termination, outcome.termination.name.capitalize())
            text = f"{reason}: {outcome.result()}"
            if outcome.winner is not None:
                who = "you win" if outcome.winner == self.human else "ferrochess wins"
                text += f" ({_color_name(outcome.winner)} wins, {who})"
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
        elif source == "tablebase":
            parts.append(f"from the tablebases (WDL {info.get('wdl')}, DTZ {info.get('dtz')})")
        else:
            score = info.get("score")
            if score is not None:
                parts.append(f"score {_score_text(score)}")
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


def _ipywidgets() -> Any:
    """The ipywidgets module, or ImportError saying how to install it."""
    try:
        return importlib.import_module("ipywidgets")
    except ImportError as error:
        raise ImportError(
            "the notebook board needs ipywidgets: pip install ipywidgets "
            "(NotebookGame works without it)"
        ) from error


class BoardWidget:
    """An ipywidgets front for a :class:`NotebookGame` (a new one with default settings when
    none is given); show :attr:`widget` (or this object, as a cell's last expression).

    The board is an 8x8 grid of buttons (click a piece, then where it goes) next to the
    python-chess SVG, both redrawn after every change. Below: a box for typed moves with a Play
    button, Takeback, New game and Flip buttons, menus for the level, the colour of the next new
    game and the promotion piece, a book checkbox, the status and the engine's last move. Engine
    replies run in the kernel while the handler waits (at most ``game.think_time`` seconds).
    Errors from a typed move are shown under the board, not raised. ``size`` is the SVG's width
    in pixels, ``square_px`` a grid button's. Raises ImportError without ipywidgets.
    """

    def __init__(
        self, game: NotebookGame | None = None, *, size: int = 360, square_px: int = 44
    ) -> None:
        widgets = _ipywidgets()
        self.game = game if game is not None else NotebookGame()
        self.size = size
        square = f"{square_px}px"
        self._board_px = 8 * square_px
        self._buttons: dict[chess.Square, Any] = {}
        for index in chess.SQUARES:
            button = widgets.Button(
                description=EMPTY_SQUARE,
                tooltip=chess.square_name(index),
                layout=widgets.Layout(width=square, height=square, padding="0", margin="0"),
            )
            button.style.font_size = f"{square_px * 2 // 3}px"
            button.style.text_color = "black"
            button.on_click(self._square_handler(index))
            self._buttons[index] = button
        self.grid = widgets.GridBox(
            layout=widgets.Layout(
                grid_template_columns=f"repeat(8, {square})",
                grid_gap="0px",
                width="max-content",
                border="1px solid #555",
            )
        )
        self.board_html = widgets.HTML()
        self.status_html = widgets.HTML()
        self.engine_html = widgets.HTML()
        self.moves_html = widgets.HTML()
        self.message_html = widgets.HTML()

        self.move_text = widgets.Text(
            placeholder="type a move: e4, Nf3, e7e8q", layout=widgets.Layout(width="200px")
        )
        self.play_button = widgets.Button(description="Play", button_style="primary")
        self.takeback_button = widgets.Button(description="Takeback", icon="undo")
        self.new_game_button = widgets.Button(description="New game", icon="refresh")
        self.flip_button = widgets.Button(description="Flip", icon="retweet")
        self.level_dropdown = widgets.Dropdown(
            options=[(f"{level.number} {level.name} (~{level.elo})", level.number)
                     for level in levels()],
            value=self.game.level,
            description="Level",
        )
        self.color_dropdown = widgets.Dropdown(
            options=[("White", "white"), ("Black", "black"), ("Random", "random")],
            value="white" if self.game.human == chess.WHITE else "black",
            description="Play as",
        )
        self.promotion_dropdown = widgets.Dropdown(
            options=[(chess.piece_name(piece).capitalize(), piece) for piece in PROMOTION_PIECES],
            value=self.game.promotion,
            description="Promote to",
        )
        self.book_checkbox = widgets.Checkbox(value=self.game.book, description="Opening book")

        self.play_button.on_click(lambda _button: self.submit_move())
        self.takeback_button.on_click(lambda _button: self._guarded(self.game.takeback))
        self.new_game_button.on_click(lambda _button: self._guarded(self._new_game))
        self.flip_button.on_click(lambda _button: self._guarded(self.game.flip))
        self.level_dropdown.observe(self._set_level, names="value")
        self.promotion_dropdown.observe(self._set_promotion, names="value")
        self.book_checkbox.observe(self._set_book, names="value")

        left = widgets.VBox([self.grid, self.status_html, self.message_html])
        right = widgets.VBox([self.board_html])
        typed = widgets.HBox([self.move_text, self.play_button])
        buttons = widgets.HBox([self.takeback_button, self.new_game_button, self.flip_button])
        settings = widgets.HBox([self.level_dropdown, self.color_dropdown])
        options = widgets.HBox([self.promotion_dropdown, self.book_checkbox])
        self.widget = widgets.VBox(
            [
                widgets.HBox([left, right]),
                typed,
                buttons,
                settings,
                options,
                self.engine_html,
                self.moves_html,
            ]
        )
        self.game.on_change = self.refresh
        self.refresh()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def square_button(self, square: SquareLike) -> Any:
        """The grid button of ``square`` (a name like ``"e2"`` or a square number)."""
        return self._buttons[_square(square)]

    def submit_move(self, text: str | None = None) -> chess.Move | None:
        """Play ``text`` (default: the typed-move box) as the human's move; on success clear the
        box and return the move, else show the error under the board and return None."""
        typed = self.move_text.value if text is None else text
        try:
            move = self.game.push_san_or_uci(typed)
        except ValueError as error:
            self._show_error(str(error))
            return None
        self.move_text.value = ""
        return move

    def refresh(self) -> None:
        """Redraw the grid, the SVG and the texts from the game."""
        game = self.game
        board = game.board
        last = board.peek() if board.move_stack else None
        destinations = game.legal_destinations()
        checked = board.king(board.turn) if board.is_check() else None
        for index, button in self._buttons.items():
            piece = board.piece_at(index)
            button.description = GLYPHS[piece.symbol()] if piece is not None else EMPTY_SQUARE
            light = (chess.square_file(index) + chess.square_rank(index)) % 2 == 1
            if index == game.selected:
                color = LIGHT_SELECTED if light else DARK_SELECTED
            elif index in destinations:
                color = LIGHT_DESTINATION if light else DARK_DESTINATION
            elif index == checked:
                color = CHECK_SQUARE
            elif last is not None and index in (last.from_square, last.to_square):
                color = LIGHT_LAST_MOVE if light else DARK_LAST_MOVE
            else:
                color = LIGHT_SQUARE if light else DARK_SQUARE
            button.style.button_color = color
        self.grid.children = [self._buttons[index] for index in self._grid_order()]
        self.board_html.value = game.svg(size=self.size)
        self.status_html.value = f"<b>{_escape(game.status_text())}</b>"
        self.engine_html.value = _escape(game.engine_text())
        moves = game.moves_text()
        self.moves_html.value = f"<code>{_escape(moves)}</code>" if moves else ""
        self.message_html.value = ""

    # -- handlers ------------------------------------------------------------------------------

    def _grid_order(self) -> list[chess.Square]:
        """Squares in reading order (top-left first) as seen from the game's orientation."""
        if self.game.orientation == chess.WHITE:
            return [chess.square(f, r) for r in range(7, -1, -1) for f in range(8)]
        return [chess.square(f, r) for r in range(8) for f in range(7, -1, -1)]

    def _square_handler(self, square: chess.Square) -> Callable[[Any], None]:
        def handler(_button: Any) -> None:
            self._guarded(lambda: self.game.click(square))

        return handler

    def _new_game(self) -> None:
        self.game.new_game(self.color_dropdown.value)

    def _set_level(self, change: dict[str, Any]) -> None:
        self.game.level = int(change["new"])

    def _set_promotion(self, change: dict[str, Any]) -> None:
        self.game.promotion = int(change["new"])

    def _set_book(self, change: dict[str, Any]) -> None:
        self.game.book = bool(change["new"])

    def _guarded(self, action: Callable[[], object]) -> None:
        """Run ``action``; show a ValueError under the board instead of raising it."""
        try:
            action()
        except ValueError as error:
            self._show_error(str(error))

    def _show_error(self, message: str) -> None:
        # Wrapped to the board's width: a long message must not push the SVG board aside.
        self.message_html.value = (
            f'<div style="color: {ERROR_COLOR}; max-width: {self._board_px}px; '
            f'white-space: normal; overflow-wrap: anywhere">{_escape(message)}</div>'
        )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def play(
    color: ColorChoice = "white",
    level: int = DEFAULT_LEVEL,
    *,
    book: bool = True,
    fen: str | None = None,
    think_time: float = DEFAULT_THINK_SECONDS,
    engine: Engine | None = None,
    seed: int | None = None,
    size: int = 360,
) -> BoardWidget:
    """A board to play ferrochess on in a notebook: ``play()`` as a cell's last expression shows
    it. The arguments are those of :class:`NotebookGame` and :class:`BoardWidget`. Raises
    ImportError without ipywidgets."""
    _ipywidgets()
    game = NotebookGame(
        fen=fen,
        color=color,
        level=level,
        book=book,
        think_time=think_time,
        engine=engine,
        seed=seed,
    )
    return BoardWidget(game, size=size)
