"""Guards the python-chess interop: a Board's root FEN and move history reach the core (so
repetitions count), results are python-chess types, no call mutates the caller's Board, and
castling round-trips as e1g1 through chess.Move.from_uci."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import chess
import chess.engine
import pytest
from ferrochess import Engine, InvalidLimitError, perft, select_move
from ferrochess.interop import (
    TABLEBASE_VERDICTS,
    info_dicts,
    limit_to_kwargs,
    pov_score,
    tablebase_pov,
    to_history,
    turn_of,
)
from positions import (
    CASTLING_MATE_FEN,
    KIWIPETE_FEN,
    MATE_IN_ONE_FEN,
    REPETITION_DRAWING_MOVE,
    REPETITION_MOVES,
    REPETITION_ROOT_FEN,
    START_FEN,
    assert_legal,
    assert_legal_move,
    board_with_history,
)

Limit = chess.engine.Limit
KNIGHT_SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"] * 2


# --- to_history -----------------------------------------------------------------------------


def test_to_history_of_fresh_board() -> None:
    assert to_history(chess.Board()) == (START_FEN, [])


def test_to_history_of_fen_string() -> None:
    assert to_history(KIWIPETE_FEN) == (KIWIPETE_FEN, [])


def test_to_history_keeps_root_and_moves() -> None:
    board = board_with_history(KIWIPETE_FEN, ["e1g1", "e8c8", "d5e6"])
    assert to_history(board) == (KIWIPETE_FEN, ["e1g1", "e8c8", "d5e6"])


def test_to_history_rejects_other_types() -> None:
    with pytest.raises(TypeError, match="float"):
        to_history(1.5)  # type: ignore[arg-type]


def test_turn_of() -> None:
    assert turn_of(START_FEN, []) == chess.WHITE
    assert turn_of(START_FEN, ["e2e4"]) == chess.BLACK
    assert turn_of(MATE_IN_ONE_FEN.replace(" w ", " b "), ["g8h8"]) == chess.WHITE


# --- limit_to_kwargs ------------------------------------------------------------------------


def test_limit_to_kwargs_keeps_set_fields_only() -> None:
    limit = Limit(depth=3, white_clock=10.0, black_clock=9.5, white_inc=0.1, remaining_moves=20)
    assert limit_to_kwargs(limit) == {
        "depth": 3,
        "white_clock": 10.0,
        "black_clock": 9.5,
        "white_inc": 0.1,
        "remaining_moves": 20,
    }
    assert limit_to_kwargs(Limit(time=0.5, nodes=100, mate=2, black_inc=1.0)) == {
        "time": 0.5,
        "nodes": 100,
        "mate": 2,
        "black_inc": 1.0,
    }


def test_limit_to_kwargs_rejects_empty_limit() -> None:
    with pytest.raises(InvalidLimitError, match="Limit"):
        limit_to_kwargs(Limit())


# --- conversion of core results -------------------------------------------------------------


def test_pov_score_conversion() -> None:
    line: Any = {"multipv": 1, "score_cp": -35, "score_mate": None, "pv": ["e2e4"]}
    assert pov_score(line, chess.BLACK) == chess.engine.PovScore(chess.engine.Cp(-35), chess.BLACK)
    line = {"multipv": 1, "score_cp": None, "score_mate": -2, "pv": ["e2e4"]}
    score = pov_score(line, chess.WHITE)
    assert score.relative == chess.engine.Mate(-2)
    assert score.black() == chess.engine.Mate(2)


SEARCH_FIELDS: dict[str, Any] = {
    "source": "search",
    "book_weight": None,
    "book_moves": [],
    "wdl": None,
    "dtz": None,
    "tablebase_error": None,
    "stats": {"quiescence_nodes": 0, "cutoffs": 0, "tt_hits": 0, "evaluations": 0},
}
"""The core's fields of a searched result that the tests below do not vary."""


def test_info_dicts_conversion() -> None:
    result: Any = {
        "move": "e1g1",
        "ponder": "e8c8",
        "depth": 3,
        "seldepth": 7,
        "nodes": 1234,
        "time": 0.25,
        "nps": 4936,
        "hashfull": 12,
        "tbhits": 0,
        "lines": [
            {
                "multipv": 1,
                "score_cp": 40,
                "score_mate": None,
                "tablebase": None,
                "pv": ["e1g1", "e8c8"],
            },
            {"multipv": 2, "score_cp": 10, "score_mate": None, "tablebase": None, "pv": ["d5e6"]},
        ],
        **SEARCH_FIELDS,
    }
    first, second = info_dicts(result, chess.WHITE)
    assert first["pv"] == [chess.Move.from_uci("e1g1"), chess.Move.from_uci("e8c8")]
    assert first["score"] == chess.engine.PovScore(chess.engine.Cp(40), chess.WHITE)
    assert (first["depth"], first["seldepth"], first["nodes"]) == (3, 7, 1234)
    assert first["source"] == "search"  # type: ignore[typeddict-item]
    assert second["multipv"] == 2
    assert "book_weight" not in first and "book_moves" not in first
    assert "tablebase" not in first and "tablebase" not in second
    result["lines"] = []
    (only,) = info_dicts(result, chess.WHITE)
    assert "score" not in only and "pv" not in only and only["depth"] == 3


def test_info_dicts_of_a_book_move() -> None:
    result: Any = {
        "move": "e2e4",
        "ponder": None,
        **dict.fromkeys(["depth", "seldepth", "nodes", "nps", "hashfull", "tbhits"], 0),
        "time": 0.0001,
        "lines": [
            {"multipv": 1, "score_cp": None, "score_mate": None, "tablebase": None, "pv": ["e2e4"]}
        ],
        "source": "book",
        "book_weight": 916,
        "book_moves": [["e2e4", 916], ["d2d4", 844]],
        "wdl": None,
        "dtz": None,
        "tablebase_error": None,
        "stats": {"quiescence_nodes": 0, "cutoffs": 0, "tt_hits": 0, "evaluations": 0},
    }
    (info,) = info_dicts(result, chess.WHITE)
    assert info["source"] == "book"  # type: ignore[typeddict-item]
    assert info["book_weight"] == 916  # type: ignore[typeddict-item]
    assert info["book_moves"] == [  # type: ignore[typeddict-item]
        (chess.Move.from_uci("e2e4"), 916),
        (chess.Move.from_uci("d2d4"), 844),
    ]
    assert info["pv"] == [chess.Move.from_uci("e2e4")]
    assert "score" not in info and "wdl" not in info and "tablebase" not in info


def test_info_dicts_carry_the_tablebase_verdict_of_each_line() -> None:
    """The verdict comes from the line's own field, whatever its score says: a score deep in the
    band with no verdict stays a plain Cp, and a verdict rides along with any score."""
    result: Any = {
        "move": "d2d3",
        "ponder": None,
        **dict.fromkeys(["depth", "seldepth", "nodes", "nps", "hashfull", "tbhits"], 1),
        "time": 0.01,
        "lines": [
            {
                "multipv": 1,
                "score_cp": 0,
                "score_mate": None,
                "tablebase": "cursed win",
                "pv": ["d2d3"],
            },
            {
                "multipv": 2,
                "score_cp": 19_990,
                "score_mate": None,
                "tablebase": None,
                "pv": ["d2d4"],
            },
        ],
        **SEARCH_FIELDS,
    }
    first, second = info_dicts(result, chess.BLACK)
    assert first["tablebase"] == "cursed win"  # type: ignore[typeddict-item]
    assert first["score"] == chess.engine.PovScore(chess.engine.Cp(0), chess.BLACK)
    assert "tablebase" not in second
    assert second["score"] == chess.engine.PovScore(chess.engine.Cp(19_990), chess.BLACK)


def test_a_tablebase_verdict_seen_from_either_side() -> None:
    assert TABLEBASE_VERDICTS == ("win", "cursed win", "draw", "blessed loss", "loss")
    for verdict in TABLEBASE_VERDICTS:
        assert tablebase_pov(verdict, chess.BLACK, chess.BLACK) == verdict
    flipped = [tablebase_pov(v, chess.WHITE, chess.BLACK) for v in TABLEBASE_VERDICTS]
    assert flipped == ["loss", "blessed loss", "draw", "cursed win", "win"]
    with pytest.raises(ValueError, match="'won'"):
        tablebase_pov("won", chess.WHITE, chess.WHITE)


# --- history reaches the core ---------------------------------------------------------------


def test_repeating_history_is_handled() -> None:
    board = board_with_history(START_FEN, KNIGHT_SHUFFLE)
    assert board.is_repetition(3)
    assert_legal(board, select_move(board, 3))
    with Engine() as engine:
        result = engine.play(board, Limit(depth=3))
        assert_legal_move(board, result.move)
        info = engine.analyse(board, Limit(depth=3))
        assert isinstance(info["score"], chess.engine.PovScore)


def test_repetition_in_history_is_seen_as_a_draw() -> None:
    board = board_with_history(REPETITION_ROOT_FEN, REPETITION_MOVES)
    drawing = chess.Move.from_uci(REPETITION_DRAWING_MOVE)
    copy_ = board.copy()
    copy_.push(drawing)
    assert copy_.is_repetition(3)  # the data: this move repeats the root position a third time
    with Engine() as engine:
        # Black is two rooks down; with the history the engine takes the threefold repetition.
        with_history = engine.analyse(board, Limit(depth=4))
        assert with_history["pv"][0] == drawing
        assert abs(with_history["score"].relative.score(mate_score=100000)) < 50
        engine.new_game()
        # From the bare FEN the repetition is invisible and the position is simply lost.
        without_history = engine.analyse(board.fen(), Limit(depth=4))
        assert without_history["score"].relative.score(mate_score=100000) < -300
    assert select_move(board, 4) == REPETITION_DRAWING_MOVE


# --- result types ---------------------------------------------------------------------------


def test_result_types_are_python_chess_types() -> None:
    board = chess.Board(KIWIPETE_FEN)
    assert isinstance(select_move(board, 2), str)
    assert type(perft(board, 1)) is int
    with Engine() as engine:
        result = engine.play(board, Limit(depth=3))
        assert isinstance(result, chess.engine.PlayResult)
        assert isinstance(result.move, chess.Move)
        assert result.ponder is None or isinstance(result.ponder, chess.Move)
        info = engine.analyse(board, Limit(depth=3))
        assert isinstance(info["score"], chess.engine.PovScore)
        assert isinstance(info["score"].relative, (chess.engine.Cp, chess.engine.Mate))
        assert all(isinstance(move, chess.Move) for move in info["pv"])
        infos = engine.analyse(board, Limit(depth=2), multipv=2)
        assert all(isinstance(i["score"], chess.engine.PovScore) for i in infos)


# --- no mutation ----------------------------------------------------------------------------


def snapshot(board: chess.Board) -> tuple[Any, ...]:
    return (board.fen(), list(board.move_stack), board.root().fen(), board.turn, copy.copy(board))


CALLS: dict[str, Callable[[chess.Board], object]] = {
    "select_move": lambda board: select_move(board, 3),
    "perft": lambda board: perft(board, 2),
    "play": lambda board: Engine().play(board, Limit(depth=3)),
    "play with callback": lambda board: Engine().play(
        board, Limit(depth=3), callback=lambda info: None
    ),
    "analyse": lambda board: Engine().analyse(board, Limit(depth=3)),
    "analyse multipv": lambda board: Engine().analyse(board, Limit(depth=3), multipv=3),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_board_is_not_mutated(call: str) -> None:
    board = board_with_history(START_FEN, ["e2e4", "c7c5", "g1f3", "d7d6", "f1b5", "c8d7"])
    before = snapshot(board)
    CALLS[call](board)
    after = snapshot(board)
    assert after[:4] == before[:4]
    assert after[4] == before[4]


# --- castling -------------------------------------------------------------------------------


def test_castling_returned_as_e1g1() -> None:
    board = chess.Board(CASTLING_MATE_FEN)
    uci = select_move(board, 3)
    assert uci == "e1g1"
    move = chess.Move.from_uci(uci)
    assert move in board.legal_moves
    assert board.is_castling(move)
    with Engine() as engine:
        result = engine.play(board, Limit(depth=3))
        assert result.move == move
        assert result.info["score"].relative == chess.engine.Mate(1)


def test_castling_in_history_is_accepted() -> None:
    # Italian game in which both sides castle short.
    moves = "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 e1g1 g8f6 d2d3 e8g8".split()
    assert board_with_history(START_FEN, moves[:6]).is_castling(chess.Move.from_uci(moves[6]))
    board = board_with_history(START_FEN, moves)
    assert_legal(board, select_move(board, 3))
