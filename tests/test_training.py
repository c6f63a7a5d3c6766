"""Training from one's own games (ferrochess.training, service/training.py, the archive's training
tables, the /api/train JSON API): puzzles made from a real game with a known blunder (Legal's
mate, 1750) the lichess-puzzler way, and which side's puzzle it is; puzzles of real club games
(../shared/data) whose first move Stockfish confirms as the only good one; the "only good
move" rule; opening cards where a player left their usual line and lost; FSRS moving a card's
due time on right and wrong; Glicko-2 moving both ratings; the same storage round trip on
SQLite and PostgreSQL (mined once, a reload keeps cards and ratings, only a first attempt
rated, players apart, the games' player column); the API's errors naming the field, and its
501 where fsrs is missing (Python 3.9) while the play app still serves."""

from __future__ import annotations

import datetime
import io
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
import fsrs
import pytest
from chess.engine import Cp, Mate
from ferrochess import Engine
from ferrochess.service.archive import Archive
from ferrochess.service.reading import BadInput
from ferrochess.service.training import TrainingService
from ferrochess.training import (
    START,
    Glicko,
    Puzzle,
    card_from_dict,
    card_to_dict,
    grade,
    new_card,
    only_good,
    opening_cards,
    puzzles,
    rate,
    review,
)
from ferrochess.training.schedule import scheduler
from ferrochess.web import create_app
from flask.testing import FlaskClient
from postgres_helpers import fresh_database, postgres_server_fixture  # noqa: F401 - by name

LEGAL = """[Event "Paris"]
[Site "Paris"]
[Date "1750.??.??"]
[White "Legal de Kermur"]
[Black "Saint Brie"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. Bc4 Bg4 4. Nc3 g6 5. Nxe5 Bxd1 6. Bxf7+ Ke7 7. Nd5# 1-0
"""
"""Legal's mate: 5...Bxd1?? takes the queen and allows mate in 2 (6.Bxf7+ Ke7 7.Nd5#)."""
LEGAL_MOVES = "e2e4 e7e5 g1f3 d7d6 f1c4 c8g4 b1c3 g7g6 f3e5 g4d1 c4f7 e8e7 c3d5".split()
AFTER_BLUNDER = "rn1qkbnr/ppp2p1p/3p2p1/4N3/2B1P3/2N5/PPPP1PPP/R1BbK2R w KQkq - 0 6"
NODES = 50_000
"""Nodes per position in these tests (the mate in 2 is found from far fewer)."""


def engine() -> Engine:
    return Engine(book=None, seed=0, threads=1, syzygy_path="")


# --- puzzles --------------------------------------------------------------------------------------


def test_a_real_blunder_becomes_its_punishment() -> None:
    (puzzle,) = puzzles(LEGAL, nodes=NODES)
    assert puzzle.fen == AFTER_BLUNDER
    assert puzzle.moves == ("c4f7", "e8e7", "c3d5")
    assert puzzle.kind == "blunder"  # White found the mate in the game
    assert {"mate", "mateIn2", "short"} <= set(puzzle.themes)
    assert puzzle.source["ply"] == 10 and puzzle.source["white"] == "Legal de Kermur"
    assert puzzle.accept == ("c4f7",) and puzzle.chess960 is False
    board = puzzle.board()
    for uci in puzzle.moves:
        board.push_uci(uci)
    assert board.is_checkmate()
    data = puzzle.to_dict()
    assert Puzzle.from_dict(data) == puzzle and data["id"] == puzzle.id
    assert len(puzzle.id) == 16 and int(puzzle.id, 16) >= 0


def test_the_same_games_give_the_same_puzzles_whatever_the_input_form() -> None:
    from_text = puzzles(LEGAL, nodes=NODES)
    from_game = puzzles(chess.pgn.read_game(io.StringIO(LEGAL)), nodes=NODES)  # type: ignore[arg-type]
    two = puzzles(io.StringIO(LEGAL + "\n" + LEGAL), nodes=NODES)
    assert from_text == from_game == two[:1] == two[1:]


def test_whose_puzzle_it_is() -> None:
    """Black blundered: Black's puzzle (punish it); White played the solution: none for White."""
    (black,) = puzzles(LEGAL, nodes=NODES, player_color=chess.BLACK)
    assert black.kind == "blunder" and black.fen == AFTER_BLUNDER
    assert puzzles(LEGAL, nodes=NODES, player_color=chess.WHITE) == []
    # White misses the mate (6.Kxd1 instead): a missed win for White.
    missed = LEGAL.replace("6. Bxf7+ Ke7 7. Nd5# 1-0", "6. Kxd1 Qxe5 1-0")
    (white,) = puzzles(missed, nodes=NODES, player_color=chess.WHITE)
    assert white.kind == "missed_win" and white.moves[0] == "c4f7"


CLUB_GAMES = slice(9, 12)
"""Games 10 to 12 of lichess_db_100k.pgn (players rated 1000 to 1800), which hold real blunders."""


def test_puzzles_of_real_club_games_pass_stockfish(shared_data: Path) -> None:
    """Stockfish (depth 12, multipv 2) agrees on each puzzle's first move and that it is the only
    good one (ferrochess_tools.puzzle_check's verdict, which runs over 100 games by hand)."""
    stockfish_path = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
    if stockfish_path is None:
        pytest.skip("Stockfish is not installed (Debian package stockfish)")
    from ferrochess_tools.puzzle_check import verdict

    with open(shared_data / "pgn" / "lichess_db_100k.pgn", encoding="utf-8") as stream:
        games = [chess.pgn.read_game(stream) for _ in range(CLUB_GAMES.stop)][CLUB_GAMES]
    made = [puzzle for game in games for puzzle in puzzles(game)]  # type: ignore[arg-type]
    assert made, "these games hold blunders: no puzzle was made"
    with chess.engine.SimpleEngine.popen_uci(stockfish_path) as stockfish:
        for puzzle in made:
            board = puzzle.board()
            lines = stockfish.analyse(board, chess.engine.Limit(depth=12), multipv=2)
            first = chess.Move.from_uci(puzzle.moves[0])
            assert verdict(lines, first, board.turn) == "passed", puzzle.to_dict()


def test_a_chess960_game_gives_chess960_puzzles() -> None:
    """Start position 518 is the standard one: Legal's mate played as Chess960 gives the same
    line, marked Chess960 (its board reads castling as the king taking its rook)."""
    headers = f'[Variant "Chess960"]\n[SetUp "1"]\n[FEN "{chess.STARTING_FEN}"]\n'
    (puzzle,) = puzzles(headers + LEGAL.split("\n\n", 1)[1], nodes=NODES)
    assert puzzle.chess960 is True and puzzle.board().chess960
    assert puzzle.moves == ("c4f7", "e8e7", "c3d5")


def test_bad_arguments_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match="pgn"):
        puzzles(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="nodes"):
        puzzles(LEGAL, nodes=10)
    with pytest.raises(ValueError, match="player_color"):
        puzzles(LEGAL, player_color="white")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kind"):
        Puzzle(fen=chess.STARTING_FEN, moves=("e2e4",), themes=(), kind="nonsense")


def test_only_good() -> None:
    assert only_good(Cp(450), Cp(100))
    assert not only_good(Cp(450), Cp(300))  # 150 cp: not 2 pawns
    assert not only_good(Cp(1500), Cp(1200))  # 3 pawns, but both crushing: two answers
    assert only_good(Mate(3), Cp(50)) and not only_good(Mate(3), Cp(900))
    assert not only_good(Mate(2), Mate(4))  # two mates
    assert only_good(Mate(1), Mate(1), first=False)  # any mate in 1 solves the last move
    assert not only_good(Mate(1), Mate(1)) and only_good(Mate(1), Cp(900))
    assert only_good(Cp(10), None)  # the only legal move


# --- opening cards --------------------------------------------------------------------------------


def read(text: str) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    return game


def test_leaving_the_usual_line_and_losing_makes_a_card() -> None:
    won = read('[Result "1-0"]\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0')
    lost = read('[Result "0-1"]\n1. e4 e5 2. Bc4 Nf6 3. Qf3 Nc6 0-1')
    drawn = read('[Result "1/2-1/2"]\n1. e4 e5 2. Bc4 Nf6 1/2-1/2')
    (card,) = opening_cards([(won, chess.WHITE), (lost, chess.WHITE)], book=None)
    assert card.kind == "opening" and card.themes == ("opening",)
    assert card.fen == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    assert card.moves == ("g1f3",) and card.accept == ("g1f3",) and card.source["ply"] == 2
    # Not lost, no engine to weigh the move: no card. The first game alone: nothing to leave.
    assert opening_cards([(won, chess.WHITE), (drawn, chess.WHITE)], book=None) == []
    assert opening_cards([(lost, chess.WHITE)], book=None) == []
    # With the book, a first game that leaves it and loses makes a card accepting book moves.
    (booked,) = opening_cards([(lost, chess.WHITE)], earlier=[], book="default")
    assert "f1c4" not in booked.accept and booked.accept
    with pytest.raises(ValueError, match="colour"):
        opening_cards([(won, "white")], book=None)  # type: ignore[list-item]


# --- spaced repetition and ratings ----------------------------------------------------------------

NOON = datetime.datetime(2026, 1, 1, 12, tzinfo=datetime.timezone.utc)


def test_fsrs_moves_a_card_on_right_and_wrong() -> None:
    exact = scheduler(fuzz=False)
    card = new_card(NOON)
    assert card.due == NOON
    right = review(card, True, seconds=30, now=NOON, using=exact)
    wrong = review(card, False, seconds=30, now=NOON, using=exact)
    assert right.due > wrong.due > NOON
    assert grade(True, 30) == fsrs.Rating.Good and grade(True, 3) == fsrs.Rating.Easy
    assert grade(False, 3) == fsrs.Rating.Again
    # Right three times over the days: in review, weeks apart; then wrong: relearning, minutes.
    when = NOON
    for _ in range(3):
        card = review(card, True, now=when, using=exact)
        when = card.due
    assert card.state == fsrs.State.Review
    interval = card.due - card.last_review
    assert interval >= datetime.timedelta(days=7)
    lapsed = review(card, False, now=card.due, using=exact)
    assert lapsed.state == fsrs.State.Relearning
    assert lapsed.due - card.due <= datetime.timedelta(minutes=10)
    assert card_from_dict(card_to_dict(lapsed)).due == lapsed.due
    with pytest.raises(ValueError, match="now"):
        review(card, True, now=datetime.datetime(2026, 1, 1))  # naive


def test_glicko2_moves_both_ratings() -> None:
    player, puzzle = rate(START, START, True)
    assert player.rating > 1500 > puzzle.rating
    assert player.deviation < 350 and puzzle.deviation < 350
    lost_player, lost_puzzle = rate(START, START, False)
    assert lost_player.rating < 1500 < lost_puzzle.rating
    # Beating a much weaker puzzle gains little; losing to it costs much.
    strong = Glicko(2000, 60)
    weak = Glicko(1200, 60)
    gain = rate(strong, weak, True)[0].rating - 2000
    loss = 2000 - rate(strong, weak, False)[0].rating
    assert 0 < gain < 5 < loss
    assert Glicko.from_dict(player.to_dict()) == player
    with pytest.raises(ValueError, match="deviation"):
        Glicko.from_dict({"rating": 1500, "deviation": "wide", "volatility": 0.06})


# --- storage: the same on SQLite and PostgreSQL ---------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    return fresh_database(request.getfixturevalue("postgres_server"))


def legal_game(client_id: str, player: str | None, human: str = "black") -> dict[str, Any]:
    game: dict[str, Any] = {"client_id": client_id, "moves": LEGAL_MOVES, "human": human,
                            "level": 3}  # fmt: skip
    if player is not None:
        game["player"] = player
    return game


def service(archive: Archive, clock: list[datetime.datetime]) -> TrainingService:
    return TrainingService(archive, engine, nodes=NODES, scheduler=scheduler(fuzz=False),
                           clock=lambda: clock[0])  # fmt: skip


def test_storage_round_trip(database: str) -> None:
    clock = [NOON]
    with Archive.open(database) as archive:
        archive.store_game(legal_game("mine-1", "player-one"))
        archive.store_game(legal_game("theirs-1", "player-two"))
        archive.store_game(legal_game("nobody", None))
        training = service(archive, clock)
        nothing = training.next("player-one")  # nothing mined yet: no puzzle, the rating said
        assert nothing == {"puzzle": None, "card": None,
                           "rating": {"rating": 1500.0, "deviation": 350.0},
                           "counts": {"due": 0, "total": 0}}  # fmt: skip
        mined = training.mine("player-one")
        assert mined["games"] == 1 and mined["cards"] >= 1 and mined["left"] == 0
        assert training.mine("player-one") == {"games": 0, "cards": 0, "left": 0}
        shown = training.next("player-one")
        assert shown is not None
        assert shown["counts"] == {"due": mined["cards"], "total": mined["cards"]}
        assert shown["rating"] == {"rating": 1500.0, "deviation": 350.0}
        assert shown["card"]["state"] == "learning" and shown["card"]["due_now"] is True
        ids = set()
        first = last = None
        while (shown := training.next("player-one"))["puzzle"] is not None:
            puzzle = shown["puzzle"]
            ids.add(puzzle["id"])
            assert puzzle["source"]["game_id"]
            if puzzle["kind"] == "blunder":
                assert puzzle["fen"] == AFTER_BLUNDER and puzzle["moves"][0] == "c4f7"
            answer = training.attempt("player-one", puzzle["id"], True, 30)
            first, last = first or answer, answer
            assert answer["rated"] is True and answer["card"]["due_now"] is False
        assert first is not None and first["rating"]["rating"] > 1500
        assert shown["rating"] == last["rating"]  # nothing due: the rating is still said
        assert shown["counts"]["due"] == 0 and shown["counts"]["total"] == len(ids)
        assert len(ids) == mined["cards"]
        assert training.next("player-two")["puzzle"] is None  # players apart
        rating_now = training._rating("player-one")
        some = sorted(ids)[0]
        due_before = archive.training.card("player-one", some)
        assert due_before is not None

    clock[0] = NOON + datetime.timedelta(days=1)
    with Archive.open(database) as archive:  # a reload keeps cards and ratings
        training = service(archive, clock)
        assert training._rating("player-one") == rating_now
        again = training.next("player-one")
        assert again is not None and again["card"]["state"] == "learning"
        assert again["card"]["step"] == 1
        answer = training.attempt("player-one", again["puzzle"]["id"], False, 5)
        assert answer["rated"] is False  # a replay is not rated
        assert answer["rating"] == {"rating": rating_now["rating"],
                                    "deviation": rating_now["deviation"]}  # fmt: skip
        assert answer["card"]["state"] == "learning" and answer["card"]["step"] == 0
        stored = archive.training.attempts("player-one", again["puzzle"]["id"])
        assert [entry["solved"] for entry in stored] == [True, False]
        assert [entry["rated"] for entry in stored] == [True, False]
        assert archive.training.puzzle_rating(again["puzzle"]["id"])["attempts"] == 1
        # The other player mines the same game's puzzle: stored once, their own card.
        assert training.mine("player-two")["cards"] >= 1
        theirs = training.next("player-two")
        assert theirs is not None and theirs["card"]["step"] == 0
        assert archive.integrity_check() == ["ok"]


def test_bad_training_input_names_the_field(database: str) -> None:
    with Archive.open(database) as archive:
        with pytest.raises(BadInput) as bad:
            archive.store_game(legal_game("x", "not a player id!"))
        assert bad.value.field == "player"
        archive.store_game(legal_game("y", "someone"))
        training = service(archive, [NOON])
        for call, field in [
            (lambda: training.next(None), "player"),
            (lambda: training.attempt("someone", "zz", True), "puzzle"),
            (lambda: training.attempt("someone", "0123456789abcdef", "yes"), "solved"),
            (lambda: training.attempt("someone", "0123456789abcdef", True, -1), "seconds"),
            (lambda: training.attempt("someone", "0123456789abcdef", True), "puzzle"),
        ]:
            with pytest.raises(BadInput) as refused:
                call()
            assert refused.value.field == field


def test_a_version_3_database_gets_the_player_column(database: str) -> None:
    with Archive.open(database, upgrade_to=3) as old:
        public_id, _ = old.store_game(legal_game("before", None))
    with Archive.open(database) as archive:
        assert archive.get_game(public_id) is not None
        assert archive.training.player_games("anyone") == []
        archive.store_game(legal_game("after", "anyone"))
        (only,) = archive.training.player_games("anyone")
        assert only["human"] == "black" and only["mined"] is False
        assert archive.integrity_check() == ["ok"]


# --- the JSON API ---------------------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path) -> Iterator[FlaskClient]:
    app = create_app({"FERROCHESS_ENGINES": 1, "FERROCHESS_DATABASE": tmp_path / "g.sqlite3",
                      "FERROCHESS_TRAIN_NODES": NODES})  # fmt: skip
    yield app.test_client()
    app.extensions["ferrochess_pool"].close()
    app.extensions["ferrochess_archive"].close()


def test_the_api_trains_on_a_stored_game(client: FlaskClient) -> None:
    stored = client.post("/api/games", json=legal_game("api-1", "web-player"))
    assert stored.status_code == 201
    assert client.get("/api/train/next?player=web-player").get_json()["puzzle"] is None
    mined = client.post("/api/train/mine", json={"player": "web-player"})
    assert mined.status_code == 200 and mined.get_json()["games"] == 1
    shown = client.get("/api/train/next?player=web-player").get_json()
    assert set(shown) == {"puzzle", "card", "rating", "counts"}
    assert set(shown["puzzle"]) == {"id", "fen", "moves", "themes", "kind", "source",
                                    "chess960", "accept"}  # fmt: skip
    answer = client.post("/api/train/attempt", json={
        "player": "web-player", "puzzle": shown["puzzle"]["id"], "solved": False})
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["rated"] is True and body["rating"]["rating"] < 1500


@pytest.mark.parametrize(
    ("method", "url", "body", "field"),
    [
        ("get", "/api/train/next", None, "player"),
        ("get", "/api/train/next?player=bad%20id", None, "player"),
        ("post", "/api/train/attempt", {"player": "p", "puzzle": "nope", "solved": True},
         "puzzle"),
        ("post", "/api/train/attempt", {"player": "p", "puzzle": "0123456789abcdef",
                                        "solved": 1}, "solved"),
        ("post", "/api/train/attempt", {"player": "p", "puzzle": "0123456789abcdef",
                                        "solved": True}, "puzzle"),
        ("post", "/api/train/mine", {"player": "p", "max_games": 0}, "max_games"),
        ("post", "/api/train/mine", {}, "player"),
        ("post", "/api/train/mine", [1, 2], "body"),
    ],
)
def test_api_errors_name_the_field(
    client: FlaskClient, method: str, url: str, body: Any, field: str
) -> None:
    response = getattr(client, method)(url, json=body) if body is not None else (
        getattr(client, method)(url))
    assert response.status_code == 400
    assert response.get_json()["field"] == field and response.get_json()["error"]


def test_without_an_archive_training_is_404() -> None:
    app = create_app({"FERROCHESS_ENGINES": 1})
    try:
        response = app.test_client().get("/api/train/next?player=p")
        assert response.status_code == 404 and "archive" in response.get_json()["error"]
    finally:
        app.extensions["ferrochess_pool"].close()


def test_without_fsrs_the_app_serves_and_training_is_501(tmp_path: Path) -> None:
    """fsrs needs Python 3.10: where it is missing the play app still starts (it loads no training
    module) and the training API says why it cannot run."""
    code = f"""
import json, sys
sys.modules["fsrs"] = None  # as if not installed
from ferrochess.web import create_app
database = {str(tmp_path / "g.sqlite3")!r}
app = create_app({{"FERROCHESS_ENGINES": 1, "FERROCHESS_DATABASE": database}})
assert "ferrochess.training" not in sys.modules
response = app.test_client().get("/api/train/next?player=p")
print(json.dumps([response.status_code, response.get_json()]))
app.extensions["ferrochess_pool"].close()
app.extensions["ferrochess_archive"].close()
"""
    process = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=120, check=False)  # fmt: skip
    assert process.returncode == 0, process.stderr
    status, body = json.loads(process.stdout.strip().splitlines()[-1])
    assert status == 501 and "fsrs" in body["error"]
