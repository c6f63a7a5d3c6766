"""Guards the play page's part of the games archive (issue 36), in a real browser (Playwright
driving Debian's Chromium) against the play app with a real SQLite archive: a game played to its
end at level 1 is stored once, under the id the page made for it, with its level; the page says
"Saved to the games archive" with links to the game's page and to the list; the list shows it;
the game's page shows its moves on the analysis board and names its players, result, date and
time control ("You vs ferrochess level 1 · 1-0 · 2026.11.28 · 5+3") in its header and title; its
review, made on the play page, is stored with it and shown on the game's page after a reload.
Nothing is lost: a submission met by a 503 (the database unreachable) is kept, said in words,
sent again after Retry-After and stored once; one the server never answered waits in the
browser's outbox and goes on the next page load; a 409 is final and says why. A game reloaded
after it was stored is not sent again, and one sent again anyway (the browser forgot it) is
stored once. Without an archive the page sends nothing there and shows nothing about one. Skips
without Chromium or Playwright."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    ARCHIVE_OUTBOX_KEY,
    ARCHIVE_STATUS,
    ARCHIVE_STORED_KEY,
    FAST,
    REVIEW_PANEL,
    STORAGE_KEY,
    Page,
    Served,
    archived_games,
    browser_type_launch_args,  # noqa: F401 - a fixture
    click_move,
    load_fen,
    open_page,
    resign,
    saved_game,
    serve,
    serve_archive,
    wait_archive_state,
    wait_moves,
    wait_state,
)

LADDER = "7k/8/6K1/8/8/8/8/R7 w - - 0 1"
"""White mates in two: 1.Ra7 Kg8 (Black's only move) 2.Ra8#."""
LADDER_MOVES = ["a1a7", "h8g8", "a7a8"]
FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
"""1.f3 e5 2.g4?? Qh4#: a finished game to restore."""
WAITING = "Not saved yet: the server's games archive cannot be reached; kept in this browser"
GAME_ID_JS = "() => window.ferrochessPlay.game.record.id"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """The play app answering quickly, with its games archive in a fresh SQLite file."""
    with serve_archive(tmp_path / "games.sqlite3") as app:
        yield app


def play_the_ladder(page: Page, url: str, clock: str | None = None) -> Page:
    """A game played to its end at level 1: the mate in two set up, 1.Ra7 Kg8 2.Ra8#; with the
    time control ``clock`` (one of the page's, "3+2") when given."""
    open_page(page, url)
    page.select_option('#app [data-role="level"]', "1")
    if clock is not None:
        page.select_option('#app [data-role="time"]', clock)
    load_fen(page, LADDER)
    click_move(page, "a1", "a7")
    wait_moves(page, 2)  # the engine's only move
    click_move(page, "a7", "a8")
    wait_state(page, "over")
    return page


def posted(served: Served, path: str = "/api/games") -> list[tuple[Any, int]]:
    return served.answered(path)


def test_a_finished_game_is_stored_once_with_its_level_and_times(
    page: Page, served: Served
) -> None:
    play_the_ladder(page, served.url)
    words = wait_archive_state(page, "saved")
    assert words.startswith("Saved to the games archive")
    client_id = page.evaluate(GAME_ID_JS)
    [game] = archived_games(served)
    assert game["moves"] == LADDER_MOVES and game["level"] == 1
    assert game["result"] == "1-0" and game["termination"] == "checkmate"
    assert game["white"] == "You" and game["black"] == "ferrochess level 1"
    assert game["started_at"] and game["finished_at"] >= game["started_at"]
    [(body, status)] = posted(served)
    assert status == 201 and body["client_id"] == client_id
    assert body["time_control"] is None and body["clocks"] == []
    link = page.locator(f'{ARCHIVE_STATUS} [data-testid="archive-game"]')
    assert link.get_attribute("href") == f"/game/{game['id']}"
    assert (
        page.locator(f'{ARCHIVE_STATUS} [data-testid="archive-list"]').get_attribute("href")
        == "/games"
    )
    assert page.evaluate(f"() => localStorage.getItem('{ARCHIVE_OUTBOX_KEY}')") == "[]"


def test_a_game_with_a_clock_sends_its_time_control_and_each_moves_clock(
    page: Page, served: Served
) -> None:
    play_the_ladder(page, served.url, clock="3+2")
    wait_archive_state(page, "saved")
    [(body, _status)] = posted(served)
    assert body["time_control"] == "180+2"
    assert len(body["clocks"]) == 3
    assert all(clock is None or 0 < clock <= 182 for clock in body["clocks"]), body["clocks"]
    [game] = archived_games(served)
    assert game["time_control"] == "180+2" and game["clocks"] == body["clocks"]


def test_the_list_and_the_games_page_show_the_stored_game(page: Page, served: Served) -> None:
    play_the_ladder(page, served.url)
    wait_archive_state(page, "saved")
    [game] = archived_games(served)
    page.click(f'{ARCHIVE_STATUS} [data-testid="archive-list"]')
    page.wait_for_url(served.url + "games")
    row = page.locator(f'[data-testid="game-row"][data-id="{game["id"]}"]')
    assert row.count() == 1
    assert "ferrochess level 1" in row.inner_text() and "1-0" in row.inner_text()
    row.locator("a").first.click()
    page.wait_for_url(served.url + f"game/{game['id']}")
    page.wait_for_selector('#app.fc-analysis[data-state="ready"]')
    sans = page.locator("#app .analysis-tree .move").all_inner_texts()
    assert [san.split()[0].lstrip("0123456789.") for san in sans] == ["Ra7", "Kg8", "Ra8#"], sans


def test_the_games_page_names_the_players_result_date_and_time_control(
    page: Page, served: Served
) -> None:
    play_the_ladder(page, served.url, clock="5+3")
    wait_archive_state(page, "saved")
    [game] = archived_games(served)
    assert game["time_control"] == "300+3"
    day = str(game["started_at"] or game["finished_at"])[:10].replace("-", ".")  # its PGN's Date
    page.goto(served.url + f"game/{game['id']}")
    page.wait_for_selector('#app.fc-analysis[data-state="ready"]')
    named = f"You vs ferrochess level 1 · 1-0 · {day} · 5+3"
    page.wait_for_selector(f'.site-header [data-testid="game-title"]:text-is("{named}")')
    assert page.title() == f"{named} · ferrochess"
    page.set_viewport_size({"width": 390, "height": 844})  # a phone keeps the name on its own line
    assert page.locator('.site-header [data-testid="game-title"]').is_visible()


def test_the_review_made_on_the_play_page_is_stored_and_shown_on_the_games_page(
    page: Page, served: Served
) -> None:
    play_the_ladder(page, served.url)
    wait_archive_state(page, "saved")
    page.click('#app [data-action="review"]')
    page.wait_for_selector(f'{REVIEW_PANEL}[data-review-state="reviewed"]')
    [game] = archived_games(served)
    review_path = f"/api/games/{game['id']}/review"
    [(body, status)] = served.wait_answered(review_path, 10)
    assert status == 201
    review = page.evaluate("() => window.ferrochessPlay.review.review")
    assert body == {"review": review}
    stored = served.app.extensions["ferrochess_archive"].get_game(game["id"])
    assert stored["review"] == review
    page.goto(served.url + f"game/{game['id']}")
    page.wait_for_selector('#app.fc-analysis[data-state="ready"]')
    page.evaluate("() => localStorage.clear()")  # what the reload shows comes from the server
    page.reload()
    page.wait_for_selector('#app.fc-analysis[data-state="ready"]')
    page.click('#app .move[data-path="0.0"]')  # after 1...Kg8: the review's word on it
    line = page.locator('#app [data-testid="review-line"]')
    line.wait_for()
    assert line.inner_text().startswith("Review: #"), line.inner_text()
    page.reload()  # and again, from what the page kept
    page.wait_for_selector('#app.fc-analysis[data-state="ready"]')
    page.click('#app .move[data-path="0.0"]')
    page.locator('#app [data-testid="review-line"]').wait_for()
    time.sleep(0.3)
    assert len(served.answered(review_path)) == 1, "the review was sent once"


def test_a_submission_met_by_a_503_is_kept_sent_again_and_stored_once(
    page: Page, served: Served
) -> None:
    refused: list[str] = []

    def unavailable_once(route: Any) -> None:
        if refused:
            route.continue_()
            return
        refused.append(route.request.url)
        route.fulfill(
            status=503,
            headers={"Retry-After": "1"},
            content_type="application/json",
            body=json.dumps({"error": "the games archive cannot be reached: down", "field": None}),
        )

    page.route("**/api/games", unavailable_once)
    play_the_ladder(page, served.url)
    assert wait_archive_state(page, "waiting", 5_000).startswith(WAITING)
    outbox = json.loads(page.evaluate(f"() => localStorage.getItem('{ARCHIVE_OUTBOX_KEY}')"))
    assert [entry["game"]["moves"] for entry in outbox] == [LADDER_MOVES]
    assert wait_archive_state(page, "saved").startswith("Saved to the games archive")
    assert len(refused) == 1
    assert [status for _body, status in posted(served)] == [201]
    assert len(archived_games(served)) == 1


def test_a_game_never_stored_goes_on_the_next_page_load(page: Page, served: Served) -> None:
    page.route(
        "**/api/games",
        lambda route: route.fulfill(
            status=503, headers={"Retry-After": "60"}, content_type="application/json",
            body=json.dumps({"error": "the games archive cannot be reached: down", "field": None}),
        ),
    )  # fmt: skip
    play_the_ladder(page, served.url)
    wait_archive_state(page, "waiting", 5_000)
    page.unroute("**/api/games")
    page.reload()
    wait_state(page, "over")
    wait_archive_state(page, "saved")
    assert [status for _body, status in posted(served)] == [201]
    assert len(archived_games(served)) == 1
    assert page.evaluate(f"() => localStorage.getItem('{ARCHIVE_OUTBOX_KEY}')") == "[]"


def test_a_review_made_while_the_server_cannot_be_reached_follows_the_game(
    page: Page, served: Served
) -> None:
    down = [True]
    page.route(
        "**/api/games**",
        lambda route: route.abort("connectionrefused") if down[0] else route.continue_(),
    )
    play_the_ladder(page, served.url)
    assert wait_archive_state(page, "waiting", 5_000).startswith(WAITING)
    page.click('#app [data-action="review"]')
    page.wait_for_selector(f'{REVIEW_PANEL}[data-review-state="reviewed"]')
    review = page.evaluate("() => window.ferrochessPlay.review.review")
    outbox = json.loads(page.evaluate(f"() => localStorage.getItem('{ARCHIVE_OUTBOX_KEY}')"))
    assert [entry["review"] for entry in outbox] == [review], "the review waits with the game"
    down[0] = False
    page.click(f'{ARCHIVE_STATUS} [data-action="archive-retry"]')
    wait_archive_state(page, "saved")
    [game] = archived_games(served)
    [(_body, status)] = served.wait_answered(f"/api/games/{game['id']}/review", 10)
    assert status == 201
    page.wait_for_function(f"() => localStorage.getItem('{ARCHIVE_OUTBOX_KEY}') === '[]'")
    assert archived_games(served)[0]["review"] == review


def test_a_conflict_is_final_and_says_why(page: Page, served: Served) -> None:
    asked: list[str] = []

    def conflict(route: Any) -> None:
        asked.append(route.request.url)
        route.fulfill(
            status=409, content_type="application/json",
            body=json.dumps({"error": "another game has this client_id", "field": "client_id"}),
        )  # fmt: skip

    page.route("**/api/games", conflict)
    play_the_ladder(page, served.url)
    words = wait_archive_state(page, "refused", 5_000)
    assert words == "Not saved to the games archive: another game has this client_id."
    time.sleep(1.5)
    assert len(asked) == 1, "a refusal is not sent again"
    page.reload()
    wait_state(page, "over")
    wait_archive_state(page, "refused", 5_000)
    assert len(asked) == 1


def test_a_game_reloaded_after_it_was_stored_is_not_stored_twice(
    page: Page, served: Served
) -> None:
    open_page(page, served.url, saved_game(FOOLS_MATE))
    wait_state(page, "over")
    wait_archive_state(page, "saved")
    client_id = page.evaluate(GAME_ID_JS)
    saved = json.loads(page.evaluate(f"() => localStorage.getItem('{STORAGE_KEY}')"))
    assert saved["game"]["record"]["id"] == client_id
    page.reload()
    wait_state(page, "over")
    assert wait_archive_state(page, "saved").startswith("Saved to the games archive")
    assert page.evaluate(GAME_ID_JS) == client_id
    time.sleep(0.5)
    assert len(posted(served)) == 1, "a stored game is not sent again"
    # A browser that forgot it had stored the game sends it again: the server keeps one.
    page.evaluate(f"() => localStorage.removeItem('{ARCHIVE_STORED_KEY}')")
    page.reload()
    wait_state(page, "over")
    wait_archive_state(page, "saved")
    assert [status for _body, status in posted(served)] == [201, 200]
    [game] = archived_games(served)
    assert game["moves"] == FOOLS_MATE


def test_a_new_game_is_a_new_archive_game(page: Page, served: Served) -> None:
    open_page(page, served.url, saved_game(FOOLS_MATE))
    wait_state(page, "over")
    wait_archive_state(page, "saved")
    first = page.evaluate(GAME_ID_JS)
    page.click('#app [data-action="new-game-after"]')
    wait_state(page, "ready")
    assert page.evaluate(GAME_ID_JS) != first
    assert page.locator(ARCHIVE_STATUS).is_hidden()
    resign(page)
    wait_state(page, "over")
    time.sleep(0.5)
    assert len(archived_games(served)) == 1, "a game with no move is not kept"
    assert page.locator(ARCHIVE_STATUS).is_hidden()


def test_without_an_archive_nothing_is_sent_and_nothing_shows(page: Page) -> None:
    with serve(FAST) as served:
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        play_the_ladder(page, served.url)
        page.click('#app [data-action="review"]')
        page.wait_for_selector(f'{REVIEW_PANEL}[data-review-state="reviewed"]')
        time.sleep(0.5)
        assert not [url for url in asked if "/api/games" in url]
        assert page.get_attribute("#app", "data-archive") is None
        assert page.locator(ARCHIVE_STATUS).is_hidden()
        assert page.locator('[data-testid="games-link"]').count() == 0
        kept = page.evaluate(
            f"() => [localStorage.getItem('{ARCHIVE_OUTBOX_KEY}'),"
            f" localStorage.getItem('{ARCHIVE_STORED_KEY}')]"
        )
        assert kept == [None, None]
