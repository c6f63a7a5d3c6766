"""The games archive (ferrochess.service.archive): the same tests on a real SQLite file and on a
real PostgreSQL server (a throwaway cluster from postgres_helpers, skipped with the reason where it
cannot start): store, list, filter, page, export as PGN, a submission stored once, reviews stored
once, a version-1 database upgraded, a newer one refused, concurrent writers, an unreachable
server."""

from __future__ import annotations

import io
import multiprocessing
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
import sqlalchemy as sa
from ferrochess.service.archive import (
    SCHEMA_VERSION,
    Archive,
    ArchiveConflict,
    ArchiveError,
    ArchiveMissing,
    ArchiveUnavailable,
    database_url,
    queries,
    schema,
)
from ferrochess.service.archive import database as archive_database
from ferrochess.service.reading import BadInput
from postgres_helpers import (  # noqa: F401 - the fixture is used by name
    ClusterUnavailable,
    free_port,
    fresh_database,
    postgres_server_fixture,
    start_cluster,
)

SCHOLAR = "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7".split()
"""Scholar's mate: 1-0 by checkmate, in the Bishop's Opening."""
FOOL = "f2f3 e7e5 g2g4 d8h4".split()
"""Fool's mate: 0-1 by checkmate."""


def game(client_id: str, **fields: Any) -> dict[str, Any]:
    """A finished game as the play page submits it (Scholar's mate unless ``fields`` say)."""
    return {
        "client_id": client_id,
        "fen": chess.STARTING_FEN,
        "moves": SCHOLAR,
        "end": None,
        "human": "white",
        "level": 3,
        "white": "You",
        "black": "ferrochess level 3",
        "time_control": None,
        "clocks": [],
        "started_at": None,
        **fields,
    }


RESIGNED: dict[str, Any] = {"moves": ["e2e4", "e7e5"], "end": {"by": "resign", "color": "white"}}
"""0-1: White resigned."""
AGREED: dict[str, Any] = {"moves": ["d2d4", "d7d5"], "end": {"by": "agreement"}}
"""1/2-1/2 by agreement."""
FLAGGED: dict[str, Any] = {
    "moves": ["e2e4", "e7e5", "g1f3"],
    "end": {"by": "flag", "color": "black"},
    "time_control": "60+1",
    "clocks": [59.5, 30, 58],
}
"""1-0: Black's flag fell (White has mating material)."""


# --- the two databases ----------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty database: an SQLite file (given as a path) or a PostgreSQL database (a URL)."""
    if request.param == "sqlite":
        return str(tmp_path / "games.sqlite3")
    server = request.getfixturevalue("postgres_server")
    return fresh_database(server)


@pytest.fixture
def archive(database: str) -> Iterator[Archive]:
    opened = Archive.open(database)
    try:
        yield opened
    finally:
        opened.close()


def run_threads(count: int, work: Callable[[int], Any]) -> list[Any]:
    """``work(i)`` for i in range(count), each in its own thread, started together."""
    barrier = threading.Barrier(count)

    def started(index: int) -> Any:
        barrier.wait(timeout=10)
        return work(index)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(started, range(count)))


# --- storing, listing, filtering, paging ----------------------------------------------------------


def test_store_then_get(archive: Archive) -> None:
    submitted = game(
        "game-1",
        time_control="300+3",
        clocks=[299.6, 298, None, 296, 295, 294, 290],
        started_at="2024-05-01T12:00:00Z",
    )
    public_id, created = archive.store_game(submitted)
    assert created
    assert len(public_id) == 16 and public_id != "game-1"
    record = archive.get_game(public_id)
    assert record is not None
    assert record["id"] == public_id
    assert "client_id" not in record
    assert record["moves"] == SCHOLAR and record["plies"] == 7
    assert record["fen"] == chess.STARTING_FEN
    assert (record["result"], record["termination"]) == ("1-0", "checkmate")
    assert record["status"]["reason"] == "checkmate" and record["status"]["winner"] == "white"
    assert record["opening"] == {"eco": "C23", "name": "Bishop's Opening"}
    assert record["time_control"] == "300+3"
    assert record["clocks"] == [299.6, 298.0, None, 296.0, 295.0, 294.0, 290.0]
    assert record["started_at"] == "2024-05-01T12:00:00.000000+00:00"
    assert record["finished_at"] > record["started_at"]
    assert (record["human"], record["level"]) == ("white", 3)
    assert (record["white"], record["black"]) == ("You", "ferrochess level 3")
    assert record["end"] is None and record["review"] is None
    assert archive.get_game("no-such-game") is None
    assert archive.get_game("../../etc") is None


def test_the_server_judges_the_result(archive: Archive) -> None:
    """Result and termination come from the moves and the end, whatever the client says."""
    cases = [
        (game("fool", moves=FOOL, result="1-0"), "0-1", "checkmate"),
        (game("resign", **RESIGNED), "0-1", "resign"),
        (game("agree", **AGREED), "1/2-1/2", "agreement"),
        (game("flag", **FLAGGED), "1-0", "flag"),
    ]
    for submitted, result, termination in cases:
        public_id, _ = archive.store_game(submitted)
        record = archive.get_game(public_id)
        assert record is not None
        assert (record["result"], record["termination"]) == (result, termination)


def test_list_filter_and_page(archive: Archive) -> None:
    stored = {}
    plan: list[tuple[str, str, dict[str, Any]]] = [  # finished_at decides the order
        ("a", "2024-01-01T10:00:00Z", {"level": 1}),
        ("b", "2024-01-02T10:00:00Z", {"level": 1, **RESIGNED}),
        ("c", "2024-01-03T10:00:00Z", {"level": 2, **AGREED}),
        ("d", "2024-01-04T10:00:00Z", {"level": 2, **FLAGGED}),
        ("e", "2024-01-05T10:00:00Z", {"level": 5, "time_control": "60+1"}),
    ]
    for client_id, finished_at, fields in plan:
        stored[client_id], _ = archive.store_game(
            game(client_id, finished_at=finished_at, **fields)
        )

    def ids(rows: list[dict[str, Any]]) -> list[str]:
        by_id = {public: client for client, public in stored.items()}
        return [by_id[row["id"]] for row in rows]

    rows, total = archive.list_games()
    assert total == 5 and ids(rows) == ["e", "d", "c", "b", "a"]
    assert "moves" not in rows[0] and rows[0]["finished_at"].startswith("2024-01-05T10:00:00")
    assert archive.list_games(result="1-0")[1] == 3
    assert ids(archive.list_games(result="0-1")[0]) == ["b"]
    assert ids(archive.list_games(result="1/2-1/2")[0]) == ["c"]
    assert ids(archive.list_games(level=2)[0]) == ["d", "c"]
    assert ids(archive.list_games(level="1")[0]) == ["b", "a"]  # a query string's text
    assert ids(archive.list_games(time_control="60+1")[0]) == ["e", "d"]
    assert ids(archive.list_games(time_control="60+1", result="1-0", level=5)[0]) == ["e"]
    assert ids(archive.list_games(time_control="-")[0]) == ["c", "b", "a"]
    assert archive.list_games(time_control="600+0") == ([], 0)

    pages = [archive.list_games(page=page, per_page=2) for page in (1, 2, 3, 4)]
    assert [ids(rows) for rows, _ in pages] == [["e", "d"], ["c", "b"], ["a"], []]
    assert {total for _, total in pages} == {5}
    assert archive.list_games(page="2", per_page="2", result="1-0")[1] == 3

    refusals: list[tuple[dict[str, Any], str]] = [
        ({"result": "white"}, "result"),
        ({"level": 0}, "level"),
        ({"level": "three"}, "level"),
        ({"time_control": "blitz"}, "time_control"),
        ({"page": 0}, "page"),
        ({"per_page": 1000}, "per_page"),
    ]
    for bad, field in refusals:
        with pytest.raises(BadInput) as refused:
            archive.list_games(**bad)
        assert refused.value.field == field, bad


def test_newest_first_ties_broken_by_id(archive: Archive) -> None:
    when = "2024-03-01T08:00:00+02:00"
    public_ids = [archive.store_game(game(f"tie-{n}", finished_at=when))[0] for n in range(5)]
    rows, total = archive.list_games()
    assert total == 5
    assert [row["id"] for row in rows] == sorted(public_ids, reverse=True)
    assert {row["finished_at"] for row in rows} == {"2024-03-01T06:00:00.000000+00:00"}


def test_names_default_to_the_colours(archive: Archive) -> None:
    public_id, _ = archive.store_game(game("nameless", white=None, black=""))
    record = archive.get_game(public_id)
    assert record is not None and (record["white"], record["black"]) == ("White", "Black")


def test_finished_at_is_never_in_the_future(archive: Archive) -> None:
    public_id, _ = archive.store_game(game("future", finished_at="2999-01-01T00:00:00Z"))
    record = archive.get_game(public_id)
    assert record is not None and record["finished_at"] < "2999"


# --- a game is submitted once ---------------------------------------------------------------------


def test_same_submission_twice_stores_one_game(archive: Archive) -> None:
    submitted = game("retried", time_control="180+2", clocks=[179, 178])
    first = archive.store_game(submitted)
    again = archive.store_game(dict(submitted))
    assert first[1] is True and again == (first[0], False)
    assert archive.list_games()[1] == 1


def test_same_client_id_other_content_conflicts(archive: Archive) -> None:
    public_id, _ = archive.store_game(game("mine"))
    for other in [game("mine", white="Someone else"), game("mine", moves=FOOL)]:
        with pytest.raises(ArchiveConflict, match="mine"):
            archive.store_game(other)
    assert archive.list_games()[1] == 1
    record = archive.get_game(public_id)
    assert record is not None and record["white"] == "You"


def test_a_game_not_over_is_refused(archive: Archive) -> None:
    with pytest.raises(BadInput, match="not over") as refused:
        archive.store_game(game("unfinished", moves=["e2e4", "e7e5"]))
    assert refused.value.field == "moves"
    assert archive.list_games() == ([], 0)


BAD_FIELDS = [
    ({"client_id": "has space"}, "client_id"),
    ({"client_id": "x" * 65}, "client_id"),
    ({"client_id": None}, "client_id"),
    ({"fen": "not a fen"}, "fen"),
    ({"moves": ["e2e4", "e2e4"]}, "moves[1]"),
    ({"moves": SCHOLAR + ["e7e6"]}, "moves[7]"),
    ({"end": {"by": "resign", "color": "pink"}}, "end"),
    ({"human": "red"}, "human"),
    ({"level": 0}, "level"),
    ({"level": 11}, "level"),
    ({"level": "3"}, "level"),
    ({"white": "two\nlines"}, "white"),
    ({"black": "x" * 101}, "black"),
    ({"time_control": "300"}, "time_control"),
    ({"time_control": "-1+0"}, "time_control"),
    ({"time_control": "0+0"}, "time_control"),
    ({"time_control": {"initial": 300}}, "time_control"),
    ({"time_control": "60+0", "clocks": [1.0] * 8}, "clocks"),
    ({"time_control": "60+0", "clocks": [-1]}, "clocks"),
    ({"time_control": "60+0", "clocks": ["1:00"]}, "clocks"),
    ({"clocks": [59]}, "clocks"),  # a clock without a time control
    ({"started_at": "yesterday"}, "started_at"),
    ({"started_at": 1714560000}, "started_at"),
    ({"finished_at": "2024-13-01"}, "finished_at"),
]


@pytest.mark.parametrize(("fields", "field"), BAD_FIELDS, ids=[f for _, f in BAD_FIELDS])
def test_bad_fields_are_refused_by_name(
    archive: Archive, fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(BadInput) as refused:
        archive.store_game({**game("bad"), **fields})
    assert refused.value.field == field
    assert archive.list_games()[1] == 0


# --- reviews --------------------------------------------------------------------------------------


def review_of(moves: list[str], note: str = "first") -> dict[str, Any]:
    return {
        "headers": {"Result": "1-0"},
        "moves": [{"ply": n, "move": uci, "judgement": None} for n, uci in enumerate(moves, 1)],
        "accuracy": {"white": 91.5, "black": 12.25},
        "note": note,
    }


def test_a_review_is_stored_once(archive: Archive) -> None:
    public_id, _ = archive.store_game(game("reviewed"))
    assert archive.store_review(public_id, review_of(SCHOLAR)) is True
    assert archive.store_review(public_id, review_of(SCHOLAR, note="second")) is False
    record = archive.get_game(public_id)
    assert record is not None and record["review"] == review_of(SCHOLAR)
    with pytest.raises(BadInput) as refused:
        archive.store_review(public_id, review_of(FOOL))
    assert refused.value.field == "review"
    with pytest.raises(BadInput):
        archive.store_review(public_id, {"moves": "e2e4"})
    with pytest.raises(ArchiveMissing):
        archive.store_review("NoSuchGame000000", review_of(SCHOLAR))
    record = archive.get_game(public_id)
    assert record is not None and record["review"]["note"] == "first"


# --- PGN ------------------------------------------------------------------------------------------


def test_iter_pgn_streams_every_game_in_batches(
    archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queries, "PGN_BATCH", 3)
    when = "2024-06-01T09:30:00Z"  # the same for all: the batches go on by id
    plan = [game(f"pgn-{n}", finished_at=when, white=f"Player {n}") for n in range(7)]
    plan.append(game("pgn-flag", finished_at="2024-06-02T09:30:00Z", **FLAGGED))
    plan.append(game("pgn-resign", started_at="2024-05-31T23:00:00Z", **RESIGNED))
    public_ids = [archive.store_game(submitted)[0] for submitted in plan]

    selects: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "games" in statement:
            selects.append(statement)

    sa.event.listen(archive.engine, "before_cursor_execute", count)
    try:
        chunks = list(archive.iter_pgn(base_url="https://example.org/game/"))
    finally:
        sa.event.remove(archive.engine, "before_cursor_execute", count)
    assert len(chunks) == 9 and all(chunk.endswith("\n\n") for chunk in chunks)
    assert len(selects) == 4  # 3 + 3 + 3, then one that finds none

    text = "".join(chunks)
    stream = io.StringIO(text)
    read = []
    while (pgn_game := chess.pgn.read_game(stream)) is not None:
        assert not pgn_game.errors
        read.append(pgn_game)
    assert len(read) == 9
    sites = [pgn_game.headers["Site"] for pgn_game in read]
    assert sorted(sites) == sorted(f"https://example.org/game/{gid}" for gid in public_ids)
    assert read[0].headers["White"] == "You"  # the newest: stored last, finished now
    by_site = {pgn_game.headers["Site"].rsplit("/", 1)[1]: pgn_game for pgn_game in read}

    flagged = by_site[public_ids[7]]
    assert flagged.headers["Result"] == "1-0"
    assert flagged.headers["Termination"] == "time forfeit"
    assert flagged.headers["TimeControl"] == "60+1"
    assert flagged.headers["Date"] == "2024.06.02"
    assert flagged.headers["Event"] == "ferrochess"
    assert [node.clock() for node in flagged.mainline()] == [59.0, 30.0, 58.0]
    assert [move.uci() for move in flagged.mainline_moves()] == FLAGGED["moves"]

    mate = by_site[public_ids[0]]
    assert mate.headers["Result"] == "1-0" and mate.headers["Termination"] == "normal"
    assert mate.headers["TimeControl"] == "-"
    assert (mate.headers["ECO"], mate.headers["Opening"]) == ("C23", "Bishop's Opening")
    assert mate.headers["White"] == "Player 0"
    assert mate.end().board().is_checkmate()
    assert by_site[public_ids[8]].headers["Date"] == "2024.05.31"  # the day it started

    assert len(list(archive.iter_pgn(result="0-1"))) == 1
    assert list(archive.iter_pgn(level=9)) == []
    with pytest.raises(BadInput):
        archive.iter_pgn(result="won")


def test_game_pgn(archive: Archive) -> None:
    start = "7k/8/6K1/8/8/8/8/R7 w - - 0 1"
    public_id, _ = archive.store_game(game("rook", fen=start, moves=["a1a8"]))
    text = archive.game_pgn(public_id)
    read = chess.pgn.read_game(io.StringIO(text))
    assert read is not None
    assert read.headers["FEN"] == start and read.headers["Result"] == "1-0"
    assert read.end().board().is_checkmate()
    with pytest.raises(ArchiveMissing):
        archive.game_pgn("NoSuchGame000000")


# --- schema versions ------------------------------------------------------------------------------


def table_names(database: str) -> set[str]:
    engine = sa.create_engine(database_url(database))
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def set_version(database: str, version: int) -> None:
    engine = sa.create_engine(database_url(database))
    try:
        with engine.begin() as connection:
            connection.execute(sa.text("UPDATE schema_version SET version = :v"), {"v": version})
    finally:
        engine.dispose()


def test_a_version_1_database_is_upgraded(database: str) -> None:
    with Archive.open(database, upgrade_to=1) as old:
        assert old.version == 1
        public_id, _ = old.store_game(game("from-version-1", **FLAGGED))
    assert "reviews" not in table_names(database)
    with Archive.open(database) as archive:
        assert archive.version == SCHEMA_VERSION
        record = archive.get_game(public_id)
        assert record is not None and record["review"] is None and record["result"] == "1-0"
        assert archive.list_games()[0][0]["id"] == public_id
        assert archive.store_review(public_id, review_of(FLAGGED["moves"])) is True
        assert archive.store_game(game("from-version-1", **FLAGGED)) == (public_id, False)
        assert archive.integrity_check() == ["ok"]
    assert {"games", "reviews", "schema_version"} <= table_names(database)


def test_a_failed_step_leaves_the_previous_version(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each step is one transaction with its version bump: a step that fails half way leaves
    nothing of itself (SQLite's DDL too), and the next open applies it."""
    Archive.open(database, upgrade_to=1).close()

    def broken(connection: sa.Connection) -> None:
        schema._step_2(connection)  # creates the reviews table, then fails
        raise RuntimeError("step 2 broke")

    monkeypatch.setattr(schema, "STEPS", [(1, schema._step_1), (2, broken)])
    with pytest.raises(RuntimeError, match="step 2 broke"):
        Archive.open(database)
    assert "reviews" not in table_names(database)
    monkeypatch.undo()
    with Archive.open(database) as archive:
        assert archive.version == SCHEMA_VERSION and archive.integrity_check() == ["ok"]


def test_a_newer_database_is_refused(database: str) -> None:
    Archive.open(database).close()
    set_version(database, SCHEMA_VERSION + 1)
    with pytest.raises(ArchiveError, match="newer than this ferrochess") as refused:
        Archive.open(database)
    assert not isinstance(refused.value, ArchiveUnavailable)
    assert f"version {SCHEMA_VERSION + 1}" in str(refused.value)


def test_opening_twice_at_once_applies_each_step_once(database: str) -> None:
    opened = run_threads(4, lambda _: Archive.open(database))
    try:
        assert {archive.version for archive in opened} == {SCHEMA_VERSION}
        assert opened[0].integrity_check() == ["ok"]
    finally:
        for archive in opened:
            archive.close()


# --- concurrency ----------------------------------------------------------------------------------


def test_concurrent_writers(archive: Archive, database: str) -> None:
    """8 threads x 10 games on one archive (and, on SQLite, on a second archive of the same file
    too, as a second server process would), and 8 threads submitting one game at once: every
    game stored once and the database sound."""
    others = [archive]
    if archive.dialect == "sqlite":
        others.append(Archive.open(database))
    try:

        def submit(thread: int) -> list[tuple[str, bool]]:
            target = others[thread % len(others)]
            return [
                target.store_game(
                    game(f"t{thread}-g{n}", **(RESIGNED if n % 2 else {}), white=f"T{thread}")
                )
                for n in range(10)
            ]

        results = [pair for batch in run_threads(8, submit) for pair in batch]
        assert all(created for _, created in results)
        assert len({public_id for public_id, _ in results}) == 80

        same = run_threads(8, lambda n: others[n % len(others)].store_game(game("raced")))
        assert len({public_id for public_id, _ in same}) == 1
        assert sum(created for _, created in same) == 1

        reviewed = run_threads(
            8, lambda n: archive.store_review(same[0][0], review_of(SCHOLAR, note=str(n)))
        )
        assert sum(reviewed) == 1

        assert archive.list_games()[1] == 81
        assert archive.list_games(result="0-1")[1] == 40
        assert len(list(archive.iter_pgn())) == 81
        assert archive.integrity_check() == ["ok"]
    finally:
        for other in others[1:]:
            other.close()


INHERITED: list[Archive] = []
"""The archive a forked child inherits from its parent (forked, not pickled)."""


def backend(archive: Archive) -> int | None:
    """The PostgreSQL server process of the connection the archive's pool hands out next."""
    if archive.dialect != "postgresql":
        return None
    with archive.engine.connect() as connection:
        return int(connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())


def stored_in_a_forked_child(n: int) -> tuple[bool, int | None]:
    archive = INHERITED[0]
    return archive.store_game(game(f"child-{n}"))[1], backend(archive)


def test_a_forked_process_opens_its_own_connections(archive: Archive) -> None:
    """A server that forks its workers after opening the archive (gunicorn's preload): each
    process uses connections of its own, never its parent's."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork here")
    archive.store_game(game("parent"))  # the parent's pool holds a connection now
    parent = backend(archive)
    INHERITED[:] = [archive]
    try:
        with multiprocessing.get_context("fork").Pool(2) as pool:
            # a child on its parent's connection could wait for ever for an answer that went
            # to another process: a timeout fails the test instead
            answers = pool.map_async(stored_in_a_forked_child, range(4)).get(timeout=30)
    finally:
        INHERITED.clear()
    assert [created for created, _ in answers] == [True] * 4
    if parent is not None:
        assert parent not in {child for _, child in answers}
    assert backend(archive) == parent  # the parent's connection was left alone
    assert archive.list_games()[1] == 5 and archive.integrity_check() == ["ok"]


# --- an unreachable database ----------------------------------------------------------------------


def test_an_unreachable_postgresql_server_is_named() -> None:
    pytest.importorskip("psycopg")
    port = free_port()  # nothing listens there
    with pytest.raises(ArchiveUnavailable) as refused:
        Archive.open(f"postgresql://postgres:secret@127.0.0.1:{port}/games")
    message = str(refused.value)
    assert "cannot be reached" in message
    assert f"127.0.0.1:{port}/games" in message
    assert "secret" not in message


def test_a_postgresql_outage_and_recovery() -> None:
    """The server stops under an open archive: every call raises ArchiveUnavailable; once it is
    back, the pool's pre-ping replaces the dead connections and the archive works again."""
    pytest.importorskip("psycopg")
    try:
        cluster = start_cluster()
    except ClusterUnavailable as error:
        pytest.skip(f"no PostgreSQL server for the tests: {error}")
    try:
        with Archive.open(cluster.url) as archive:
            public_id, _ = archive.store_game(game("before"))
            cluster.stop("immediate")
            calls: list[Callable[[], object]] = [
                archive.ping,
                lambda: archive.store_game(game("during")),
                lambda: archive.get_game(public_id),
                lambda: archive.list_games(),
                lambda: archive.store_review(public_id, review_of(SCHOLAR)),
                lambda: list(archive.iter_pgn()),
            ]
            for call in calls:
                with pytest.raises(ArchiveUnavailable, match="cannot be reached"):
                    call()
            cluster.start()
            archive.ping()
            assert archive.get_game(public_id) is not None
            assert archive.store_game(game("during"))[1] is True
            assert archive.integrity_check() == ["ok"]
    finally:
        cluster.remove()


# --- SQLite ---------------------------------------------------------------------------------------


def test_sqlite_settings_on_every_connection(tmp_path: Path) -> None:
    with Archive.open(tmp_path / "games.sqlite3") as archive:
        connections = [archive.engine.connect() for _ in range(3)]  # three pooled connections
        try:
            for connection in connections:
                pragma = connection.exec_driver_sql
                assert pragma("PRAGMA journal_mode").scalar() == "wal"
                assert pragma("PRAGMA synchronous").scalar() == 2  # FULL
                assert pragma("PRAGMA busy_timeout").scalar() == 5000
                assert pragma("PRAGMA foreign_keys").scalar() == 1
        finally:
            for connection in connections:
                connection.close()


def test_sqlite_default_file_in_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("LOCALAPPDATA", raising=False)
    with Archive.open() as archive:
        archive.store_game(game("default"))
    assert (tmp_path / "data" / "ferrochess" / "games.sqlite3").is_file()
    with Archive.open(f"sqlite:///{tmp_path}/data/ferrochess/games.sqlite3") as archive:
        assert archive.list_games()[1] == 1


def test_sqlite_locked_past_its_busy_timeout_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive_database, "BUSY_TIMEOUT_MS", 200)
    path = tmp_path / "games.sqlite3"
    with Archive.open(path) as archive:
        holder = sqlite3.connect(path, isolation_level=None)
        try:
            holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock
            with pytest.raises(ArchiveUnavailable, match="locked"):
                archive.store_game(game("waiting"))
            assert archive.list_games() == ([], 0)  # readers go on (WAL)
            holder.execute("ROLLBACK")
        finally:
            holder.close()
        assert archive.store_game(game("waiting"))[1] is True


def test_database_urls(tmp_path: Path) -> None:
    assert database_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert database_url("postgresql+psycopg://u@h/db").drivername == "postgresql+psycopg"
    assert database_url("postgres://u:secret@h:5433/db").drivername == "postgresql+psycopg"
    assert database_url(tmp_path / "x.db").database == str(tmp_path / "x.db")
    assert database_url("games.sqlite3").drivername == "sqlite"
    for refused in ["mysql://u@h/db", ":memory:", "sqlite://", "postgresql+psycopg2://u@h/db"]:
        with pytest.raises(ArchiveError):
            database_url(refused)
