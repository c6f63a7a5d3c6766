"""Guards ``ferrochess.match``: a level 8 against level 2 match comes out clearly for level 8 and
its PGN reads back; Stockfish and a Python function play complete legal games; clocks are kept and
written as ``[%clk]``; a UCI engine that crashes, sends an illegal move or stops answering loses
with that reason and the match goes on; resign, draw, max-moves and tablebase adjudication follow
fastchess's rules; the games do not depend on concurrency; an SPRT stops the match once it
decides; a cancel returns the partial result; tournaments have a crosstable; the observer sees
the events in order; openings come from EPD, PGN, Polyglot books, Chess960 numbers or lists."""

from __future__ import annotations

import io
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
import pytest
from ferrochess import FileError, open_tablebase
from ferrochess.match import (
    SPRT,
    Adjudication,
    DrawRule,
    Event,
    Ferrochess,
    Function,
    GameFinished,
    GameRecord,
    GameStarted,
    Limit,
    Match,
    MatchFinished,
    MatchResult,
    MatchStarted,
    MovePlayed,
    Openings,
    PlayerError,
    Progress,
    ResignRule,
    TimeControl,
    Uci,
    match,
)
from ferrochess.match.adjudication import Adjudicator

STOCKFISH = "/usr/games/stockfish"
FAST = Limit(nodes=1500)

FAKE_ENGINE = r'''
import sys
import chess

mode, score = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "0"
board = chess.Board()
for line in sys.stdin:
    tokens = line.split()
    if not tokens:
        continue
    if tokens[0] == "uci":
        print("id name fake " + mode)
        print("uciok", flush=True)
    elif tokens[0] == "isready":
        print("readyok", flush=True)
    elif tokens[0] == "position":
        rest = tokens[1:]
        moves = rest[rest.index("moves") + 1:] if "moves" in rest else []
        fen = " ".join(rest[1:7]) if rest[0] == "fen" else chess.STARTING_FEN
        board = chess.Board(fen)
        for move in moves:
            board.push_uci(move)
    elif tokens[0] == "go":
        if mode == "crash":
            sys.exit(3)
        if mode == "hang":
            continue
        if mode == "illegal":
            print("bestmove e1e8", flush=True)
            continue
        move = min(board.legal_moves, key=lambda m: m.uci())
        print(f"info depth 1 score cp {score} nodes 1 pv {move.uci()}")
        print(f"bestmove {move.uci()}", flush=True)
    elif tokens[0] == "quit":
        break
'''


@pytest.fixture
def fake(tmp_path: Path) -> Any:
    """``fake(mode, score=0, **kwargs)``: a Uci player for the fake engine (modes: play, crash,
    hang, illegal; ``score`` the centipawns it reports)."""
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE, encoding="utf-8")

    def make(mode: str, score: int = 0, **kwargs: Any) -> Uci:
        return Uci([sys.executable, str(script), mode, str(score)], name=f"fake {mode}", **kwargs)

    return make


def replay(record: GameRecord) -> chess.Board:
    """The record's final position, every move checked for legality."""
    board = record.opening.board()
    for uci in record.moves:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves, (uci, board.fen())
        board.push(move)
    return board


def read_games(text: str) -> list[chess.pgn.Game]:
    handle, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def test_level_8_beats_level_2_and_its_pgn_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "match.pgn"
    result = match([Ferrochess(level=8), Ferrochess(level=2)], games=40, limit=Limit(nodes=2000),
                   concurrency=2, pgn=out, progress=False)  # fmt: skip
    assert len(result.games) == 40 and not result.cancelled
    assert result.wins + result.draws + result.losses == 40
    assert result.pentanomial.pairs == 20
    assert result.score > 0.7, result
    assert result.elo.low > 0, result
    games = read_games(out.read_text(encoding="utf-8"))
    assert len(games) == 40
    for game, record in zip(games, result.games):  # written in the order they finished
        assert game.headers["Result"] == record.result
        assert (game.headers["White"], game.headers["Black"]) == (record.white, record.black)
        assert not game.errors
        board = game.end().board()
        assert board.fen() == replay(record).fen()
        if record.termination == "normal":
            outcome = board.outcome(claim_draw=True)
            assert outcome is not None and outcome.result() == record.result
    assert read_games(result.pgn())[0].headers["Round"] == "1"
    assert "Ptnml(0-2): [" in str(result) and "Elo:" in str(result)


@pytest.mark.skipif(shutil.which(STOCKFISH) is None, reason=f"{STOCKFISH} is not installed")
def test_stockfish_and_a_function_play_complete_legal_games() -> None:
    def first_capture_or_first(board: chess.Board) -> str:
        moves = sorted(board.legal_moves, key=lambda m: (not board.is_capture(m), m.uci()))
        return moves[0].uci()

    stockfish = Uci(STOCKFISH, {"UCI_LimitStrength": True, "UCI_Elo": 1350},
                    limit=Limit(nodes=3000))  # fmt: skip
    result = match([stockfish, Function(first_capture_or_first)], games=4, concurrency=2,
                   adjudication=Adjudication(max_moves=150), progress=False)  # fmt: skip
    assert len(result.games) == 4
    for record in result.games:
        board = replay(record)
        assert record.result in ("1-0", "0-1", "1/2-1/2")
        assert record.reason and record.termination in ("normal", "adjudication")
        game = read_games(record.pgn)[0]
        assert game.headers["Result"] == record.result
        assert game.end().board().fen() == board.fen()
    assert result.wins > result.losses, result  # Stockfish 1350 beats a capture-first player


@pytest.mark.skipif(shutil.which("polyglot") is None and not Path("/usr/games/polyglot").exists()
                    or not Path(STOCKFISH).exists(), reason="polyglot or stockfish is missing")
def test_an_xboard_engine_plays(tmp_path: Path) -> None:
    ini = tmp_path / "stockfish.ini"
    ini.write_text(f"[PolyGlot]\nEngineCommand = {STOCKFISH}\nBook = false\n[Engine]\n"
                   "Skill Level = 0\n", encoding="utf-8")  # fmt: skip
    polyglot = shutil.which("polyglot") or "/usr/games/polyglot"
    xboard = Uci([polyglot, str(ini)], protocol="xboard", name="stockfish by xboard")
    result = match([xboard, Ferrochess(level=3)], games=2, limit="2+0.02",
                   adjudication=Adjudication(max_moves=30), progress=False)  # fmt: skip
    for record in result.games:
        replay(record)
        assert record.termination in ("normal", "adjudication"), record.reason
        assert "[%clk" in record.pgn


def test_a_clock_game_writes_clk_comments_and_clock_events() -> None:
    moves: list[MovePlayed] = []
    result = match(
        [Ferrochess(level=3), Ferrochess(level=4)], games=2, limit="1+0.01",
        adjudication=Adjudication(max_moves=25), progress=False,
        on_event=lambda event: moves.append(event) if isinstance(event, MovePlayed) else None,
    )  # fmt: skip
    assert len(result.games) == 2
    for record in result.games:
        assert "[%clk" in record.pgn
        game = read_games(record.pgn)[0]
        assert game.headers["TimeControl"] == "1+0.01"
        clocks = [node.clock() for node in game.mainline()][len(record.opening.moves):]
        assert clocks and all(c is not None and 0 <= c <= 1.01 + 25 * 0.01 for c in clocks)
    assert moves and all(m.white_clock is not None and m.black_clock is not None for m in moves)


def test_a_crashing_uci_engine_loses_and_the_match_goes_on(fake: Any) -> None:
    result = match([fake("crash"), fake("play")], games=4, limit=FAST, progress=False)
    assert len(result.games) == 4 and result.losses == 4
    for record in result.games:
        loser = "White" if record.white == "fake crash" else "Black"
        assert record.reason.startswith(f"{loser} disconnects"), record.reason
        assert record.termination == "abandoned"


def test_an_illegal_move_loses_with_its_reason(fake: Any) -> None:
    result = match([fake("play"), fake("illegal")], games=2, limit=FAST, progress=False)
    assert result.wins == 2
    for record in result.games:
        assert "makes an illegal move" in record.reason and "e1e8" in record.reason
        assert record.termination == "rules infraction"


def test_a_silent_engine_loses_on_time_or_stalls(fake: Any) -> None:
    on_clock = match([fake("play"), fake("hang")], games=2, limit="1+0", progress=False)
    assert on_clock.wins == 2
    assert all("loses on time" in r.reason and r.termination == "time forfeit"
               for r in on_clock.games)  # fmt: skip
    unbounded = match([fake("hang", timeout=0.5), fake("play")], games=2, limit=Limit(depth=3),
                      progress=False)  # fmt: skip
    assert unbounded.losses == 2
    assert all("stalls" in r.reason for r in unbounded.games)


def test_a_function_that_fails_loses_with_its_reason() -> None:
    def raises(board: chess.Board) -> str:
        raise RuntimeError("no idea")

    result = match([Function(raises), Function(lambda board: None, name="silent")], games=2,
                   progress=False)  # fmt: skip
    reasons = {record.reason for record in result.games}
    assert reasons == {"White's function raised RuntimeError('no idea')", "White sends no move"}
    assert result.losses == 1 and result.wins == 1
    assert all(r.termination == "rules infraction" for r in result.games)


def test_a_player_that_cannot_start_stops_the_match(tmp_path: Path) -> None:
    missing = Uci([str(tmp_path / "no-such-engine")], limit=FAST)
    with pytest.raises(PlayerError, match="no-such-engine"):
        match([missing, Ferrochess(level=1)], games=2, limit=FAST, progress=False)


# --- adjudication ---------------------------------------------------------------------------------


def play(adjudicator: Adjudicator, board: chess.Board, *moves: tuple[str, int | None]) -> None:
    for san, cp in moves:
        mover = board.turn
        board.push_san(san)
        adjudicator.moved(board, mover, None if cp is None else chess.engine.Cp(cp))


def test_resign_follows_fastchess() -> None:
    board = chess.Board()
    rules = Adjudicator(Adjudication(resign=ResignRule(movecount=2, score=500)), None)
    play(rules, board, ("e4", -600), ("e5", 600))
    assert rules.verdict(board) is None  # White's first losing move: one of two
    play(rules, board, ("Nf3", -600))
    verdict = rules.verdict(board)  # checked before Black moves, as fastchess does
    assert verdict is not None and verdict.result == "0-1" and "resign" in verdict.reason
    board = chess.Board()
    rules = Adjudicator(Adjudication(resign=ResignRule(movecount=2, score=500)), None)
    play(rules, board, ("e4", -600), ("e5", None), ("Nf3", None))
    assert rules.verdict(board) is None  # a move without a score restarts White's count
    play(rules, board, ("Nc6", -5), ("Bc4", -600), ("Bc5", -5))
    assert rules.verdict(board) is None  # Black's own score is only -5: Black plays on
    play(rules, board, ("d3", -600))
    verdict = rules.verdict(board)  # the side that reached the count loses, not the one to move
    assert verdict is not None and verdict.result == "0-1" and "Black wins" in verdict.reason
    twosided = Adjudicator(Adjudication(resign=ResignRule(1, 500, twosided=True)), None)
    board = chess.Board()
    play(twosided, board, ("e4", -700), ("e5", 700))
    assert twosided.verdict(board) is None  # agreed, but Black, who just moved, is winning
    play(twosided, board, ("Nf3", -700))
    verdict = twosided.verdict(board)
    assert verdict is not None and verdict.result == "0-1"


def test_repetition_and_fifty_moves_end_a_game_once_they_happen_not_a_move_early() -> None:
    mate_at_99 = "7k/8/6K1/8/8/8/8/R7 w - - 99 80"  # Ra8# is the hundredth half-move
    twice = chess.Board()
    for uci in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"):
        twice.push_uci(uci)  # Black could repeat the start a third time with Ng8

    def player(board: chess.Board) -> str:
        if board.halfmove_clock == 99:
            return "a1a8"
        return "e7e5" if board.ply() == 7 else "g8f6" if board.ply() == 9 else "g1f3"

    result = match([Function(player, name="a"), Function(player, name="b")], games=4,
                   openings=Openings.of([mate_at_99, twice]), progress=False)  # fmt: skip
    first, _, third, _ = sorted(result.games, key=lambda g: g.index)
    assert (first.result, first.reason, first.moves) == ("1-0", "White mates", ("a1a8",))
    assert third.moves[:2] == ("e7e5", "g1f3"), third  # played on: no threefold had happened


def test_draw_and_max_moves_follow_fastchess() -> None:
    board = chess.Board()
    rules = Adjudicator(Adjudication(draw=DrawRule(movenumber=2, movecount=1, score=10)), None)
    play(rules, board, ("Nf3", 0), ("Nf6", 5))
    assert rules.verdict(board) is None  # full move 2: not yet past move number 2
    play(rules, board, ("Ng1", 50), ("Ng8", 0))
    assert rules.verdict(board) is None  # 50 cp broke the run
    play(rules, board, ("Nf3", 0))
    verdict = rules.verdict(board)
    assert verdict is not None and verdict.result == "1/2-1/2" and "draw rule" in verdict.reason
    capped = Adjudicator(Adjudication(max_moves=2), None)
    board = chess.Board()
    play(capped, board, ("e4", None), ("e5", None), ("Nf3", None))
    assert capped.verdict(board) is None
    play(capped, board, ("Nc6", None))
    verdict = capped.verdict(board)
    assert verdict is not None and "max moves" in verdict.reason


def test_a_losing_engine_resigns_in_a_match(fake: Any) -> None:
    rules = Adjudication(resign=ResignRule(movecount=3, score=600))
    result = match([fake("play", 700), fake("play", -700)], games=2, limit=FAST,
                   adjudication=rules, progress=False)  # fmt: skip
    assert result.wins == 2
    for record in result.games:
        assert record.termination == "adjudication" and "resign" in record.reason
        assert len(record.moves) <= 7


def test_tablebase_adjudication(syzygy: Path) -> None:
    positions = ["8/8/8/4k3/8/8/3QK3/8 w - - 0 1", "8/8/3rk3/8/8/8/4K3/R7 w - - 0 1"]
    rules = Adjudication(tablebase=str(syzygy))
    result = match([Ferrochess(level=1), Ferrochess(level=2)], games=4, limit=FAST,
                   openings=Openings.of(positions), adjudication=rules, progress=False)  # fmt: skip
    with open_tablebase(syzygy) as tables:
        for record in result.games:
            assert record.termination == "adjudication" and "tablebase" in record.reason
            assert record.moves == ()
            wdl = tables.probe_wdl(record.opening.board())
            expected = {2: "1-0", -2: "0-1"}.get(wdl, "1/2-1/2")
            assert record.result == expected


# --- scheduling -----------------------------------------------------------------------------------


def signature(result: MatchResult) -> list[tuple[Any, ...]]:
    return sorted((g.index, g.white, g.black, g.result, g.moves) for g in result.games)


def test_the_games_do_not_depend_on_concurrency() -> None:
    players = [Ferrochess(level=6), Ferrochess(level=5)]
    options: dict[str, Any] = {"games": 6, "limit": Limit(nodes=1000), "seed": 7,
                               "progress": False, "adjudication": Adjudication(max_moves=60)}
    one = match(players, concurrency=1, **options)
    two = match(players, concurrency=2, **options)
    assert signature(one) == signature(two)
    assert [g.opening_index for g in sorted(one.games, key=lambda g: g.index)] == [0, 0, 1, 1, 2, 2]
    assert signature(match(players, concurrency=1, **{**options, "seed": 8})) != signature(one)


def test_an_sprt_stops_the_match_once_it_decides() -> None:
    result = match([Ferrochess(level=8), Ferrochess(level=1)], games=60,
                   limit=Limit(nodes=2000), sprt=SPRT(0, 200), concurrency=2,
                   progress=False)  # fmt: skip
    assert result.decision == "H1"
    assert result.llr is not None and result.llr >= result.sprt.bounds[1]  # type: ignore[union-attr]
    assert len(result.games) < 60 and len(result.games) % 2 == 0
    assert result.pentanomial.pairs == len(result.games) // 2
    assert not result.cancelled
    assert "H1 accepted" in str(result)


def test_a_cancel_returns_the_partial_result() -> None:
    cancel = threading.Event()

    def after_first_game(event: Event) -> None:
        if isinstance(event, GameFinished):
            cancel.set()

    result = match([Ferrochess(level=8), Ferrochess(level=7)], games=40, limit="5+0.05",
                   concurrency=2, cancel=cancel, on_event=after_first_game,
                   progress=False)  # fmt: skip
    assert result.cancelled
    assert 1 <= len(result.games) < 40
    running = Match([Ferrochess(level=8), Ferrochess(level=7)], games=40, limit="5+0.05",
                    progress=False).start()  # fmt: skip
    running.stop()
    partial = running.result(timeout=60)
    assert partial.cancelled and len(partial.games) < 40


def test_an_observer_sees_the_events_in_order() -> None:
    events: list[Event] = []
    result = match([Ferrochess(level=2), Ferrochess(level=3)], games=4, limit=FAST,
                   adjudication=Adjudication(max_moves=20), on_event=events.append,
                   progress=False)  # fmt: skip
    assert isinstance(events[0], MatchStarted) and events[0].games == 4
    assert isinstance(events[-1], MatchFinished) and events[-1].result == result
    for record in result.games:
        mine = [e for e in events if getattr(e, "game", None) == record.index
                or (isinstance(e, GameFinished) and e.record.index == record.index)]
        assert isinstance(mine[0], GameStarted) and isinstance(mine[-1], GameFinished)
        played = [e for e in mine if isinstance(e, MovePlayed)]
        assert [e.move for e in played] == list(record.moves)
        assert mine[0].fen == record.opening.fen and mine[0].opening == record.opening.moves
    progress = [e for e in events if isinstance(e, Progress)]
    assert [len(e.result.games) for e in progress] == [1, 2, 3, 4]


def test_an_observer_error_stops_the_match() -> None:
    def broken(event: Event) -> None:
        if isinstance(event, MovePlayed):
            raise KeyError("widget bug")

    with pytest.raises(KeyError, match="widget bug"):
        match([Ferrochess(level=2), Ferrochess(level=3)], games=4, limit=FAST, on_event=broken,
              progress=False)  # fmt: skip


def test_tournaments_have_a_crosstable() -> None:
    players = [Ferrochess(level=4), Ferrochess(level=2), Ferrochess(level=3)]
    options: dict[str, Any] = {"games": 2, "limit": Limit(nodes=800), "progress": False,
                               "adjudication": Adjudication(max_moves=40)}
    gauntlet = match(players, tournament="gauntlet", **options)
    assert list(gauntlet.crosstable) == [("ferrochess level 4", "ferrochess level 2"),
                                         ("ferrochess level 4", "ferrochess level 3")]
    assert len(gauntlet.games) == 4 and gauntlet.wins + gauntlet.draws + gauntlet.losses == 4
    robin = match(players, tournament="roundrobin", **options)
    assert len(robin.pairings) == 3 and len(robin.games) == 6
    assert sum(points for _, points, _ in robin.standings()) == 6
    assert all(p.games == 2 for p in robin.pairings)
    assert "Standings:" in str(robin)
    with pytest.raises(ValueError, match="2 players"):
        match(players, **options)


def test_chess960_games_start_from_numbered_positions() -> None:
    result = match([Ferrochess(level=3), Ferrochess(level=4)], games=4, limit=Limit(nodes=800),
                   chess960=True, adjudication=Adjudication(max_moves=20), progress=False)
    for record in result.games:
        assert record.opening.chess960 and record.opening.name.startswith("Chess960 #")
        game = read_games(record.pgn)[0]
        assert game.headers["Variant"] == "Chess960"
        assert game.board() == record.opening.start() and game.board().chess960
        assert game.end().board().fen() == replay(record).fen()
    by_round = {r.round: r.opening for r in result.games}
    assert len(by_round) == 2 and by_round[1] != by_round[2]


def test_openings_from_files_books_and_lists(tmp_path: Path) -> None:
    epd = tmp_path / "two.epd"
    epd.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n"
                   "# a comment\n4k3/8/8/8/8/8/4P3/4K3 w - -\n", encoding="utf-8")  # fmt: skip
    chosen = Openings.epd(epd, order="sequential", start=2).select(3, seed=1)
    pawn, e4 = "4k3/8/8/8/8/8/4P3/4K3", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"
    assert [o.fen.split()[0] for o in chosen] == [pawn, e4, pawn]
    assert chosen[1].name == "e4"
    pgn = tmp_path / "lines.pgn"
    pgn.write_text("1. d4 d5 2. c4 e6 3. Nc3 *\n\n1. e4 c5 2. Nf3 *\n", encoding="utf-8")
    lines = Openings.pgn(pgn, plies=3, order="sequential").select(2, seed=1)
    assert [o.moves for o in lines] == [("d2d4", "d7d5", "c2c4"), ("e2e4", "c7c5", "g1f3")]
    walked = Openings.book("default", plies=6).select(3, seed=5)
    assert walked == Openings.book("default", plies=6).select(3, seed=5)
    assert all(len(o.moves) == 6 for o in walked) and len({o.moves for o in walked}) > 1
    eco = Openings.eco().select(10, seed=1)
    assert all(len(o.moves) == 8 for o in eco) and eco != Openings.eco().select(10, seed=2)
    with pytest.raises(FileError, match="missing.epd"):
        Openings.epd(tmp_path / "missing.epd").select(1, seed=1)
    with pytest.raises(ValueError, match="extension"):
        match(["a", "b"], openings="book.txt", limit=FAST)


def test_limits_and_options_are_checked() -> None:
    assert TimeControl.parse("40/1:30+0.5") == TimeControl(90, 0.5, 40)
    assert str(TimeControl.parse("10+0.1")) == "10+0.1"
    with pytest.raises(ValueError, match="12x"):
        TimeControl.parse("12x")
    with pytest.raises(ValueError, match="limit"):
        Limit()
    with pytest.raises(ValueError, match="games"):
        match([Ferrochess(), Ferrochess()], games=3, limit=FAST)
    with pytest.raises(ValueError, match="limit"):
        match([Ferrochess(), Ferrochess()], games=2)
    with pytest.raises(ValueError, match="level"):
        Ferrochess(level=11)


def test_results_per_opening() -> None:
    result = match([Ferrochess(level=5), Function(lambda b: next(iter(b.legal_moves)), name="f")],
                   games=4, limit=Limit(nodes=800), adjudication=Adjudication(max_moves=40),
                   progress=False)  # fmt: skip
    openings = result.per_opening()
    assert [o.index for o in openings] == [0, 1] and all(o.games == 2 for o in openings)
    assert sum(o.wins + o.draws + o.losses for o in openings) == 4
    assert sum(o.wins for o in openings) == result.wins
