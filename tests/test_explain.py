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
        # Emma20 - sstratega, lichess.org/9jdTMqpb, 2025: 30...Rxd8?? 31.Rxd8+ Rf8 32.Qc4+ Kh8
        # 33.Rxf8#.
        ("3R1rk1/pp3rpp/8/2P1pP2/4P3/2Q4P/5qP1/3R3K b - - 0 30", "Rxd8", 3,
         ["d1d8", "f7f8", "c3c4", "g8h8", "d8f8"], "allows a back-rank mate in 3: Rxd8+"),
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


def test_a_fork_reached_by_a_recapture_says_both_branches() -> None:
    # rodrikchess - AlexShchepikhin, lichess.org/CUWmEZ9G, 2025: 8...Bd7?? 9.Bxb6, and if
    # 9...axb6 10.Nc7+ forks king and rook (the engine's line); Stockfish's defence declines the
    # recapture and gives up the bishop. The sentence is true either way.
    found = said(
        "rnb1k1nr/pp3ppp/1b6/3N4/8/4B3/PPP2PPP/R3KBNR b KQkq - 2 8", "Bd7", {"cp": 759},
        ["e3b6", "a7b6", "d5c7", "e8e7", "c7a8", "b7b5"],
    )  # fmt: skip
    assert found.text == (
        "allows Bxb6, which wins the bishop on b6: if ...axb6, a fork: Nc7+ attacks the king "
        "and the rook, and wins the rook on a8"
    )
    assert found.motifs == ("fork",)


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


def test_a_discovered_attack_on_a_rook_in_the_corner() -> None:
    # dmiha - Davide21, lichess.org/eHOsUD78, 2025: 8.Nxf7?? Kxf7 9.g4 Bh4+ 10.Kd2 d4: the pawn
    # leaves the long diagonal and the bishop on b7 hits the rook on h1.
    found = said(
        "rn1qk2r/pbp1bppp/1p2p3/3pPnN1/5P2/2NP4/PPP3PP/R1BQKB1R w KQkq - 3 8", "Nxf7",
        {"cp": -319}, ["e8f7", "g2g4", "e7h4", "e1d2", "d5d4", "g4f5", "d4c3", "b2c3"],
    )  # fmt: skip
    assert found.text == (
        "allows a discovered attack: ...d4 opens the bishop's line to the rook, "
        "and wins the rook on h1"
    )


def test_a_pin_made_by_a_check_that_must_be_blocked() -> None:
    # Alekseenko - Tsamalaidze, Lipetsk 2025: 40.Nxg7?? Rb1+ 41.Kg2 Qa8+ 42.Qf3 (the queen
    # blocks and is pinned to the king) Bh3+ 43.Kxh3 Qxf3.
    found = said(
        "4q2k/3b2b1/7p/p1R2Np1/6Q1/6P1/1rN2P1P/6K1 w - - 0 40", "Nxg7", {"cp": -515},
        ["b2b1", "g1g2", "e8a8", "g4f3", "d7h3", "g2h3", "a8f3", "c2e3"],
    )  # fmt: skip
    assert found.text == (
        "allows a pin: after ...Qa8+ the queen blocks the check and is pinned to the king, "
        "and it wins the queen on g4 for a bishop"
    )
    assert found.motifs == ("pin",)


def test_a_skewer_wins_the_piece_behind() -> None:
    # Hamadeh - Kaloust, Beirut 2025: 13.d5?? Ne5 14.Bc2 Bxc4 hits the queen on e2 with the rook
    # on f1 behind it: 15.Qf2 Bxf1.
    found = said(
        "r1q1k2r/p2n1ppp/bp1pp3/n1p3B1/2PPP3/P1PB1P1N/4Q1PP/R4RK1 w kq - 0 13", "d5",
        {"cp": -122}, ["d7e5", "d3c2", "a6c4", "e2f2", "c4f1", "a1f1", "e8g8", "f2g3"],
    )  # fmt: skip
    assert found.text == (
        "allows a skewer: ...Bxc4 attacks the queen and, behind it, wins the rook on f1 "
        "for a bishop"
    )
    assert found.motifs == ("skewer",)


def test_taking_the_defender_first() -> None:
    # Vuckovic - Prokhorov, Novi Sad 2025: 21.Bd4?? Rxd4 22.Rxd4 Bxe5: the bishop that guarded
    # the pawn on e5 is taken first.
    found = said(
        "2rrb1k1/ppb1qppp/2p1p3/4P3/1PP4P/P5P1/1BQ2PB1/R2R2K1 w - - 1 21", "Bd4", {"cp": -62},
        ["d8d4", "d1d4", "c7e5", "d4d1", "e5a1", "d1a1", "c8d8", "a1d1"],
    )  # fmt: skip
    assert found.text == "allows ...Rxd4, which removes the defender of the pawn on e5 and wins it"
    assert found.motifs == ("capturingDefender",)


def test_a_promotion() -> None:
    # Ismayilov - Choubey, Shamakhi 2025: 76.Bxh5?? f2 77.Bg4 f1=Q.
    found = said(
        "8/8/3P2B1/4K2p/6bP/5pk1/8/8 w - - 0 76", "Bxh5", {"cp": -524},
        ["f3f2", "h5g4", "f2f1q", "g4e6", "f1f4", "e5d5", "f4f3", "d5e5"],
    )  # fmt: skip
    assert (found.text, found.motifs) == (
        "allows ...f2 and ...f1=Q, promoting the pawn", ("promotion",)
    )


def test_a_missed_mate_and_a_missed_fork() -> None:
    # Chessbru514 - Prince_Ablex, lichess.org/j9ZM5KmL, 2025: 20.Nd6+?? where 20.Qxd7# mates.
    fen = "r3kb1r/3n1p1p/p1n1p1pB/1p2P3/4N2q/5P2/PP1Q1P1P/1BRR2K1 w kq - 5 20"
    found = said(fen, "Nd6+", {"cp": 413}, ["f8d6", "c1c6"], score_before={"mate": 1},
                 best_line=[chess.Board(fen).parse_san("Qxd7#")])  # fmt: skip
    assert (found.text, found.motifs) == ("misses mate in 1: Qxd7#", ("mate",))
    # lucialarrottica - MedievalPear, lichess.org/LDe5xtLL, 2025: 6...a6?, where 6...Qa5+
    # forks the king and the knight on c5.
    fen = "r1bqk2r/pp1pppbp/2n2np1/2N5/4P3/3P1P2/PPP3PP/R1BQKBNR b KQkq - 0 6"
    best = [chess.Move.from_uci(uci) for uci in ("d8a5", "c2c3", "a5c5")]
    found = said(fen, "a6", {"cp": 113}, ["d3d4", "e7e5", "d4e5"], score_before={"cp": -150},
                 best_line=best)  # fmt: skip
    assert found.text == (
        "misses a fork: ...Qa5+ attacks the king and the knight, and wins the knight on c5"
    )
    # A quiet best move: what it would win is too far off to say.
    quiet = [chess.Move.from_uci(uci) for uci in ("g8h8", "c2c3", "d8a5")]
    assert said(fen, "a6", {"cp": 113}, ["d3d4"], score_before={"cp": -150},
                best_line=quiet) is None  # fmt: skip


def test_a_hanging_piece_the_line_takes_first() -> None:
    # GASPADAREK - KakTebeTakoe, lichess.org/8qnGOgRl, 2025: 20...Rc7?? 21.Qxc7.
    found = said(
        "2rq1rk1/pQ2ppb1/7p/6p1/2bP4/2P2NB1/P4PPP/2R1R1K1 b - - 0 20", "Rc7", {"cp": 601},
        ["b7c7", "c4a2", "c7d8", "f8d8", "g3e5", "a2e6", "e5g7", "g5g4"],
    )  # fmt: skip
    assert (found.text, found.motifs) == ("leaves the rook on c7 hanging", ("hangingPiece",))


def test_losing_the_exchange() -> None:
    # Ajedres1 - omarburton, lichess.org/JkdhsveN, 2025: 42.Rxf4?? Qxf4, a rook for a knight.
    found = said(
        "8/3N1pk1/6p1/4P2p/5n2/6qP/r5P1/5RQK w - - 4 42", "Rxf4", {"cp": -427},
        ["g3f4", "g1b1", "a2e2", "b1d1", "e2e4", "d7c5", "e4c4", "c5d3"],
    )  # fmt: skip
    assert found.text == "loses the exchange: ...Qxf4 wins the rook on f4 for a knight"


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
