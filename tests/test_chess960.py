"""Chess960 from Python and through the services: the engine (``select_move``, ``Engine.play``,
``Engine.analyse``, ``perft``, ``evaluate``) takes a python-chess board with ``chess960=True``, or a
FEN string with ``chess960=True``, and answers moves as python-chess keeps them on such a board
(castling as the king taking its own rook), its principal variations too; perft through Python
equals the published Chess960 counts and python-chess's own; a FEN without the flag stays
standard chess. The game service sets up a numbered or random Chess960 start and refuses a bad
number naming ``position``; a game's requests read its castling either way; the PGN carries
Variant, SetUp and FEN and reads back as the same Chess960 game; a game review and the analysis
board's import and export keep Chess960; the archive (schema step 3, on SQLite and PostgreSQL)
stores a game's variant, "standard" for the games stored before it, and gives back its PGN."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
import pytest
import sqlalchemy as sa
from ferrochess import Engine, evaluate, perft, select_move
from ferrochess.analysis import analyse_game
from ferrochess.exceptions import InvalidFenError
from ferrochess.interop import game_of
from ferrochess.service.analysis_board import AnalysisService
from ferrochess.service.archive import SCHEMA_VERSION, Archive, ArchiveError, database_url
from ferrochess.service.game import GameService
from ferrochess.service.game_pgn import game_pgn
from ferrochess.service.pool import EnginePool
from ferrochess.service.reading import BadInput, read_game
from postgres_helpers import (  # noqa: F401 - the fixture is used by name
    fresh_database,
    postgres_server_fixture,
)

QUEENSIDE_MATE = "2rkr3/2p1p3/8/8/8/8/8/RK6 w A - 0 1"
"""White castles queenside (king b1 takes rook a1: king to c1, rook to d1) and mates; the rook
cannot reach d1 otherwise (the king stands on b1), so castling is the only mate."""
KINGSIDE_MATE = "4rkr1/4p1p1/8/8/8/8/8/5K1R w H - 0 1"
"""White castles kingside (king f1 takes rook h1: king to g1, rook to f1) and mates."""
STARTS = (0, 17, 359, 518, 959)
"""Chess960 start numbers played from (518 is the standard array)."""


def chess960_board(fen: str) -> chess.Board:
    return chess.Board(fen, chess960=True)


def python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


def assert_line_legal(board: chess.Board, line: list[chess.Move]) -> None:
    replay = board.copy()
    for move in line:
        assert move in replay.legal_moves, (replay.fen(), move.uci())
        replay.push(move)


# --- the Python API ---------------------------------------------------------------------------


@pytest.mark.parametrize("fen", [QUEENSIDE_MATE, KINGSIDE_MATE])
def test_castling_that_mates_is_played_as_python_chess_has_it(fen: str) -> None:
    board = chess960_board(fen)
    mates = [move for move in board.legal_moves if board.is_castling(move)]
    assert len(mates) == 1
    castle = mates[0]
    with Engine(book=None) as engine:
        played = engine.play(board, chess.engine.Limit(depth=3)).move
        info = engine.analyse(board, chess.engine.Limit(depth=3))
        from_fen = engine.play(fen, chess.engine.Limit(depth=3), chess960=True).move
    assert played == castle and board.is_castling(played)
    assert from_fen == castle
    assert info["pv"][0] == castle and info["score"].relative == chess.engine.Mate(1)
    assert select_move(board, 3) == castle.uci()
    assert select_move(fen, 3, chess960=True) == castle.uci()
    after = board.copy()
    after.push(played)
    assert after.is_checkmate()


def test_a_fen_without_the_flag_is_standard_chess() -> None:
    with pytest.raises(InvalidFenError, match="RK6"):
        select_move(QUEENSIDE_MATE, 2)
    standard = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    with Engine(book=None) as engine:
        lines = engine.analyse(standard, chess.engine.Limit(depth=1), multipv=50)
        lines_960 = engine.analyse(standard, chess.engine.Limit(depth=1), multipv=50, chess960=True)
    firsts = {line["pv"][0].uci() for line in lines}
    firsts_960 = {line["pv"][0].uci() for line in lines_960}
    assert {"e1g1", "e1c1"} <= firsts and not {"e1h1", "e1a1"} & firsts
    assert {"e1h1", "e1a1"} <= firsts_960 and not {"e1g1", "e1c1"} & firsts_960


@pytest.mark.parametrize("number", STARTS)
def test_the_engine_plays_legal_moves_from_chess960_starts(number: int) -> None:
    """Both sides played by the engine for 16 plies, each move legal on python-chess's board;
    its principal variations are legal lines there too."""
    board = chess.Board.from_chess960_pos(number)
    with Engine(book="default", seed=number) as engine:
        for ply in range(16):
            result = engine.play(board, chess.engine.Limit(depth=3 + ply % 2, nodes=20_000))
            assert result.move in board.legal_moves
            assert result.info.get("source") != "book"  # a Polyglot book holds standard chess
            assert_line_legal(board, result.info.get("pv", []))
            board.push(result.move)
            if board.is_game_over():
                break
        lines = engine.analyse(board, chess.engine.Limit(depth=4), multipv=3)
    for line in lines:
        assert_line_legal(board, line["pv"])
    assert board.chess960


def test_castling_in_the_history_and_in_analysis_lines() -> None:
    """A game whose history holds castling of both kinds (king takes rook), searched on: each
    line the engine reports, in its callback too, is legal on the Chess960 board."""
    board = chess960_board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    board.push(board.parse_uci("e1g1"))  # read as castling from e1 ...
    assert board.move_stack[-1].uci() == "e1h1"  # ... and kept as the king taking its rook
    board.push(board.parse_uci("e8a8"))
    seen: list[chess.engine.InfoDict] = []
    with Engine(book=None) as engine:
        info = engine.analyse(board, chess.engine.Limit(depth=5), callback=seen.append)
    assert seen and all(entry.get("pv") for entry in seen)
    for entry in [*seen, info]:
        assert_line_legal(board, entry["pv"])


def test_the_game_the_core_is_given() -> None:
    """``game_of``: a Chess960 board's root as Shredder-FEN (the rooks by file) and its moves as
    python-chess keeps them; a FEN string is standard unless the flag says Chess960."""
    board = chess.Board.from_chess960_pos(518)
    for uci in ["e2e4", "e7e5", "g1f3", "g8f6", "f1c4", "f8c5", "e1g1"]:
        board.push(board.parse_uci(uci))
    fen, moves, is_960 = game_of(board)
    assert fen == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1" and is_960
    assert moves[-1] == "e1h1"
    assert game_of(chess.STARTING_FEN) == (chess.STARTING_FEN, [], False)
    assert game_of(chess.STARTING_FEN, True) == (chess.STARTING_FEN, [], True)
    assert game_of(chess.Board())[2] is False
    with pytest.raises(TypeError, match="chess960 must be"):
        game_of(chess.Board(), "yes")  # type: ignore[arg-type]


def test_a_flag_that_contradicts_the_board_is_refused() -> None:
    with pytest.raises(ValueError, match="chess960=False contradicts"):
        perft(chess.Board.from_chess960_pos(3), 1, chess960=False)
    with Engine(book=None) as engine, pytest.raises(ValueError, match="chess960=True"):
        engine.play(chess.Board(), chess.engine.Limit(depth=1), chess960=True)


def perft_suite(path: Path, count: int) -> Iterator[tuple[str, dict[int, int]]]:
    fen = None
    counts: dict[int, int] = {}
    for line in path.read_text().splitlines():
        if line.startswith("epd "):
            if fen is not None:
                yield fen, counts
                count -= 1
                if count == 0:
                    return
            fen, counts = line[4:].strip(), {}
        elif line.startswith("perft ") and fen is not None:
            _, depth, nodes = line.split()
            counts[int(depth)] = int(nodes)


def test_perft_through_python_equals_the_published_counts_and_python_chess(
    shared_data: Path,
) -> None:
    suite = shared_data / "perft" / "chess960.perft"
    if not suite.exists():
        pytest.skip(f"no Chess960 perft suite at {suite}")
    checked = 0
    for fen, counts in perft_suite(suite, 6):
        board = chess960_board(fen)
        for depth in (1, 2, 3, 4):
            assert perft(board, depth) == counts[depth], (fen, depth)
            assert perft(fen, depth, chess960=True) == counts[depth], (fen, depth)
        assert counts[3] == python_chess_perft(board, 3)
        checked += 1
    assert checked == 6
    # after castling, from a board with a history: the current position is counted
    board = chess960_board(KINGSIDE_MATE)
    board.push(board.parse_uci("f1h1"))
    assert perft(board, 2) == python_chess_perft(board, 2)


def test_evaluate_reads_a_chess960_game() -> None:
    board = chess960_board(QUEENSIDE_MATE)
    board.push(board.parse_uci("b1a1"))
    assert evaluate(board)["white"] == evaluate(board.fen(), chess960=False)["white"]


# --- the game service -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def games() -> Iterator[GameService]:
    pool = EnginePool(1, 8, book="default", syzygy_path=None)
    yield GameService(pool)
    pool.close()


def test_a_numbered_or_random_start_is_set_up(games: GameService) -> None:
    answer = games.request("api/chess960", {"position": 518})
    assert answer["position"] == 518 and answer["fen"] == chess.STARTING_FEN
    assert answer["state"]["chess960"] is True and "e1g1" not in answer["state"]["legal_moves"]
    typed = games.request("api/chess960", {"position": " 17 "})
    assert typed["fen"] == chess.Board.from_chess960_pos(17).fen()
    drawn = {games.request("api/chess960", {})["position"] for _ in range(20)}
    assert all(0 <= number < 960 for number in drawn) and len(drawn) > 1
    for bad in (960, -1, "abc", True, 3.5, "9999"):
        with pytest.raises(BadInput) as refused:
            games.request("api/chess960", {"position": bad})
        assert refused.value.field == "position" and str(bad).strip() in str(refused.value)


def test_castling_is_read_either_way_on_the_standard_array() -> None:
    moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]
    by_rook = read_game({"chess960": True, "moves": [*moves, "e1h1"]}).board
    by_square = read_game({"chess960": True, "moves": [*moves, "e1g1"]}).board
    assert by_rook.move_stack == by_square.move_stack and by_rook.peek().uci() == "e1h1"
    assert by_rook.piece_at(chess.G1) == chess.Piece(chess.KING, chess.WHITE)
    assert by_rook.piece_at(chess.F1) == chess.Piece(chess.ROOK, chess.WHITE)
    standard = read_game({"moves": [*moves, "e1g1"]}).board
    assert standard.peek().uci() == "e1g1" and not standard.chess960
    with pytest.raises(BadInput) as refused:  # b1a1 is castling in this Chess960 start only
        read_game({"fen": QUEENSIDE_MATE.replace(" A ", " - "), "moves": ["b1a1"]})
    assert refused.value.field == "moves[0]"
    mated = read_game({"fen": QUEENSIDE_MATE, "chess960": True, "moves": ["b1a1"]}).board
    assert mated.is_checkmate()
    with pytest.raises(BadInput) as refused:
        read_game({"chess960": "yes"})
    assert refused.value.field == "chess960"


def test_the_engine_replies_in_a_chess960_game(games: GameService) -> None:
    start = games.request("api/chess960", {"position": 100})
    board = chess.Board(start["fen"], chess960=True)
    body: dict[str, Any] = {"fen": start["fen"], "chess960": True, "moves": [], "level": 3}
    for _ in range(6):
        answer = games.request("api/move", body)
        move = chess.Move.from_uci(answer["move"])
        assert move in board.legal_moves and answer["source"] != "book"
        board.push(move)
        assert answer["state"]["chess960"] is True
        body["moves"] = answer["state"]["moves"]
    assert [move.uci() for move in board.move_stack] == body["moves"]


def castled_game() -> chess.Board:
    """The standard array as a Chess960 game: both sides castle (kingside, queenside)."""
    board = chess.Board.from_chess960_pos(518)
    for uci in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "d7d6", "e1h1", "c8g4", "d2d3", "d8d7",
                "b1c3", "e8a8"]:  # fmt: skip
        board.push(board.parse_uci(uci))
    return board


def test_the_pgn_carries_the_variant_and_reads_back_as_the_same_game() -> None:
    board = castled_game()
    text = game_pgn(
        board, event="e", site="s", date="2026.01.01", white="w", black="b",
        status={"result": "*", "over": False}, opening=None, time_control=None, clocks=[],
    )  # fmt: skip
    assert '[Variant "Chess960"]' in text and '[SetUp "1"]' in text
    assert f'[FEN "{chess.STARTING_FEN}"]' in text
    read = chess.pgn.read_game(io.StringIO(text))
    assert read is not None
    end = read.end().board()
    assert end.chess960 and end.move_stack == board.move_stack
    assert "O-O-O" in text and "O-O " in text


def test_a_chess960_game_is_reviewed() -> None:
    board = chess960_board(QUEENSIDE_MATE)
    board.push(board.parse_uci("b1a1"))
    game = chess.pgn.Game.from_board(board)
    with Engine(book=None) as engine:
        review = analyse_game(game, chess.engine.Limit(nodes=3000), engine=engine)
    assert [entry["move"] for entry in review["moves"]] == ["b1a1"]
    assert review["moves"][0]["best_move"] == "b1a1"


def test_the_analysis_board_imports_and_exports_a_chess960_pgn(games: GameService) -> None:
    board = castled_game()
    text = str(chess.pgn.Game.from_board(board))
    service = analysis_service(games)
    tree = service.import_tree({"pgn": text})["tree"]
    assert tree["chess960"] is True
    assert [node["uci"] for node in tree["moves"]] == [move.uci() for move in board.move_stack]
    exported = service.export_tree({"tree": tree})["pgn"]
    read = chess.pgn.read_game(io.StringIO(exported))
    assert read is not None and read.end().board().move_stack == board.move_stack
    assert read.end().board().chess960
    position = service.position({"fen": tree["fen"], "chess960": True,
                                 "moves": [node["uci"] for node in tree["moves"]]})  # fmt: skip
    assert position["chess960"] is True and position["moves"][-1] == "e8a8"
    explored = service.explorer({"fen": tree["fen"], "chess960": True, "moves": []})
    assert explored["book"]["moves"] == []  # the book holds standard chess only
    standard = service.explorer({"fen": tree["fen"], "moves": []})
    assert standard["book"]["moves"]  # ... where the same position has book moves
    service.close()


def analysis_service(games: GameService) -> AnalysisService:
    """The analysis board's service with the compiled-in book (which knows the standard array)."""
    return AnalysisService(games, book="default", syzygy_path=None)


# --- the archive ------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    return fresh_database(request.getfixturevalue("postgres_server"))


def submitted(board: chess.Board, client_id: str, **fields: Any) -> dict[str, Any]:
    game = {"client_id": client_id, "fen": board.root().fen(), "chess960": board.chess960,
            "moves": [move.uci() for move in board.move_stack], "end": None, "human": "white",
            "level": 3}  # fmt: skip
    return {**game, **fields}


def test_the_archive_keeps_a_games_variant(database: str) -> None:
    mate = chess960_board(QUEENSIDE_MATE)
    mate.push(mate.parse_uci("b1a1"))
    castled = castled_game()
    with Archive.open(database) as archive:
        mated, _ = archive.store_game(submitted(mate, "mate"))
        resigned, _ = archive.store_game(
            submitted(castled, "resigned", end={"by": "resign", "color": "black"})
        )
        standard, _ = archive.store_game(
            submitted(chess.Board(), "fools", moves="f2f3 e7e5 g2g4 d8h4".split())
        )
        for ident, variant in ((mated, "chess960"), (resigned, "chess960"),
                               (standard, "standard")):  # fmt: skip
            record = archive.get_game(ident)
            assert record is not None and record["variant"] == variant
        record = archive.get_game(mated)
        assert record is not None and record["termination"] == "checkmate"
        assert record["moves"] == ["b1a1"]
        assert chess960_board(record["fen"]) == chess960_board(QUEENSIDE_MATE)
        listed = {game["id"]: game["variant"] for game in archive.list_games()[0]}
        assert listed == {mated: "chess960", resigned: "chess960", standard: "standard"}
        again = archive.store_game(submitted(castled, "resigned",
                                             end={"by": "resign", "color": "black"}))  # fmt: skip
        assert again == (resigned, False)
        pgn = archive.game_pgn(resigned)
        exported = "".join(archive.iter_pgn())
    read = chess.pgn.read_game(io.StringIO(pgn))
    assert read is not None and read.headers["Variant"] == "Chess960"
    assert read.headers["SetUp"] == "1" and read.headers["FEN"] == chess.STARTING_FEN
    assert read.end().board().chess960 and read.end().board().move_stack == castled.move_stack
    stream = io.StringIO(exported)
    variants = []
    while (game := chess.pgn.read_game(stream)) is not None:
        variants.append(game.headers.get("Variant", "Standard"))
    assert sorted(variants) == ["Chess960", "Chess960", "Standard"]


def test_games_stored_before_step_3_are_standard(database: str) -> None:
    with Archive.open(database, upgrade_to=2) as old:
        fools = "f2f3 e7e5 g2g4 d8h4".split()
        ident, _ = old.store_game(submitted(chess.Board(), "old", moves=fools))
        mate = chess960_board(QUEENSIDE_MATE)
        mate.push(mate.parse_uci("b1a1"))
        with pytest.raises(ArchiveError, match="schema version 2"):
            old.store_game(submitted(mate, "960"))
    engine = sa.create_engine(database_url(database))
    try:
        with engine.connect() as connection:
            columns = {column["name"] for column in sa.inspect(connection).get_columns("games")}
    finally:
        engine.dispose()
    assert "variant" not in columns
    with Archive.open(database) as archive:
        assert archive.version == SCHEMA_VERSION >= 3
        record = archive.get_game(ident)
        assert record is not None and record["variant"] == "standard"
        assert "Variant" not in archive.game_pgn(ident)
        assert archive.integrity_check() == ["ok"]


def test_a_random_chess960_game_round_trips_through_the_archive(tmp_path: Path) -> None:
    """Random legal play from random starts (castling whenever python-chess offers it), resigned,
    stored and read back from its PGN: the same moves on a Chess960 board."""
    rng = random.Random(960)
    with Archive.open(str(tmp_path / "g.sqlite3")) as archive:
        for index in range(8):
            board = chess.Board.from_chess960_pos(rng.randrange(960))
            for _ in range(40):
                legal = list(board.legal_moves)
                if not legal:
                    break
                castles = [move for move in legal if board.is_castling(move)]
                board.push(rng.choice(castles or legal))
            end = None if board.is_game_over() else {"by": "resign", "color": "white"}
            ident, _ = archive.store_game(submitted(board, f"random-{index}", end=end))
            read = chess.pgn.read_game(io.StringIO(archive.game_pgn(ident)))
            assert read is not None
            assert read.end().board().move_stack == board.move_stack
            assert read.end().board().chess960
