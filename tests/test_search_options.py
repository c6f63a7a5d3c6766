"""Guards the search switches and the evaluation breakdown used to study the engine: plain minimax,
alpha-beta and the full engine agree on the value of a position but not on the work (minimax visits
the most nodes, ordering cuts more); quiescence off shows the horizon effect; the per-search
statistics are reported; the evaluation's terms add up to the evaluation."""

from __future__ import annotations

import chess
import chess.engine
import pytest
from ferrochess import Engine, SearchOptions, evaluate
from ferrochess.engine import EvaluationName

Limit = chess.engine.Limit
POSITION = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
MINIMAX = SearchOptions(
    alpha_beta=False, quiescence=False, move_ordering=False, transposition_table=False
)
ALPHA_BETA = SearchOptions(
    quiescence=False, move_ordering=False, transposition_table=False, pruning=False
)
ORDERED = SearchOptions(quiescence=False, transposition_table=False, pruning=False)
SELECTIVE = SearchOptions(quiescence=False, transposition_table=False)


def analyse(
    options: SearchOptions, fen: str, depth: int, evaluation: EvaluationName = "network"
) -> chess.engine.InfoDict:
    with Engine(book=None, search_options=options, evaluation=evaluation) as engine:
        assert engine.search_options == options
        return engine.analyse(fen, Limit(depth=depth))


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_pruning_changes_the_work_not_the_value(depth: int) -> None:
    minimax = analyse(MINIMAX, POSITION, depth)
    alpha_beta = analyse(ALPHA_BETA, POSITION, depth)
    ordered = analyse(ORDERED, POSITION, depth)
    assert minimax["score"] == alpha_beta["score"] == ordered["score"]
    if depth >= 2:
        assert minimax["nodes"] > alpha_beta["nodes"] > ordered["nodes"]
    assert minimax["stats"]["cutoffs"] == 0  # type: ignore[typeddict-item]
    assert alpha_beta["stats"]["quiescence_nodes"] == 0  # type: ignore[typeddict-item]


def test_the_selective_search_trades_exactness_for_fewer_nodes() -> None:
    ordered = analyse(ORDERED, POSITION, 5)
    selective = analyse(SELECTIVE, POSITION, 5)
    assert selective["nodes"] < ordered["nodes"]
    assert selective["pv"][0] in chess.Board(POSITION).legal_moves


def test_quiescence_off_shows_the_horizon_effect() -> None:
    # White's queen takes a defended pawn: at depth 1 without quiescence the hand-crafted
    # evaluation (material and placement) counts a pawn won; with quiescence the recapture is
    # seen. (The network judges the queen en prise on its own, so it shows no horizon here.)
    fen = "rnbqkbnr/ppp2ppp/4p3/3p4/3P4/3Q4/PPP1PPPP/RNB1KBNR w KQkq - 0 3"
    blind = analyse(SearchOptions(quiescence=False), fen, 1, "classic")
    seeing = analyse(SearchOptions(), fen, 1, "classic")
    assert blind["score"].relative.score() > seeing["score"].relative.score()  # type: ignore[operator]
    assert seeing["stats"]["quiescence_nodes"] > 0  # type: ignore[typeddict-item]


def test_full_engine_reports_its_statistics() -> None:
    info = analyse(SearchOptions(), POSITION, 5)
    stats = info["stats"]  # type: ignore[typeddict-item]
    assert set(stats) == {"quiescence_nodes", "cutoffs", "tt_hits", "evaluations"}
    assert 0 < stats["quiescence_nodes"] < info["nodes"]
    assert stats["cutoffs"] > 0 and stats["tt_hits"] > 0
    assert 0 < stats["evaluations"] <= info["nodes"]


TERMS = ("material", "placement", "pawn_structure", "passed_pawns", "mobility", "king_safety",
         "pieces")  # fmt: skip


@pytest.mark.parametrize(
    "fen",
    [
        chess.STARTING_FEN,
        POSITION,
        "4k3/8/8/8/8/8/8/3QK3 b - - 0 1",
        "8/5pk1/6p1/8/8/6P1/5PK1/8 w - - 0 1",
    ],
)
def test_evaluation_terms_add_up(fen: str) -> None:
    parts = evaluate(fen)
    # Each term is blended (and rounded) on its own, the total once: they agree within a
    # centipawn per term.
    terms = sum(parts[term]["blended"] for term in TERMS) + parts["tempo"]
    assert abs(parts["white"] - terms) <= len(TERMS)
    board = chess.Board(fen)
    assert parts["side_to_move"] == (parts["white"] if board.turn else -parts["white"])
    assert 0 <= parts["phase"] <= parts["max_phase"] == 24
    assert evaluate(board) == parts


def test_a_queen_is_worth_a_queen() -> None:
    parts = evaluate("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    assert (parts["material"]["middlegame"], parts["material"]["endgame"]) == (1025, 936)
    assert parts["phase"] == 4
