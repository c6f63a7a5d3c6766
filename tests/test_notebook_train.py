"""The notebook's training board on the kernel's side (``ferrochess.notebook.train``): the front
end it is sent (the page's training modules, mounted by the shared widget entry, without the
page's own wiring); puzzles made from games (PGN text, a file, a game) and kept in the kernel, or
a player's cards in the games archive shared with /train; a puzzle solved through the comm as
the page solves it (``api/train/next`` with the player in its query, every move judged by
``api/state``, one ``api/train/attempt``): solved, the rating goes up and the card goes away;
failed, the rating goes down and the card comes back within minutes; a second attempt is
unrated. Bad arguments raise errors naming them; bad requests are refused with the field."""

from __future__ import annotations

import datetime
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.engine
import chess.pgn
import pytest
from ferrochess import Engine
from ferrochess.notebook import train
from ferrochess.notebook_train import DEFAULT_PLAYER, TRAIN_UI
from ferrochess.widget_comm import STATIC
from widget_helpers import Comm

pytest.importorskip("anywidget", reason="anywidget is not installed (pip install anywidget)")

SCHOLAR = '[White "ferrochess"]\n[Black "Me"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'
"""Black blunders 3...Nf6?? and is mated: the puzzle is White's 4.Qxf7#."""
SCHOLAR_FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
NODES = 20_000
PLAYER = "nb-test-player"


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    with Engine(seed=3, book=None) as made:
        yield made


@pytest.fixture
def widget(engine: Engine) -> Iterator[Any]:
    board = train(SCHOLAR, color="black", nodes=NODES, engine=engine)
    yield board
    board.close()


def ok(answer: dict[str, Any]) -> Any:
    assert answer["ok"], answer
    return answer["data"]


def solve(comm: Comm, player: str, moves: list[str], seconds: float = 30) -> dict[str, Any]:
    """The page's way through the next puzzle: ask for it, play ``moves`` (each judged by the
    server), post the attempt: solved when the moves are the line's or the last one mates."""
    shown = ok(comm.ask(f"api/train/next?player={player}"))
    puzzle = shown["puzzle"]
    state = ok(comm.ask("api/state", {"fen": puzzle["fen"], "moves": moves}))
    solved = state["moves"] == puzzle["moves"][: len(moves)] or (
        state["status"]["over"] and state["status"]["winner"] == "white"
    )
    body = {"player": player, "puzzle": puzzle["id"], "solved": solved, "seconds": seconds}
    return {"shown": shown, "state": state, "attempt": ok(comm.ask("api/train/attempt", body))}


def test_it_mounts_the_training_board_with_the_pages_modules(widget: Any) -> None:
    assert widget._entry == TRAIN_UI
    assert widget._esm == (STATIC / "play" / "widget.js").read_text(encoding="utf-8")
    for name in ("train/app.js", "train/ctrl.js", "train/view.js", "play/board.js", "ui/player.js"):
        assert name in widget._modules, name
    assert "train/page.js" not in widget._modules and "play/page.js" not in widget._modules
    assert "/* train/train.css */" in widget._css
    assert widget.options == {"player": DEFAULT_PLAYER, "keyboard": "root"}
    [puzzle] = widget.puzzles
    assert puzzle.fen == SCHOLAR_FEN and puzzle.moves == ("h5f7",)


def test_a_puzzle_solved_through_the_comm_raises_the_rating(widget: Any) -> None:
    comm = Comm(widget)
    done = solve(comm, DEFAULT_PLAYER, ["h5f7"])
    shown, attempt = done["shown"], done["attempt"]
    assert shown["rating"] == {"rating": 1500.0, "deviation": 350.0}
    assert shown["counts"] == {"due": 1, "total": 1}
    assert done["state"]["status"]["winner"] == "white"  # the server judged the mate
    assert attempt["rated"] and attempt["rating"]["rating"] > 1500
    assert attempt["counts"] == {"due": 0, "total": 1} and not attempt["card"]["due_now"]
    nothing = ok(comm.ask(f"api/train/next?player={DEFAULT_PLAYER}"))  # nothing due now
    assert nothing["puzzle"] is None and nothing["rating"] == attempt["rating"]
    assert nothing["counts"] == {"due": 0, "total": 1}
    assert widget.training.attempts == [
        {"puzzle": shown["puzzle"]["id"], "solved": True, "seconds": 30.0}
    ]
    # Again (the card made due): unrated, the rating stays.
    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=400)
    widget.training.clock = lambda: later
    again = solve(comm, DEFAULT_PLAYER, ["h5f7"])["attempt"]
    assert not again["rated"] and again["rating"] == attempt["rating"]


def test_a_wrong_move_fails_the_puzzle_and_it_comes_back_soon(widget: Any) -> None:
    comm = Comm(widget)
    done = solve(comm, DEFAULT_PLAYER, ["h5h4"], seconds=5)
    attempt = done["attempt"]
    assert not done["state"]["status"]["over"]
    assert attempt["rated"] and attempt["rating"]["rating"] < 1500
    due = datetime.datetime.fromisoformat(attempt["card"]["due"])
    assert due - datetime.datetime.now(datetime.timezone.utc) < datetime.timedelta(minutes=5)
    assert widget.training.attempts[-1]["solved"] is False


def test_bad_requests_are_refused_naming_the_field(widget: Any) -> None:
    comm = Comm(widget)
    wrong_player = comm.ask("api/train/next?player=someone-else")
    assert not wrong_player["ok"] and wrong_player["status"] == 400
    assert wrong_player["field"] == "player"
    body = {"player": DEFAULT_PLAYER, "puzzle": "0123456789abcdef", "solved": True}
    unknown = comm.ask("api/train/attempt", body)
    assert not unknown["ok"] and unknown["field"] == "puzzle" and unknown["status"] == 400
    [puzzle] = widget.puzzles
    body = {"player": DEFAULT_PLAYER, "puzzle": puzzle.id, "solved": "yes"}
    assert comm.ask("api/train/attempt", body)["field"] == "solved"
    illegal = comm.ask("api/state", {"fen": SCHOLAR_FEN, "moves": ["h5h8"]})
    assert not illegal["ok"] and illegal["field"] == "moves[0]"
    assert ok(comm.ask("api/train/mine", {"player": DEFAULT_PLAYER})) == {
        "games": 0, "cards": 0, "left": 0,
    }  # fmt: skip


def test_it_reads_a_file_and_a_game_and_names_bad_arguments(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "mine.pgn"
    path.write_text(SCHOLAR, encoding="utf-8")
    game = chess.pgn.read_game(io.StringIO(SCHOLAR))
    for source in (path, str(path), game):
        with train(source, color="black", nodes=NODES, engine=engine) as board:
            assert [puzzle.fen for puzzle in board.puzzles] == [SCHOLAR_FEN]
    with pytest.raises(FileNotFoundError, match="missing.pgn"):
        train(str(tmp_path / "missing.pgn"), engine=engine)
    with pytest.raises(TypeError, match="int"):
        train(42, engine=engine)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no game with moves"):
        train("this is not a game", engine=engine)
    with pytest.raises(ValueError, match="one of them"):
        train(engine=engine)
    with pytest.raises(ValueError, match="one of them"):
        train(SCHOLAR, archive=tmp_path / "games.sqlite3", engine=engine)
    with pytest.raises(ValueError, match="needs the player"):
        train(archive=tmp_path / "games.sqlite3", engine=engine)
    with pytest.raises(ValueError, match="'bad id!'"):
        train(SCHOLAR, player="bad id!", engine=engine)
    with pytest.raises(ValueError, match="'red'"):
        train(SCHOLAR, color="red", engine=engine)
    with pytest.raises(ValueError, match="nodes"):
        train(SCHOLAR, nodes=5, engine=engine)
    assert engine.analyse(chess.Board(), chess.engine.Limit(nodes=100))  # still open


def test_a_players_cards_in_the_archive_are_the_pages(engine: Engine, tmp_path: Path) -> None:
    from ferrochess.service.archive import Archive
    from ferrochess.service.training import TrainingService

    database = tmp_path / "games.sqlite3"
    board = chess.Board()
    moves = [board.push_san(san).uci() for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]]
    with Archive.open(database) as archive:
        game_id, _ = archive.store_game({
            "client_id": "scholar", "moves": moves, "human": "black", "level": 1,
            "white": "ferrochess level 1", "black": "You", "player": PLAYER,
        })  # fmt: skip
    with train(archive=database, player=PLAYER, nodes=NODES, engine=engine) as widget:
        assert widget.options["player"] == PLAYER and widget.puzzles == []
        comm = Comm(widget)
        assert ok(comm.ask(f"api/train/next?player={PLAYER}"))["puzzle"] is None  # not mined
        mined = ok(comm.ask("api/train/mine", {"player": PLAYER}))
        assert mined["games"] == 1 and mined["cards"] >= 1 and mined["left"] == 0
        done = solve(comm, PLAYER, ["h5f7"])
        assert done["shown"]["puzzle"]["fen"] == SCHOLAR_FEN
        assert done["shown"]["puzzle"]["source"]["game_id"] == game_id
        after = done["attempt"]["rating"]
        assert after["rating"] > 1500
    with Archive.open(database) as archive:  # what the page's server reads
        page = TrainingService(archive, lambda: engine, nodes=NODES)
        assert page.attempt(PLAYER, done["shown"]["puzzle"]["id"], True)["rating"] == after
