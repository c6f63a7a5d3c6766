"""Guards the review after a game on the play page (review.js), in a real browser (Playwright
driving Debian's Chromium): the review marks the blunder of a known game with the better move,
each side's accuracy and an evaluation graph, and numbers a set-up position's moves from its FEN;
an evaluation the tables judged is worded by their verdict ("TB win"), not by its centipawns;
the panel's Cancel frees the server's engine at once and says so, and a new game started during
the review frees it too and hides the panel; clicking a marked move, its better move or the graph
jumps the board there with the engine's arrow; "learn from your mistakes" sets up the position of
the blunder, refuses a bad try, praises the right move and hands the board back; a review without
the server says so in those words and can be tried again. Screenshots go to tests/artifacts/.
Skips without Chromium or Playwright."""

from __future__ import annotations

import json
import random
import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import chess
import pytest
from browser_helpers import (
    FAST,
    REVIEW_PANEL,
    Page,
    browser_type_launch_args,  # noqa: F401 - a fixture
    click_move,
    open_page,
    piece_on,
    saved_game,
    serve,
    shot,
    skip_lessons_until,
    squares_with,
    wait_state,
)

PANEL = REVIEW_PANEL
FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
"""1.f3 e5 2.g4?? Qh4#: White's second move is the blunder (mate in one follows)."""
LEGALS_MATE = ["e2e4", "e7e5", "g1f3", "d7d6", "f1c4", "c8g4", "b1c3", "g7g6", "f3e5", "g4d1",
               "c4f7", "e8e7", "c3d5"]  # fmt: skip
"""Légal's mate: 5...Bxd1?? (ply 10) walks into 6.Bxf7+ Ke7 7.Nd5#."""
SLOW_REVIEW = {
    **FAST,
    "FERROCHESS_ENGINES": 1,
    "FERROCHESS_REVIEW_NODES": 5_000_000,
    "FERROCHESS_BUSY_WAIT_SECONDS": 1.0,
}
"""One engine, and a review that would hold it for minutes: only a cancel frees it in time."""


REVIEW = {**FAST, "FERROCHESS_REVIEW_NODES": 20_000}
"""Quick searches, but reviews deep enough to see 6.Bxf7+ Ke7 7.Nd5# before 5...Bxd1: at 5,000
nodes the 256-wide default still plays Bxd1 itself, and a move the engine would play is no
blunder."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The play app with quick searches and the reviews of ``REVIEW``."""
    with serve(REVIEW) as served:
        yield served.url


@pytest.fixture(scope="module")
def slow_server() -> Iterator[str]:
    """The play app with one engine and reviews that take minutes."""
    with serve(SLOW_REVIEW) as served:
        yield served.url


def review_game(page: Page, url: str, moves: list[str], human: str = "white") -> Page:
    """The page with the finished game ``moves`` (saved as the page saves it), reviewed."""
    open_page(page, url, saved_game(moves, human=human))
    wait_state(page, "over")
    page.click('#app [data-action="review"]')
    page.wait_for_selector(f'{PANEL}[data-review-state="reviewed"]')
    wait_state(page, "reviewed")
    return page


def wait_board(page: Page, last_move_to: str | None) -> None:
    """Until the board shows the position whose last move went to ``last_move_to`` (None: no
    last move) and its pieces have stopped moving."""
    page.wait_for_function(
        """(to) => {
          const state = window.ferrochessPlay.board.ground.state;
          const last = state.lastMove ? state.lastMove[1] : null;
          return last === to && !state.animation.current;
        }""",
        arg=last_move_to,
    )


def arrows(page: Page) -> int:
    """How many arrows chessground draws as engine shapes."""
    return int(page.evaluate("document.querySelectorAll('#app svg.cg-shapes g line').length"))


def long_game(plies: int, seed: int = 7) -> list[str]:
    """A legal game of ``plies`` moves that has not ended (chosen at random, reproducibly)."""
    board = chess.Board()
    chooser = random.Random(seed)
    for _ in range(plies):
        candidates = []
        for move in board.legal_moves:
            board.push(move)
            if not board.is_game_over(claim_draw=True):
                candidates.append(move)
            board.pop()
        board.push(chooser.choice(sorted(candidates, key=chess.Move.uci)))
    return [move.uci() for move in board.move_stack]


def post(url: str, body: dict[str, object], timeout: float = 30.0) -> tuple[int, float]:
    """POST ``body`` as JSON; the status and the seconds the answer took."""
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status = int(response.status)
    except urllib.error.HTTPError as error:
        status = int(error.code)
    return status, time.monotonic() - started


def test_the_review_marks_the_blunder_with_the_better_move(page: Page, server: str) -> None:
    review_game(page, server, FOOLS_MATE)
    blunder = page.locator(f'{PANEL} .review-move[data-ply="3"]')
    assert blunder.get_attribute("data-judgement") == "blunder"
    assert blunder.inner_text().replace("\n", "") == "g4??"
    comment = page.locator(f'{PANEL} .review-comment[data-judgement="blunder"]')
    assert comment.count() == 1
    better = re.match(r"Blunder\. Best was (\S+)\.", comment.inner_text().strip())
    assert better is not None and better.group(1) not in ("g4", "")
    assert page.locator(f'{PANEL} .review-move[data-ply="4"]').get_attribute("data-judgement") == ""
    # Each side's accuracy and counts.
    accuracy = {
        color: page.locator(
            f'{PANEL} .review-side[data-color="{color}"] .review-accuracy'
        ).inner_text()
        for color in ("white", "black")
    }
    assert all(re.fullmatch(r"\d{1,3}% accuracy", text) for text in accuracy.values()), accuracy
    assert int(accuracy["white"].split("%")[0]) < int(accuracy["black"].split("%")[0])
    white_blunders = f'{PANEL} .review-side[data-color="white"] li[data-judgement="blunder"]'
    assert page.get_attribute(white_blunders, "data-count") == "1"
    assert "(you)" in page.inner_text(f'{PANEL} .review-side[data-color="white"] h3')
    # The graph: White's chances at the start and after each of the 4 moves, the blunder dotted.
    line = page.get_attribute(f"{PANEL} svg.review-graph path.review-graph-line", "d")
    assert line is not None and len(line.split("L")) == 5
    assert page.locator(
        f'{PANEL} .review-graph-dot[data-ply="3"][data-judgement="blunder"]'
    ).count()
    shot(page, "review-01-fools-mate-reviewed")


def test_the_blunders_comment_says_what_the_refutation_does(page: Page, server: str) -> None:
    review_game(page, server, FOOLS_MATE)
    comment = page.locator(f'{PANEL} .review-comment[data-judgement="blunder"]')
    assert (
        comment.locator(".review-explanation").inner_text().strip()
        == "g4 allows mate in 1: ...Qh4#."
    )
    assert re.fullmatch(
        r"Blunder\. Best was \S+\. g4 allows mate in 1: \.\.\.Qh4#\.", comment.inner_text().strip()
    )


def test_the_reviews_scores_name_the_tables_verdict(page: Page, server: str) -> None:
    """The review words an evaluation (the UI kit's ui/score.js) the tables judged by the verdict
    it carries (White's view, as analyse_game gives it), never by its centipawns; a mate stays a
    mate."""
    open_page(page, server)
    words = page.evaluate(
        """async () => {
            const { formatScore } = await import("/static/ui/score.js");
            return [{cp: 19990, tablebase: "win"}, {cp: 0, tablebase: "cursed win"},
                    {cp: -19990, tablebase: "loss"}, {cp: 19990}, {mate: 1, tablebase: "win"}]
                .map(formatScore);
        }"""
    )
    assert words == ["TB win", "TB cursed win", "TB loss", "+199.90", "#1"]


def test_cancel_frees_the_engine_at_once(page: Page, slow_server: str) -> None:
    game = long_game(40)
    open_page(page, slow_server, saved_game(game, end={"by": "resign", "color": "white"}))
    wait_state(page, "over")
    page.click('#app [data-action="review"]')
    page.wait_for_function(
        "(panel) => /Analysing move [2-9]/.test(document.querySelector(panel).textContent)",
        arg=PANEL,
    )
    wait_state(page, "reviewing")
    move = {"moves": ["e2e4"], "level": 1, "book": False, "client": "another-tab"}
    status, _ = post(slow_server + "api/move", move)
    assert status == 503, "the review holds the only engine"
    shot(page, "review-02-analysing")
    page.click(f"{PANEL} .review-cancel")
    page.wait_for_selector(f'{PANEL}[data-review-state="cancelled"]')
    assert "cancelled" in page.inner_text(f"{PANEL} .review-message-text").lower()
    wait_state(page, "over")
    status, seconds = post(slow_server + "api/move", move)
    assert status == 200 and seconds < 3.0, (status, seconds)
    shot(page, "review-03-cancelled")


def test_a_new_game_during_the_review_frees_the_engine_and_hides_the_panel(
    page: Page, slow_server: str
) -> None:
    open_page(page, slow_server, saved_game(long_game(40), end={"by": "resign", "color": "white"}))
    wait_state(page, "over")
    page.click('#app [data-action="review"]')
    page.wait_for_selector(f'{PANEL}[data-review-state="analysing"]')
    wait_state(page, "reviewing")
    page.click('#app [data-action="new-game-after"]')
    wait_state(page, "ready")
    assert page.get_attribute(PANEL, "data-review-state") == "idle"
    assert not page.locator(PANEL).is_visible()
    move = {"moves": ["e2e4"], "level": 1, "book": False, "client": "another-tab"}
    status, seconds = post(slow_server + "api/move", move)
    assert status == 200 and seconds < 3.0, (status, seconds)


def test_clicking_a_marked_move_jumps_the_board_there(page: Page, server: str) -> None:
    review_game(page, server, LEGALS_MATE, human="black")
    blunder = page.locator(f'{PANEL} .review-move[data-ply="10"]')
    assert blunder.get_attribute("data-judgement") == "blunder"
    blunder.click()
    wait_board(page, "d1")
    assert piece_on(page, "d1") == "black bishop" and piece_on(page, "e5") == "white knight"
    assert squares_with(page, "last-move") == {"g4", "d1"}
    assert "current" in (blunder.get_attribute("class") or "")
    assert arrows(page) == 1, "the engine's best move there (the refutation)"
    shot(page, "review-04-jumped-to-the-blunder")
    # "Best was ...": the position before the blunder, the played and the better move as arrows.
    page.click(f'{PANEL} .review-best[data-ply="10"]')
    wait_board(page, "e5")
    assert piece_on(page, "g4") == "black bishop" and piece_on(page, "d1") == "white queen"
    assert arrows(page) == 2
    # A click on the graph's left edge: the start position.
    graph = page.locator(f"{PANEL} svg.review-graph").bounding_box()
    assert graph is not None
    page.mouse.click(graph["x"] + 2, graph["y"] + graph["height"] / 2)
    wait_board(page, None)
    assert piece_on(page, "e2") == "white pawn" and piece_on(page, "d1") == "white queen"
    assert arrows(page) == 1, "the engine's first move"


def test_learn_from_your_mistakes_refuses_a_bad_try_and_praises_the_right_move(
    page: Page, server: str
) -> None:
    review_game(page, server, FOOLS_MATE)
    best = page.get_attribute(f'{PANEL} .review-best[data-ply="3"]', "data-best-move")
    assert best is not None
    page.click(f"{PANEL} .review-learn")
    wait_state(page, "learning")
    skip_lessons_until(page, "g4")  # an earlier lesson (1.f3?) may come first
    # The position before 2.g4, White to move on the board.
    wait_board(page, "e5")
    assert piece_on(page, "f3") == "white pawn" and piece_on(page, "g2") == "white pawn"
    assert piece_on(page, "e5") == "black pawn" and piece_on(page, "g4") is None
    # The blunder again: refused, and the pawn goes back.
    click_move(page, "g2", "g4")
    page.wait_for_selector(f'{PANEL} .review-feedback[data-kind="wrong"]')
    assert page.inner_text(f"{PANEL} .review-feedback").startswith("That's not it")
    wait_board(page, "e5")
    assert piece_on(page, "g2") == "white pawn" and piece_on(page, "g4") is None
    shot(page, "review-05-a-bad-try")
    # The better move: praised.
    click_move(page, best[:2], best[2:4])
    page.wait_for_selector(f'{PANEL} .review-feedback[data-kind="good"]')
    assert page.inner_text(f"{PANEL} .review-feedback").startswith("Good move")
    wait_board(page, best[2:4])
    assert piece_on(page, best[2:4]) is not None and piece_on(page, best[:2]) is None
    shot(page, "review-06-the-right-move")
    # The last lesson done: a summary, and the board back on the game's final position.
    page.click(f"{PANEL} .review-next")
    page.wait_for_selector(f"{PANEL} .review-learned:not([hidden])")
    assert re.search(r"You found [12] of [12] better move", page.inner_text(PANEL))
    wait_state(page, "reviewed")
    wait_board(page, "h4")
    assert piece_on(page, "h4") == "black queen"


def test_a_review_without_the_server_says_it_cannot_reach_it(page: Page, server: str) -> None:
    open_page(page, server, saved_game(FOOLS_MATE))
    wait_state(page, "over")
    page.route("**/api/review", lambda route: route.abort())
    page.click('#app [data-action="review"]')
    page.wait_for_selector(f'{PANEL}[data-review-state="error"]')
    assert page.inner_text(f"{PANEL} .review-message-text").startswith("Cannot reach the server")
    wait_state(page, "over")
    # Back online, "Try again" reviews the game.
    page.unroute("**/api/review")
    page.click(f"{PANEL} .review-retry")
    page.wait_for_selector(f'{PANEL}[data-review-state="reviewed"]')
    wait_state(page, "reviewed")


def test_the_review_numbers_the_moves_of_a_set_up_position(page: Page, server: str) -> None:
    fen = "k7/8/1K6/8/8/8/8/7R b - - 0 37"  # 37...Kb8 (forced) 38.Rh8#
    open_page(page, server, saved_game(["a8b8", "h1h8"], human="black", fen=fen))
    wait_state(page, "over")
    page.click('#app [data-action="review"]')
    page.wait_for_selector(f'{PANEL}[data-review-state="reviewed"]')
    numbers = page.locator(f"{PANEL} .review-number").all_inner_texts()
    assert [number.strip() for number in numbers] == ["37.", "38."]
    assert page.locator(f"{PANEL} .review-moves > *").nth(1).inner_text() == "…"
    assert page.inner_text(f"{PANEL} .review-clean").startswith("No mistakes of yours")
