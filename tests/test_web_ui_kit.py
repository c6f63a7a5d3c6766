"""Guards the one UI kit (static/ui/) that the play page, its review, the analysis board and the
notebook widgets share: under static/ (vendor/ left out) the score formatter, the winning-chances
curve, the element builder, the error wording and the move-number format are each defined once,
in the kit; the kit imports nothing of a page's, and the analysis board takes from the play page
only its board and its transport. In a real browser (Playwright driving Debian's Chromium), a
reviewed game begun at move 12 with Black to move shows the same score and the same move numbers
on the play page, in its review and on the analysis board it hands the game to. The browser test
skips without Chromium or Playwright."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ferrochess.analysis import winning_chances

STATIC = Path(__file__).resolve().parent.parent / "python" / "ferrochess" / "web" / "static"
KIT = "ui"
DEFINITIONS = {
    "the score formatter": r"\bfunction\s+formatScore\b|\bformatScore\s*=",
    "the winning-chances curve": r"0\.00368208",
    "the element builder": r"\bfunction\s+el\b|\bconst\s+el\s*=",
    "the error wording": r"Cannot reach the server",
    "the move-number format": r"\bfunction\s+moveNumber\b|\bmoveNumber\s*=",
}
"""What each fact's definition looks like in the source (the curve by its constant, the wording
of errors by its first sentence)."""
IMPORT = re.compile(r"""^\s*(?:import|export)\b[^;]*?\bfrom\s*["'](?P<path>[^"']+)["']""", re.M)
FROM_PLAY = {"play/board.js", "play/api.js"}
"""What the analysis board may take from the play page: the board and the transport, no
formatting."""


def modules() -> list[Path]:
    return sorted(path for path in STATIC.rglob("*.js") if "vendor" not in path.parts)


def imports(path: Path) -> set[str]:
    """The modules ``path`` imports, by their path under static/."""
    targets = set()
    for match in IMPORT.finditer(path.read_text(encoding="utf-8")):
        target = (path.parent / match.group("path")).resolve()
        targets.add(target.relative_to(STATIC.resolve()).as_posix())
    return targets


@pytest.mark.parametrize("fact", sorted(DEFINITIONS))
def test_each_fact_of_the_front_end_is_defined_once_in_the_kit(fact: str) -> None:
    pattern = re.compile(DEFINITIONS[fact])
    found = [
        f"{path.relative_to(STATIC).as_posix()}:{source[: match.start()].count(chr(10)) + 1}"
        for path in modules()
        for source in [path.read_text(encoding="utf-8")]
        for match in pattern.finditer(source)
    ]
    assert len(found) == 1 and found[0].startswith(f"{KIT}/"), f"{fact}: {found}"


def test_the_kit_stands_alone_and_the_board_takes_no_formatting_from_play() -> None:
    for path in (STATIC / KIT).glob("*.js"):
        outside = {target for target in imports(path) if not target.startswith(f"{KIT}/")}
        assert not outside, f"{path.name} imports {outside}"
    for path in (STATIC / "analysis").glob("*.js"):
        from_play = {target for target in imports(path) if target.startswith("play/")}
        assert from_play <= FROM_PLAY, f"analysis/{path.name} imports {from_play - FROM_PLAY}"
    users = {target for path in modules() for target in imports(path) if target.startswith(KIT)}
    for page in ("play/panels.js", "play/review_view.js", "analysis/tree_view.js"):
        assert imports(STATIC / page) & users, f"{page} does not use the kit"


CENTIPAWNS = [-1500, -1000, -250, -30, 0, 100, 400, 1000, 1500]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_kit_says_scores_move_numbers_and_errors_as_lichess_does() -> None:
    """score.js, moves.js and errors.js run by Node: the words of each, and lichess's curve (the
    server's ferrochess.analysis.winning_chances within the cap, flat beyond it)."""
    script = textwrap.dedent(
        """
        const fs = require("fs");
        const load = (name) => import("data:text/javascript," + encodeURIComponent(
          fs.readFileSync(process.argv[1] + "/" + name, "utf8")));
        Promise.all(["score.js", "moves.js", "errors.js"].map(load)).then(([s, m, e]) => {
          const scores = [{cp: 35}, {cp: -120}, {cp: 0}, {mate: 3}, {mate: -2},
            {mate: 0, mated: "white"}, {cp: 19995, tablebase: "win"}, null];
          const cps = JSON.parse(process.argv[2]);
          console.log(JSON.stringify({
            words: scores.map(s.formatScore),
            chances: cps.map((cp) => s.winningChances({cp})),
            mates: [s.winningChances({mate: 5}), s.winningChances({mate: -1}),
              s.winningChances({mate: 0, mated: "black"})],
            numbers: [22, 23, 24].map(m.moveNumber),
            root: m.rootPly("8/8/8/8/8/8/8/K1k5 b - - 0 12"),
            line: m.lineText(["Nf6", "Bg5", "e6"], 23),
            errors: [{kind: "network", status: 0, message: "cannot reach the server"},
              {status: 503}, {status: 429}, {status: 409}, {message: "bad fen"}]
              .map(e.describeError),
            retry: e.retryWords({status: 503}, 2),
          }));
        });
        """
    )
    run = subprocess.run(
        ["node", "-e", script, str(STATIC / KIT), json.dumps(CENTIPAWNS)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    said = json.loads(run.stdout)
    assert said["words"] == ["+0.35", "-1.20", "+0.00", "#3", "#-2", "0-1", "TB win", "–"]
    capped = [max(-1000, min(1000, cp)) for cp in CENTIPAWNS]
    assert said["chances"] == pytest.approx([winning_chances({"cp": cp}) for cp in capped])
    assert said["chances"][0] == said["chances"][1] and said["chances"][-1] == said["chances"][-2]
    assert said["mates"] == [1, -1, 1]
    assert said["numbers"] == ["12.", "12…", "13."]
    assert said["root"] == 23 and said["line"] == "12… Nf6 13. Bg5 e6"
    assert said["errors"] == [
        "Cannot reach the server: is it still running?",
        "Every engine is busy; try again in a moment.",
        "Too many engine requests from here; try again in a moment.",
        "The search was cancelled; try again.",
        "Bad fen.",
    ]
    assert said["retry"] == "Every engine is busy; trying again in 2 s."


# --- the same words on the three views ------------------------------------------------------------

playwright = pytest.importorskip("playwright.sync_api")

from browser_helpers import (  # noqa: E402
    FAST,
    REVIEW_PANEL,
    Page,
    browser_type_launch_args,  # noqa: F401 - a fixture
    open_page,
    saved_game,
    serve,
    wait_analysis_path,
    wait_state,
)

FEN = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12"
"""1.e4 played, Black to move at move 12: the game's moves are 12...e5 13.Nf3 Nc6."""
MOVES = ["e7e5", "g1f3", "b8c6"]
PLY = 2
"""The position compared: after 12...e5 13.Nf3, Black to move (13...)."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serve(FAST) as served:
        yield served.url


def shown_score(score: dict[str, Any]) -> str:
    """A score (White's view) as every view must write it."""
    if "mate" in score:
        return f"#{score['mate']}"
    return f"{score['cp'] / 100:+.2f}"


def texts(page: Page, selector: str) -> list[str]:
    return [text.strip() for text in page.locator(selector).all_inner_texts()]


def test_the_play_page_its_review_and_the_board_say_a_score_and_a_move_number_alike(
    page: Page, server: str
) -> None:
    game = saved_game(MOVES, fen=FEN, end={"by": "resign", "color": "white"})
    open_page(page, server, game)
    wait_state(page, "over")
    page.click('#app [data-action="review"]')
    page.wait_for_selector(f'{REVIEW_PANEL}[data-review-state="reviewed"]')
    wait_state(page, "reviewed")
    reviewed = page.evaluate("() => window.ferrochessPlay.review.review.moves")
    score = reviewed[PLY - 1]["eval_after"]
    assert "tablebase" not in score and not (score.get("mate") == 0)
    expected = shown_score(score)
    best_san = reviewed[PLY]["best_san"]

    # The rows of the move lists: the play page's and the review's.
    rows = ["12.", "13."]
    assert texts(page, "#app .moves .move-number") == rows
    assert texts(page, f"{REVIEW_PANEL} .review-number") == rows

    # The play page at the position compared: its engine card, its bar, the review's move.
    page.click(f'{REVIEW_PANEL} .review-move[data-ply="{PLY}"]')
    page.wait_for_selector(f'{REVIEW_PANEL} .review-move.current[data-ply="{PLY}"]')
    line = page.locator("#app .engine-line .pv")
    line.wait_for()
    page.wait_for_function(
        "(start) => document.querySelector('#app .engine-line .pv').innerText.startsWith(start)",
        arg=f"13… {best_san}",
    )
    play_score = page.inner_text('#app [data-stat="score"]').strip()
    bar_title = str(page.get_attribute("#app .eval-bar", "title"))
    review_title = page.get_attribute(f'{REVIEW_PANEL} .review-move[data-ply="{PLY}"]', "title")
    assert play_score == expected, (play_score, score)
    assert bar_title == f"Evaluation {expected}"
    assert review_title == expected

    # The analysis board the review hands the game to, at the same position.
    page.click(f'{REVIEW_PANEL} [data-action="analyse-review"]')
    page.wait_for_url(server + "analysis")
    page.wait_for_selector('#app.fc-analysis[data-state="ready"]')
    wait_analysis_path(page, "0.0")
    assert texts(page, "#app .analysis-tree > .index") == rows
    assert page.inner_text('#app .move[data-path="0.0"] .move-eval').strip() == expected
    assert page.get_attribute('#app [data-testid="eval-bar"]', "data-score") == expected
    review = page.locator('#app [data-testid="review-line"]')
    review.wait_for()
    assert review.locator(".review-eval").inner_text().strip() == expected
    first = review.locator('.review-move[data-index="0"]')
    assert first.locator(".index").inner_text().strip() == "13…"
    assert first.inner_text().replace("\n", "").startswith(f"13…{best_san}")
