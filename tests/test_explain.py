"""Guards the review's sentence on why a move is bad (ferrochess.explain): each motif is read
from the refutation line and named with what it wins, and nothing is said when the line or the
evaluations do not bear a sentence out.

Each motif is checked on a real position: the move a player made in a game (lichess's open
database, The Week in Chess), and the refutation Stockfish 15.1 found there at depth 18 (as
``ferrochess_tools.blunder_set`` labelled it) or the game's own finish, typed in. The tests feed
those lines to ``explain`` directly, so they check the reading of a line, not a search; the last
tests run the engine and the review."""

from __future__ import annotations

import io
from typing import Any

import chess
import chess.engine
import chess.pgn
import pytest
from ferrochess import Engine, analyse_game
from ferrochess.explain import explain, explanation, settle, static_exchange, themes
from ferrochess.interop import white_score

LIMIT = chess.engine.Limit(depth=5)


def said(fen: str, san: str, score_after: dict[str, int], line: list[str], **kwargs: Any) -> Any:
    """``explanation`` of ``san`` at ``fen`` with ``line`` (UCI) as the refutation."""
    board = chess.Board(fen)
    move = board.parse_san(san)
    return explanation(
        board, move, score_after, [chess.Move.from_uci(uci) for uci in line], **kwargs
    )


def test_mate_names_the_count_and_the_first_move() -> None:
    # alanbrito4 - Meridyan, lichess.org/ENPo6ReH, 2025: 20.Re1?? Qg8+ 21.Ng3 Qxg3+ 22.Kh1 Qg2#.
    found = said(
        "r1q5/p1p2k1n/2p4r/4P2p/4Np2/BP3P1b/P1P5/R2Q1RK1 w - - 0 20", "Re1", {"mate": -3},
        ["c8g8", "e4g3", "g8g3", "g1h1", "g3g2"],
    )  # fmt: skip
    assert (found.text, found.motifs) == ("allows mate in 3: ...Qg8+", ("mate",))
    # The count is the evaluation's, whatever the line.
    assert explain(chess.Board(), chess.Move.from_uci("f2f3"), {"mate": -2}, []) == (
        "allows mate in 2"
    )


@pytest.mark.parametrize(
    ("fen", "san", "mate", "line", "text"),
    [
        # Latifah - Kariyawasam, Asian Junior Girls 2025, Waskaduwa: 25...Kf8?? 26.Bc5+ Re7 27.Qh8#.
        ("r3r1k1/1q3ppQ/p1R4p/1p2P3/1P1B4/3B4/P2b1PPP/4R1K1 b - - 7 25", "Kf8", 2,
         ["d4c5", "e8e7", "h7h8"], "allows a back-rank mate in 2: Bc5+"),
        # Yu Shi - Xie Jianjun, ch-CHN 2025, Xinghua: 25.Kg1?? Qh2+ 26.Kf1 Qh1#.
        ("4r1k1/1bp2p1p/p2b2p1/8/7q/2N1B3/PPP1QPP1/R2R3K w - - 1 25", "Kg1", -2,
         ["h4h2", "g1f1", "h2h1"], "allows a back-rank mate in 2: ...Qh2+"),
    ],
)  # fmt: skip
def test_a_back_rank_mate_is_named(
    fen: str, san: str, mate: int, line: list[str], text: str
) -> None:
    found = said(fen, san, {"mate": mate}, line)
    assert (found.text, found.motifs) == (text, ("mate", "backRankMate"))


def test_a_fork_names_what_it_attacks_and_what_it_wins() -> None:
    # shmevayaa - Waanteed, lichess.org/VoDetarH, 2025: 13.Qg5?? Nxc2+ 14.Ke2 Nxa1.
    found = said(
        "r3k1nr/ppp4p/6p1/q3pp1Q/3n4/3P3P/PPPN1PP1/R3KB1R w KQkq - 0 13", "Qg5", {"cp": -567},
        ["d4c2", "e1e2", "c2a1", "d2c4", "a5d5", "e2d1", "g8e7", "d1c1"],
        score_before={"cp": 20},
    )  # fmt: skip
    assert found.text == (
        "allows a fork: ...Nxc2+ attacks the king and the rook, and wins the rook on a1"
    )
    assert found.motifs == ("fork",)
    # The pawn on c2 hangs too, and the fork takes it on the way: the sentence names the point
    # of the line (the rook), not the first piece it takes.
    after = chess.Board("r3k1nr/ppp4p/6p1/q3pp1Q/3n4/3P3P/PPPN1PP1/R3KB1R w KQkq - 0 13")
    after.push_san("Qg5")
    assert static_exchange(after, chess.C2) == 1


def test_a_trapped_piece_is_named_where_it_stands() -> None:
    # mixtecovargas - xaam123, lichess.org/OPi7xbOn, 2025: 7...Nh5?? 8.g4 and the knight has no
    # square: d6 9.gxh5.
    found = said(
        "r1bqk2r/pp1pppbp/2n2np1/4P3/3P4/2N2N2/PP3PPP/R1BQKB1R b KQkq - 0 7", "Nh5",
        {"cp": 352}, ["g2g4", "d7d6", "g4h5", "d6e5", "h5h6", "g7f6", "d4e5", "d8d1", "c3d1"],
    )  # fmt: skip
    assert found.text == "allows g4, which traps the knight on h5 and wins it"
    assert found.motifs == ("trappedPiece",)


def test_a_discovered_attack_names_the_piece_whose_line_opens() -> None:
    # alanbrito4 - Meridyan, lichess.org/ENPo6ReH, 2025: 15...g4?? 16.Bxf4 Rg6 17.fxg4 hxg4
    # 18.Be5: the bishop leaves the f-file and the rook on f1 hits the knight on f6.
    found = said(
        "r1q2k2/p1pb4/2p2n1r/6pp/4Pp2/1PN2P1P/P1P3P1/R1BQ1RK1 b - - 0 15", "g4", {"cp": 544},
        ["c1f4", "h6g6", "f3g4", "h5g4", "f4e5", "c8e8", "f1f6", "g6f6", "e5f6", "g4h3"],
    )  # fmt: skip
    assert found.text == (
        "allows a discovered attack: Be5 opens the rook's line to the knight, "
        "and wins the knight on f6"
    )
    assert found.motifs == ("discoveredAttack",)


def test_a_hanging_piece_the_line_takes_first() -> None:
    # GASPADAREK - KakTebeTakoe, lichess.org/8qnGOgRl, 2025: 20...Rc7?? 21.Qxc7.
    found = said(
        "2rq1rk1/pQ2ppb1/7p/6p1/2bP4/2P2NB1/P4PPP/2R1R1K1 b - - 0 20", "Rc7", {"cp": 601},
        ["b7c7", "c4a2", "c7d8", "f8d8", "g3e5", "a2e6", "e5g7", "g5g4"],
    )  # fmt: skip
    assert (found.text, found.motifs) == ("leaves the rook on c7 hanging", ("hangingPiece",))


def test_a_capture_answered_by_a_recapture_is_a_trade() -> None:
    # shmevayaa - Waanteed, lichess.org/VoDetarH, 2025: 10...Bxf3 11.Qxf3 gives a bishop for a
    # knight: nothing is lost.
    assert said(
        "r3k1nr/ppp3pp/2n5/q3pp2/6b1/3P1N1P/PPPNQPP1/R3KB1R b KQkq - 0 10", "Bxf3", {"cp": -20},
        ["e2f3", "g7g6", "c2c3", "e8c8", "d2c4", "a5c5"], score_before={"cp": 40},
    ) is None  # fmt: skip


def test_material_the_evaluations_do_not_bear_out_is_not_named() -> None:
    # The fork above, with evaluations that say the rook does not matter (as after a sacrifice
    # for an attack): the line alone is not enough; say nothing.
    assert said(
        "r3k1nr/ppp4p/6p1/q3pp1Q/3n4/3P3P/PPPN1PP1/R3KB1R w KQkq - 0 13", "Qg5", {"cp": 0},
        ["d4c2", "e1e2", "c2a1", "d2c4"], score_before={"cp": 20},
    ) is None  # fmt: skip


def test_settle_ends_the_pending_exchange() -> None:
    # After 1.e4 d5 2.Bc4?? the bishop is taken and nothing is taken back.
    board = chess.Board("rnbqkbnr/ppp1pppp/8/3p4/2B1P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2")
    assert settle(board) == [chess.Move.from_uci("d5c4")]
    # A defended knight is not worth taking with a rook: standing pat is best.
    assert settle(chess.Board("3rk3/8/8/3N4/4P3/8/8/4K3 b - - 0 1")) == []
    assert static_exchange(chess.Board("3rk3/8/8/3N4/4P3/8/8/4K3 b - - 0 1"), chess.D5) == -2


def test_themes_of_a_puzzle_line() -> None:
    # The fork of VoDetarH from the solver's side: after 13.Qg5, Black to move.
    board = chess.Board("r3k1nr/ppp4p/6p1/q3pp1Q/3n4/3P3P/PPPN1PP1/R3KB1R w KQkq - 0 13")
    board.push_san("Qg5")
    line = [chess.Move.from_uci(uci) for uci in ("d4c2", "e1e2", "c2a1")]
    assert themes(board, line) == ["fork", "crushing"]
    # Latifah - Kariyawasam: the mate from White's side.
    board = chess.Board("r3r1k1/1q3ppQ/p1R4p/1p2P3/1P1B4/3B4/P2b1PPP/4R1K1 b - - 7 25")
    board.push_san("Kf8")
    line = [chess.Move.from_uci(uci) for uci in ("d4c5", "e8e7", "h7h8")]
    assert themes(board, line) == ["mate", "mateIn2", "backRankMate"]
    # A quiet line wins nothing: no theme.
    assert themes(chess.Board(), [chess.Move.from_uci("e2e4")]) == []


@pytest.fixture(scope="module")
def engine() -> Any:
    with Engine(book=None) as owned:
        yield owned


def explained(engine: Engine, fen: str, san: str) -> str | None:
    """explain() of ``san`` played at ``fen``, with the engine's lines before and after it."""
    board = chess.Board(fen)
    move = board.parse_san(san)
    after = board.copy()
    after.push(move)
    info = engine.analyse(after, LIMIT)
    before = engine.analyse(board, LIMIT)
    score, score_before = white_score(info), white_score(before)
    assert score is not None and score_before is not None
    return explain(
        board, move, score, info.get("pv", []),
        score_before=score_before, best_line=before.get("pv", []),
    )  # fmt: skip


def test_the_engine_line_explains_a_hanging_bishop_and_a_good_move_gets_nothing(
    engine: Engine,
) -> None:
    board = chess.Board()
    for san in ("e4", "d5"):
        board.push_san(san)
    assert explained(engine, board.fen(), "Bc4") == "leaves the bishop on c4 hanging"
    assert explained(engine, chess.STARTING_FEN, "e4") is None
    assert explained(engine, chess.STARTING_FEN, "Nf3") is None


def test_the_review_explains_only_its_judged_moves() -> None:
    game = chess.pgn.read_game(io.StringIO("1. f3 e5 2. g4 Qh4# 0-1"))
    assert game is not None
    review = analyse_game(game, LIMIT)
    moves = review["moves"]
    assert moves[2]["judgement"] == "blunder"
    assert moves[2]["explanation"] == "allows mate in 1: ...Qh4#"
    assert moves[2]["motifs"] == ["mate"]
    assert all(move["explanation"] is None for move in moves if move["judgement"] is None)
