"""The forced mates of `tests/data/mates.epd` (issue 18): a mate in N moves is found by a search
of depth 2N - 1, whatever the selective search prunes or reduces.

Each line is a position from a real game with `dm` N (the shortest forced mate for the side to
move, 1..3) and `bm` (every first move that forces mate in N), both proven by an exhaustive search
in `ferrochess_tools.mate_suite`, which wrote the file. Guards (a) the file's shape, so a
regenerated suite stays large, varied and well formed, and (b) the guarantee: at depth 2N - 1,
`ferrochess.select_move` plays one of the `bm` moves and `Engine.analyse` scores the position
Mate(+N). Each failure of (b) is listed in one message (id, FEN, what came back)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine
import pytest
from ferrochess import Engine, select_move

SUITE = Path(__file__).resolve().parent / "data" / "mates.epd"
MIN_POSITIONS = 350
MIN_PER_DISTANCE = 100


@dataclass(frozen=True)
class Mate:
    """One line of the suite."""

    line: int
    board: chess.Board
    mate_in: int
    moves: frozenset[chess.Move]
    source: str
    opcodes: frozenset[str]

    @property
    def fen(self) -> str:
        return self.board.fen()

    def describe(self, got: object) -> str:
        return f"{self.source} (line {self.line}) dm {self.mate_in}: {self.fen}: got {got}"


def read_suite() -> list[Mate]:
    """The suite's positions; a line that does not parse fails the test that reads it."""
    mates = []
    for number, text in enumerate(SUITE.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip() or text.startswith("#"):
            continue
        board, operations = chess.Board.from_epd(text)
        mate_in = operations["dm"]
        assert isinstance(mate_in, int), f"line {number}: dm is not a number: {text}"
        moves = operations["bm"]
        assert isinstance(moves, list) and moves, f"line {number}: no bm: {text}"
        source = operations["id"]
        assert isinstance(source, str), f"line {number}: no id: {text}"
        mates.append(Mate(number, board, mate_in, frozenset(moves), source, frozenset(operations)))
    return mates


MATES = read_suite()


def test_the_suite_is_large_varied_and_well_formed() -> None:
    distances = Counter(mate.mate_in for mate in MATES)
    assert len(MATES) >= MIN_POSITIONS
    assert set(distances) == {1, 2, 3}, distances
    assert min(distances.values()) >= MIN_PER_DISTANCE, distances
    positions = Counter(mate.board.epd() for mate in MATES)
    assert [epd for epd, count in positions.items() if count > 1] == []
    assert len({mate.source for mate in MATES}) == len(MATES)
    assert {mate.board.turn for mate in MATES} == {chess.WHITE, chess.BLACK}
    for mate in MATES:
        assert mate.board.is_valid(), mate.describe(mate.board.status())
        assert all(move in mate.board.legal_moves for move in mate.moves), mate.describe("")
        assert mate.opcodes == {"bm", "dm", "hmvc", "fmvn", "id"}, mate.describe(mate.opcodes)
        assert mate.board.halfmove_clock <= 90, mate.describe("a 50-move rule near")


def test_mates_in_one_list_every_mating_move() -> None:
    """For dm 1 the set is easy to recompute: exactly the moves that checkmate; and no move of a
    longer mate mates at once."""
    for mate in MATES:
        mating = set()
        for move in mate.board.legal_moves:
            mate.board.push(move)
            if mate.board.is_checkmate():
                mating.add(move)
            mate.board.pop()
        expected = mate.moves if mate.mate_in == 1 else set()
        assert mating == expected, mate.describe(sorted(m.uci() for m in mating))


@pytest.mark.parametrize("mate_in", [1, 2, 3])
def test_a_mate_in_n_is_found_at_depth_2n_minus_1(mate_in: int) -> None:
    depth = 2 * mate_in - 1
    failures = []
    with Engine(book=None, syzygy_path="") as engine:
        for mate in (mate for mate in MATES if mate.mate_in == mate_in):
            move = select_move(mate.fen, depth, book=None, syzygy_path="")
            if move is None or chess.Move.from_uci(move) not in mate.moves:
                failures.append(mate.describe(f"select_move {move}"))
            engine.new_game()
            info = engine.analyse(mate.board, chess.engine.Limit(depth=depth))
            score = info.get("score")
            if score is None or score.relative != chess.engine.Mate(mate_in):
                failures.append(mate.describe(f"analyse score {score}"))
    assert not failures, f"{len(failures)} failures at depth {depth}:\n" + "\n".join(failures)
