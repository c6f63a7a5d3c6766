"""Guards what the play page keeps of a review and where it takes a game (issue 35), in a real
browser (Playwright driving Debian's Chromium): the review is kept with the game in the browser,
so a reload shows the same review again without asking the server for another, and a new game
drops it; once reviewed, each position of the game shows the review's evaluation on the bar and
the review's best move and line in the engine card; "Analyse" (after the game, in the review's
panel, at a position of the move list) writes the analysis board's handoff (the contract's
"Handoff from the play page": the game, its headers, its review, the ply) and goes to the board's
page; where there is no such page (the notebook's mount) no "Analyse" shows. The analysis page is
stood in for by a stub, so that the handoff it would consume stays readable, except in the last
test, which follows the game to the real board: the reviewed game there at the ply chosen, with
the review's evaluation and its blunder marked. Skips without Chromium or Playwright."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_helpers import (
    FAST,
    REVIEW_PANEL,
    START_FEN,
    STORAGE_KEY,
    Page,
    Served,
    browser_type_launch_args,  # noqa: F401 - a fixture
    open_page,
    review_saved_game,
    saved_game,
    serve,
    wait_analysis_path,
    wait_state,
)
from ferrochess.analysis import winning_chances

PANEL = REVIEW_PANEL
FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
"""1.f3 e5 2.g4?? Qh4#: an even start, Black's mate in one after 2.g4, White mated at the end."""
HANDOFF_KEY = "ferrochess.analysis.handoff"
HANDOFF_JS = f"() => JSON.parse(localStorage.getItem('{HANDOFF_KEY}'))"
REVIEW_JS = "() => window.ferrochessPlay.review.review"
ANALYSIS_PAGE = re.compile(r"/analysis(\?.*)?$")


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    """The play app with quick searches (browser_helpers.FAST), its API requests recorded."""
    with serve(FAST) as app:
        yield app


def stub_analysis_page(page: Page) -> None:
    """The board's page answered by a stub that leaves the handoff where the play page put it."""
    page.route(
        ANALYSIS_PAGE,
        lambda route: route.fulfill(
            status=200, content_type="text/html", body="<!doctype html><title>analysis</title>"
        ),
    )


def white_share(score: dict[str, Any]) -> float:
    """The bar's share of White (percent) for a review's score (White's view)."""
    if "mate" in score:
        if score["mate"] == 0:
            return 0.0 if score["mated"] == "white" else 100.0
        return 100.0 if score["mate"] > 0 else 0.0
    if "tablebase" in score and score["tablebase"] in ("win", "loss"):
        return 100.0 if score["tablebase"] == "win" else 0.0
    return 50 + 50 * winning_chances(score)


def bar_share(page: Page) -> float:
    height = page.eval_on_selector("#app .eval-fill", "(fill) => fill.style.height")
    return float(str(height).rstrip("%"))


def expect_bar(page: Page, score: dict[str, Any]) -> None:
    """The evaluation bar shows ``score`` (once drawn)."""
    expected = white_share(score)
    page.wait_for_function(
        "(share) => Math.abs(parseFloat(document.querySelector('#app .eval-fill').style.height)"
        " - share) < 1e-3",
        arg=expected,
    )
    assert abs(bar_share(page) - expected) < 1e-3  # CSS keeps about 6 digits


def engine_summary(page: Page) -> str:
    return page.inner_text("#app .engine-summary").strip()


def test_a_reload_shows_the_kept_review_without_reviewing_again(page: Page, served: Served) -> None:
    review_saved_game(page, served.url, FOOLS_MATE)
    assert len(served.wait_answered("/api/review", 10)) == 1
    accuracy = page.inner_text(f"{PANEL} .review-summary")
    review = page.evaluate(REVIEW_JS)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.reload()
    wait_state(page, "reviewed")
    assert page.get_attribute(PANEL, "data-review-state") == "reviewed"
    assert page.locator(PANEL).is_visible()
    assert page.inner_text(f"{PANEL} .review-summary") == accuracy
    assert page.evaluate(REVIEW_JS) == review
    blunder = page.locator(f'{PANEL} .review-move[data-ply="3"]')
    assert blunder.get_attribute("data-judgement") == "blunder"
    assert not page.locator('#app [data-action="review"]').is_visible()
    time.sleep(0.5)  # a review asked for would have been sent by now
    assert not [url for url in asked if url.endswith("/api/review")]
    assert len(served.answered("/api/review")) == 1


def test_a_new_game_drops_the_kept_review(page: Page, served: Served) -> None:
    review_saved_game(page, served.url, FOOLS_MATE)
    saved = page.evaluate(f"() => JSON.parse(localStorage.getItem('{STORAGE_KEY}'))")
    assert saved["review"]["moves"] == FOOLS_MATE and saved["review"]["review"]["moves"]
    page.click('#app [data-action="new-game-after"]')
    wait_state(page, "ready")
    saved = page.evaluate(f"() => JSON.parse(localStorage.getItem('{STORAGE_KEY}'))")
    assert saved["game"]["moves"] == [] and saved["review"] is None
    page.reload()
    wait_state(page, "ready")
    assert page.get_attribute(PANEL, "data-review-state") == "idle"
    assert not page.locator(PANEL).is_visible()


def test_a_reviewed_position_shows_its_evaluation_and_best_move(
    page: Page, served: Served
) -> None:
    review_saved_game(page, served.url, FOOLS_MATE)
    moves = page.evaluate(REVIEW_JS)["moves"]
    # A click on 2.g4?? in the review: Black mates in one, the review's best move is Qh4#.
    page.click(f'{PANEL} .review-move[data-ply="3"]')
    expect_bar(page, moves[2]["eval_after"])
    assert moves[2]["eval_after"].get("mate", 1) < 0, "Black mates after 2.g4"
    assert engine_summary(page) == f"{moves[3]['best_san']}: the review's best move here"
    assert moves[3]["best_line"][0] in page.inner_text("#app .engine-line .pv")
    assert page.get_attribute("#app .engine-body", "data-source") == "review"
    # The left arrow: after 1...e5, the review's score there and its best move for White.
    page.locator("#app").press("ArrowLeft")
    page.wait_for_selector('#app .moves .move.active[data-ply="2"]')
    expect_bar(page, moves[1]["eval_after"])
    assert engine_summary(page) == f"{moves[2]['best_san']}: the review's best move here"
    assert page.inner_text("#app .engine-stats [data-stat=score]") != "–"
    # Home: the start, scored by the first move's eval_before.
    page.locator("#app").press("Home")
    expect_bar(page, moves[0]["eval_before"])
    assert engine_summary(page) == f"{moves[0]['best_san']}: the review's best move here"
    # End: the mate on the board, White mated; no move after it.
    page.locator("#app").press("End")
    expect_bar(page, moves[3]["eval_after"])
    assert bar_share(page) == 0.0
    assert page.inner_text("#app .engine-stats [data-stat=score]") == "0-1"
    assert engine_summary(page).startswith("The game's last position")


def test_analyse_after_the_game_hands_the_game_to_the_board(page: Page, served: Served) -> None:
    open_page(page, served.url, saved_game(FOOLS_MATE))
    wait_state(page, "over")
    stub_analysis_page(page)
    page.click('#app .after-game [data-action="analyse"]')
    page.wait_for_url(served.url + "analysis")
    assert page.evaluate(HANDOFF_JS) == {
        "fen": START_FEN,
        "moves": FOOLS_MATE,
        "headers": {"White": "You", "Black": "ferrochess level 4", "Result": "0-1"},
        "ply": 4,
    }


def test_analyse_on_the_board_from_the_review_takes_the_review_and_the_ply(
    page: Page, served: Served
) -> None:
    review_saved_game(page, served.url, FOOLS_MATE, human="black")
    review = page.evaluate(REVIEW_JS)
    page.click(f'{PANEL} .review-move[data-ply="2"]')
    page.wait_for_selector(f'{PANEL} .review-move.current[data-ply="2"]')
    stub_analysis_page(page)
    page.click(f'{PANEL} [data-action="analyse-review"]')
    page.wait_for_url(served.url + "analysis")
    handoff = page.evaluate(HANDOFF_JS)
    assert handoff["fen"] == START_FEN and handoff["moves"] == FOOLS_MATE
    assert handoff["headers"] == {"White": "ferrochess level 4", "Black": "You", "Result": "0-1"}
    assert handoff["review"] == review
    assert handoff["ply"] == 2


def test_analyse_this_position_from_the_move_list(page: Page, served: Served) -> None:
    clock = {"initial": 300_000, "increment": 3_000}
    open_page(page, served.url, saved_game(FOOLS_MATE, timeControl=clock))
    wait_state(page, "over")
    analyse = page.locator('#app [data-action="analyse-position"]')
    assert not analyse.is_visible(), "the live position: the game's own Analyse is for it"
    page.click('#app .moves .move[data-ply="1"]')
    analyse.wait_for(state="visible")
    stub_analysis_page(page)
    analyse.click()
    page.wait_for_url(served.url + "analysis")
    handoff = page.evaluate(HANDOFF_JS)
    assert handoff["ply"] == 1 and handoff["moves"] == FOOLS_MATE and "review" not in handoff
    assert handoff["headers"]["TimeControl"] == "300+3"


def test_without_an_analysis_page_no_analyse_shows(page: Page, served: Served) -> None:
    """The notebook's mount gives no analysisUrl: a finished game there offers no "Analyse"."""
    open_page(page, served.url, saved_game(FOOLS_MATE))
    wait_state(page, "over")
    assert page.locator('#app .after-game [data-action="analyse"]').is_visible()
    mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    shown = page.evaluate(
        """async (fen) => {
            const { mountPlay } = await import("/static/play/app.js");
            const { httpTransport } = await import("/static/play/api.js");
            const root = document.createElement("div");
            document.body.append(root);
            const mounted = mountPlay(root, { transport: httpTransport("/"), storage: null,
              options: { fen } });
            await mounted.ready;
            const hidden = (selector) => root.querySelector(selector).hidden;
            return { state: root.dataset.state, afterGame: !hidden(".after-game"),
              analyse: !hidden('[data-action="analyse"]'),
              reviewAnalyse: !hidden('[data-action="analyse-review"]') };
        }""",
        mated,
    )
    assert shown == {"state": "over", "afterGame": True, "analyse": False, "reviewAnalyse": False}
    assert json.loads(page.evaluate(f"() => localStorage.getItem('{STORAGE_KEY}')"))["game"][
        "moves"
    ] == FOOLS_MATE, "the second mount kept nothing (no storage)"


def test_the_reviewed_game_opens_on_the_analysis_board(page: Page, served: Served) -> None:
    review_saved_game(page, served.url, FOOLS_MATE)
    moves = page.evaluate(REVIEW_JS)["moves"]
    page.click(f'{PANEL} .review-move[data-ply="3"]')
    page.wait_for_selector(f'{PANEL} .review-move.current[data-ply="3"]')
    page.click(f'{PANEL} [data-action="analyse-review"]')
    page.wait_for_url(served.url + "analysis")
    page.wait_for_selector('#app.fc-analysis[data-state="ready"]')
    wait_analysis_path(page, "0.0.0")  # after 2.g4, the ply chosen in the review
    sans = page.locator("#app .analysis-tree .move").all_inner_texts()
    assert [san.split()[0].lstrip("0123456789.") for san in sans][:4] == [
        move["san"] for move in moves
    ], sans
    blunder = page.locator('#app .move[data-path="0.0.0"]')
    assert blunder.get_attribute("data-judgement") == moves[2]["judgement"] == "blunder"
    mate = moves[2]["eval_after"]["mate"]
    review = page.locator('#app [data-testid="review-line"]')
    review.wait_for()
    assert review.inner_text().startswith(f"Review: #{mate}")
    assert page.evaluate(HANDOFF_JS) is None  # the board took the handoff
