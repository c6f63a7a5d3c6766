"""Guards the public API contract: select_move, perft, bench and Engine (play, analyse, multipv,
callback, stop, new_game, close, properties), and the shape of what they return."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator

import chess
import chess.engine
import ferrochess
import pytest
from ferrochess import Engine, EngineError, bench, perft, select_move
from ferrochess.engine import InfoCallback
from positions import (
    CHECKMATED_FEN,
    KIWIPETE_FEN,
    MATE_IN_ONE_FEN,
    MATED_IN_ONE_FEN,
    MIDDLEGAME_FEN,
    STALEMATE_FEN,
    START_FEN,
    assert_legal,
    assert_legal_move,
    assert_pv_legal,
)

Limit = chess.engine.Limit
INFO_KEYS = {
    "score",
    "pv",
    "depth",
    "seldepth",
    "nodes",
    "nps",
    "time",
    "hashfull",
    "tbhits",
    "multipv",
    "source",
}


@pytest.fixture
def engine() -> Iterator[Engine]:
    """An engine without a book: these tests are about its search (tests/test_book.py covers
    book moves)."""
    with Engine(book=None) as engine:
        yield engine


def check_info(info: chess.engine.InfoDict, board: chess.Board) -> None:
    """Assert ``info`` is a complete InfoDict of python-chess types for a search of ``board``."""
    assert INFO_KEYS <= set(info), f"missing keys {INFO_KEYS - set(info)}"
    assert isinstance(info["score"], chess.engine.PovScore)
    assert info["score"].turn == board.turn
    assert_pv_legal(board, info["pv"])
    for key in ("depth", "seldepth", "nodes", "nps", "hashfull", "tbhits", "multipv"):
        value = info[key]
        assert isinstance(value, int) and not isinstance(value, bool), key
    assert isinstance(info["time"], float)
    assert info["depth"] >= 1
    assert info["seldepth"] >= info["depth"]
    assert info["nodes"] >= 1
    assert info["time"] > 0.0
    # nps is counted over whole microseconds (the float time may round either side of one).
    micros = int(info["time"] * 1_000_000)
    assert info["nps"] in {
        info["nodes"] * 1_000_000 // max(m, 1) for m in (micros - 1, micros, micros + 1)
    }
    assert 0 <= info["hashfull"] <= 1000
    assert info["tbhits"] <= info["nodes"]  # at most one probe per node
    assert info["source"] == "search"  # type: ignore[typeddict-item]


# --- module surface -------------------------------------------------------------------------


def test_all_names_exist() -> None:
    for name in ferrochess.__all__:
        assert hasattr(ferrochess, name), name


def test_version_matches_package_metadata() -> None:
    assert ferrochess.__version__ == importlib.metadata.version("ferrochess")


def test_constants() -> None:
    assert ferrochess.MAX_DEPTH == 64
    assert ferrochess.MAX_HASH_MB == 16384
    assert 1 <= ferrochess.BENCH_DEPTH <= ferrochess.MAX_DEPTH
    assert 1 <= ferrochess.DEFAULT_HASH_MB <= ferrochess.MAX_HASH_MB
    assert 1 <= ferrochess.DEFAULT_THREADS <= ferrochess.MAX_THREADS
    assert ferrochess.DEFAULT_LEVEL in {level.number for level in ferrochess.levels()}


def test_the_bounds_the_core_exports_are_the_ones_it_enforces() -> None:
    with Engine(hash_mb=1) as engine:
        for multipv in (0, ferrochess.MAX_MULTIPV + 1):
            with pytest.raises(ferrochess.InvalidLimitError, match=str(multipv)):
                engine.analyse(START_FEN, Limit(depth=1), multipv=multipv)
        infos = engine.analyse(START_FEN, Limit(depth=1), multipv=ferrochess.MAX_MULTIPV)
        assert len(infos) == 20  # every legal move, fewer than the most lines
    for threads in (0, ferrochess.MAX_THREADS + 1):
        with pytest.raises(ferrochess.InvalidLimitError, match="threads"):
            Engine(hash_mb=1, threads=threads)
    with pytest.raises(ferrochess.InvalidLimitError, match="hash_mb"):
        Engine(hash_mb=ferrochess.MAX_HASH_MB + 1)
    with Engine() as engine:
        assert (engine.hash_mb, engine.threads) == (
            ferrochess.DEFAULT_HASH_MB,
            ferrochess.DEFAULT_THREADS,
        )


# --- select_move ----------------------------------------------------------------------------


@pytest.mark.parametrize("fen", [START_FEN, KIWIPETE_FEN, MIDDLEGAME_FEN])
def test_select_move_returns_legal_uci(fen: str) -> None:
    board = chess.Board(fen)
    assert_legal(board, select_move(fen, 3))
    assert_legal(board, select_move(board, 3))


def test_select_move_accepts_four_and_five_field_fens() -> None:
    fields = START_FEN.split()
    board = chess.Board()
    assert_legal(board, select_move(" ".join(fields[:4]), 1))
    assert_legal(board, select_move(" ".join(fields[:5]), 1))


def test_select_move_is_deterministic() -> None:
    assert select_move(MIDDLEGAME_FEN, 4) == select_move(MIDDLEGAME_FEN, 4)


def test_max_depth_is_accepted() -> None:
    # A checkmated position has nothing to search, so MAX_DEPTH answers at once.
    assert select_move(CHECKMATED_FEN, ferrochess.MAX_DEPTH) is None
    assert perft(CHECKMATED_FEN, ferrochess.MAX_DEPTH) == 0


@pytest.mark.parametrize("fen", [CHECKMATED_FEN, STALEMATE_FEN])
def test_select_move_none_without_legal_moves(fen: str) -> None:
    assert select_move(fen, 3) is None
    assert select_move(chess.Board(fen), 1) is None


@pytest.mark.parametrize("depth", [2, 3, 5])
def test_select_move_finds_mate_in_one(depth: int) -> None:
    assert select_move(MATE_IN_ONE_FEN, depth) == "a1a8"


# --- perft and bench ------------------------------------------------------------------------


@pytest.mark.parametrize(("depth", "nodes"), [(0, 1), (1, 20), (2, 400), (3, 8902), (4, 197281)])
def test_perft_start_position(depth: int, nodes: int) -> None:
    assert perft(START_FEN, depth) == nodes


@pytest.mark.parametrize(("depth", "nodes"), [(1, 48), (2, 2039), (3, 97862)])
def test_perft_kiwipete(depth: int, nodes: int) -> None:
    assert perft(KIWIPETE_FEN, depth) == nodes


def test_perft_board_counts_from_current_position() -> None:
    board = chess.Board()
    board.push_uci("e2e4")
    assert perft(board, 2) == perft(board.fen(), 2) == 600
    assert perft(CHECKMATED_FEN, 3) == 0


def test_bench_shape_and_determinism() -> None:
    first = bench(2)
    assert set(first) >= {"positions", "depth", "nodes", "time", "nps"}
    assert first["depth"] == 2
    assert first["positions"] >= 1
    assert first["nodes"] >= first["positions"]
    assert first["time"] > 0.0
    assert first["nps"] == pytest.approx(first["nodes"] / first["time"], rel=0.01)
    assert bench(2)["nodes"] == first["nodes"], "bench node count is the search's signature"


def test_bench_default_depth() -> None:
    assert bench()["depth"] == ferrochess.BENCH_DEPTH


# --- Engine construction and properties -----------------------------------------------------


def test_engine_defaults_and_properties() -> None:
    with Engine() as engine:
        assert engine.hash_mb == 16
        assert engine.seed is None
    with Engine(hash_mb=4, seed=42) as engine:
        assert engine.hash_mb == 4
        assert engine.seed == 42
        with pytest.raises(AttributeError):
            engine.hash_mb = 8  # type: ignore[misc]


def test_engine_context_manager_closes() -> None:
    with Engine() as engine:
        assert not engine.closed
    assert engine.closed
    with pytest.raises(EngineError):
        engine.play(chess.Board(), Limit(depth=1))
    engine.stop()  # harmless after close
    engine.close()  # idempotent


def test_stop_when_idle_is_harmless(engine: Engine) -> None:
    engine.stop()
    assert_legal_move(chess.Board(), engine.play(chess.Board(), Limit(depth=2)).move)


# --- play -----------------------------------------------------------------------------------


def test_play_returns_play_result(engine: Engine) -> None:
    board = chess.Board(MIDDLEGAME_FEN)
    result = engine.play(board, Limit(depth=4))
    assert isinstance(result, chess.engine.PlayResult)
    assert isinstance(result.move, chess.Move)
    assert_legal_move(board, result.move)
    assert not result.draw_offered and not result.resigned
    check_info(result.info, board)
    assert result.info["depth"] == 4
    assert result.info["multipv"] == 1
    assert result.info["pv"][0] == result.move
    if result.ponder is not None:
        assert result.info["pv"][1] == result.ponder
        board.push(result.move)
        assert result.ponder in board.legal_moves


def test_play_accepts_fen_string(engine: Engine) -> None:
    result = engine.play(KIWIPETE_FEN, Limit(depth=3))
    assert_legal_move(chess.Board(KIWIPETE_FEN), result.move)
    check_info(result.info, chess.Board(KIWIPETE_FEN))


TIME_SLACK = 0.5
"""Seconds a timed search may overrun its limit in a test: it looks at the clock every 256 nodes
(well under a millisecond); the slack is for a loaded machine's scheduling."""


@pytest.mark.parametrize(
    ("limit", "binding"),
    [
        (Limit(depth=3), "depth"),
        (Limit(nodes=2000), "nodes"),
        (Limit(time=0.05), "time"),
        (Limit(white_clock=1.0, black_clock=1.0), "clock"),
        (Limit(white_clock=0.5, black_clock=0.5, white_inc=0.1, black_inc=0.1), "clock"),
        (Limit(white_clock=2.0, black_clock=2.0, remaining_moves=30), "clock"),
        (Limit(depth=64, nodes=3000), "nodes"),
        (Limit(depth=3, time=10.0, nodes=10**9), "depth"),
    ],
    ids=repr,
)
def test_play_honours_every_limit_kind(
    engine: Engine, limit: chess.engine.Limit, binding: str
) -> None:
    """The limit that binds ends the search where it says: the depth asked is the depth reached,
    a node limit is never passed (the search stops on that node), a time or a clock is kept."""
    board = chess.Board(MIDDLEGAME_FEN)
    result = engine.play(board, limit)
    assert_legal_move(board, result.move)
    info = result.info
    if binding == "depth":
        assert info["depth"] == limit.depth
    elif binding == "nodes":
        assert info["nodes"] == limit.nodes
        assert limit.depth is None or info["depth"] < limit.depth
    elif binding == "time":
        assert info["time"] <= limit.time + TIME_SLACK
        assert info["depth"] < ferrochess.MAX_DEPTH
    else:
        # The engine plans a share of its clock and never spends the clock (its hard limit is
        # half of it).
        assert info["time"] <= limit.white_clock / 2 + TIME_SLACK
        assert info["time"] < limit.white_clock
    if limit.nodes is not None:
        assert info["nodes"] <= limit.nodes


def test_mate_limit_stops_at_that_mate(engine: Engine) -> None:
    # Mate in 2 (Qxc2); with no other limit the search ends only because it found the mate, by
    # the depth a mate in 2 needs (3 plies).
    fen = "1r4k1/p4pp1/7p/8/qB1pP3/P2P4/2P2r2/KR6 b - - 4 37"
    info = engine.analyse(fen, Limit(mate=2))
    assert info["score"].relative == chess.engine.Mate(2)
    assert info["depth"] <= 3
    assert info["pv"][0] == chess.Move.from_uci("a4c2")


def test_play_mate_limit_finds_mate(engine: Engine) -> None:
    result = engine.play(MATE_IN_ONE_FEN, Limit(mate=1))
    assert result.move == chess.Move.from_uci("a1a8")


@pytest.mark.parametrize("fen", [CHECKMATED_FEN, STALEMATE_FEN])
def test_play_game_over_gives_no_move(engine: Engine, fen: str) -> None:
    result = engine.play(chess.Board(fen), Limit(depth=3))
    assert result.move is None
    assert result.ponder is None


def test_play_depth_limit_is_the_completed_depth(engine: Engine) -> None:
    for depth in (1, 2, 5):
        assert engine.play(START_FEN, Limit(depth=depth)).info["depth"] == depth


# --- analyse and scores ---------------------------------------------------------------------


def test_analyse_returns_infodict(engine: Engine) -> None:
    board = chess.Board(KIWIPETE_FEN)
    info = engine.analyse(board, Limit(depth=4))
    assert isinstance(info, dict)
    check_info(info, board)
    assert info["multipv"] == 1


def test_mate_in_one_scored_as_mate_1(engine: Engine) -> None:
    board = chess.Board(MATE_IN_ONE_FEN)
    info = engine.analyse(board, Limit(depth=4))
    assert info["score"].relative == chess.engine.Mate(1)
    assert info["score"].white() == chess.engine.Mate(1)
    assert info["pv"][0] == chess.Move.from_uci("a1a8")


def test_mated_in_one_scored_from_side_to_move(engine: Engine) -> None:
    board = chess.Board(MATED_IN_ONE_FEN)  # Black to move, mated next move
    info = engine.analyse(board, Limit(depth=4))
    assert info["score"].turn == chess.BLACK
    assert info["score"].relative == chess.engine.Mate(-1)
    assert info["score"].white() == chess.engine.Mate(1)
    assert info["pv"][:2] == [chess.Move.from_uci("a8b8"), chess.Move.from_uci("h1h8")]


def test_centipawn_score_for_quiet_position(engine: Engine) -> None:
    info = engine.analyse(chess.Board(), Limit(depth=4))
    score = info["score"].relative
    assert isinstance(score, chess.engine.Cp)
    assert abs(score.score()) < 200  # the start position is roughly level


def test_material_advantage_scored_for_the_right_side(engine: Engine) -> None:
    # White has an extra queen; Black is to move.
    board = chess.Board("4k3/8/8/8/8/8/8/3QK3 b - - 0 1")
    info = engine.analyse(board, Limit(depth=3))
    assert info["score"].white().score(mate_score=100000) > 300
    assert info["score"].relative.score(mate_score=100000) < -300


def test_analyse_multipv_three(engine: Engine) -> None:
    board = chess.Board(MIDDLEGAME_FEN)
    infos = engine.analyse(board, Limit(depth=4), multipv=3)
    assert isinstance(infos, list) and len(infos) == 3
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    first_moves = [info["pv"][0] for info in infos]
    assert len(set(first_moves)) == 3, f"first moves not distinct: {first_moves}"
    scores = [info["score"].relative.score(mate_score=100000) for info in infos]
    assert scores == sorted(scores, reverse=True), f"lines not sorted best first: {scores}"
    for info in infos:
        check_info(info, board)


def test_analyse_multipv_one_is_a_list(engine: Engine) -> None:
    infos = engine.analyse(chess.Board(), Limit(depth=2), multipv=1)
    assert isinstance(infos, list) and len(infos) == 1
    assert infos[0]["multipv"] == 1


def test_analyse_multipv_capped_by_legal_moves(engine: Engine) -> None:
    board = chess.Board(MATED_IN_ONE_FEN)  # a single legal move
    infos = engine.analyse(board, Limit(depth=2), multipv=5)
    assert [info["pv"][0] for info in infos] == [chess.Move.from_uci("a8b8")]


def test_analyse_multipv_best_line_matches_single_pv_move(engine: Engine) -> None:
    infos = engine.analyse(MATE_IN_ONE_FEN, Limit(depth=3), multipv=4)
    assert infos[0]["pv"][0] == chess.Move.from_uci("a1a8")
    assert infos[0]["score"].relative == chess.engine.Mate(1)


# --- callback, stop, new_game ---------------------------------------------------------------


def test_callback_receives_each_iteration(engine: Engine) -> None:
    board = chess.Board(MIDDLEGAME_FEN)
    seen: list[chess.engine.InfoDict] = []
    callback: InfoCallback = seen.append
    result = engine.play(board, Limit(depth=5), callback=callback)
    assert seen, "callback never called"
    depths = [info["depth"] for info in seen]
    assert depths == sorted(depths), f"iterations out of order: {depths}"
    assert depths[-1] == result.info["depth"] == 5
    for info in seen:
        check_info(info, board)


def test_callback_with_multipv_reports_every_line(engine: Engine) -> None:
    seen: list[chess.engine.InfoDict] = []
    engine.analyse(chess.Board(), Limit(depth=3), multipv=2, callback=seen.append)
    assert {info["multipv"] for info in seen} == {1, 2}


class CallbackStop(Exception):
    pass


def test_callback_exception_propagates_and_engine_survives(engine: Engine) -> None:
    def explode(info: chess.engine.InfoDict) -> None:
        raise CallbackStop(info["depth"])

    with pytest.raises(CallbackStop):
        engine.analyse(chess.Board(MIDDLEGAME_FEN), Limit(depth=30), callback=explode)
    assert_legal_move(chess.Board(), engine.play(chess.Board(), Limit(depth=2)).move)


def test_stop_from_callback_ends_search_with_legal_move(engine: Engine) -> None:
    board = chess.Board(MIDDLEGAME_FEN)
    depths: list[int] = []

    def stop_after_two(info: chess.engine.InfoDict) -> None:
        depths.append(info["depth"])
        if info["depth"] >= 2:
            engine.stop()

    result = engine.play(board, Limit(depth=60), callback=stop_after_two)
    assert_legal_move(board, result.move)
    assert 2 <= result.info["depth"] < 60
    # A stop only affects the search it interrupts.
    assert engine.play(board, Limit(depth=3)).info["depth"] == 3


def test_new_game_forgets_previous_searches() -> None:
    board = chess.Board(KIWIPETE_FEN)
    with Engine() as fresh:
        expected = fresh.play(board, Limit(depth=5))
    with Engine() as engine:
        engine.play(chess.Board(MIDDLEGAME_FEN), Limit(depth=5))
        engine.play(board, Limit(depth=4))
        engine.new_game()
        again = engine.play(board, Limit(depth=5))
    assert again.move == expected.move
    assert again.info["nodes"] == expected.info["nodes"], "new_game left state behind"


def test_same_seed_same_search() -> None:
    board = chess.Board(MIDDLEGAME_FEN)
    with Engine(seed=7) as first, Engine(seed=7) as second:
        a = first.play(board, Limit(depth=5))
        b = second.play(board, Limit(depth=5))
    assert a.move == b.move
    assert a.info["nodes"] == b.info["nodes"]


def test_done_when_start_position_depth_six_gives_a_legal_move() -> None:
    board = chess.Board()
    move = select_move(board, 6)
    assert move is not None and chess.Move.from_uci(move) in board.legal_moves


@pytest.mark.parametrize(
    "fen", ["7k/8/8/8/8/8/R7/1R5K w - - 0 1", "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"]
)
def test_mate_in_two_solved_at_depth_four(engine: Engine, fen: str) -> None:
    info = engine.analyse(chess.Board(fen), chess.engine.Limit(depth=4))
    assert info["score"].relative == chess.engine.Mate(2)


def test_escaping_mate_by_stalemating_oneself_scores_a_draw(engine: Engine) -> None:
    # Ra7+ forces bxa7, after which Black is stalemated; every other move gets mated.
    board = chess.Board("k7/1r6/KP6/1Q6/8/8/8/8 b - - 0 1")
    assert select_move(board, 5) == "b7a7"
    info = engine.analyse(board, chess.engine.Limit(depth=5))
    assert info["score"].relative == chess.engine.Cp(0)


@pytest.mark.parametrize("method", ["new_game", "analyse"])
def test_engine_called_from_its_own_callback_raises_instead_of_deadlocking(
    engine: Engine, method: str
) -> None:
    def callback(info: chess.engine.InfoDict) -> None:
        if method == "new_game":
            engine.new_game()
        else:
            engine.analyse(chess.Board(), chess.engine.Limit(depth=1))

    with pytest.raises(EngineError, match="own search callback"):
        engine.analyse(chess.Board(), chess.engine.Limit(depth=3), callback=callback)
    assert engine.play(chess.Board(), chess.engine.Limit(depth=2)).move is not None


def test_stop_from_the_callback_ends_the_search(engine: Engine) -> None:
    depths: list[int] = []

    def callback(info: chess.engine.InfoDict) -> None:
        depths.append(info["depth"])
        engine.stop()

    info = engine.analyse(chess.Board(), chess.engine.Limit(depth=30), callback=callback)
    assert depths == [1]
    assert info["depth"] == 1
