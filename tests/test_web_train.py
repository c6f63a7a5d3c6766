"""Guards the training page (/train, issue 51) in a real browser (Playwright driving Debian's
Chromium) against the play app with a real SQLite archive: games archived for a player are
searched for puzzles from the page ("Find puzzles in my games"); the puzzle due shows from the
solver's side with whose move it is, its themes, its source game (a link to /game/<id>), the
player's rating and the puzzles due. Solved right it says "Solved", posts one attempt, and the
rating goes up and the puzzle is scheduled days or minutes away; a reload keeps both (the next
puzzle, with the new rating and one fewer due). Solved wrong it says "That's not the move", shows
the line, posts one failed attempt, and the rating goes down. A move that mates counts as right
though it is not the line's (as lichess counts it), any of an opening drill's accepted moves
counts, a Chess960 puzzle castles with the king taken onto its rook, and "n" goes to the next
puzzle; the opponent's reply comes by itself after a right move. The play page sends this
browser's player id with every game it archives and links to /train (without an archive, /train
says there is no training), and a blunder played on the play page becomes, once archived, a
puzzle that /train finds and the player solves. The notebook widget (ferrochess.notebook.train)
mounts the same board from the page's modules and solves against the kernel. Skips without
Chromium or Playwright."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import pytest
from browser_helpers import (
    FAST,
    TIMEOUT_MS,
    Page,
    Served,
    browser_type_launch_args,  # noqa: F401 - a fixture
    click_move,
    load_fen,
    open_page,
    serve,
    serve_archive,
    shown,
    wait_moves,
    wait_state,
)
from ferrochess import Engine
from ferrochess.service.submission import time_text
from ferrochess.training import START, Puzzle, card_to_dict, new_card
from ferrochess.training.schedule import now_utc

PLAYER = "train-test-player"
PLAYER_KEY = "ferrochess.player"
SCHOLAR = ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]
"""Black (the player) blunders 3...Nf6?? and is mated: the puzzle is White's 4.Qxf7#."""
SCHOLAR_MOVETEXT = ["1.", "e4", "e5", "2.", "Qh5", "Nc6", "3.", "Bc4", "Nf6", "4.", "Qxf7#"]
SCHOLAR_FEN = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
QUEEN_F3 = ["e4", "e5", "Bc4", "Nc6", "Qf3", "d6", "Qxf7#"]
"""The same mistake from another start: 3...d6?? 4.Qxf7#."""
QUEEN_F3_FEN = "r1bqkbnr/ppp2ppp/2np4/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 0 4"
BACK_RANK = "6k1/5ppp/8/8/8/8/8/R3R1K1 w - - 0 1"
"""Two mates in one: Ra8# (the line's) and Re8#."""
SCHOLAR_PGN = f'[White "ferrochess"]\n[Black "Me"]\n\n{" ".join(SCHOLAR_MOVETEXT)} 1-0\n'
RETI = "rnbk1b1r/pp3ppp/2p5/4q3/4n3/8/PPPB1PPP/2KR1BNR w - - 0 10"
CASTLE_MATE = "4rkr1/4p1p1/8/8/8/8/8/1K5R w H - 0 1"
"""Chess960: O-O (the king from b1 onto its rook on h1) mates."""
FAST_TRAINING = {**FAST, "FERROCHESS_TRAIN_NODES": 20_000}
APP = "#app"


def uci_moves(sans: list[str]) -> list[str]:
    board = chess.Board()
    return [board.push_san(san).uci() for san in sans]


def archive_game(served: Served, client_id: str, sans: list[str], player: str = PLAYER) -> str:
    """A finished game the player lost as Black at level 1, stored as the play page stores one;
    its public id."""
    archive = served.app.extensions["ferrochess_archive"]
    game_id, stored = archive.store_game({
        "client_id": client_id, "moves": uci_moves(sans), "human": "black", "level": 1,
        "white": "ferrochess level 1", "black": "You", "player": player,
    })  # fmt: skip
    assert stored
    return str(game_id)


def give_puzzle(served: Served, puzzle: Puzzle, client_id: str) -> None:
    """``puzzle`` made a card of the player's, due now, as mining a game of theirs stores one
    (the game a short one of theirs, stored for it)."""
    game_id = archive_game(served, client_id, ["f3", "e5", "g4", "Qh4#"])
    card = new_card(now_utc())
    made = served.app.extensions["ferrochess_archive"].training.store_mined(
        PLAYER, game_id, [(puzzle.to_dict(), card_to_dict(card), time_text(card.due))],
        START.to_dict(),
    )  # fmt: skip
    assert made == 1


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """The play app with a games archive in a fresh SQLite file, mining with short searches."""
    with serve_archive(tmp_path / "games.sqlite3", FAST_TRAINING) as app:
        yield app


def open_train(page: Page, url: str, player: str = PLAYER) -> Page:
    """/train as ``player`` (the id this browser keeps), once it has asked for a puzzle."""
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url + "api/levels")  # the same origin, before the page runs
    page.evaluate("([key, id]) => { localStorage.clear(); localStorage.setItem(key, id); }",
                  [PLAYER_KEY, player])  # fmt: skip
    page.goto(url + "train")
    wait_train(page, "solving", "empty")
    return page


def wait_train(page: Page, *states: str) -> str:
    page.wait_for_selector(", ".join(f'{APP}[data-state="{name}"]' for name in states))
    return str(page.get_attribute(APP, "data-state"))


def text(page: Page, testid: str) -> str:
    return page.inner_text(f'{APP} [data-testid="{testid}"]').strip()


def expect_placement(page: Page, fen: str) -> None:
    """Asserts that the training board shows the piece placement of ``fen``."""
    placement = fen.split(" ")[0]
    found = shown(page, "() => window.ferrochessTrain.board.ground.getFen()", None, placement)
    assert found == placement, f"the board shows {found}, not {placement}"


def wait_text(page: Page, testid: str, pattern: str) -> str:
    """The text of ``testid`` once it matches the regular expression ``pattern``."""
    page.wait_for_function(
        "([id, pattern]) => new RegExp(pattern).test("
        'document.querySelector(`#app [data-testid="${id}"]`).textContent.trim())',
        arg=[testid, pattern],
    )
    return text(page, testid)


def rating(page: Page) -> int:
    return int(str(page.get_attribute(f'{APP} [data-testid="rating"]', "data-rating")))


def attempts(served: Served, count: int = 0) -> list[tuple[Any, int]]:
    """The attempts the server answered, once there are ``count`` (the server records a request
    when its answer is sent: a moment after the page has it)."""
    with served.changed:
        served.changed.wait_for(
            lambda: len(served.answered("/api/train/attempt")) >= count, TIMEOUT_MS / 1000
        )
    return served.answered("/api/train/attempt")


def mine_from_the_page(page: Page) -> None:
    """Clicks "Find puzzles in my games" and waits until a puzzle shows."""
    page.click(f'{APP} [data-action="mine"]')
    wait_train(page, "solving")


def test_puzzles_from_my_games_solved_right_then_wrong(page: Page, served: Served) -> None:
    first_game = archive_game(served, "scholar", SCHOLAR)
    archive_game(served, "queen-f3", QUEEN_F3)
    open_train(page, served.url)
    assert wait_train(page, "empty") == "empty"
    assert "Find puzzles in my games" in page.inner_text(f'{APP} [data-panel="empty"]')
    assert text(page, "rating") == "1500 ± 350"  # with nothing due, the rating is still shown
    assert text(page, "due") == "No puzzles yet"
    mine_from_the_page(page)
    [(mined, status)] = served.answered("/api/train/mine")
    assert status == 200 and mined == {"player": PLAYER}

    # The first game's puzzle, from White's side, White to move.
    expect_placement(page, SCHOLAR_FEN)
    assert page.get_attribute(f"{APP} .cg-wrap", "class").find("orientation-white") >= 0
    assert text(page, "turn") == "Your turn: find the best move for White."
    assert "mate" in page.inner_text(f'{APP} [data-testid="themes"]')
    # A theme reads as words: "mateIn1" is "mate in 1".
    assert page.inner_text(f'{APP} [data-theme="mateIn1"]').strip() == "mate in 1"
    link = page.locator(f'{APP} [data-testid="source-game"]')
    assert link.get_attribute("href") == f"/game/{first_game}"
    assert "ferrochess level 1 – You" in text(page, "source")
    assert text(page, "rating") == "1500 ± 350"
    due = text(page, "due")
    total = int(re.search(r"due of (\d+)", due).group(1))  # type: ignore[union-attr]
    assert total >= 2 and due.startswith(f"{total} puzzles due")

    click_move(page, "h5", "f7")
    wait_train(page, "solved")
    assert text(page, "feedback") == "Solved"
    wait_text(page, "rating-change", r"^\+\d+$")
    after = rating(page)
    assert after > 1500
    assert text(page, "schedule").startswith("This puzzle comes back in ")
    [(body, status)] = attempts(served, 1)
    assert status == 200 and body["player"] == PLAYER and body["solved"] is True
    assert text(page, "due").startswith(f"{total - 1} puzzle")

    # A reload keeps the rating and the schedule: the next puzzle, one fewer due.
    page.reload()
    wait_train(page, "solving")
    expect_placement(page, QUEEN_F3_FEN)
    assert rating(page) == after
    assert text(page, "due").startswith(f"{total - 1} puzzle")

    click_move(page, "f3", "f6")  # not the move: 4.Qxf7# is
    wait_train(page, "failed")
    assert text(page, "feedback") == "That's not the move"
    assert text(page, "solution") == "You played Qf6. The line: 4. Qxf7#"
    expect_placement(page, QUEEN_F3_FEN)  # the wrong move taken back, the right one shown
    wait_text(page, "rating-change", r"^−\d+$")
    assert rating(page) < after
    assert text(page, "schedule") == "This puzzle comes back in 1 minute."
    assert [body["solved"] for body, _status in attempts(served, 2)] == [True, False]

    page.reload()
    wait_train(page, "solving", "empty")
    assert len(attempts(served)) == 2  # a reload posts nothing


def test_the_opponent_replies_after_a_right_move_until_the_line_ends(
    page: Page, served: Served
) -> None:
    """Reti-Tartakower 1910: 10.Bg5+ (best move) Kc7 (played by the page) 11.Bd8# (solved)."""
    line = ("d2g5", "d8c7", "g5d8")
    give_puzzle(served, Puzzle(RETI, line, ("mate", "mateIn2"), "blunder"), "fools")
    open_train(page, served.url)
    click_move(page, "d2", "g5")
    wait_text(page, "feedback", "^Best move! Keep going…$")  # then the reply, by itself
    wait_train(page, "solving")
    expect_placement(page, "rnb2b1r/ppk2ppp/2p5/4q1B1/4n3/8/PPP2PPP/2KR1BNR w - - 2 11")
    assert text(page, "turn") == "Your turn: find the best move for White."
    assert attempts(served) == []  # not over yet
    click_move(page, "g5", "d8")
    wait_train(page, "solved")
    assert text(page, "solution") == "The line: 10. Bg5+ Kc7 11. Bd8#"
    page.wait_for_function("() => window.ferrochessTrain.ctrl.attempt.state === 'sent'")
    [(body, _status)] = attempts(served, 1)
    assert body["solved"] is True and body["seconds"] >= 0


def test_a_mate_that_is_not_the_line_counts_and_n_goes_on(page: Page, served: Served) -> None:
    give_puzzle(served, Puzzle(BACK_RANK, ("a1a8",), ("mate", "mateIn1"), "missed_win"), "fools")
    open_train(page, served.url)
    expect_placement(page, BACK_RANK)
    click_move(page, "e1", "e8")
    wait_train(page, "solved")
    assert text(page, "feedback") == "Solved"
    page.wait_for_function("() => window.ferrochessTrain.ctrl.attempt.state === 'sent'")
    [(body, _status)] = attempts(served, 1)
    assert body["solved"] is True
    page.keyboard.press("n")  # the next puzzle: none due now
    assert wait_train(page, "empty") == "empty"
    assert "No puzzle is due now" in text(page, "empty")


def test_an_opening_drill_accepts_each_of_its_moves(page: Page, served: Served) -> None:
    board = chess.Board()
    for san in ["e4", "e5", "Bc4"]:
        board.push_san(san)
    drill = Puzzle(board.fen(), ("g8f6",), ("opening",), "opening", accept=("g8f6", "f8c5"))
    give_puzzle(served, drill, "fools")
    open_train(page, served.url)
    assert page.get_attribute(f"{APP} .cg-wrap", "class").find("orientation-black") >= 0
    assert text(page, "turn") == "Your turn: find the best move for Black."
    click_move(page, "f8", "c5")  # a book move, not the card's own
    wait_train(page, "solved")
    page.wait_for_function("() => window.ferrochessTrain.ctrl.attempt.state === 'sent'")
    [(body, _status)] = attempts(served, 1)
    assert body["solved"] is True


def test_a_chess960_puzzle_castles_king_onto_rook(page: Page, served: Served) -> None:
    """The king taken onto its own rook castles (chessground's way in Chess960), and mates."""
    mate = Puzzle(CASTLE_MATE, ("b1h1",), ("mate", "mateIn1"), "missed_win", chess960=True)
    give_puzzle(served, mate, "fools")
    open_train(page, served.url)
    expect_placement(page, CASTLE_MATE)
    click_move(page, "b1", "h1")
    wait_train(page, "solved")
    expect_placement(page, "4rkr1/4p1p1/8/8/8/8/8/5RK1 b - - 1 1")
    assert "O-O#" in text(page, "solution")
    states = [body for body, _status in served.answered("/api/state")]
    assert states and all(body["chess960"] is True for body in states)


def test_without_an_archive_the_page_says_there_is_no_training(page: Page) -> None:
    with serve(FAST) as served:
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(served.url + "train")
        assert wait_train(page, "error") == "error"
        assert "keeps no games archive" in page.inner_text(f"{APP} .message")
        page.goto(served.url)
        assert page.locator('[data-testid="train-link"]').count() == 0


def test_the_play_page_archives_with_the_player_id_and_links_to_training(
    page: Page, served: Served
) -> None:
    open_page(page, served.url)
    page.evaluate("(key) => localStorage.setItem(key, 'my-browser-id')", PLAYER_KEY)
    page.reload()
    wait_state(page, "ready")
    assert page.get_attribute('[data-testid="train-link"]', "href") == "/train"
    page.select_option('#app [data-role="level"]', "1")
    load_fen(page, "7k/8/6K1/8/8/8/8/R7 w - - 0 1")  # 1.Ra7 Kg8 2.Ra8#
    click_move(page, "a1", "a7")
    wait_moves(page, 2)
    click_move(page, "a7", "a8")
    wait_state(page, "over")
    [(body, status)] = served.wait_answered("/api/games", TIMEOUT_MS / 1000)
    assert status == 201 and body["player"] == "my-browser-id"
    games = served.app.extensions["ferrochess_archive"].training.player_games("my-browser-id")
    assert len(games) == 1 and games[0]["human"] == "white"


def test_a_blunder_played_on_the_page_becomes_a_puzzle_on_train(page: Page, served: Served) -> None:
    # The whole way, as a player meets it: a game played on the play page (set up before
    # 3...Nf6??, Black to move: the player is Black), lost to the engine's 4.Qxf7#, archived
    # with this browser's id; then /train finds the puzzle in it and it is solved there.
    open_page(page, served.url)
    page.evaluate("([key, id]) => localStorage.setItem(key, id)", [PLAYER_KEY, PLAYER])
    page.reload()
    wait_state(page, "ready")
    page.select_option('#app [data-role="level"]', "10")
    load_fen(page, "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 3 3")
    click_move(page, "g8", "f6")
    wait_state(page, "over")
    [(body, status)] = served.wait_answered("/api/games", TIMEOUT_MS / 1000)
    assert status == 201 and body["player"] == PLAYER and body["moves"] == ["g8f6", "h5f7"]

    page.goto(served.url + "train")
    assert wait_train(page, "empty") == "empty"
    mine_from_the_page(page)
    expect_placement(page, SCHOLAR_FEN)
    assert text(page, "turn") == "Your turn: find the best move for White."
    click_move(page, "h5", "f7")
    assert wait_train(page, "solved", "failed") == "solved"


# --- the notebook widget's front end --------------------------------------------------------------

MODEL_JS = """
async ({esm, css, traits}) => {
  const style = document.createElement('style');
  style.textContent = css;
  document.head.append(style);
  const listeners = new Set();
  const model = {
    get: (key) => traits[key],
    set: (key, value) => { traits[key] = value; },
    save_changes() {},
    on(event, listener) { if (event === 'msg:custom') listeners.add(listener); },
    off(event, listener) { listeners.delete(listener); },
    send(content) {
      window.kernel(content).then((answers) => {
        for (const answer of answers) for (const listener of [...listeners]) listener(answer);
      });
    },
  };
  const url = URL.createObjectURL(new Blob([esm], { type: 'text/javascript' }));
  const widget = await import(url);
  await widget.default.render({ model, el: document.getElementById('app') });
}
"""
"""Mounts the widget as anywidget does, with a stand-in model whose comm is ``window.kernel``."""


def test_the_notebook_widget_mounts_the_same_board_and_solves_against_the_kernel(
    page: Page,
) -> None:
    """ferrochess.notebook.train()'s front end: the page's own modules, loaded by widget.js from
    the traits, mount the training board; the kernel answers its requests; a mate played on the
    board is "Solved" and its attempt recorded in the kernel."""
    pytest.importorskip("anywidget", reason="anywidget is not installed (pip install anywidget)")
    from ferrochess.notebook import train

    with Engine(seed=3, book=None) as engine:
        widget = train(SCHOLAR_PGN, color="black", nodes=20_000, engine=engine)
        try:
            solve_in_the_widget(page, widget)
        finally:
            widget.close()


def solve_in_the_widget(page: Page, widget: Any) -> None:
    """Mounts ``widget``'s front end in ``page`` (MODEL_JS) and plays the mate on its board."""

    def kernel(content: dict[str, Any]) -> list[dict[str, Any]]:
        answers: list[dict[str, Any]] = []
        widget.send = answers.append
        widget.backend.handle(content)
        return answers

    page.set_default_timeout(30_000)
    page.set_viewport_size({"width": 1100, "height": 800})
    page.set_content('<div id="app" style="width: 1000px"></div>')
    page.expose_function("kernel", kernel)
    traits = {name: getattr(widget, name) for name in
              ("_modules", "_entry", "_client_id", "_storage", "options")}  # fmt: skip
    page.evaluate(MODEL_JS, {"esm": widget._esm, "css": widget._css, "traits": traits})
    page.wait_for_selector('#app .fc-train[data-state="solving"]')
    assert "find the best move for White" in page.inner_text('#app [data-testid="turn"]')
    click_move(page, "h5", "f7")
    page.wait_for_selector('#app .fc-train[data-state="solved"]')
    assert page.inner_text('#app [data-testid="feedback"]') == "Solved"
    page.wait_for_function(
        "() => document.querySelector('#app .train-change').textContent.startsWith('+')"
    )
    [attempt] = widget.training.attempts
    assert attempt["solved"] is True and attempt["puzzle"] == widget.puzzles[0].id
