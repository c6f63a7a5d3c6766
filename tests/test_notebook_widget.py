"""Guards the notebook board (``ferrochess.notebook``): the game controller, driven from code as a
player would drive it, and the kernel's side of the anywidget, fed the comm messages its front end
sends (no browser; tests/test_notebook_jupyterlab.py drives the real thing in JupyterLab).

Controller: clicks select and move pieces (promotion included), the engine replies after each human
move (its text shows the tables' verdict from their field, never from the score), takeback returns
to the position before the human's move, a new game as Black lets the engine open, flip turns the
board, a mate ends the game with its result, games end by threefold repetition on the third
occurrence and by the fifty-move rule at the hundredth half-move (never a move earlier), and a bad
typed move is refused with a message quoting it while nothing changes.

Widget: it sends the page's own ES modules (every relative import resolvable, no cycle, chessground
included) and style sheets; each request is answered as the HTTP API answers it (data, or an error
naming the field with status 400 / 409 / 503); a review streams its lines then ends; a cancel gets
through while the engine searches; close() stops the search and closes only an engine the widget
created. Without anywidget the module and the controller still work and play() says what to
install.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import chess
import chess.engine
import pytest
from ferrochess import Engine
from ferrochess.engine import levels
from ferrochess.notebook import NotebookGame, play
from ferrochess.notebook_game import _score_text
from ferrochess.widget_comm import CHESSGROUND_MODULE, STATIC, module_sources, widget_css
from widget_helpers import Comm

if TYPE_CHECKING:
    from conftest import Searching

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"
MATED = "R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1"
PROMOTION = "7k/P7/8/8/8/8/8/K7 w - - 0 1"
FIFTY_MINUS_ONE = "7k/8/8/8/8/8/R7/K7 w - - 99 80"
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 9"
THINK = 0.5
LONG_THINK = 30.0
"""A search that only a cancel ends in time."""
STOPPED_WITHIN = 2.0
"""Seconds in which a cancel or close() ends a LONG_THINK search: stopped, not waited for."""
REPETITION = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]
"""Twice out and back with both knights: the start position occurs the third time at the end."""


@pytest.fixture
def engine() -> Iterator[Engine]:
    with Engine(seed=7, book=None) as engine:
        yield engine


def new_game(engine: Engine, **kwargs: object) -> NotebookGame:
    options: dict[str, object] = {"level": 1, "think_time": THINK, "engine": engine}
    options.update(kwargs)
    return NotebookGame(**options)  # type: ignore[arg-type]


# -- the controller ---------------------------------------------------------------------------


def test_clicks_play_a_move_and_the_engine_replies(engine: Engine) -> None:
    game = new_game(engine)
    assert game.click("e2") is None
    assert game.selected == chess.E2
    assert set(game.legal_destinations()) == {chess.E3, chess.E4}

    move = game.click("e4")

    assert move == chess.Move.from_uci("e2e4")
    assert game.board.move_stack[0] == move
    assert len(game.board.move_stack) == 2
    assert game.board.turn == chess.WHITE
    assert game.selected is None
    assert game.last_result is not None and game.last_result.move == game.board.peek()
    assert game.engine_text().startswith("ferrochess played 1... ")
    assert game.status_text() == "White to move (you)"


def test_click_selection_rules(engine: Engine) -> None:
    game = new_game(engine)
    game.click("e7")  # a black piece: not the human's
    assert game.selected is None
    game.click("a1")  # the human's rook cannot move
    assert game.selected is None
    game.click("g1")
    assert game.selected == chess.G1
    game.click("b1")  # another movable piece of the human's reselects
    assert game.selected == chess.B1
    game.click("b4")  # not a destination of the knight: deselects, plays nothing
    assert game.selected is None
    assert game.board.move_stack == []
    with pytest.raises(ValueError, match="'z9'"):
        game.click("z9")


def test_typed_moves_in_san_and_uci(engine: Engine) -> None:
    game = new_game(engine)
    assert game.push_san_or_uci("Nf3") == chess.Move.from_uci("g1f3")
    assert len(game.board.move_stack) == 2
    assert game.push_san_or_uci(" d2d4 ") == chess.Move.from_uci("d2d4")
    assert len(game.board.move_stack) == 4


@pytest.mark.parametrize("text", ["e5", "Ke2", "e2e5", "hello", ""])
def test_a_bad_typed_move_is_refused_and_changes_nothing(engine: Engine, text: str) -> None:
    game = new_game(engine)
    game.click("e2")
    before = game.board.fen()
    with pytest.raises(ValueError) as raised:
        game.push_san_or_uci(text)
    if text:
        assert repr(text) in str(raised.value)
    assert game.board.fen() == before
    assert game.board.move_stack == []
    assert game.last_result is None


def test_takeback_restores_the_position_before_the_human_move(engine: Engine) -> None:
    game = new_game(engine)
    game.push_san_or_uci("e4")
    before = game.board.copy()
    game.push_san_or_uci("d4")
    assert len(game.board.move_stack) == 4

    assert game.takeback() is True
    assert game.board == before
    assert game.board.move_stack == before.move_stack
    assert game.takeback() is True
    assert game.board == chess.Board()
    assert game.takeback() is False  # nothing of the human's left to undo


def test_takeback_without_engine_reply(engine: Engine) -> None:
    game = new_game(engine, auto_reply=False)
    game.push_san_or_uci("e4")
    assert len(game.board.move_stack) == 1
    assert game.click("e7") is None  # the engine's turn: clicks are ignored
    game.takeback()
    assert game.board == chess.Board()


def test_new_game_as_black_lets_the_engine_open(engine: Engine) -> None:
    game = new_game(engine)
    game.push_san_or_uci("e4")
    game.new_game("black")
    assert game.human == chess.BLACK
    assert len(game.board.move_stack) == 1
    assert game.board.turn == chess.BLACK
    assert game.orientation == chess.BLACK
    assert game.status_text() == "Black to move (you)"
    assert game.takeback() is False  # the engine's opening move is not the human's
    assert len(game.board.move_stack) == 1

    game.push_san_or_uci(game.board.san(next(iter(game.board.legal_moves))))
    assert len(game.board.move_stack) == 3
    assert game.takeback() is True
    assert len(game.board.move_stack) == 1


def test_random_colour_is_reproducible_with_a_seed(engine: Engine) -> None:
    colours = {new_game(engine, color="random", seed=seed).human for seed in range(8)}
    assert colours == {chess.WHITE, chess.BLACK}
    first = new_game(engine, color="random", seed=3).human
    assert new_game(engine, color="random", seed=3).human == first


def test_flip_changes_the_orientation(engine: Engine) -> None:
    game = new_game(engine)
    assert game.orientation == chess.WHITE
    game.flip()
    assert game.flipped
    assert game.orientation == chess.BLACK
    flipped = game.svg(size=200)
    game.flip()
    assert game.orientation == chess.WHITE
    assert game.svg(size=200) != flipped


def test_svg_highlights_the_selection_and_destinations(engine: Engine) -> None:
    game = new_game(engine)
    assert "#14551e" not in game.svg()
    game.click("g1")
    # The knight's square and its two destinations are filled; the destinations also marked.
    assert game.svg().count('fill="#14551e"') == 3


def test_click_promotion_uses_the_chosen_piece(engine: Engine) -> None:
    game = new_game(engine, fen=PROMOTION)
    game.click("a7")
    assert game.click("a8") == chess.Move.from_uci("a7a8q")
    assert game.board.move_stack[0].promotion == chess.QUEEN

    game.takeback()
    game.promotion = chess.KNIGHT
    game.click("a7")
    assert game.click("a8") == chess.Move.from_uci("a7a8n")
    with pytest.raises(ValueError, match="promotion"):
        game.promotion = chess.KING


def test_mate_ends_the_game_with_its_result(engine: Engine) -> None:
    game = new_game(engine, fen=MATE_IN_ONE)
    game.click("a1")
    assert game.click("a8") == chess.Move.from_uci("a1a8")
    assert game.is_over()
    assert len(game.board.move_stack) == 1  # no reply after the mate
    assert game.status_text().startswith("Checkmate: 1-0")
    assert "you win" in game.status_text()
    assert game.click("g1") is None
    with pytest.raises(ValueError, match="game is over"):
        game.push_san_or_uci("Kf1")
    with pytest.raises(ValueError, match="game is over"):
        game.engine_move()
    game.new_game()
    assert game.board.fen() == MATE_IN_ONE


def test_engine_move_reports_search_info(engine: Engine) -> None:
    game = new_game(engine, auto_reply=False, level=3)
    game.push_san_or_uci("e4")
    result = game.engine_move()
    assert isinstance(result, chess.engine.PlayResult)
    assert result.info.get("source") == "search"
    text = game.engine_text()
    assert "score" in text and "depth" in text and "(search)" in text


@pytest.mark.parametrize(
    ("turn", "verdict", "shown"),
    [
        (chess.WHITE, "win", "TB win"),
        (chess.WHITE, "cursed win", "TB cursed win"),
        (chess.BLACK, "win", "TB loss"),
        (chess.BLACK, "cursed win", "TB blessed loss"),
        (chess.BLACK, "draw", "TB draw"),
        (chess.BLACK, "blessed loss", "TB cursed win"),
        (chess.BLACK, "loss", "TB win"),
        (chess.WHITE, None, "+199.90"),  # a big score without a verdict stays pawns
    ],
)
def test_scores_show_the_tables_verdict_from_whites_side(
    turn: chess.Color, verdict: str | None, shown: str
) -> None:
    cp = 19_990 if turn == chess.WHITE else -19_990
    score = chess.engine.PovScore(chess.engine.Cp(cp), turn)
    assert _score_text(score, verdict) == shown


def test_the_engine_text_says_what_the_tables_said(engine: Engine, syzygy: Path) -> None:
    """From the tables' root answer and from a search line the tables scored, both times the
    engine (Black) loses: White's view is "TB win", whatever the centipawns."""
    with Engine(book=None, syzygy_path=syzygy) as tables:
        game = new_game(tables, level=max(level.number for level in levels()),
                        fen="8/8/8/8/8/8/3QK3/k7 b - - 0 1")  # fmt: skip
        text = game.engine_text()
        assert "from the tablebases" in text and "score TB win" in text, text
        game = new_game(tables, level=max(level.number for level in levels()),
                        fen="k7/1Q6/8/8/7p/7K/8/7R b - - 0 1")  # fmt: skip
        text = game.engine_text()
        assert "score TB win" in text and "(search)" in text, text
    game = new_game(engine, fen="k7/1Q6/8/8/7p/7K/8/7R b - - 0 1")  # no tables: no verdict
    assert "TB" not in game.engine_text()


def test_book_moves_are_named_as_such() -> None:
    with Engine(seed=1) as engine:  # the compiled-in book
        game = NotebookGame(color="black", level=1, engine=engine, think_time=THINK)
        assert "from its opening book" in game.engine_text()
        game.book = False
        game.new_game("black")
        assert "(search)" in game.engine_text()


def test_bad_arguments_are_quoted() -> None:
    with pytest.raises(ValueError, match="'purple'"):
        NotebookGame(color="purple")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="11"):
        NotebookGame(level=11)
    with pytest.raises(ValueError, match="0"):
        NotebookGame(level=4).level = 0
    with pytest.raises(ValueError, match="think time"):
        NotebookGame(think_time=0)
    with pytest.raises(ValueError, match="'8/8/8/8/8/8/8/8 w - - 0 1'"):
        NotebookGame(fen="8/8/8/8/8/8/8/8 w - - 0 1")  # no kings
    with pytest.raises(ValueError, match="'not a fen'"):
        NotebookGame(fen="not a fen")


def test_the_game_closes_only_an_engine_it_created(engine: Engine) -> None:
    with new_game(engine) as game:
        game.push_san_or_uci("e4")
    assert not engine.closed
    own = NotebookGame(level=1, think_time=THINK, book=False)
    own.push_san_or_uci("e4")
    created = own.engine
    own.close()
    assert created.closed


def test_on_change_shows_the_human_move_before_the_reply(engine: Engine) -> None:
    seen: list[int] = []
    game = new_game(engine)
    game.on_change = lambda: seen.append(len(game.board.move_stack))
    game.push_san_or_uci("e4")
    assert seen == [1, 2]


def test_threefold_repetition_ends_the_game_on_the_third_occurrence(engine: Engine) -> None:
    game = new_game(engine, auto_reply=False)
    for ply, san in enumerate(REPETITION):
        assert not game.is_over(), f"over before {san} (ply {ply + 1})"
        if game.board.turn == game.human:
            game.push_san_or_uci(san)
        else:  # the engine's side, played for it
            game.board.push_san(san)
    # After 4.Ng1 the position had occurred twice: the game went on (no claim taken for Black).
    assert game.is_over()
    assert game.status_text() == "Threefold repetition: 1/2-1/2"
    with pytest.raises(ValueError, match="game is over"):
        game.engine_move()


def test_the_second_occurrence_is_not_a_draw(engine: Engine) -> None:
    game = new_game(engine, auto_reply=False)
    for san in REPETITION[:-1]:  # up to 4.Ng1: the position after it occurred only twice
        if game.board.turn == game.human:
            game.push_san_or_uci(san)
        else:
            game.board.push_san(san)
    assert not game.is_over()
    assert game.status_text() == "Black to move (ferrochess)"
    assert game.engine_move().move is not None


def test_fifty_move_rule_at_the_hundredth_half_move(engine: Engine) -> None:
    game = new_game(engine, fen=FIFTY_MINUS_ONE)
    assert not game.is_over()  # 99 half-moves: one more may be played
    assert game.status_text() == "White to move (you)"
    game.push_san_or_uci("Ra3")
    assert game.is_over()
    assert len(game.board.move_stack) == 1  # no reply: the game ended with the 100th half-move
    assert game.status_text() == "Fifty-move rule: 1/2-1/2"


def test_a_set_up_mate_names_no_player_as_the_winner(engine: Engine) -> None:
    game = new_game(engine, fen=MATED, color="black")
    assert game.is_over()
    assert game.status_text() == "Checkmate: 1-0 (White wins in the set-up position)"
    assert game.board.move_stack == []


def test_an_impossible_position_is_refused_in_words() -> None:
    with pytest.raises(ValueError) as raised:
        NotebookGame(fen="8/8/8/8/8/8/8/8 w - - 0 1")
    assert "'8/8/8/8/8/8/8/8 w - - 0 1'" in str(raised.value)
    assert "White has no king" in str(raised.value)
    assert "Status" not in str(raised.value)


# -- the widget's kernel side -------------------------------------------------------------------

needs_anywidget = pytest.mark.skipif(
    importlib.util.find_spec("anywidget") is None,
    reason="anywidget is not installed (pip install anywidget)",
)
"""The widget's tests; the controller's run without anywidget."""

IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}/[^"'\s]+\.js)\2""")
"""The relative imports widget.js rewrites (its SPECIFIER)."""


@pytest.fixture
def widget(engine: Engine) -> Iterator[Any]:
    board = play(level=1, book=False, think_time=0.3, engine=engine)
    yield board
    board.close()


@pytest.fixture
def comm(widget: Any) -> Comm:
    return Comm(widget)


@needs_anywidget
def test_the_widget_carries_the_page_modules_and_styles(widget: Any) -> None:
    assert widget._esm == (STATIC / "play" / "widget.js").read_text(encoding="utf-8")
    assert "play/app.js" in widget._modules
    assert CHESSGROUND_MODULE in widget._modules
    assert "play/widget.js" not in widget._modules
    for path in sorted((STATIC / "play").glob("*.js")):
        name = f"play/{path.name}"
        if name not in ("play/widget.js", "play/page.js"):
            assert widget._modules[name] == path.read_text(encoding="utf-8")
    kit = sorted((STATIC / "ui").glob("*.js"))  # the UI kit every page imports
    assert kit, "no UI kit"
    for path in kit:
        assert widget._modules[f"ui/{path.name}"] == path.read_text(encoding="utf-8")
    assert "cg-board" in widget._css and ".cg-wrap" in widget._css  # chessground's board
    assert "data:image/svg+xml" in widget._css  # its pieces, inlined
    assert widget._css == widget_css()
    assert widget.options == {"color": "white", "level": 1, "book": False, "fen": None}
    assert re.fullmatch(r"nb-[0-9a-f]{16}", widget.client_id)
    assert widget.client_id != play(level=1, engine=widget.engine).client_id


def test_every_relative_import_resolves_without_a_cycle() -> None:
    """widget.js makes blob URLs leaves first, rewriting each relative import: every module that
    play/app.js reaches must be among those sent, and none may import itself back."""
    sources = module_sources()
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name in sources, f"{name} (imported by {path[-1] if path else 'nobody'}) not sent"
        assert name not in path, f"import cycle: {' -> '.join((*path, name))}"
        if name in done:
            return
        for match in IMPORT.finditer(sources[name]):
            target = (Path(name).parent / match.group(3)).as_posix()
            parts: list[str] = []
            for part in target.split("/"):
                if part == "..":
                    parts.pop()
                elif part != ".":
                    parts.append(part)
            visit("/".join(parts), (*path, name))
        done.add(name)

    visit("play/app.js", ())
    assert CHESSGROUND_MODULE in done
    assert "export function mountPlay" in sources["play/app.js"]
    # Bare specifiers ("chessground") could not resolve from a blob URL.
    for name in done:
        bare = re.findall(r"""\bfrom\s*["']([^./"'][^"']*)["']""", sources[name])
        assert not bare, f"{name} imports {bare}"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_widget_js_rewrites_the_imports_into_blob_urls_leaves_first() -> None:
    """widget.js's loader run by Node on the modules the widget sends: each module's relative
    imports become the URLs of modules made before it."""
    script = textwrap.dedent(
        """
        const fs = require("fs");
        const [widget, sources] = [fs.readFileSync(process.argv[1], "utf8"),
                                   JSON.parse(fs.readFileSync(0, "utf8"))];
        import("data:text/javascript," + encodeURIComponent(widget)).then((loader) => {
          const made = [];
          const urls = loader.loadModules(sources, ["play/app.js"], (text, name) => {
            made.push({ name, text });
            return `blob:${name}`;
          });
          let cycle = null;
          try {
            loader.loadModules({ "a/x.js": 'import "./y.js";', "a/y.js": 'import "./x.js";' },
                               ["a/x.js"], () => "blob:");
          } catch (error) { cycle = String(error.message); }
          console.log(JSON.stringify({ made, entry: urls.get("play/app.js"), cycle,
            resolved: loader.resolve("play/app.js", "../vendor/chessground/chessground.min.js"),
          }));
        });
        """
    )
    run = subprocess.run(
        ["node", "-e", script, str(STATIC / "play" / "widget.js")],
        input=json.dumps(module_sources()),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result = json.loads(run.stdout)
    made = [entry["name"] for entry in result["made"]]
    assert made[-1] == "play/app.js" and result["entry"] == "blob:play/app.js"
    assert CHESSGROUND_MODULE in made
    assert result["resolved"] == CHESSGROUND_MODULE
    assert result["cycle"] == "import cycle through a/x.js"
    for position, entry in enumerate(result["made"]):
        for match in IMPORT.finditer(entry["text"]):
            pytest.fail(f"{entry['name']} still imports {match.group(3)}")
        for url in re.findall(r"""["']blob:([^"']+)["']""", entry["text"]):
            assert url in made[:position], f"{entry['name']} imports {url} before it is made"


@needs_anywidget
def test_requests_are_answered_as_the_http_api_answers_them(comm: Comm) -> None:
    levels = comm.ask("/api/levels")
    assert levels["ok"] is True
    assert [level["number"] for level in levels["data"]["levels"]] == list(range(1, 11))

    state = comm.ask("api/state", {"moves": ["e2e4"]})
    assert state["ok"] is True
    assert state["data"]["san"] == ["e4"] and state["data"]["turn"] == "black"

    reply = comm.ask("api/move", {"moves": ["e2e4"], "level": 1, "book": False})
    assert reply["ok"] is True
    move = chess.Move.from_uci(reply["data"]["move"])
    board = chess.Board()
    board.push_uci("e2e4")
    assert move in board.legal_moves
    assert reply["data"]["state"]["moves"] == ["e2e4", move.uci()]
    assert reply["data"]["source"] == "search"


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("api/state", {"moves": ["e2e5"]}, "moves[0]"),
        ("api/state", {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, "fen"),
        ("api/move", {"level": 11}, "level"),
        ("api/state", [], "body"),
        ("api/nothing", {}, "path"),
        (None, {}, "path"),
    ],
)
@needs_anywidget
def test_bad_input_is_refused_naming_the_field(
    comm: Comm, path: str | None, body: Any, field: str
) -> None:
    answer = comm.ask(path, body)  # type: ignore[arg-type]
    assert answer["ok"] is False
    assert answer["status"] == 400
    assert answer["field"] == field
    assert answer["error"] and "Status" not in answer["error"]


@needs_anywidget
def test_messages_that_are_not_requests_are_ignored(widget: Any, comm: Comm) -> None:
    for content in ({"path": "api/levels"}, "api/levels", {"id": True, "path": "api/levels"}):
        widget.backend.handle(content)
    assert comm.answers.empty()


@needs_anywidget
def test_a_review_streams_its_lines_then_ends(comm: Comm) -> None:
    ident = comm.send("api/review", {"moves": ["e2e4", "e7e5"], "client": "review-1"})
    lines = []
    while True:
        message = comm.answer(ident)
        if message.get("done"):
            break
        lines.append(message["line"])
    progress = [line["progress"] for line in lines[:-1]]
    assert progress == sorted(progress) and progress[-1] == lines[0]["total"] == 3
    review = lines[-1]["review"]
    assert [entry["san"] for entry in review["moves"]] == ["e4", "e5"]
    assert set(review["accuracy"]) == {"white", "black"}

    refused = comm.ask("api/review", {"moves": ["e2e5"]})
    assert refused["ok"] is False and refused["status"] == 400 and refused["field"] == "moves[0]"


@needs_anywidget
def test_a_cancel_gets_through_while_the_engine_searches(
    engine: Engine, searching: Searching
) -> None:
    with play(level=10, book=False, think_time=LONG_THINK, engine=engine) as board:
        comm = Comm(board)
        client = board.client_id
        search = comm.send("api/move", {"fen": MIDDLEGAME, "level": 10, "client": client})
        searching.wait()
        started = time.monotonic()
        cancel = comm.send("api/cancel", {"client": client})
        answers = comm.collect(2)
        elapsed = time.monotonic() - started
        assert answers[cancel] == {"id": cancel, "ok": True, "data": {"cancelled": True}}
        assert answers[search]["ok"] is False
        assert answers[search]["status"] == 409
        assert answers[search]["error"] == "the search was cancelled"
        assert elapsed < STOPPED_WITHIN  # the 30-second search was stopped, not waited for


@needs_anywidget
def test_the_engine_busy_with_another_client_is_a_503(engine: Engine, searching: Searching) -> None:
    with play(level=10, book=False, think_time=LONG_THINK, engine=engine) as board:
        board.service.settings = dataclasses.replace(board.service.settings, busy_wait_seconds=0.1)
        comm = Comm(board)
        search = comm.send("api/move", {"fen": MIDDLEGAME, "level": 10, "client": "first"})
        searching.wait()
        busy = comm.answer(comm.send("api/move", {"fen": MIDDLEGAME, "client": "second"}))
        assert busy["ok"] is False and busy["status"] == 503 and busy["field"] is None
        cancel = comm.send("api/cancel", {"client": "first"})
        answers = comm.collect(2)
        assert answers[search]["status"] == 409
        assert answers[cancel]["data"] == {"cancelled": True}


@needs_anywidget
def test_the_front_end_storage_lives_in_the_kernel(widget: Any) -> None:
    """What the front end saves (its game) is a synced trait: showing the widget again finds it."""
    saved = {"ferrochess.game": json.dumps({"moves": ["e2e4"]})}
    widget._handle_msg(
        {
            "content": {
                "data": {"method": "update", "state": {"_storage": saved}, "buffer_paths": []}
            },
            "buffers": [],
        }  # fmt: skip
    )
    assert widget._storage == saved
    assert widget.get_state()["_storage"] == saved


@needs_anywidget
def test_close_stops_the_search_and_closes_only_its_own_engine(
    engine: Engine, searching: Searching
) -> None:
    board = play(level=1, book=False, think_time=0.3, engine=engine)
    board.close()
    board.close()  # idempotent
    assert not engine.closed
    assert board.backend.submit({"id": 1, "path": "api/levels"}) is None

    own = play(level=10, book=False, think_time=LONG_THINK)
    comm = Comm(own)
    search = comm.send("api/move", {"fen": MIDDLEGAME, "client": own.client_id})
    searching.wait()
    started = time.monotonic()
    own.close()
    assert time.monotonic() - started < STOPPED_WITHIN  # stopped, not waited for
    assert comm.answer(search)["status"] == 409
    assert own.engine.closed


@needs_anywidget
def test_play_checks_its_arguments(engine: Engine) -> None:
    with pytest.raises(ValueError, match="'purple'"):
        play(color="purple", engine=engine)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="11"):
        play(level=11, engine=engine)
    with pytest.raises(ValueError, match="think time"):
        play(think_time=0, engine=engine)
    with pytest.raises(ValueError, match="'not a fen'"):
        play(fen="not a fen", engine=engine)
    with pytest.raises(ValueError, match="White has no king"):
        play(fen="8/8/8/8/8/8/8/k7 w - - 0 1", engine=engine)
    colours = set()
    for seed in range(8):
        with play(color="random", seed=seed, engine=engine) as board:
            colours.add(board.options["color"])
    assert colours == {"white", "black"}
    with play(color="black", level=7, fen=MATE_IN_ONE, engine=engine) as board:
        assert board.options == {"color": "black", "level": 7, "book": True, "fen": MATE_IN_ONE}


@needs_anywidget
def test_play_is_displayed_as_one_widget(widget: Any) -> None:
    bundle, _metadata = widget._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == widget.model_id
    assert "image/svg+xml" not in bundle and "text/html" not in bundle


def test_the_controller_needs_no_anywidget() -> None:
    """Without anywidget, the module imports, NotebookGame plays, and play() and PlayWidget say
    what to install."""
    script = textwrap.dedent(
        """
        import sys
        sys.modules["anywidget"] = None  # import anywidget now fails
        from ferrochess.notebook import NotebookGame, play
        game = NotebookGame(auto_reply=False)
        game.push_san_or_uci("e4")
        print(game.moves_text())
        for attempt in (play, lambda: __import__("ferrochess.notebook").notebook.PlayWidget):
            try:
                attempt()
            except ImportError as error:
                print(error)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    lines = run.stdout.splitlines()
    assert lines[0] == "1. e4"
    assert len(lines) == 3
    assert all("pip install anywidget" in line for line in lines[1:])
