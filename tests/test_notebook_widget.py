"""Guards the notebook board (``ferrochess.notebook``): the game controller and its ipywidgets
front, both driven from code as a player would drive them.

Clicks select and move pieces (promotion included), the engine replies after each human move,
takeback returns to the position before the human's move, a new game as Black lets the engine
open, flip turns the board, a mate ends the game with its result, and a bad typed move is
refused with a message quoting it while nothing changes. The widget tests press the grid's and
the controls' buttons through ``Button.click()``, the call a browser click ends in.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import chess
import chess.engine
import pytest
from ferrochess import Engine
from ferrochess.notebook import BoardWidget, NotebookGame, play

ipywidgets = pytest.importorskip("ipywidgets")

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
PROMOTION = "7k/P7/8/8/8/8/8/K7 w - - 0 1"
THINK = 0.5


@pytest.fixture
def engine() -> Iterator[Engine]:
    with Engine(seed=7, book=None) as engine:
        yield engine


def new_game(engine: Engine, **kwargs: object) -> NotebookGame:
    options: dict[str, object] = {"level": 1, "think_time": THINK, "engine": engine}
    options.update(kwargs)
    return NotebookGame(**options)  # type: ignore[arg-type]


# -- the controller ---------------------------------------------------------------------------


def test_clicks_play_a_move_and_the_engine_replies(engine: Engine) -> None:
    game = new_game(engine)
    assert game.click("e2") is None
    assert game.selected == chess.E2
    assert set(game.legal_destinations()) == {chess.E3, chess.E4}

    move = game.click("e4")

    assert move == chess.Move.from_uci("e2e4")
    assert game.board.move_stack[0] == move
    assert len(game.board.move_stack) == 2
    assert game.board.turn == chess.WHITE
    assert game.selected is None
    assert game.last_result is not None and game.last_result.move == game.board.peek()
    assert game.engine_text().startswith("ferrochess played 1... ")
    assert game.status_text() == "White to move (you)"


def test_click_selection_rules(engine: Engine) -> None:
    game = new_game(engine)
    game.click("e7")  # a black piece: not the human's
    assert game.selected is None
    game.click("a1")  # the human's rook cannot move
    assert game.selected is None
    game.click("g1")
    assert game.selected == chess.G1
    game.click("b1")  # another movable piece of the human's reselects
    assert game.selected == chess.B1
    game.click("b4")  # not a destination of the knight: deselects, plays nothing
    assert game.selected is None
    assert game.board.move_stack == []
    with pytest.raises(ValueError, match="'z9'"):
        game.click("z9")


def test_typed_moves_in_san_and_uci(engine: Engine) -> None:
    game = new_game(engine)
    assert game.push_san_or_uci("Nf3") == chess.Move.from_uci("g1f3")
    assert len(game.board.move_stack) == 2
    assert game.push_san_or_uci(" d2d4 ") == chess.Move.from_uci("d2d4")
    assert len(game.board.move_stack) == 4


@pytest.mark.parametrize("text", ["e5", "Ke2", "e2e5", "hello", ""])
def test_a_bad_typed_move_is_refused_and_changes_nothing(engine: Engine, text: str) -> None:
    game = new_game(engine)
    game.click("e2")
    before = game.board.fen()
    with pytest.raises(ValueError) as raised:
        game.push_san_or_uci(text)
    if text:
        assert repr(text) in str(raised.value)
    assert game.board.fen() == before
    assert game.board.move_stack == []
    assert game.last_result is None


def test_takeback_restores_the_position_before_the_human_move(engine: Engine) -> None:
    game = new_game(engine)
    game.push_san_or_uci("e4")
    before = game.board.copy()
    game.push_san_or_uci("d4")
    assert len(game.board.move_stack) == 4

    assert game.takeback() is True
    assert game.board == before
    assert game.board.move_stack == before.move_stack
    assert game.takeback() is True
    assert game.board == chess.Board()
    assert game.takeback() is False  # nothing of the human's left to undo


def test_takeback_without_engine_reply(engine: Engine) -> None:
    game = new_game(engine, auto_reply=False)
    game.push_san_or_uci("e4")
    assert len(game.board.move_stack) == 1
    assert game.click("e7") is None  # the engine's turn: clicks are ignored
    game.takeback()
    assert game.board == chess.Board()


def test_new_game_as_black_lets_the_engine_open(engine: Engine) -> None:
    game = new_game(engine)
    game.push_san_or_uci("e4")
    game.new_game("black")
    assert game.human == chess.BLACK
    assert len(game.board.move_stack) == 1
    assert game.board.turn == chess.BLACK
    assert game.orientation == chess.BLACK
    assert game.status_text() == "Black to move (you)"
    assert game.takeback() is False  # the engine's opening move is not the human's
    assert len(game.board.move_stack) == 1

    game.push_san_or_uci(game.board.san(next(iter(game.board.legal_moves))))
    assert len(game.board.move_stack) == 3
    assert game.takeback() is True
    assert len(game.board.move_stack) == 1


def test_random_colour_is_reproducible_with_a_seed(engine: Engine) -> None:
    colours = {new_game(engine, color="random", seed=seed).human for seed in range(8)}
    assert colours == {chess.WHITE, chess.BLACK}
    first = new_game(engine, color="random", seed=3).human
    assert new_game(engine, color="random", seed=3).human == first


def test_flip_changes_the_orientation(engine: Engine) -> None:
    game = new_game(engine)
    assert game.orientation == chess.WHITE
    game.flip()
    assert game.flipped
    assert game.orientation == chess.BLACK
    flipped = game.svg(size=200)
    game.flip()
    assert game.orientation == chess.WHITE
    assert game.svg(size=200) != flipped


def test_svg_highlights_the_selection_and_destinations(engine: Engine) -> None:
    game = new_game(engine)
    assert "#14551e" not in game.svg()
    game.click("g1")
    # The knight's square and its two destinations are filled; the destinations also marked.
    assert game.svg().count('fill="#14551e"') == 3


def test_click_promotion_uses_the_chosen_piece(engine: Engine) -> None:
    game = new_game(engine, fen=PROMOTION)
    game.click("a7")
    assert game.click("a8") == chess.Move.from_uci("a7a8q")
    assert game.board.move_stack[0].promotion == chess.QUEEN

    game.takeback()
    game.promotion = chess.KNIGHT
    game.click("a7")
    assert game.click("a8") == chess.Move.from_uci("a7a8n")
    with pytest.raises(ValueError, match="promotion"):
        game.promotion = chess.KING


def test_mate_ends_the_game_with_its_result(engine: Engine) -> None:
    game = new_game(engine, fen=MATE_IN_ONE)
    game.click("a1")
    assert game.click("a8") == chess.Move.from_uci("a1a8")
    assert game.is_over()
    assert len(game.board.move_stack) == 1  # no reply after the mate
    assert game.status_text().startswith("Checkmate: 1-0")
    assert "you win" in game.status_text()
    assert game.click("g1") is None
    with pytest.raises(ValueError, match="game is over"):
        game.push_san_or_uci("Kf1")
    with pytest.raises(ValueError, match="game is over"):
        game.engine_move()
    game.new_game()
    assert game.board.fen() == MATE_IN_ONE


def test_engine_move_reports_search_info(engine: Engine) -> None:
    game = new_game(engine, auto_reply=False, level=3)
    game.push_san_or_uci("e4")
    result = game.engine_move()
    assert isinstance(result, chess.engine.PlayResult)
    assert result.info.get("source") == "search"
    text = game.engine_text()
    assert "score" in text and "depth" in text and "(search)" in text


def test_book_moves_are_named_as_such() -> None:
    with Engine(seed=1) as engine:  # the compiled-in book
        game = NotebookGame(color="black", level=1, engine=engine, think_time=THINK)
        assert "from its opening book" in game.engine_text()
        game.book = False
        game.new_game("black")
        assert "(search)" in game.engine_text()


def test_bad_arguments_are_quoted() -> None:
    with pytest.raises(ValueError, match="'purple'"):
        NotebookGame(color="purple")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="11"):
        NotebookGame(level=11)
    with pytest.raises(ValueError, match="0"):
        NotebookGame(level=4).level = 0
    with pytest.raises(ValueError, match="think time"):
        NotebookGame(think_time=0)
    with pytest.raises(ValueError, match="'8/8/8/8/8/8/8/8 w - - 0 1'"):
        NotebookGame(fen="8/8/8/8/8/8/8/8 w - - 0 1")  # no kings
    with pytest.raises(ValueError, match="'not a fen'"):
        NotebookGame(fen="not a fen")


def test_the_game_closes_only_an_engine_it_created(engine: Engine) -> None:
    with new_game(engine) as game:
        game.push_san_or_uci("e4")
    assert not engine.closed
    own = NotebookGame(level=1, think_time=THINK, book=False)
    own.push_san_or_uci("e4")
    created = own.engine
    own.close()
    assert created.closed


def test_on_change_shows_the_human_move_before_the_reply(engine: Engine) -> None:
    seen: list[int] = []
    game = new_game(engine)
    game.on_change = lambda: seen.append(len(game.board.move_stack))
    game.push_san_or_uci("e4")
    assert seen == [1, 2]


def test_the_controller_needs_no_ipywidgets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import ipywidgets now fails
    game = NotebookGame(auto_reply=False)
    game.push_san_or_uci("e4")
    with pytest.raises(ImportError, match="pip install ipywidgets"):
        BoardWidget(game)
    with pytest.raises(ImportError, match="pip install ipywidgets"):
        play()


# -- the ipywidgets front ---------------------------------------------------------------------


def test_widget_clicks_play_a_move_and_show_the_reply(engine: Engine) -> None:
    board = BoardWidget(new_game(engine))
    assert isinstance(board.widget, ipywidgets.VBox)
    assert len(board.grid.children) == 64
    assert board.grid.children[0] is board.square_button("a8")
    assert board.square_button("e2").description == "\u2659"
    svg_before = board.board_html.value

    board.square_button("e2").click()
    assert board.game.selected == chess.E2
    highlighted = board.square_button("e4").style.button_color
    assert highlighted != board.square_button("e5").style.button_color  # both light squares
    board.square_button("e4").click()

    assert board.game.board.move_stack[0] == chess.Move.from_uci("e2e4")
    assert len(board.game.board.move_stack) == 2
    assert board.square_button("e4").description == "\u2659"
    # A vacated square gets a no-break space: the browser's button keeps old text for "".
    assert board.square_button("e2").description == "\u00a0"
    assert board.board_html.value != svg_before
    assert "ferrochess played 1..." in board.engine_html.value
    assert "White to move" in board.status_html.value
    assert board.moves_html.value.startswith("<code>1. e4 ")


def test_widget_typed_move_and_error(engine: Engine) -> None:
    board = BoardWidget(new_game(engine))
    board.move_text.value = "Nf3"
    board.play_button.click()
    assert board.game.board.move_stack[0] == chess.Move.from_uci("g1f3")
    assert board.move_text.value == ""
    fen = board.game.board.fen()

    board.move_text.value = "Qxf7"
    board.play_button.click()
    assert board.game.board.fen() == fen
    assert "&#x27;Qxf7&#x27;" in board.message_html.value or "'Qxf7'" in board.message_html.value
    assert board.move_text.value == "Qxf7"


def test_widget_takeback_new_game_and_flip(engine: Engine) -> None:
    board = BoardWidget(new_game(engine))
    board.submit_move("e4")
    board.takeback_button.click()
    assert board.game.board == chess.Board()

    board.color_dropdown.value = "black"
    board.new_game_button.click()
    assert board.game.human == chess.BLACK
    assert len(board.game.board.move_stack) == 1
    assert board.grid.children[0] is board.square_button("h1")  # Black at the bottom

    board.flip_button.click()
    assert board.game.orientation == chess.WHITE
    assert board.grid.children[0] is board.square_button("a8")


def test_widget_settings_reach_the_game(engine: Engine) -> None:
    board = BoardWidget(new_game(engine))
    level_numbers = [value for _label, value in board.level_dropdown.options]
    assert level_numbers == list(range(1, 11))
    board.level_dropdown.value = 6
    assert board.game.level == 6
    board.book_checkbox.value = False
    assert board.game.book is False
    board.promotion_dropdown.value = chess.ROOK
    assert board.game.promotion == chess.ROOK


def test_widget_promotion_and_mate(engine: Engine) -> None:
    board = BoardWidget(new_game(engine, fen=PROMOTION))
    board.promotion_dropdown.value = chess.BISHOP
    board.square_button("a7").click()
    board.square_button("a8").click()
    assert board.game.board.move_stack[0] == chess.Move.from_uci("a7a8b")

    board = BoardWidget(new_game(engine, fen=MATE_IN_ONE))
    board.square_button("a1").click()
    board.square_button("a8").click()
    assert "Checkmate: 1-0" in board.status_html.value


def test_play_builds_a_displayable_board(engine: Engine) -> None:
    board = play(color="black", level=1, think_time=THINK, engine=engine, size=240)
    assert isinstance(board, BoardWidget)
    assert len(board.game.board.move_stack) == 1
    assert 'width="240"' in board.board_html.value
    bundle = board._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
