"""Guards the one shape of a time control (ferrochess.service.time_control): one reader takes a
time control in every shape a request, a query or a stored game may carry ("300+3", null, "-"
where it means none, and the ``[initial, increment]`` an older play page left in its outbox),
refuses anything else naming the field; one writer gives PGN's TimeControl tag; clocks are
seconds everywhere. A game stored from the older shape and sent again in the new one is the
same game (same content hash), not a conflict."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import chess.pgn
import pytest
from ferrochess.service.archive import Archive
from ferrochess.service.game_pgn import game_pgn
from ferrochess.service.reading import BadInput
from ferrochess.service.submission import read_submission
from ferrochess.service.time_control import (
    TimeControl,
    read_clocks,
    read_time_control,
    tag_of,
)

FLAGGED: dict[str, Any] = {
    "client_id": "clocked-1",
    "moves": ["e2e4", "e7e5", "g1f3"],
    "end": {"by": "flag", "color": "black"},
    "human": "white",
    "level": 3,
    "clocks": [299.5, 290, 298.1],
    "finished_at": "2024-05-01T12:00:00Z",
}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("300+3", TimeControl(300, 3)),  # the one shape: requests, queries, stored games
        (" 60+0 ", TimeControl(60, 0)),
        ("0+2", TimeControl(0, 2)),
        ("86400+86400", TimeControl(86400, 86400)),
        ([180, 2], TimeControl(180, 2)),  # an older page's archive submission
        ([180.0, 2], TimeControl(180, 2)),
        (None, None),  # none: JSON's null, a stored untimed game
    ],
    ids=repr,
)
def test_every_shape_is_read(value: object, expected: TimeControl | None) -> None:
    assert read_time_control(value) == expected


def test_a_dash_means_none_where_the_caller_says_so() -> None:
    assert read_time_control("-", untimed="-") is None  # a query's or PGN's "no clock"
    with pytest.raises(BadInput):
        read_time_control("-")  # not in a request's JSON, where null says it


@pytest.mark.parametrize(
    "value",
    ["300", "5 min", "-1+0", "0+0", "3+2+1", "1.5+0", "86401+0", [0, 0], [300], [-1, 0],
     [True, 0], ["300", 3], {"initial": 300_000, "increment": 3_000}, 300],
    ids=repr,
)  # fmt: skip
def test_anything_else_is_refused_naming_the_field(value: object) -> None:
    with pytest.raises(BadInput) as raised:
        read_time_control(value, "time_control")
    assert raised.value.field == "time_control"
    assert "time_control" in str(raised.value)


def test_one_writer_of_the_tag() -> None:
    assert TimeControl(300, 3).tag() == str(TimeControl(300, 3)) == "300+3"
    assert tag_of(TimeControl(15, 0)) == "15+0" and tag_of(None) == "-"
    for text in ("300+3", "15+0", "0+1"):
        assert tag_of(read_time_control(text)) == text


def test_clocks_are_seconds_and_need_a_time_control() -> None:
    control = TimeControl(60, 1)
    assert read_clocks([59.5, None, 58], 3, control) == [59.5, None, 58.0]
    assert read_clocks(None, 3, control) == [] and read_clocks(None, 3, None) == []
    refused = [([1, 2], 1, control), ([-1], 1, control), (["0:59"], 1, control),
               ([86401], 1, control), ([59], 1, None), (59, 1, control)]  # fmt: skip
    for clocks, plies, timed in refused:
        with pytest.raises(BadInput) as raised:
            read_clocks(clocks, plies, timed)
        assert raised.value.field == "clocks", (clocks, str(raised.value))


def test_the_pgn_writes_the_tag_and_the_clocks() -> None:
    board = chess.Board()
    for uci in ("e2e4", "e7e5"):
        board.push_uci(uci)
    status = {"result": "*", "over": False, "termination": None}
    written = game_pgn(
        board, event="e", site="s", date="2024.05.01", white="w", black="b", status=status,
        opening=None, time_control=TimeControl(180, 2), clocks=[180.0, 179.4],
    )  # fmt: skip
    game = chess.pgn.read_game(io.StringIO(written))
    assert game is not None and game.headers["TimeControl"] == "180+2"
    assert [node.clock() for node in game.mainline()] == [180.0, 179.0]


def test_a_submission_stores_the_tag_and_hashes_as_the_older_shape_did(tmp_path: Path) -> None:
    new = read_submission({**FLAGGED, "time_control": "300+3"})
    old = read_submission({**FLAGGED, "time_control": [300, 3]})
    assert new["time_control"] == old["time_control"] == "300+3"
    assert new["content_hash"] == old["content_hash"]
    with Archive.open(tmp_path / "games.sqlite3") as archive:
        stored, created = archive.store_game({**FLAGGED, "time_control": [300, 3]})
        again, created_again = archive.store_game({**FLAGGED, "time_control": "300+3"})
        assert (again, created, created_again) == (stored, True, False)
        record = archive.get_game(stored)
        assert record is not None and record["time_control"] == "300+3"
        assert record["clocks"] == [299.5, 290.0, 298.1]
        [summary], total = archive.list_games(time_control="300+3")
        assert summary["id"] == stored and total == 1
        assert archive.list_games(time_control="-") == ([], 0)
        assert '[TimeControl "300+3"]' in archive.game_pgn(stored)
