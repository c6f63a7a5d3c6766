"""Guards Chess960 in `ferrochess.match` with UCI engines (what the repository's earlier runner,
`ferrochess_tools.match --chess960`, was tested for; the in-process player is covered by
test_match_api.py): the start positions are the numbered ones, drawn by the seed, distinct until
all 960 are used and shared by each pair of games; a UCI engine (the native `ferrochess-uci`) is
told `UCI_Chess960` and plays legal Chess960 games from them without a fault; and
`ferrochess match -variant fischerandom` plays such pairs from the command line."""

from __future__ import annotations

import io
import shlex
from pathlib import Path

import chess
import chess.pgn
import pytest
from ferrochess.cli import main
from ferrochess.match import Adjudication, Limit, Opening, Openings, Uci, match

REPO_ROOT = Path(__file__).resolve().parent.parent
NATIVE = REPO_ROOT / "target" / "release" / "ferrochess-uci"
FAULTS = ("time forfeit", "rules infraction", "abandoned")


def needs_native() -> None:
    if not NATIVE.exists():
        pytest.skip(f"{NATIVE} not built (cargo build --release --bin ferrochess-uci)")


def numbers(openings: list[Opening]) -> list[int]:
    """The Chess960 numbers of openings named "Chess960 #N"."""
    return [int(o.name.removeprefix("Chess960 #")) for o in openings]


def read_games(text: str) -> list[chess.pgn.Game]:
    handle, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    return games


def test_the_start_positions_are_seeded_distinct_numbers() -> None:
    chosen = Openings.chess960().select(50, seed=1)
    assert chosen == Openings.chess960().select(50, seed=1)
    assert chosen != Openings.chess960().select(50, seed=2)
    assert all(o.chess960 and not o.moves for o in chosen)
    drawn = numbers(chosen)
    assert len(set(drawn)) == 50 and all(0 <= n < 960 for n in drawn)
    for opening, number in zip(chosen, drawn):
        assert opening.start() == chess.Board.from_chess960_pos(number)
    assert sorted(numbers(Openings.chess960().select(960, seed=3))) == list(range(960))


def test_uci_engines_are_told_chess960_and_play_legal_pairs(tmp_path: Path) -> None:
    needs_native()
    log = tmp_path / "to-engines.txt"
    # The engine reads what python-chess sends through `tee`, which keeps a copy.
    command = ["sh", "-c", f"tee -a {shlex.quote(str(log))} | exec {shlex.quote(str(NATIVE))}"]
    players = [Uci(command, {"OwnBook": False}, name=name) for name in ("one", "two")]
    result = match(players, games=4, limit=Limit(nodes=3000), chess960=True, seed=5,
                   adjudication=Adjudication(max_moves=12), concurrency=2,
                   progress=False)  # fmt: skip
    assert len(result.games) == 4 and not result.cancelled
    assert "setoption name UCI_Chess960 value true" in log.read_text(encoding="utf-8")
    starts = {}
    for record in result.games:
        assert record.termination not in FAULTS, record.reason
        game = read_games(record.pgn)[0]
        assert game.headers["Variant"] == "Chess960", game.headers
        start = record.opening.start()
        assert start.chess960 and game.board() == start and "FEN" in game.headers
        board = start.copy()
        for move in record.moves:  # every move legal on the Chess960 board
            board.push(chess.Move.from_uci(move))
            assert board.is_valid(), (move, board.fen())
        assert board == game.end().board()
        starts.setdefault(record.pair, set()).add(record.opening)
    # Each pair of games shares its start position; the two pairs have different ones.
    assert all(len(openings) == 1 for openings in starts.values())
    assert len({next(iter(openings)) for openings in starts.values()}) == 2


def test_the_command_line_plays_chess960_pairs(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    needs_native()
    out = tmp_path / "games.pgn"
    status = main(["match", "-engine", f"cmd={NATIVE}", "name=a", "-engine", f"cmd={NATIVE}",
                   "name=b", "-each", "nodes=2000", "option.OwnBook=false",
                   "-variant", "fischerandom", "-srand", "5", "-maxmoves", "8",
                   "-pgnout", f"file={out}", "-noprogress"])  # fmt: skip
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "Games: 2," in captured.out
    games = read_games(out.read_text(encoding="utf-8"))
    assert len(games) == 2 and games[0].headers["FEN"] == games[1].headers["FEN"]
    assert [g.headers["White"] for g in games] == ["a", "b"]
    for game in games:
        assert game.headers["Variant"] == "Chess960"
        assert game.headers["Termination"] not in FAULTS, game.headers
