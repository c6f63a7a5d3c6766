"""Guards the analysis board (/analysis, static/analysis/) in a real browser (Playwright driving
Debian's Chromium), one behaviour each: a move at a past position makes a variation that can be
promoted to the main line; the keys walk the line and switch between the variations of a fork; the
context menu folds and deletes a variation; a FEN typed in starts a new analysis; the live engine's
lines appear within a second, deepen, and stop when the position changes or the engine is turned
off (the server's pool has every engine free again); three lines draw three arrows; space and a
click on a line's move play the engine's moves; a real PGN's comments, variations, NAGs and
evaluations come back equal for python-chess after import and export; a game of an uploaded
multi-game file is picked by its headers; the explorer lists the default book's moves in the order
the book gives them; a three-piece position shows each move's WDL and DTZ as the tables say; after
a review handed over by the play page a position shows its evaluation and a blunder the refutation
in words; the tree survives a reload; at 390 px everything is stacked with the board in full view.
An import (PGN) brings the board into view on a desktop and a phone and takes the empty board's
hint away (a game of only a comment too); a paste of more games than are listed says how many
show.
Screenshots go to tests/artifacts/. Skips without Chromium or Playwright, and where the shared data
(../shared/data) is absent."""

from __future__ import annotations

import io
import json
import re
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import chess.syzygy
import ferrochess
import pytest
from browser_helpers import (
    FAST,
    Page,
    Served,
    analysis_path,
    browser_type_launch_args,  # noqa: F401 - a fixture
    click_move,
    open_analysis,
    serve,
    shot,
    wait_analysis_path,
)
from ferrochess import pgn_tree

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
PGN_FOLDER = SHARED / "pgn"
SYZYGY = SHARED / "syzygy"
ANALYSIS = {
    **FAST,
    "FERROCHESS_ENGINES": 2,
    "FERROCHESS_ANALYSIS_SECONDS": 6,
    "FERROCHESS_SYZYGY_PATH": str(SYZYGY) if SYZYGY.is_dir() else "",
    "MAX_CONTENT_LENGTH": 8 * 1024 * 1024,
}
"""Quick searches, a live analysis capped at 6 s, two engines, the shared tablebases."""
FOOLS_MATE = ["f2f3", "e7e5", "g2g4", "d8h4"]
"""1.f3 e5 2.g4?? Qh4#: White's second move (ply 3) is the blunder that allows mate in one."""
KQK = "8/8/8/8/8/8/3QK3/k7 w - - 0 1"
"""KQvK, White to move and win (python-chess's data: wdl +2, dtz +5)."""
ANNOTATED_PGN = """[Event "Casual game"]
[Site "?"]
[Date "2024.01.02"]
[Round "?"]
[White "Anderssen"]
[Black "Kieseritzky"]
[Result "1-0"]

{ The Immortal Game, its opening. } 1. e4 e5 2. f4 $1 { The King's Gambit. } exf4
( 2... d5 { the Falkbeer } 3. exd5 ( 3. Nf3 $5 dxe4 ) 3... e4 )
( { Also } 2... Bc5 $6 ) 3. Bc4 Qh4+ $2 { premature } 4. Kf1 b5 $5 ( 4... d6 5. Nf3 )
5. Bxb5 Nf6 $14 1-0
"""
"""Comments (before the game, after moves, starting a variation), variations inside variations,
move and position NAGs."""
SCORE = re.compile(r"^(?:[+-]\d+\.\d\d|#-?\d+|TB .+)$")
COMMANDS = re.compile(r"\[%[^\]]*\]")
"""PGN comments' embedded commands ([%eval], [%clk], [%cal], [%csl]), compared by their values."""
ARROWS_JS = "document.querySelectorAll('#app svg.cg-shapes g line').length"


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with serve(ANALYSIS) as running:
        yield running


@pytest.fixture(scope="module")
def server(served: Served) -> str:
    return served.url


def post_json(url: str, body: dict[str, Any], timeout: float = 60.0) -> list[dict[str, Any]]:
    """POST ``body``; the answer's JSON lines (one for a plain answer, each line of a stream)."""
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        text = response.read().decode()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def fools_review(server: str) -> dict[str, Any]:
    """api/review's review of Fool's Mate, as the play page hands it over."""
    lines = post_json(server + "api/review", {"moves": FOOLS_MATE, "client": "a-test-review"})
    reviews = [line["review"] for line in lines if "review" in line]
    assert reviews, lines
    return reviews[0]


def saved_board(pgn: str, path: str = "", **extra: Any) -> dict[str, Any]:
    """What store.js keeps for the tree of ``pgn`` (its wire shape), showing ``path``."""
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert game is not None
    return {
        "tree": pgn_tree.tree_from_game(game),
        "path": path,
        "engine": False,
        "lines": 1,
        **extra,
    }


def main_sans(page: Page) -> list[str]:
    """The main line's moves as the tree shows them (its columns)."""
    return [
        text.strip() for text in page.locator("#app .analysis-tree > .move .san").all_inner_texts()
    ]


def engine_on(page: Page) -> None:
    page.locator('#app [data-role="engine-toggle"]').check()


def engine_lines(page: Page) -> list[str]:
    return page.locator('#app [data-testid="ceval-line"]').all_inner_texts()


def wait_engines_free(served: Served, seconds: float = 5.0) -> int:
    """The free engines of the pool once all are free, or after ``seconds`` (the caller asserts)."""
    pool = served.app.extensions["ferrochess_pool"]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and pool.free() != pool.size:
        time.sleep(0.05)
    return int(pool.free())


def wait_answered(served: Served, path: str, count: int, seconds: float = 5.0) -> list[int]:
    """The statuses of the requests to ``path`` answered (a stream: ended), once there are
    ``count`` of them or after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and len(served.answered(path)) < count:
        time.sleep(0.05)
    return [status for _, status in served.answered(path)]


def exported_game(page: Page) -> chess.pgn.Game:
    """The tree exported by the page (its PGN as the export box shows it), read by python-chess."""
    with page.expect_download() as download:
        page.click('#app [data-action="export"]')
    assert download.value.suggested_filename.endswith(".pgn")
    text = page.locator('#app [data-role="pgn-export"]').input_value()
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None, text
    return game


def game_shape(game: chess.pgn.Game) -> Any:
    """What python-chess reads of a game beside its headers: per node its move, comment,
    starting comment, NAGs, evaluation and clock, the variations in order."""

    def node_shape(node: chess.pgn.GameNode) -> Any:
        shape: list[Any] = []
        while True:
            own = {
                "comment": COMMANDS.sub("", node.comment).strip(),
                "arrows": sorted(str(arrow) for arrow in node.arrows()),
                "nags": sorted(node.nags),
                "eval": str(node.eval()) if node.eval() is not None else None,
                "clock": node.clock(),
            }
            if isinstance(node, chess.pgn.ChildNode):
                own["move"] = node.move.uci()
                own["starting_comment"] = node.starting_comment.strip()
            own["variations"] = [node_shape(v) for v in node.variations[1:]]
            shape.append(own)
            if not node.variations:
                return shape
            node = node.variations[0]

    return node_shape(game)


def import_text(page: Page, text: str) -> None:
    page.click('#app [data-action="import"]')
    page.fill('#app [data-role="pgn-text"]', text)
    page.click('#app [data-action="import-pgn"]')


# --- the move tree -------------------------------------------------------------------------------


def test_a_move_at_a_past_position_makes_a_variation_that_can_be_promoted(
    page: Page, server: str
) -> None:
    open_analysis(page, server)
    for origin, target, path in [("e2", "e4", "0"), ("e7", "e5", "0.0"), ("g1", "f3", "0.0.0")]:
        click_move(page, origin, target)
        wait_analysis_path(page, path)
    assert main_sans(page) == ["e4", "e5", "Nf3"]
    page.click('#app .move[data-path="0"]')
    wait_analysis_path(page, "0")
    click_move(page, "c7", "c5")
    wait_analysis_path(page, "0.1")
    variation = page.locator("#app .analysis-tree .interrupt .line")
    assert variation.count() == 1 and variation.locator(".move").all_inner_texts() == ["1…c5"]
    assert main_sans(page) == ["e4", "e5", "Nf3"]
    shot(page, "analysis-01-variation")
    page.click('#app [data-action="promote"]')
    wait_analysis_path(page, "0.0")
    assert main_sans(page) == ["e4", "c5"]
    assert variation.locator(".move").all_inner_texts() == ["1…e5", "2.Nf3"]
    # Playing a move the tree holds goes there instead of adding it again.
    page.click('#app .move[data-path="0"]')
    wait_analysis_path(page, "0")
    click_move(page, "e7", "e5")
    wait_analysis_path(page, "0.1")
    assert page.locator("#app .analysis-tree .move").count() == 4


def test_the_keys_walk_the_line_and_switch_between_variations(page: Page, server: str) -> None:
    saved = saved_board("1. e4 e5 (1... c5 2. Nf3 d6) (1... e6 2. d4) 2. Nf3 Nc6 *")
    open_analysis(page, server, saved=saved)
    wait_analysis_path(page, "")
    steps = [
        ("ArrowRight", "0"), ("ArrowRight", "0.0"), ("ArrowDown", "0.1"), ("ArrowDown", "0.2"),
        ("ArrowDown", "0.2"), ("ArrowUp", "0.1"), ("ArrowRight", "0.1.0"), ("End", "0.1.0.0"),
        ("ArrowUp", "0.0"), ("End", "0.0.0.0"), ("ArrowLeft", "0.0.0"), ("Home", ""),
    ]  # fmt: skip
    for key, path in steps:
        page.keyboard.press(key)
        wait_analysis_path(page, path)
    assert page.locator("#app .cg-wrap.orientation-white").count() == 1
    page.keyboard.press("f")
    page.wait_for_selector("#app .cg-wrap.orientation-black")
    # Keys typed in a text field stay there.
    page.click('#app [data-role="comment"]')
    page.keyboard.press("ArrowRight")
    page.keyboard.type("x")
    assert analysis_path(page) == ""
    assert page.get_attribute('#app [data-panel="ceval"]', "data-engine") == "off"


def test_the_context_menu_folds_and_deletes_a_variation(page: Page, server: str) -> None:
    open_analysis(page, server, saved=saved_board("1. e4 e5 (1... c5 2. Nf3) (1... e6) 2. Nf3 *"))
    lines = page.locator("#app .analysis-tree .interrupt .line")
    assert lines.count() == 2
    page.click('#app .move[data-path="0.1.0"]', button="right")
    menu = page.locator('#app [data-testid="tree-menu"]')
    menu.locator('[data-menu="collapse"]').click()
    assert page.locator('#app .move[data-path="0.1"]').count() == 0
    expander = page.locator('#app .analysis-tree [data-expand="0"]')
    assert expander.inner_text() == "+2"
    expander.click()
    assert lines.count() == 2
    page.click('#app .move[data-path="0.1"]')
    wait_analysis_path(page, "0.1")
    page.click('#app .move[data-path="0.1"]', button="right")
    menu.locator('[data-menu="delete"]').click()
    wait_analysis_path(page, "0")
    assert lines.count() == 1 and lines.locator(".move").all_inner_texts() == ["1…e6"]
    assert main_sans(page) == ["e4", "e5", "Nf3"]


def test_a_fen_typed_in_starts_a_new_analysis(page: Page, server: str) -> None:
    open_analysis(page, server, saved=saved_board("1. e4 e5 *", path="0.0"))
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    page.click('#app [data-action="import"]')
    page.fill('#app [data-role="fen-input"]', "not a fen")
    page.click('#app [data-action="import-fen"]')
    page.wait_for_function("() => document.querySelector('#app .pgn-error').textContent !== ''")
    assert main_sans(page) == ["e4", "e5"], "a bad FEN leaves the tree alone"
    page.fill('#app [data-role="fen-input"]', fen)
    page.click('#app [data-action="import-fen"]')
    wait_analysis_path(page, "")
    assert page.input_value('#app [data-role="fen"]') == fen
    assert page.locator("#app .analysis-tree .move").count() == 0
    click_move(page, "f1", "b5")
    wait_analysis_path(page, "0")
    assert page.locator('#app .move[data-path="0"]').inner_text() == "Bb5"


def test_the_tree_survives_a_reload(page: Page, server: str) -> None:
    open_analysis(page, server, saved=saved_board("1. d4 d5 2. c4 *", path="0.0"))
    wait_analysis_path(page, "0.0")
    click_move(page, "g1", "f3")
    wait_analysis_path(page, "0.0.1")
    page.fill('#app [data-role="comment"]', "a quiet move")
    page.click('#app .nag-buttons [data-nag="5"]')
    page.reload()
    wait_analysis_path(page, "0.0.1")
    move = page.locator('#app .move[data-path="0.0.1"]')
    assert (
        move.locator(".san").inner_text() == "Nf3" and move.locator(".glyph").inner_text() == "!?"
    )
    assert "a quiet move" in page.inner_text("#app .analysis-tree")
    assert page.input_value('#app [data-role="comment"]') == "a quiet move"


# --- the live engine -----------------------------------------------------------------------------


def test_engine_lines_appear_deepen_and_stop_when_the_position_changes(
    page: Page, served: Served
) -> None:
    open_analysis(page, served.url)
    pool = served.app.extensions["ferrochess_pool"]
    before = len(served.answered("/api/analyse"))
    page.keyboard.press("x")
    started = time.monotonic()
    page.wait_for_selector('#app [data-testid="ceval-line"]', timeout=1000)
    assert time.monotonic() - started < 1.0
    first = int(page.get_attribute('#app [data-testid="ceval-line"]', "data-depth") or 0)
    page.wait_for_function(
        "(depth) => Number(document.querySelector('#app [data-testid=\"ceval-line\"]')"
        ".dataset.depth) > depth",
        arg=first,
    )
    assert SCORE.match(page.inner_text('#app [data-testid="ceval-line"] .score'))
    assert re.search(r"\d+ (?:[kM]?n/s)", page.inner_text('#app [data-testid="ceval-info"]'))
    # Another position: the search of the first one ends, one search runs (for the new one).
    page.click('#app [data-testid="explorer-move"][data-uci="e2e4"]')
    wait_analysis_path(page, "0")
    page.wait_for_selector('#app [data-testid="ceval-line"]')
    assert page.inner_text('#app [data-testid="ceval-line"] .pv-move[data-index="0"]').startswith(
        "1…"
    )
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and pool.size - pool.free() != 1:
        time.sleep(0.05)
    assert pool.size - pool.free() == 1, "the first position's search still runs"
    assert wait_answered(served, "/api/analyse", before + 1)[before:] == [200]
    shot(page, "analysis-02-engine")
    page.keyboard.press("x")
    assert wait_engines_free(served) == pool.size, "a search still runs after the engine went off"
    assert wait_answered(served, "/api/analyse", before + 2)[before:] == [200, 200]
    assert page.get_attribute('#app [data-panel="ceval"]', "data-engine") == "off"


def test_the_engines_score_is_kept_on_the_move_and_exported_as_its_eval(
    page: Page, served: Served
) -> None:
    open_analysis(page, served.url)
    page.click('#app [data-testid="explorer-move"][data-uci="d2d4"]')
    wait_analysis_path(page, "0")
    page.keyboard.press("x")
    page.wait_for_function(
        "() => Number(document.querySelector('#app [data-testid=\"ceval-line\"]')"
        "?.dataset.depth) >= 8"
    )
    page.keyboard.press("x")  # off: the move shows the score the engine left on it
    page.wait_for_selector('#app [data-panel="ceval"][data-engine="off"]')
    kept = page.locator('#app [data-testid="review-line"]').inner_text()
    found = re.fullmatch(r"Evaluation: (\S+) \(depth (\d+)\)", kept.strip())
    assert found is not None, kept
    shown, shown_depth = found.group(1), int(found.group(2))
    exported = exported_game(page).next()
    assert exported is not None and exported.move == chess.Move.from_uci("d2d4")
    assert exported.eval_depth() == shown_depth >= 8
    pawns = exported.eval().white().score() / 100
    assert shown == f"{pawns:+.2f}" or (pawns == 0 and shown == "0.00"), (shown, pawns)
    page.keyboard.press("x")
    page.wait_for_selector('#app [data-panel="ceval"][data-engine="running"]')
    # The tab goes away with the engine on: the server's search ends with it.
    page.close()
    assert wait_engines_free(served) == served.app.extensions["ferrochess_pool"].size


def test_three_lines_show_three_arrows(page: Page, served: Served) -> None:
    open_analysis(page, served.url)
    page.select_option('#app [data-role="multipv"]', "3")
    engine_on(page)
    page.wait_for_function(
        "() => document.querySelectorAll('#app [data-testid=\"ceval-line\"]').length === 3"
    )
    page.wait_for_function(f"() => {ARROWS_JS} === 3")
    scores = page.locator('#app [data-testid="ceval-line"] .score').all_inner_texts()
    assert len(scores) == 3 and all(SCORE.match(score) for score in scores), scores
    firsts = page.locator(
        '#app [data-testid="ceval-line"] .pv-move[data-index="0"]'
    ).all_inner_texts()
    assert len(set(firsts)) == 3, firsts
    shot(page, "analysis-03-three-lines")
    engine_on_off = page.locator('#app [data-role="engine-toggle"]')
    engine_on_off.uncheck()
    page.wait_for_function(f"() => {ARROWS_JS} === 0")
    assert wait_engines_free(served) == served.app.extensions["ferrochess_pool"].size


def test_space_and_a_click_on_a_line_play_the_engines_moves(page: Page, served: Served) -> None:
    open_analysis(page, served.url)
    engine_on(page)
    line = '#app [data-testid="ceval-line"]:first-child'
    page.wait_for_selector(f'{line} .pv-move[data-index="2"]')
    # Read the line and act on it in one go: the engine may deepen in between otherwise.
    best = page.evaluate(
        """(line) => {
          const first = document.querySelector(line + ' .pv-move[data-index="0"]');
          const san = first.lastChild.textContent;
          document.dispatchEvent(new KeyboardEvent('keydown', {key: ' ', bubbles: true}));
          return san;
        }""",
        line,
    )
    wait_analysis_path(page, "0")
    assert main_sans(page) == [best]
    page.keyboard.press("ArrowLeft")
    wait_analysis_path(page, "")
    page.wait_for_selector(f'{line} .pv-move[data-index="2"]')
    sans = page.evaluate(
        """(line) => {
          const moves = [...document.querySelectorAll(line + ' .pv-move')].slice(0, 3);
          const sans = moves.map((move) => move.lastChild.textContent);
          moves[2].click();
          return sans;
        }""",
        line,
    )
    page.wait_for_function("() => document.querySelector('#app').dataset.path.length === 5")
    path = analysis_path(page)
    shown = [
        page.inner_text(f'#app .move[data-path="{path[:length]}"] .san') for length in (1, 3, 5)
    ]
    assert shown == sans
    page.locator('#app [data-role="engine-toggle"]').uncheck()
    assert wait_engines_free(served) == served.app.extensions["ferrochess_pool"].size


# --- PGN in and out ------------------------------------------------------------------------------


def real_annotated_game() -> str:
    """A game of the lichess database excerpt with NAGs, [%eval] and [%clk] in its comments."""
    path = PGN_FOLDER / "lichess_db_100k.pgn"
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared data)")
    text = path.read_text(encoding="utf-8")
    for chunk in re.split(r"\n(?=\[Event )", text):
        if "%eval" in chunk and "?!" in chunk and "??" in chunk:
            return chunk.strip() + "\n"
    pytest.skip(f"no annotated game in {path}")


@pytest.mark.parametrize("source", ["real", "annotated"])
def test_a_pgn_comes_back_equal_after_import_and_export(
    page: Page, server: str, source: str
) -> None:
    text = real_annotated_game() if source == "real" else ANNOTATED_PGN
    original = chess.pgn.read_game(io.StringIO(text))
    assert original is not None
    open_analysis(page, server)
    import_text(page, text)
    page.wait_for_function(
        "(count) => document.querySelectorAll('#app .analysis-tree .move').length === count",
        arg=sum(1 for _ in iter_nodes(original)) - 1,
    )
    wait_analysis_path(page, "")
    assert main_sans(page) == [node.san() for node in original.mainline()]
    if source == "annotated":
        tree_text = page.inner_text("#app .analysis-tree")
        assert "The King's Gambit." in tree_text and "the Falkbeer" in tree_text
        assert page.locator("#app .analysis-tree .glyph.nag-good").count() == 1
        shot(page, "analysis-04-annotated-pgn")
    exported = exported_game(page)
    assert game_shape(exported) == game_shape(original)
    for name in ("White", "Black", "Result", "Event"):
        assert exported.headers.get(name) == original.headers.get(name), name


def iter_nodes(game: chess.pgn.Game) -> Iterator[chess.pgn.GameNode]:
    stack: list[chess.pgn.GameNode] = [game]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.variations)


def test_a_game_of_an_uploaded_multi_game_file_is_picked_by_its_headers(
    page: Page, server: str
) -> None:
    path = PGN_FOLDER / "lichess_db_10k.pgn"
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared data)")
    text = path.read_text(encoding="utf-8")
    stream = io.StringIO(text)
    games = []
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    assert len(games) > 2
    open_analysis(page, server)
    page.click('#app [data-action="import"]')
    page.set_input_files('#app [data-role="pgn-file"]', path)
    rows = page.locator('#app [data-testid="pgn-game"]')
    rows.first.wait_for()
    assert rows.count() == len(games)
    whites = page.locator('#app [data-testid="pgn-game"] td[data-header="White"]').all_inner_texts()
    assert whites == [game.headers["White"] for game in games]
    shot(page, "analysis-05-games")
    chosen = games[2]
    row = rows.filter(has_text=chosen.headers["White"]).filter(has_text=chosen.headers["Black"])
    row.click()
    page.wait_for_function(
        "(count) => document.querySelectorAll('#app .analysis-tree > .move').length === count",
        arg=len(list(chosen.mainline_moves())),
    )
    assert main_sans(page) == [node.san() for node in chosen.mainline()]
    assert page.locator('#app [data-testid="pgn-game"]').count() == 0, "the list closes"
    page.click('#app [data-action="show-games"]')
    assert rows.count() == len(games)


# --- the explorer --------------------------------------------------------------------------------


def test_the_explorer_lists_the_default_books_moves_in_its_order(page: Page, server: str) -> None:
    with ferrochess.open_book(ferrochess.DEFAULT_BOOK) as book:
        entries = list(book.find_all(chess.Board()))
    assert entries, "the default book has moves at the start"
    open_analysis(page, server)
    rows = page.locator('#app [data-testid="explorer-move"]')
    rows.first.wait_for()
    assert [rows.nth(i).get_attribute("data-uci") for i in range(rows.count())] == [
        entry.move.uci() for entry in entries
    ]
    weights = page.locator('#app [data-testid="explorer-move"] .weight').all_inner_texts()
    assert weights == [str(entry.weight) for entry in entries]
    total = sum(entry.weight for entry in entries)
    shares = page.locator('#app [data-testid="explorer-move"] .share-text').all_inner_texts()
    assert shares == [f"{100 * entry.weight / total:.1f}%" for entry in entries]
    # A click plays the move; the explorer follows with the opening's name.
    rows.first.click()
    wait_analysis_path(page, "0")
    page.wait_for_selector('#app [data-testid="explorer-opening"]')
    assert main_sans(page) == [chess.Board().san(entries[0].move)]


def signed(value: int) -> str:
    """A number as the explorer writes WDL and DTZ: "+2", "-4", "0"."""
    return f"{value:+d}" if value else "0"


def test_a_three_piece_position_shows_each_moves_wdl_and_dtz(page: Page, server: str) -> None:
    if not (SYZYGY / "KQvK.rtbw").exists():
        pytest.skip(f"{SYZYGY} holds no KQvK table (the shared data)")
    open_analysis(page, server, query="?fen=" + urllib.parse.quote(KQK))
    section = page.locator('#app [data-testid="explorer-tablebase"]')
    section.wait_for()
    assert section.get_attribute("data-wdl") == "2"
    assert "White wins" in section.locator(".tablebase-verdict").inner_text()
    board = chess.Board(KQK)
    expected = {}
    with chess.syzygy.open_tablebase(str(SYZYGY)) as tables:
        for move in board.legal_moves:
            board.push(move)
            expected[move.uci()] = (-tables.probe_wdl(board), -tables.probe_dtz(board))
            board.pop()
    rows = section.locator('[data-testid="tablebase-move"]')
    shown = {
        rows.nth(i).get_attribute("data-uci"): (
            int(rows.nth(i).get_attribute("data-wdl") or "nan"),
            int(rows.nth(i).get_attribute("data-dtz") or "nan"),
        )
        for i in range(rows.count())
    }
    assert shown == expected
    for i in range(rows.count()):
        text = rows.nth(i).inner_text()
        wdl, dtz = shown[rows.nth(i).get_attribute("data-uci")]
        assert f"WDL {signed(wdl)}" in text and f"DTZ {signed(dtz)}" in text, text
    assert "Winning" in rows.first.inner_text()
    assert page.url.endswith("/analysis"), "the FEN left the address once read"
    shot(page, "analysis-06-tablebase")


# --- the review handed over by the play page -----------------------------------------------------


def test_after_a_review_a_position_shows_its_evaluation(
    page: Page, server: str, fools_review: dict[str, Any]
) -> None:
    handoff = {"fen": chess.STARTING_FEN, "moves": FOOLS_MATE, "review": fools_review, "ply": 2,
               "headers": {"White": "You", "Black": "ferrochess level 1"}}  # fmt: skip
    open_analysis(page, server, handoff=handoff)
    wait_analysis_path(page, "0.0")
    assert page.evaluate("localStorage.getItem('ferrochess.analysis.handoff')") is None
    page.click('#app .move[data-path="0"]')
    wait_analysis_path(page, "0")
    review = page.locator('#app [data-testid="review-line"]')
    review.wait_for()
    expected = fools_review["moves"][0]["eval_after"]
    text = review.inner_text()
    assert text.startswith("Review: ") and SCORE.match(text.split()[1].rstrip(",")), text
    shown = text.split()[1].rstrip(",")
    mate = "mate" in expected
    assert shown == (f"#{expected['mate']}" if mate else f"{expected['cp'] / 100:+.2f}")
    bar = page.locator('#app [data-testid="eval-bar"]')
    assert bar.get_attribute("data-score") == shown
    if "cp" in expected and expected["cp"] != 0:
        assert bar.get_attribute("aria-valuenow") != "50"
    assert "best line" in text
    assert fools_review["moves"][1]["best_line"][0] in text  # the line from after 1.f3
    shot(page, "analysis-07-reviewed-position")


def test_the_blunder_shows_the_refutation_in_words(
    page: Page, server: str, fools_review: dict[str, Any]
) -> None:
    handoff = {"fen": chess.STARTING_FEN, "moves": FOOLS_MATE, "review": fools_review, "ply": 0}
    open_analysis(page, server, handoff=handoff)
    wait_analysis_path(page, "")
    blunder = page.locator('#app .move[data-path="0.0.0"]')
    assert blunder.get_attribute("data-judgement") == "blunder"
    assert blunder.locator(".glyph.nag-blunder").inner_text() == "??"
    blunder.click()
    wait_analysis_path(page, "0.0.0")
    words = page.locator('#app [data-testid="node-judgement"]').inner_text().strip()
    assert re.fullmatch(r"Blunder\. Best was \S+\. g4 allows mate in 1: \.\.\.Qh4#\.", words), words


def test_a_paste_of_more_games_than_listed_says_how_many_show(page: Page, server: str) -> None:
    listed = pgn_tree.MAX_GAMES_LISTED
    text = "".join(f'[Event "Game {n}"]\n\n1. e4 *\n\n' for n in range(1, listed + 201))
    open_analysis(page, server)
    page.click('#app [data-action="import"]')
    field = page.locator('#app [data-role="pgn-text"]')
    field.evaluate("(field, text) => { field.value = text; }", text)  # fill() types it: too slow
    page.click('#app [data-action="import-pgn"]')
    page.wait_for_selector('#app [data-testid="pgn-game"]')
    assert page.locator('#app [data-testid="pgn-game"]').count() == listed
    said = page.inner_text('#app [data-testid="pgn-games"] p')
    assert f"Showing the first {listed:,} of the games" in said, said


def test_the_empty_board_hint_goes_after_importing_a_game_of_only_a_comment(
    page: Page, server: str
) -> None:
    open_analysis(page, server)
    assert page.is_visible("#app .tree-empty")
    import_text(page, '[Event "A thought"]\n\n{ just a comment } *')
    page.wait_for_selector("#app .analysis-tree .comment:text-is('just a comment')")
    assert page.locator("#app .tree-empty").count() == 0


# --- the layout ----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(1280, 860), (390, 844)], ids=["desktop", "phone"])
def test_after_an_import_the_board_is_in_view(
    page: Page, server: str, size: tuple[int, int]
) -> None:
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    open_analysis(page, server)
    import_text(page, ANNOTATED_PGN)
    page.wait_for_selector("#app .analysis-tree .move")
    board = page.locator("#app cg-board").bounding_box()
    assert board is not None
    assert board["y"] >= 0 and board["y"] + board["height"] <= height, board


def test_at_390_px_everything_is_stacked_with_the_board_in_view(page: Page, server: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_analysis(page, server, saved=saved_board(ANNOTATED_PGN, path="0.0.0"))
    wait_analysis_path(page, "0.0.0")
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways ({width} px)"
    board = page.locator("#app cg-board").bounding_box()
    assert board is not None
    assert board["x"] >= 0 and board["x"] + board["width"] <= 390
    assert board["y"] >= 0 and board["y"] + board["height"] <= 844
    side = page.locator("#app .side").bounding_box()
    assert side is not None and side["y"] >= board["y"] + board["height"]
    shot(page, "analysis-08-phone")
