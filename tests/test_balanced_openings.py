"""Guards the second opening set of strength matches (issue 53):
`ferrochess_tools.balanced_openings` keeps a game only when both players meet the rating floor and
it is long enough, skips games python-chess reports errors for, keeps each position once (from its
first game), keeps a position only when its score is within the margin (never a mate), and writes
EPD that python-chess reads back with its opcodes (`ce`, `acd`, `hmvc`, `fmvn`, `id`, `c0`,
`c1`). And the committed `benches/data/openings-2300.epd` loads through the match runner's
`-openings file=... format=epd` as at least 100 distinct legal positions, each reached by its
`c1` moves in the stated number of plies, each with a `ce` within the stated margin."""

from __future__ import annotations

import re
from pathlib import Path

import chess
import chess.engine
import pytest
from ferrochess.match.cli import parse
from ferrochess_tools import balanced_openings
from ferrochess_tools.balanced_openings import Counts, balanced, candidates, write_epd

STOCKFISH = "/usr/games/stockfish"
COMMITTED = Path(__file__).resolve().parent.parent / "benches" / "data" / "openings-2300.epd"
MATCH_OPENINGS = 100
"""A strength match plays 200 games: 100 openings, each twice with colours swapped."""

RUY_LOPEZ = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7"
ITALIAN = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4"
GAMES = {
    # name: (WhiteElo, BlackElo, moves)
    "kept": ("2400", "2350", RUY_LOPEZ),
    "black below the floor": ("2500", "2250", ITALIAN),
    "transposes into the first": ("2600", "2310", "1. Nf3 Nc6 2. e4 e5 3. Bb5 a6 4. Ba4 Nf6 5. d3"),
    "too short": ("2450", "2450", "1. d4 d5 2. c4 e6 3. Nc3"),
    "unrated": ("2450", "?", ITALIAN),
    "illegal move": ("2450", "2450", "1. e4 e5 2. Ke3 Nc6 3. Bb5 a6 4. Ba4 Nf6"),
    "scored out of the margin": ("2300", "2300", "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6"),
    "second kept": ("2700", "2700", ITALIAN),
}
SCORES = {"kept": 20, "scored out of the margin": 80, "second kept": -50}
"""The stub evaluation's score (centipawns, side to move) of each game's position."""


def write_pgn(path: Path) -> None:
    """The games of :data:`GAMES` as one PGN file, each named by its Event tag."""
    text = ""
    for round_number, (event, (white_elo, black_elo, moves)) in enumerate(GAMES.items(), 1):
        text += (
            f'[Event "{event}"]\n[Site "Here"]\n[Date "2025.06.24"]\n[Round "{round_number}"]\n'
            f'[White "W{round_number}"]\n[Black "B{round_number}"]\n[Result "*"]\n'
            f'[WhiteElo "{white_elo}"]\n[BlackElo "{black_elo}"]\n\n{moves} *\n\n'
        )
    path.write_text(text, encoding="utf-8")


def stub(board: chess.Board) -> chess.engine.Score:
    """:data:`SCORES` by position (the position of each scored game after 8 plies)."""
    for event, score in SCORES.items():
        reference = chess.Board()
        for san in re.sub(r"\d+\.", "", GAMES[event][2]).split()[:8]:
            reference.push_san(san)
        if reference.epd() == board.epd():
            return chess.engine.Cp(score)
    raise AssertionError(f"the stub has no score for {board.epd()}")


def test_the_filter_the_duplicates_and_the_margin(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    write_pgn(pgn)
    counts = Counts()
    found = candidates([pgn], 2300, 8, counts)
    assert [candidate.headers["Event"] for candidate in found] == [
        "kept", "scored out of the margin", "second kept"
    ]  # fmt: skip
    assert (counts.games, counts.errors, counts.rated) == (8, 1, 5)
    assert (counts.long_enough, counts.distinct) == (4, 3)
    assert all(candidate.board.ply() == 8 for candidate in found)
    assert found[0].game == 1 and found[0].file == "games.pgn"
    assert found[0].source == "kept, W1-B1, 2025.06.24, round 1"

    kept = balanced(found, stub, 50, counts)
    assert [(candidate.headers["Event"], score) for candidate, score in kept] == [
        ("kept", 20), ("second kept", -50)
    ]  # fmt: skip
    assert counts.evaluated == 3 and counts.kept == 2 and counts.scores == [20, -50]
    assert [c.headers["Event"] for c, _ in balanced(found, stub, 50, Counts(), limit=1)] == ["kept"]
    assert candidates([pgn], 2250, 8, Counts())[1].headers["Event"] == "black below the floor"
    assert len(candidates([pgn], 2300, 10, Counts())) == 1  # only the Ruy Lopez has 10 plies


def test_a_mate_score_is_never_kept(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    write_pgn(pgn)
    found = candidates([pgn], 2300, 8, Counts())
    counts = Counts()
    assert balanced(found, lambda board: chess.engine.Mate(3), 10_000, counts) == []
    assert counts.mates == 3


def test_the_epd_reads_back_with_its_opcodes(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    write_pgn(pgn)
    found = candidates([pgn], 2300, 8, Counts())
    kept = balanced(found, stub, 50, Counts())
    out = tmp_path / "openings.epd"
    write_epd(out, kept, chess.engine.Limit(depth=12), ["a header", "of two lines"])
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == ["# a header", "# of two lines"] and len(lines) == 4
    board = chess.Board()
    operations = board.set_epd(lines[2])
    assert operations["ce"] == 20 and operations["acd"] == 12
    assert operations["id"] == "games.pgn game 1"
    assert operations["c0"] == "kept, W1-B1, 2025.06.24, round 1"
    assert operations["c1"] == " ".join(RUY_LOPEZ.split()[:12])
    assert board.fen() == kept[0][0].board.fen()  # hmvc and fmvn round-trip the counters
    operations = board.set_epd(lines[3])
    assert operations["ce"] == -50 and operations["id"] == "games.pgn game 8"


@pytest.mark.skipif(not Path(STOCKFISH).is_file(), reason=f"Stockfish not found at {STOCKFISH}")
def test_the_command_with_stockfish(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pgn = tmp_path / "games.pgn"
    write_pgn(pgn)
    out = tmp_path / "openings.epd"
    argv = [str(pgn), "--depth", "6", "--max-cp", "60", "--hash", "8", "--out", str(out)]
    assert balanced_openings.main(argv) == 0
    printed = capsys.readouterr().out
    assert "distinct positions: 3" in printed and "games skipped for errors: 1" in printed
    lines = [line for line in out.read_text(encoding="utf-8").splitlines() if line]
    header = [line for line in lines if line.startswith("#")]
    assert any("rated >= 2300" in line and "+-60 cp" in line for line in header)
    assert any(f"--depth 6 --hash 8 {pgn} --out {out}" in line for line in header)
    positions = [line for line in lines if not line.startswith("#")]
    assert f"kept within +-60 cp: {len(positions)}" in printed
    for line in positions:
        operations = chess.Board().set_epd(line)
        assert {"ce", "acd", "hmvc", "fmvn", "id", "c0", "c1"} <= set(operations)
        assert isinstance(operations["ce"], int) and abs(operations["ce"]) <= 60
        assert operations["acd"] == 6


def committed_lines() -> tuple[list[str], list[str]]:
    """The committed set's header (comment) lines and position lines."""
    lines = [line for line in COMMITTED.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [line for line in lines if line.startswith("#")], [
        line for line in lines if not line.startswith("#")
    ]


def test_the_committed_set_loads_in_a_match() -> None:
    _, positions = committed_lines()
    options = parse([
        "-engine", "builtin", "-engine", "builtin", "-each", "tc=10+0.1",
        "-rounds", str(MATCH_OPENINGS),
        "-openings", f"file={COMMITTED}", "format=epd", "order=sequential",
    ])  # fmt: skip
    assert options["games"] == 2 * MATCH_OPENINGS
    openings = options["openings"].select(len(positions), seed=1)
    assert len(openings) == len(positions) >= MATCH_OPENINGS
    assert len({opening.board().epd() for opening in openings}) == len(positions)
    assert all(opening.board().is_valid() and opening.name for opening in openings)
    played = options["openings"].select(MATCH_OPENINGS, seed=1)
    assert len({opening.board().epd() for opening in played}) == MATCH_OPENINGS


def test_the_committed_set_is_what_its_header_says() -> None:
    header, positions = committed_lines()
    text = " ".join(line.lstrip("# ") for line in header)
    stated = re.search(r"after (\d+) plies .* rated >= (\d+), scored within \+-(\d+) cp", text)
    assert stated is not None, f"the header does not state plies, rating and margin: {text}"
    plies, margin = int(stated[1]), int(stated[3])
    assert plies == 8 and int(stated[2]) >= 2200 and margin <= 50
    assert f"{len(positions)} balanced openings" in text
    for line in positions:
        board = chess.Board()
        operations = board.set_epd(line)
        assert board.is_valid() and not board.is_game_over(), line
        assert board.ply() == plies, f"fullmove number and side to move say ply {board.ply()}"
        replay = chess.Board()
        for san in re.sub(r"\d+\.", "", str(operations["c1"])).split():
            replay.push_san(san)
        assert replay.ply() == plies and replay.epd() == board.epd(), line
        assert replay.halfmove_clock == board.halfmove_clock, line
        score = operations["ce"]
        assert isinstance(score, int) and abs(score) <= margin, line
        assert re.fullmatch(r".+ game \d+", str(operations["id"])), line
        assert ", round " in str(operations["c0"]), line
