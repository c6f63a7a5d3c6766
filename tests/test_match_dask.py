"""Guards ``match(..., client=...)``: each pair played as a task on a Dask cluster of two worker
processes gives the same games as the local run for the same seed at fixed nodes, function players
included (cloudpickle ships them), and the observer hears of every finished game."""

from __future__ import annotations

from typing import Any

import chess
import pytest
from ferrochess.match import (
    Adjudication,
    Event,
    Ferrochess,
    Function,
    GameFinished,
    Limit,
    MatchResult,
    match,
)

distributed = pytest.importorskip("distributed")


def signature(result: MatchResult) -> list[tuple[Any, ...]]:
    return sorted((g.index, g.white, g.black, g.result, g.reason, g.moves) for g in result.games)


@pytest.fixture(scope="module")
def client() -> Any:
    """A Dask client of a LocalCluster with two single-threaded worker processes."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as dask_client:
        yield dask_client


def test_a_dask_match_gives_the_local_games(client: Any) -> None:
    players = [Ferrochess(level=6), Ferrochess(level=4)]
    options: dict[str, Any] = {"games": 6, "limit": Limit(nodes=1000), "seed": 3,
                               "adjudication": Adjudication(max_moves=60), "progress": False}
    local = match(players, concurrency=2, **options)
    finished: list[Event] = []
    remote = match(players, client=client, on_event=finished.append, **options)
    assert signature(remote) == signature(local)
    assert remote.pentanomial == local.pentanomial and remote.elo == local.elo
    assert sum(isinstance(e, GameFinished) for e in finished) == 6


def test_a_function_player_travels_to_the_workers(client: Any) -> None:
    players = [Ferrochess(level=3),
               Function(lambda board: min(board.legal_moves, key=chess.Move.uci), name="first")]
    options: dict[str, Any] = {"games": 2, "limit": Limit(nodes=500), "progress": False,
                               "adjudication": Adjudication(max_moves=40)}
    assert signature(match(players, client=client, **options)) == signature(
        match(players, **options)
    )
