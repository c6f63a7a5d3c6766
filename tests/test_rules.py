"""Guards the one game judge (``ferrochess.rules``) and the single homes of its constants: every
way a game ends has one set of words, which the play API's status, the request reader's refusals
and the notebook's status line all use; a FEN is read, and a level checked, in one place for the
page and the notebook; the mate's worth in centipawns, the fifty-move limit and the end-of-game
table are each defined once in the package, and the level range comes from ``ferrochess.levels()``.
"""

from __future__ import annotations

import re
from pathlib import Path

import chess
import chess.engine
import pytest
from ferrochess import _core, levels, rules
from ferrochess.analysis import final_score, judgement, winning_chances
from ferrochess.exceptions import InvalidFenError
from ferrochess.interop import MATE_CP
from ferrochess.notebook_game import NotebookGame, _headline
from ferrochess.service.game import check_level
from ferrochess.service.reading import BadInput, read_game

PACKAGE = Path(rules.__file__).resolve().parent
JUDGED = ["rules.py", "interop.py", "analysis.py", "notebook.py", "service/game.py",
          "service/reading.py", "web/play.py", "web/__init__.py"]  # fmt: skip
"""The modules that judge a game or ask the judge: none writes the level range by hand."""
NUMBERS = [level.number for level in levels()]
TB_WIN_CP = 20_000
"""The top of the core's tablebase band (src/score.rs): the largest centipawns it returns."""

ENDED = [
    # fen, moves, termination, reason, result, winner
    (chess.STARTING_FEN, ["f2f3", "e7e5", "g2g4", "d8h4"], "checkmate", "checkmate", "0-1",
     "black"),
    ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", [], "stalemate", "stalemate", "1/2-1/2", None),
    ("8/8/4k3/8/8/3K4/8/8 w - - 0 1", [], "insufficient_material", "insufficient material",
     "1/2-1/2", None),
    (chess.STARTING_FEN, ["g1f3", "g8f6", "f3g1", "f6g8"] * 2, "threefold_repetition",
     "threefold repetition", "1/2-1/2", None),
    ("7k/8/8/8/8/8/R7/K7 w - - 99 80", ["a2a3"], "fifty_moves", "the fifty-move rule", "1/2-1/2",
     None),
]  # fmt: skip


def board_of(fen: str, moves: list[str]) -> chess.Board:
    board = chess.Board(fen)
    for uci in moves:
        board.push_uci(uci)
    return board


@pytest.mark.parametrize(("fen", "moves", "termination", "reason", "result", "winner"), ENDED)
def test_the_status_of_a_game_ended_on_the_board(
    fen: str, moves: list[str], termination: str, reason: str, result: str, winner: str | None
) -> None:
    status = rules.status(board_of(fen, moves))
    assert status == {"over": True, "result": result, "reason": reason, "winner": winner,
                      "termination": termination}  # fmt: skip


def test_a_game_going_on_has_no_reason() -> None:
    assert rules.status(chess.Board()) == {
        "over": False, "result": "*", "reason": None, "winner": None, "termination": None
    }  # fmt: skip


@pytest.mark.parametrize(
    ("end", "result", "reason", "winner"),
    [
        ({"by": "resign", "color": "white"}, "0-1", "White resigned", "black"),
        ({"by": "flag", "color": "black"}, "1-0", "Black's time ran out", "white"),
        ({"by": "agreement"}, "1/2-1/2", "agreement", None),
    ],
)
def test_the_status_of_a_game_ended_off_the_board(
    end: dict[str, str], result: str, reason: str, winner: str | None
) -> None:
    status = rules.status(chess.Board(), end)
    assert status == {"over": True, "result": result, "reason": reason, "winner": winner,
                      "termination": end["by"]}  # fmt: skip
    assert end["by"] in rules.OFF_BOARD


def test_a_flag_against_a_side_whose_opponent_cannot_mate_is_a_draw() -> None:
    bare_king = chess.Board("8/8/4k3/8/8/3K4/3P4/8 w - - 0 1")  # Black has only the king
    status = rules.status(bare_king, {"by": "flag", "color": "white"})
    assert status["result"] == "1/2-1/2" and status["winner"] is None
    assert status["reason"] == "White's time ran out, but the opponent cannot mate"


@pytest.mark.parametrize(("fen", "moves", "termination", "reason", "result", "winner"), ENDED)
def test_the_reader_and_the_notebook_word_an_end_as_the_status_does(
    fen: str, moves: list[str], termination: str, reason: str, result: str, winner: str | None
) -> None:
    """One table of words: the reader's refusal quotes the status's reason, the notebook's status
    line starts with the same reason as a headline."""
    with pytest.raises(BadInput, match=re.escape(f"after the game ended ({reason})")):
        read_game({"fen": fen, "moves": [*moves, "a1a2"]})
    game = NotebookGame(fen=board_of(fen, moves).fen(), level=NUMBERS[0], auto_reply=False)
    game.board = board_of(fen, moves)
    assert game.status_text().startswith(f"{_headline(reason)}: {result}")


def test_every_termination_has_a_headline_the_notebook_always_showed() -> None:
    shown = {name: _headline(reason) for name, reason in rules.TERMINATIONS.values()}
    assert shown == {
        "checkmate": "Checkmate",
        "stalemate": "Stalemate",
        "insufficient_material": "Insufficient material",
        "threefold_repetition": "Threefold repetition",
        "fifty_moves": "Fifty-move rule",
        "fivefold_repetition": "Fivefold repetition",
        "seventyfive_moves": "Seventy-five-move rule",
    }


@pytest.mark.parametrize(
    ("fen", "words"),
    [
        ("not a fen", "invalid FEN 'not a fen'"),
        ("8/8/8/8/8/8/8/8 w - - 0 1", "impossible position '8/8/8/8/8/8/8/8 w - - 0 1'"),
        ("k7/8/8/8/8/8/8/K7 w - - 0 200000", "move counters above"),
    ],
)
def test_one_fen_reader_for_the_page_and_the_notebook(fen: str, words: str) -> None:
    with pytest.raises(InvalidFenError, match=re.escape(words)):
        rules.position(fen)
    with pytest.raises(BadInput, match=re.escape(words)) as refused:
        read_game({"fen": fen})
    assert refused.value.field == "fen"
    with pytest.raises(ValueError, match=re.escape(words)):
        NotebookGame(fen=fen)


def test_the_level_range_is_the_levels() -> None:
    for number in NUMBERS:
        assert check_level(number) == number
    for outside in (min(NUMBERS) - 1, max(NUMBERS) + 1):
        with pytest.raises(BadInput, match=str(outside)):
            check_level(outside)
        with pytest.raises(ValueError, match=str(outside)):  # BadInput is a ValueError
            NotebookGame(level=outside)


def test_a_mate_outranks_every_score_and_is_certain() -> None:
    assert chess.engine.Mate(50).score(mate_score=MATE_CP) > TB_WIN_CP
    assert chess.engine.Mate(-50).score(mate_score=MATE_CP) < -TB_WIN_CP
    assert winning_chances({"mate": 1}) == 1.0 and winning_chances({"mate": -1}) == -1.0


def test_an_ended_game_is_scored_and_a_drop_judged_one_way() -> None:
    mate = rules.outcome(board_of(*ENDED[0][:2]))
    stalemate = rules.outcome(chess.Board(ENDED[1][0]))
    assert mate is not None and stalemate is not None
    assert final_score(mate) == {"mate": 0, "mated": "white"}
    assert final_score(stalemate) == {"cp": 0}
    assert [judgement(drop) for drop in (0.05, 0.1, 0.2, 0.3, 1.0)] == [
        None, "inaccuracy", "mistake", "blunder", "blunder"
    ]  # fmt: skip


def test_the_fifty_move_limit_is_the_cores_when_the_core_says_it() -> None:
    core = getattr(_core, "FIFTY_MOVE_PLIES", None)
    if core is None:
        pytest.skip("this build of the core does not export FIFTY_MOVE_PLIES")
    assert rules.FIFTY_MOVE_PLIES == core


@pytest.mark.parametrize(
    "definition",
    [r"^MATE_CP\s*=", r"^FIFTY_MOVE_PLIES\s*=", r"^TERMINATIONS\b.*=", r"^REPETITIONS\s*="],
)
def test_each_constant_has_one_home_in_the_package(definition: str) -> None:
    pattern = re.compile(definition, re.MULTILINE)
    homes = [path.relative_to(PACKAGE).as_posix() for path in sorted(PACKAGE.rglob("*.py"))
             if pattern.search(path.read_text(encoding="utf-8"))]  # fmt: skip
    assert len(homes) == 1, homes


def test_no_level_range_is_written_by_hand() -> None:
    """The levels' numbers come from ``levels()``: no ``1 <= level <= 10`` or "1 to 10"."""
    low, high = min(NUMBERS), max(NUMBERS)
    by_hand = re.compile(rf"\b{low}\s*(<=|to|\.\.)\s*(level\s*<=\s*)?{high}\b")
    found = []
    for name in JUDGED:
        lines = (PACKAGE / name).read_text(encoding="utf-8").splitlines()
        found += [f"{name}:{at}" for at, line in enumerate(lines, 1) if by_hand.search(line)]
    assert found == []
