"""Guards how `ferrochess_tools.blunder_set` picks the games of a labelled set of blunders: a
game is read once per file in order, kept only when both players are rated below `max_elo` (or
unrated), and left out when a set given to `--exclude` already holds it (its players, site and
date), so that a held-out set shares no game with the set the explanations were written against.
And the committed sets share no game."""

from __future__ import annotations

import json
from pathlib import Path

from ferrochess_tools.blunder_set import excluded, game_key, games

DATA = Path(__file__).resolve().parent.parent / "benches" / "data"

PGN = """[White "A"]
[Black "B"]
[Site "Here"]
[Date "2025.01.01"]
[WhiteElo "2100"]
[BlackElo "2000"]

1. e4 e5 *

[White "C"]
[Black "D"]
[Site "Here"]
[Date "2025.01.01"]
[WhiteElo "2300"]
[BlackElo "2000"]

1. d4 d5 *

[White "A"]
[Black "B"]
[Site "Here"]
[Date "2025.01.02"]

1. c4 c5 *

[White "E"]
[Black "F"]
[Site "There"]
[Date "2025.01.01"]
[WhiteElo "1900"]
[BlackElo "1800"]

1. Nf3 Nf6 *
"""


def test_games_keeps_the_rated_below_and_leaves_out_the_excluded(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN, encoding="utf-8")
    labelled = tmp_path / "set.jsonl"
    entry = {"game": {"white": "E", "black": "F", "site": "There", "date": "2025.01.01"}}
    labelled.write_text(json.dumps(entry) + "\n\n", encoding="utf-8")

    def whites(**kwargs: object) -> list[tuple[str, str]]:
        return [(g.headers["White"], g.headers["Date"]) for g in games([pgn], **kwargs)]  # type: ignore[arg-type]

    assert whites(max_elo=None) == [
        ("A", "2025.01.01"), ("C", "2025.01.01"), ("A", "2025.01.02"), ("E", "2025.01.01"),
    ]  # fmt: skip
    # C's 2300 is not below 2200; the unrated game is kept.
    assert whites(max_elo=2200) == [("A", "2025.01.01"), ("A", "2025.01.02"), ("E", "2025.01.01")]
    skip = excluded([labelled])
    assert skip == {game_key("E", "F", "There", "2025.01.01")}
    # The same players on another day are another game.
    assert whites(max_elo=2200, skip=skip) == [("A", "2025.01.01"), ("A", "2025.01.02")]


def test_the_committed_sets_share_no_game() -> None:
    sets = sorted(DATA.glob("explain_blunders_*.jsonl"))
    assert len(sets) >= 2
    seen: dict[tuple[str, str, str, str], str] = {}
    for path in sets:
        for key in excluded([path]):
            assert key not in seen, f"{key} is in {seen.get(key)} and {path.name}"
            seen[key] = path.name
