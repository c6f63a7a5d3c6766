"""Guards the choice of evaluation from Python: the compiled-in network plays by default and says
its name, the hand-crafted evaluation and another network file can be chosen, and a file that is
not a usable network, or a bad choice, is refused with an error that names it."""

from __future__ import annotations

from pathlib import Path

import chess
import chess.engine
import ferrochess
import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_NETWORK = REPO_ROOT / "src" / "eval" / "nnue" / "default.nnue"


def test_the_network_plays_by_default_and_the_classic_evaluation_on_request() -> None:
    with ferrochess.Engine(book=None, seed=1) as engine:
        assert engine.evaluation.startswith("nn-") and len(engine.evaluation) == 15
        move = engine.play(chess.Board(), chess.engine.Limit(depth=4)).move
        assert move in chess.Board().legal_moves
    with ferrochess.Engine(book=None, evaluation="classic") as classic:
        assert classic.evaluation == "classic"
        move = classic.play(chess.Board(), chess.engine.Limit(depth=4)).move
        assert move in chess.Board().legal_moves


def test_a_network_file_is_loaded_and_named_by_its_hash(tmp_path: Path) -> None:
    copy = tmp_path / "copy.nnue"
    copy.write_bytes(DEFAULT_NETWORK.read_bytes())
    with ferrochess.Engine(book=None) as default, ferrochess.Engine(
        book=None, eval_file=copy
    ) as loaded:
        assert loaded.evaluation == default.evaluation
        board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        limit = chess.engine.Limit(depth=5)
        assert loaded.analyse(board, limit)["score"] == default.analyse(board, limit)["score"]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (lambda data: data[: len(data) // 2], "truncated"),
        (lambda data: data + b"\0\0", "expected"),
        (lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]), "corrupt"),
        (lambda data: b"not a network at all, just some text long enough.", "FCNN"),
    ],
    ids=["truncated", "too long", "corrupt", "not a network"],
)
def test_a_file_that_is_not_a_usable_network_is_refused(
    tmp_path: Path, content, reason: str
) -> None:
    bad = tmp_path / "bad.nnue"
    bad.write_bytes(content(DEFAULT_NETWORK.read_bytes()))
    with pytest.raises(ferrochess.InvalidNetworkError, match=reason) as raised:
        ferrochess.Engine(eval_file=bad)
    assert str(bad) in str(raised.value)
    assert isinstance(raised.value, ValueError)


def test_bad_choices_are_refused_with_what_was_asked(tmp_path: Path) -> None:
    with pytest.raises(ferrochess.FileError, match="missing.nnue"):
        ferrochess.Engine(eval_file=tmp_path / "missing.nnue")
    with pytest.raises(ferrochess.InvalidLimitError, match="'sharp'"):
        ferrochess.Engine(evaluation="sharp")  # type: ignore[arg-type]
    with pytest.raises(ferrochess.InvalidLimitError, match="needs evaluation"):
        ferrochess.Engine(evaluation="classic", eval_file=DEFAULT_NETWORK)
