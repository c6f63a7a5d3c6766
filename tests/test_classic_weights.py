"""Guards the classical evaluation's weights from Python (:class:`ferrochess.ClassicWeights`) and
Texel tuning (:func:`ferrochess.texel_tune`): the default weights are exactly today's evaluation,
in :func:`ferrochess.evaluate` and in the Engine's search; JSON keeps weights exactly and names
the bad field of a malformed file; changed weights change the evaluation and the moves played,
and the same weights play the same; tuning lowers the error on self-play positions, reports every
epoch, and stops cleanly when cancelled from another thread or by Ctrl-C."""

from __future__ import annotations

import gzip
import itertools
import os
import signal
import threading
from pathlib import Path

import chess
import chess.engine
import ferrochess
import pytest
from ferrochess import (
    ClassicWeights,
    FileError,
    InvalidLimitError,
    InvalidPositionsError,
    InvalidWeightsError,
    Tapered,
    TuneProgress,
)
from ferrochess.weights import MOBILE_PIECES, PIECES, TERMS
from positions import KIWIPETE_FEN, MIDDLEGAME_FEN, START_FEN

FENS = [
    START_FEN,
    KIWIPETE_FEN,
    MIDDLEGAME_FEN,
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3",
    "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
]

# White takes either the knight on a5 (Rxa5) or the rook on h5 (Rxh5); Black can recapture
# neither. Which one is a matter of the weights.
KNIGHT_OR_ROOK_FEN = "4k3/8/8/n6r/8/8/8/R3K2R w - - 0 1"

WATCHDOG_SECONDS = 120.0  # a failure guard, never a performance assertion


def selfplay_sample(shared_data: Path, count: int = 20_000) -> list[tuple[str, float]]:
    """The first ``count`` positions of ``selfplay-a`` as (FEN, White's result)."""
    path = shared_data / "selfplay" / "selfplay-a.txt.gz"
    if not path.is_file():
        pytest.skip(f"no self-play positions: {path} does not exist")
    with gzip.open(path, "rt", encoding="utf-8") as file:
        lines = list(itertools.islice(file, count))
    return [(line.split("|")[0].strip(), float(line.split("|")[2])) for line in lines]


def synthetic_positions() -> list[tuple[str, float]]:
    """Positions where an extra piece wins and equal material draws, repeated."""
    base = [
        ("4k3/8/8/8/8/8/3N4/4K3 w - - 0 1", 0.8),
        ("4k3/3n4/8/8/8/8/8/4K3 w - - 0 1", 0.2),
        ("4k3/8/8/8/8/8/3R4/4K3 b - - 0 1", 0.95),
        ("4k3/3r4/8/8/8/8/8/4K3 b - - 0 1", 0.05),
        ("4k3/3p4/8/8/8/8/3P4/4K3 w - - 0 1", 0.5),
    ]
    return base * 40


def best_move(evaluation: str | ClassicWeights, fen: str, depth: int = 5) -> tuple[str, int]:
    """The move and node count of a fresh Engine's search of ``fen`` to ``depth``."""
    with ferrochess.Engine(evaluation=evaluation, book=None, seed=1) as engine:
        info = engine.analyse(chess.Board(fen), chess.engine.Limit(depth=depth))
    return info["pv"][0].uci(), info["nodes"]


# -- the default weights are today's evaluation ------------------------------------------------


def test_default_weights_hold_the_published_numbers() -> None:
    weights = ClassicWeights.default()
    assert weights == ClassicWeights()
    assert weights.name == "classic"
    assert weights.material["queen"] == Tapered(1025, 936)
    assert weights.material["pawn"] == (82, 94)
    # PeSTO's middlegame knight table, first line (rank 8), first entry: a8 = -167.
    assert weights.tables["knight"][chess.A8] == (-167, -58)
    assert weights.tables["king"][chess.B1].middlegame == 36
    assert weights.tempo == 18
    assert weights.doubled_pawn == (-26, 6)
    assert len(weights.passed_pawn) == 8
    assert list(weights.mobility) == list(MOBILE_PIECES)
    assert list(weights.material) == list(PIECES)


def test_default_weights_evaluate_as_the_engine_does() -> None:
    default = ClassicWeights.default()
    for fen in FENS:
        assert ferrochess.evaluate(fen, weights=default) == ferrochess.evaluate(fen), fen
    # Today's numbers, written down: the start position is the tempo bonus; an extra queen.
    assert ferrochess.evaluate(START_FEN)["side_to_move"] == 18
    queen = ferrochess.evaluate("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    assert (queen["material"]["middlegame"], queen["material"]["endgame"]) == (1025, 936)


def test_default_weights_search_as_the_classic_engine() -> None:
    for fen in (KIWIPETE_FEN, MIDDLEGAME_FEN):
        assert best_move(ClassicWeights(), fen) == best_move("classic", fen)
    with ferrochess.Engine(evaluation=ClassicWeights(), book=None) as engine:
        assert engine.evaluation == "classic"


def test_terms_are_the_engine_s() -> None:
    names = [name for name, _length, _group in ferrochess._core.CLASSIC_TERMS]
    assert list(TERMS) == names
    fields = set(vars(ClassicWeights()))
    assert set(TERMS) <= fields
    assert fields - set(TERMS) == {"material", "tables", "tempo"}


# -- JSON ---------------------------------------------------------------------------------------


def test_json_round_trip_keeps_the_weights(tmp_path: Path) -> None:
    weights = ClassicWeights()
    weights.material["knight"] = Tapered(300, 290)
    weights.tables["rook"][chess.D7] = Tapered(40, 25)
    weights.passed_pawn[6] = Tapered(70, 170)
    weights.mobility["queen"] = Tapered(2, 5)
    weights.tempo = 10
    text = weights.to_json()
    assert ClassicWeights.from_json(text) == weights
    assert ClassicWeights.from_json(text) != ClassicWeights()
    path = tmp_path / "weights.json"
    weights.save(path)
    loaded = ClassicWeights.load(path)
    assert loaded == weights
    assert loaded.name == weights.name != "classic"
    assert loaded.tables["rook"][chess.D7] == (40, 25)
    assert ClassicWeights.load(str(path)).to_json() == text


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda data: data.pop("tempo"), "missing field 'tempo'"),
        (lambda data: data.update(extra=1), "unknown field 'extra'"),
        (lambda data: data["tables"]["knight"].pop(), "tables['knight']: 63 squares, expected 64"),
        (lambda data: data["passed_pawn"].pop(), "passed_pawn: 7 values, expected 8"),
        (lambda data: data["material"].pop("queen"), "material: missing 'queen'"),
        (lambda data: data["mobility"].update(king=[1, 1]), "mobility: unknown piece 'king'"),
        (lambda data: data.update(doubled_pawn=[1, 2, 3]), "doubled_pawn: expected"),
        (lambda data: data.update(bishop_pair=[1.5, 2]), "bishop_pair middlegame: 1.5"),
        (lambda data: data.update(tempo="18"), "tempo: '18'"),
        (lambda data: data["tables"]["pawn"].__setitem__(28, [0, 99999]), "tables['pawn'][e4]"),
    ],
)
def test_malformed_json_names_the_field(change: object, named: str, tmp_path: Path) -> None:
    import json

    data = json.loads(ClassicWeights().to_json())
    change(data)  # type: ignore[operator]
    with pytest.raises(InvalidWeightsError, match=named.replace("[", r"\[").replace("(", r"\(")):
        ClassicWeights.from_json(json.dumps(data))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidWeightsError, match="bad.json"):
        ClassicWeights.load(path)


def test_not_json_and_missing_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidWeightsError, match="not JSON"):
        ClassicWeights.from_json("{material: ")
    with pytest.raises(InvalidWeightsError, match="an object was expected"):
        ClassicWeights.from_json("[1, 2]")
    with pytest.raises(FileError, match="missing.json"):
        ClassicWeights.load(tmp_path / "missing.json")
    assert issubclass(InvalidWeightsError, ValueError)


def test_malformed_weights_in_memory_are_refused_by_name() -> None:
    weights = ClassicWeights()
    weights.tables["bishop"] = weights.tables["bishop"][:60]
    with pytest.raises(InvalidWeightsError, match=r"tables\['bishop'\]: 60 squares"):
        ferrochess.evaluate(START_FEN, weights=weights)
    with pytest.raises(InvalidWeightsError, match=r"tables\['bishop'\]"):
        ferrochess.Engine(evaluation=weights)
    weights = ClassicWeights(knight_outpost=Tapered(20_000, 0))
    with pytest.raises(InvalidWeightsError, match="knight_outpost middlegame: 20000"):
        weights.to_json()
    assert "invalid" in repr(weights)


def test_numpy_numbers_are_whole_centipawns() -> None:
    np = pytest.importorskip("numpy")
    weights = ClassicWeights(bishop_pair=Tapered(np.int64(50), np.float32(80.0)))
    weights.tables["knight"][chess.E4] = Tapered(np.int32(40), np.int16(20))
    pair = "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1"
    share = ferrochess.evaluate(pair, weights=weights, terms=True)["terms"]["bishop_pair"]
    assert (share["middlegame"], share["endgame"]) == (50, 80)
    assert ClassicWeights.from_json(weights.to_json()).tables["knight"][chess.E4] == (40, 20)
    with pytest.raises(InvalidWeightsError, match="tempo: .*not a whole number"):
        ClassicWeights(tempo=np.float64(1.5)).to_json()


def test_repr_shows_each_field() -> None:
    text = repr(ClassicWeights())
    assert text.startswith("ClassicWeights(  # classic")
    assert "doubled_pawn=(-26, 6)," in text
    assert "material={'pawn': (82, 94)" in text
    assert "tempo=18," in text


# -- changed weights change the evaluation and the play ----------------------------------------


def test_evaluate_reflects_changed_weights() -> None:
    fen = "4k3/8/8/8/8/8/3N4/4K3 w - - 0 1"
    weights = ClassicWeights()
    weights.material["knight"] = Tapered(100, 100)
    weights.tables["knight"][chess.D2] = Tapered(7, 9)
    weights.tempo = 0
    parts = ferrochess.evaluate(fen, weights=weights)
    assert (parts["material"]["middlegame"], parts["material"]["endgame"]) == (100, 100)
    assert (parts["placement"]["middlegame"], parts["placement"]["endgame"]) == (7, 9)
    assert parts["tempo"] == 0
    assert parts["white"] < ferrochess.evaluate(fen)["white"] - 150
    # The same knight for Black reads the mirrored square (d7) and counts against White.
    black = ferrochess.evaluate("4k3/3n4/8/8/8/8/8/4K3 w - - 0 1", weights=weights)
    assert black["placement"]["middlegame"] == -7


def test_term_shares_add_up_to_their_groups() -> None:
    weights = ClassicWeights(bishop_pair=Tapered(100, 200))
    for fen in FENS:
        parts = ferrochess.evaluate(fen, weights=weights, terms=True)
        shares = parts["terms"]
        assert list(shares) == list(TERMS)
        for group, names in _groups().items():
            for phase in ("middlegame", "endgame"):
                total = sum(shares[name][phase] for name in names)
                assert total == parts[group][phase], (fen, group)  # type: ignore[literal-required]
    pair = "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1"
    share = ferrochess.evaluate(pair, weights=weights, terms=True)["terms"]["bishop_pair"]
    assert (share["middlegame"], share["endgame"], share["counts"]) == (100, 200, [1])
    assert "terms" not in ferrochess.evaluate(pair)


def test_passed_pawn_king_counts_are_distance_times_rank_less_3() -> None:
    # As the docs say: a pawn on d6 (6th rank: 3), stop square d7, own king e1 6 away, theirs 1.
    shares = ferrochess.evaluate("4k3/8/3P4/8/8/8/8/4K3 w - - 0 1", terms=True)["terms"]
    assert shares["passed_pawn_own_king"]["counts"] == [6 * 3]
    assert shares["passed_pawn_their_king"]["counts"] == [1 * 3]
    # On d4 (4th rank: 1), stop square d5: own king 4 away, theirs 3.
    shares = ferrochess.evaluate("4k3/8/8/8/3P4/8/8/4K3 w - - 0 1", terms=True)["terms"]
    assert shares["passed_pawn_own_king"]["counts"] == [4 * 1]
    assert shares["passed_pawn_their_king"]["counts"] == [3 * 1]


def _groups() -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for name, _length, group in ferrochess._core.CLASSIC_TERMS:
        groups.setdefault(group, []).append(name)
    return groups


def test_changed_weights_play_differently_and_the_same_weights_alike() -> None:
    default_move, _ = best_move("classic", KNIGHT_OR_ROOK_FEN)
    assert default_move == "h1h5", "a rook is worth more than a knight"
    knights = ClassicWeights()
    knights.material["knight"] = Tapered(2000, 2000)
    move, nodes = best_move(knights, KNIGHT_OR_ROOK_FEN)
    assert move == "a1a5"
    assert best_move(knights, KNIGHT_OR_ROOK_FEN) == (move, nodes)
    copy = ClassicWeights.from_json(knights.to_json())
    assert best_move(copy, KNIGHT_OR_ROOK_FEN) == (move, nodes)
    with ferrochess.Engine(evaluation=knights, book=None) as engine:
        assert engine.evaluation == knights.name
        assert engine.evaluation.startswith("classic-")


def test_weights_are_copied_into_the_engine() -> None:
    weights = ClassicWeights()
    with ferrochess.Engine(evaluation=weights, book=None) as engine:
        weights.material["rook"] = Tapered(0, 0)
        assert engine.evaluation == "classic"


# -- Texel tuning -------------------------------------------------------------------------------


def test_tuning_selfplay_positions_lowers_the_training_loss(shared_data: Path) -> None:
    positions = selfplay_sample(shared_data)
    seen: list[TuneProgress] = []
    result = ferrochess.texel_tune(positions, epochs=20, progress=seen.append)
    assert result.epochs_run == 20
    assert not result.cancelled
    assert result.loss_after < result.loss_before
    assert result.train_positions + result.validation_positions == len(positions)
    assert result.validation_positions > 0
    assert result.validation_before is not None and result.validation_after is not None
    assert 0.0 < result.k < 3.0
    assert [progress.epoch for progress in seen] == list(range(1, 21))
    assert all(progress.epochs == 20 for progress in seen)
    assert seen[-1].train_loss < result.loss_before
    # Only the positional terms moved.
    default = ClassicWeights()
    assert result.weights.material == default.material
    assert result.weights.tables == default.tables
    assert result.weights.tempo == default.tempo
    assert result.weights != default


def test_tuning_chosen_weights_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "positions.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as file:
        for index, (fen, result) in enumerate(synthetic_positions()):
            if index % 2:
                file.write(f"{fen} | 0 | {result}\n")
            else:
                file.write(f"{fen};{result}\n")
    start = ClassicWeights()
    start.material["knight"] = Tapered(0, 0)
    result = ferrochess.texel_tune(
        path, start, epochs=100, learning_rate=5.0, tune="knight material", k=1.0, progress=False
    )
    assert result.loss_after < result.loss_before
    # With K = 1 an expected score of 0.8 is some 240 centipawns.
    assert result.weights.material["knight"].endgame > 100
    for piece in ("pawn", "bishop", "rook", "queen"):
        assert result.weights.material[piece] == start.material[piece]
    assert result.weights.tables == start.tables
    assert result.weights.doubled_pawn == start.doubled_pawn


def test_bad_positions_and_names_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "positions.txt"
    path.write_text("4k3/8/8/8/8/8/8/4K3 w - - 0 1;0.5\n4k3/8/8/8/8/8/8/4K3 w - - 0 1\n")
    with pytest.raises(InvalidPositionsError, match="line 2: no result"):
        ferrochess.texel_tune(path, progress=False)
    with pytest.raises(InvalidPositionsError, match=r"positions\[1\]: result 2"):
        ferrochess.texel_tune([(START_FEN, "1-0"), (START_FEN, 2)], progress=False)
    with pytest.raises(ferrochess.InvalidFenError, match="not a fen"):
        ferrochess.texel_tune([("not a fen", 0.5)], progress=False)
    with pytest.raises(InvalidLimitError, match="epochs -1"):
        ferrochess.texel_tune(synthetic_positions(), epochs=-1, progress=False)
    with pytest.raises(InvalidLimitError, match="'knights'"):
        ferrochess.texel_tune(synthetic_positions(), tune=["knights"], progress=False)
    with pytest.raises(FileError, match="missing.txt"):
        ferrochess.texel_tune(tmp_path / "missing.txt", progress=False)


def test_cancel_from_another_thread_returns_the_weights_so_far() -> None:
    positions = synthetic_positions()
    started = threading.Event()
    cancel = threading.Event()
    outcome: list[ferrochess.TuneResult] = []

    def tune() -> None:
        outcome.append(
            ferrochess.texel_tune(
                positions,
                epochs=10_000_000,
                tune=["material"],
                progress=lambda progress: started.set(),
                cancel=cancel,
            )
        )

    worker = threading.Thread(target=tune)
    worker.start()
    assert started.wait(WATCHDOG_SECONDS), "tuning never reported an epoch"
    cancel.set()
    worker.join(WATCHDOG_SECONDS)
    assert not worker.is_alive(), "cancel did not stop the tuning"
    (result,) = outcome
    assert result.cancelled
    assert 1 <= result.epochs_run < 10_000_000
    assert result.weights.tables == ClassicWeights().tables


def test_ctrl_c_returns_the_weights_so_far() -> None:
    started = threading.Event()
    finished = threading.Event()
    watchdog = threading.Event()

    def send() -> None:
        if started.wait(WATCHDOG_SECONDS) and not finished.is_set():
            os.kill(os.getpid(), signal.SIGINT)
        if not finished.wait(WATCHDOG_SECONDS):
            watchdog.set()

    sender = threading.Thread(target=send)
    sender.start()
    try:
        result = ferrochess.texel_tune(
            synthetic_positions(),
            epochs=10_000_000,
            tune=["material"],
            progress=lambda progress: started.set(),
            cancel=watchdog,
        )
    finally:
        finished.set()
        sender.join()
    assert not watchdog.is_set(), "Ctrl-C did not stop the tuning"
    assert result.cancelled
    assert result.epochs_run < 10_000_000


def test_an_exception_in_the_progress_callable_is_raised() -> None:
    class Stop(Exception):
        pass

    def fail(progress: TuneProgress) -> None:
        if progress.epoch == 2:
            raise Stop

    with pytest.raises(Stop):
        ferrochess.texel_tune(synthetic_positions(), epochs=50, progress=fail)


def test_progress_bar_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    result = ferrochess.texel_tune(synthetic_positions(), epochs=5, tune="tempo", k=1.0)
    assert result.epochs_run == 5 and result.k == 1.0
    assert "texel_tune" in capsys.readouterr().err
