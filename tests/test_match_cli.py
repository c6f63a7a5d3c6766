"""Guards ``ferrochess match``: fastchess-style options run a tiny match that prints the summary and
writes the PGN; ``-help`` prints the syntax; bad options exit 2 with one line naming the option,
never a traceback."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest
from ferrochess.cli import main
from ferrochess.match import Adjudication, Ferrochess, Openings, Uci
from ferrochess.match.cli import parse


def test_a_tiny_match_prints_the_summary(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    finished = subprocess.run(
        [sys.executable, "-m", "ferrochess", "match",
         "-engine", "builtin", "level=6", "name=six",
         "-engine", "builtin", "level=2", "name=two",
         "-each", "nodes=800", "-rounds", "2", "-games", "2", "-repeat", "-concurrency", "2",
         "-maxmoves", "40", "-srand", "3", "-pgnout", f"file={out}", "-noprogress"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    assert "Results of six vs two (nodes=800):" in finished.stdout
    assert "Games: 4," in finished.stdout and "Ptnml(0-2): [" in finished.stdout
    assert finished.stderr == ""
    handle, games = io.StringIO(out.read_text(encoding="utf-8")), []
    while (game := chess.pgn.read_game(handle)) is not None:
        games.append(game)
    assert len(games) == 4 and {g.headers["White"] for g in games} == {"six", "two"}


def test_main_runs_match_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["match", "-engine", "builtin", "level=3", "-engine", "builtin", "level=4",
                   "-each", "depth=2", "-games", "2", "-maxmoves", "20",
                   "-sprt", "elo0=0", "elo1=10", "-noprogress"])  # fmt: skip
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "ferrochess level 3 vs ferrochess level 4 (depth=2)" in captured.out
    assert "LLR:" in captured.out and "[0.00, 10.00]" in captured.out


def test_the_help_gives_the_syntax(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "-help"]) == 0
    text = capsys.readouterr().out
    for option in ("-engine", "-each", "-openings", "-sprt", "-draw", "-resign", "-tb",
                   "-pgnout", "-variant", "-tournament", "builtin"):  # fmt: skip
        assert option in text
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "match" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["-engine", "builtin", "-engine", "builtin", "-each", "nodes=100", "-bogus", "1"],
         "-bogus: unknown option"),
        (["-engine", "builtin", "frobnicate=1", "-engine", "builtin"], "unknown key 'frobnicate'"),
        (["-engine", "builtin", "-engine", "builtin", "-each", "tc=fast"], "tc: time control"),
        (["-engine", "builtin", "-engine", "builtin"], "no limit"),
        (["-engine", "builtin", "nodes=5"], "at least two engines"),
        (["-engine", "builtin", "-engine", "builtin", "-each", "nodes=9", "-games", "3"],
         "-games/-rounds"),
        (["-engine", "builtin", "-engine", "builtin", "-each", "nodes=9", "-sprt", "elo0=5"],
         "-sprt: give elo0= and elo1="),
        (["-engine", "builtin", "-engine", "builtin", "-each", "nodes=9", "-variant", "atomic"],
         "-variant"),
        (["-engine", "builtin", "level=12", "-engine", "builtin", "-each", "nodes=9"],
         "level = 12"),
        (["-engine", "builtin", "-engine", "builtin", "-each", "nodes=9", "-concurrency", "x"],
         "-concurrency"),
        (["-engine", "builtin", "-engine", "builtin", "-each", "nodes=9", "-openings",
          "file=a.txt"], "-openings: format='txt'"),
    ],
)
def test_bad_options_are_named(argv: list[str], named: str,
                               capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    assert main(["match", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ferrochess match: ") and named in err, err
    assert "Traceback" not in err


def test_parse_maps_fastchess_options() -> None:
    options = parse([
        "-engine", "cmd=/usr/games/stockfish", "name=sf", "option.Hash=16",
        "option.UCI_LimitStrength=true", "tc=40/1:00+0.5", "timemargin=100",
        "-engine", "builtin", "option.Level=5", "option.Hash=8", "pruning=false", "st=0.2",
        "-openings", "file=book.epd", "order=random", "start=3",
        "-draw", "movenumber=34", "movecount=8", "score=20",
        "-resign", "movecount=3", "score=600", "twosided=true",
        "-tb", "/tables", "-tbpieces", "5", "-variant", "fischerandom", "-srand", "9",
        "-rounds", "5",
    ])  # fmt: skip
    stockfish, builtin = options["players"]
    assert isinstance(stockfish, Uci) and stockfish.name == "sf"
    assert stockfish.options == {"Hash": 16, "UCI_LimitStrength": True}
    assert stockfish.limit is not None and stockfish.limit.margin == 0.1
    assert stockfish.limit.clock is not None and stockfish.limit.clock.moves == 40
    assert isinstance(builtin, Ferrochess) and builtin.level == 5 and builtin.hash_mb == 8
    assert builtin.search_options is not None and not builtin.search_options.pruning
    assert options["openings"] == Openings.epd("book.epd", order="random", start=3)
    rules = options["adjudication"]
    assert isinstance(rules, Adjudication) and rules.tablebase == "/tables"
    assert rules.draw is not None and rules.draw.movenumber == 34
    assert rules.resign is not None and rules.resign.twosided
    assert options["chess960"] and options["seed"] == 9 and options["games"] == 10


def test_an_engines_own_keys_win_over_each() -> None:
    options = parse(["-engine", "builtin", "option.Hash=8", "option.Level=3",
                     "-engine", "builtin", "-each", "hash=64", "level=9", "nodes=10"])  # fmt: skip
    own, other = options["players"]
    assert (own.hash_mb, own.level) == (8, 3) and (other.hash_mb, other.level) == (64, 9)
    options = parse(["-engine", "builtin", "hash=8", "-engine", "builtin",
                     "-each", "option.Hash=64", "nodes=10"])  # fmt: skip
    assert [player.hash_mb for player in options["players"]] == [8, 64]
