"""The live match widget on the kernel's side (``ferrochess.notebook.match``, ``watch``,
``MatchWidget``): the front end it is sent (the match view's modules, every import of which is
sent too, the UI kit, chessground, the widgets' loader; the play page's styles and its own); the
state it publishes from a real tiny match at fixed nodes: the games in play appear as boards
(positions and clocks as the moves left them), the score adds up, Elo and its interval, the
pentanomial, the SPRT's LLR and bounds, a crosstable with three players, the finished games with
their final positions; at most a few updates a second, the last one the final result; Stop (from
Python and over the comm) leaves the partial result; a match that fails shows its error; a match
made elsewhere is watched, its own observer still called. Everything published is plain JSON.
The front end's logic (its numbers in words, the running clock, the requests it sends) is run by
Node; without anywidget the module imports and says what to install."""

from __future__ import annotations

import inspect
import io
import json
import re
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from ferrochess import match as match_module
from ferrochess.match import (
    SPRT,
    Event,
    Ferrochess,
    GameFinished,
    Limit,
    Match,
    MatchFinished,
    MovePlayed,
    TimeControl,
    Uci,
)
from ferrochess.match.live import LiveMatch, crosstable, game_row
from ferrochess.widget_comm import STATIC
from widget_helpers import Comm

pytest.importorskip("anywidget", reason="anywidget is not installed (pip install anywidget)")

from ferrochess.notebook import MatchWidget, match, watch  # noqa: E402 - after the skip

NODES = 2000
LEVELS = (8, 2)
IMPORT = re.compile(r"""^\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}/[^"']+)["']""", re.M)
"""A module's static imports (as tests/test_web_ui_kit.py reads them)."""


def players(*levels: int) -> list[Ferrochess]:
    return [Ferrochess(level=level) for level in levels]


def tiny(**options: Any) -> dict[str, Any]:
    """A tiny match's options: 4 games at fixed nodes between levels 8 and 2."""
    return {"games": 4, "limit": Limit(nodes=NODES), "concurrency": 2, **options}


class Published:
    """Every value the widget's ``state`` trait is given, with the time it was given."""

    def __init__(self, widget: Any) -> None:
        self.states: list[dict[str, Any]] = []
        self.times: list[float] = []
        widget.observe(self._take, names="state")

    def _take(self, change: dict[str, Any]) -> None:
        self.states.append(change["new"])
        self.times.append(time.monotonic())


@pytest.fixture
def finished() -> Iterator[tuple[Any, Published, float]]:
    """A finished match of 4 games with an SPRT, shown by a widget: the widget, what it
    published, and how long the match took."""
    plan = Match(players(*LEVELS), **tiny(sprt=SPRT(0, 200)))
    widget = MatchWidget(plan, start=False)
    published = Published(widget)
    began = time.monotonic()
    plan.start()
    widget.result(timeout=120)
    yield widget, published, time.monotonic() - began
    widget.close()


def resolve(name: str, specifier: str) -> str:
    parts = name.split("/")[:-1]
    for part in specifier.split("/"):
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def test_it_is_sent_its_modules_every_module_they_import_and_the_pages_styles() -> None:
    with MatchWidget(Match(players(*LEVELS), **tiny()), start=False) as widget:
        assert widget._esm == (STATIC / "match" / "widget.js").read_text(encoding="utf-8")
        modules = widget._modules
        for name in ("match/app.js", "match/ctrl.js", "match/view.js", "match/boards_view.js",
                     "play/widget.js", "ui/dom.js", "vendor/chessground/chessground.min.js"):
            assert name in modules, name
        assert "match/widget.js" not in modules and "play/app.js" not in modules
        for name, text in modules.items():
            for specifier in IMPORT.findall(text):
                assert resolve(name, specifier) in modules, f"{name} imports {specifier}"
        assert "/* play/play.css */" in widget._css and "/* match/match.css */" in widget._css
        assert widget._css.index("play/play.css") < widget._css.index("match/match.css")
        assert widget.state["status"] == "waiting" and widget.games == []


def test_a_finished_match_publishes_its_result_the_score_the_sprt_and_its_games(
    finished: tuple[Any, Published, float],
) -> None:
    widget, published, _seconds = finished
    result = widget.match.result()
    state = widget.state
    assert state == published.states[-1]  # the last update is the final result
    assert state["status"] == "finished" and state["error"] is None
    assert state["players"] == ["ferrochess level 8", "ferrochess level 2"]
    assert state["kind"] == "match" and state["time_control"] == f"nodes={NODES}"
    assert state["planned"] == 4 and state["played"] == len(result.games) == 4
    assert state["boards"] == [] and state["crosstable"] is None

    score = state["score"]
    assert score["wins"] + score["draws"] + score["losses"] == score["games"] == 4
    assert (score["wins"], score["draws"], score["losses"]) == (
        result.wins, result.draws, result.losses)
    assert score["points"] == score["wins"] + score["draws"] / 2 == result.points
    assert score["pentanomial"] == list(result.pentanomial.counts())
    assert sum(score["pentanomial"]) == score["pairs"] == 2
    assert score["elo"]["value"] == pytest.approx(result.elo.value)
    assert score["elo"]["low"] <= score["elo"]["value"] <= score["elo"]["high"]
    assert score["los"] == pytest.approx(result.los)

    sprt = state["sprt"]
    assert (sprt["lower"], sprt["upper"]) == pytest.approx(SPRT(0, 200).bounds)
    assert (sprt["elo0"], sprt["elo1"], sprt["model"]) == (0, 200, "normalized")
    assert sprt["llr"] == pytest.approx(result.llr) and sprt["decision"] == result.decision
    assert sprt["history"] and sprt["history"][-1][1] == pytest.approx(result.llr)
    assert [games for games, _llr in sprt["history"]] == sorted(
        games for games, _llr in sprt["history"])

    # The finished games, each with its final position as its PGN ends.
    assert sorted(row["index"] for row in widget.games) == [0, 1, 2, 3]
    for row in widget.games:
        record = next(game for game in result.games if game.index == row["index"])
        game = chess.pgn.read_game(io.StringIO(record.pgn))
        assert game is not None
        end = game.end().board()
        assert row["fen"] == end.fen() and row["last_move"] == end.peek().uci()
        assert row["check"] == end.is_check()
        assert (row["white"], row["black"], row["result"]) == (
            record.white, record.black, record.result)
        assert row["reason"] == record.reason and row["opening"] == record.opening.name
    json.dumps([state, widget.games], allow_nan=False)


def test_updates_come_at_most_every_update_seconds(
    finished: tuple[Any, Published, float],
) -> None:
    widget, published, seconds = finished
    moves = sum(len(game.moves) for game in widget.match.result().games)
    assert 1 <= len(published.states) <= seconds / widget.update_seconds + 2 < moves
    # The final state may come sooner: result() has it published at once.
    gaps = [b - a for a, b in zip(published.times, published.times[1:-1])]
    assert all(gap >= widget.update_seconds * 0.9 for gap in gaps), gaps


def test_the_games_in_play_are_boards_at_the_position_and_clocks_their_moves_left() -> None:
    plan = Match(players(*LEVELS), games=2, concurrency=2,
                 limit=Limit(nodes=NODES, clock=TimeControl(60, 0.5)))  # fmt: skip
    live = LiveMatch(plan)
    seen: list[tuple[MovePlayed, dict[str, Any]]] = []

    def observe(event: Event) -> None:
        live.observe(event)
        if isinstance(event, MovePlayed):
            state, _games = live.snapshot()
            seen.append((event, {board["game"]: board for board in state["boards"]}))

    plan.on_event = observe
    result = plan.run()
    assert seen and {len(boards) for _event, boards in seen} <= {1, 2}
    assert max(len(boards) for _event, boards in seen) == 2  # both games at once
    for event, boards in seen:
        board = boards[event.game]
        assert board["fen"] == event.fen and board["last_move"] == event.move
        assert board["clocks"] == {"white": event.white_clock, "black": event.black_clock}
        assert board["turn"] == ("white" if chess.Board(event.fen).turn else "black")
        assert board["clocks"]["white"] > 0 and board["elapsed"] >= 0
        record = result.games[0] if result.games[0].index == event.game else result.games[1]
        assert (board["white"], board["black"]) == (record.white, record.black)
        assert board["opening"] == record.opening.name
    state, games = live.snapshot()
    assert state["boards"] == [] and len(games) == 2


def test_three_players_have_a_crosstable_that_adds_up() -> None:
    widget = match(players(2, 5, 8), games=2, tournament="roundrobin", limit=Limit(nodes=NODES))
    with widget:
        result = widget.result(timeout=120)
        table = widget.state["crosstable"]
    assert widget.state["kind"] == "roundrobin" and widget.state["played"] == 6
    assert table["players"] == [name for name, _points, _games in result.standings()]
    assert table["points"] == [points for _name, points, _games in result.standings()]
    cells = table["cells"]
    for i in range(3):
        assert cells[i][i] is None
        for j in range(3):
            if i != j:
                assert cells[i][j]["games"] == 2
                assert cells[i][j]["points"] + cells[j][i]["points"] == 2
        assert sum(cells[i][j]["points"] for j in range(3) if j != i) == table["points"][i]
    assert crosstable(None, ["a", "b", "c"])["cells"][0] == [None, None, None]


def test_stop_leaves_the_partial_result_shown() -> None:
    stopping = threading.Event()
    widget = match(players(*LEVELS), games=40, concurrency=1, limit=Limit(nodes=NODES),
                   on_event=lambda event: stopping.set() if isinstance(event, GameFinished)
                   else None)  # fmt: skip
    with widget:
        assert stopping.wait(120)
        widget.stop()
        result = widget.result(timeout=120)
        assert result.cancelled and 1 <= len(result.games) < 40
        assert widget.state["status"] == "stopped"
        assert widget.state["played"] == len(result.games) == len(widget.games)
        assert widget.state["boards"] == []


def test_the_stop_button_and_a_games_pgn_come_over_the_comm() -> None:
    widget = match(players(*LEVELS), games=40, concurrency=1, limit=Limit(nodes=NODES))
    comm = Comm(widget)
    with widget:
        first = threading.Event()
        previous = widget.match.on_event

        def watch_first(event: Event) -> None:
            assert previous is not None
            previous(event)
            if isinstance(event, GameFinished):
                first.set()

        widget.match.on_event = watch_first
        assert first.wait(120)
        answer = comm.ask("match/stop")
        assert answer["ok"] and answer["data"] == {"stopping": True}
        result = widget.result(timeout=120)
        assert result.cancelled and widget.state["status"] == "stopped"
        index = result.games[0].index
        answer = comm.ask("match/pgn", {"game": index})
        assert answer["ok"] and answer["data"] == {"game": index, "pgn": result.games[0].pgn}
        refused = comm.ask("match/pgn", {"game": 39})
        assert not refused["ok"] and refused["status"] == 400 and "39" in refused["error"]
        refused = comm.ask("match/pgn", {"game": "first"})
        assert not refused["ok"] and "'first'" in refused["error"]
        assert not comm.ask("match/nothing")["ok"]


def test_a_match_that_fails_shows_its_error() -> None:
    with match([Ferrochess(level=2), Uci("/nonexistent/engine")], games=2,
               limit=Limit(nodes=NODES)) as widget:  # fmt: skip
        with pytest.raises(match_module.PlayerError):
            widget.result(timeout=60)
        state = widget.state
    assert state["status"] == "error" and "/nonexistent/engine" in state["error"]
    assert state["boards"] == []


def test_an_observer_that_raises_stops_the_match_and_its_error_is_shown() -> None:
    def fails(event: Event) -> None:
        if isinstance(event, GameFinished):
            raise RuntimeError("the observer broke")

    with match(players(*LEVELS), **tiny(on_event=fails)) as widget:
        with pytest.raises(RuntimeError, match="the observer broke"):
            widget.result(timeout=60)
        assert widget.state["status"] == "error"
        assert widget.state["error"] == "RuntimeError: the observer broke"


def test_a_match_made_elsewhere_is_watched_and_its_own_observer_still_hears_it() -> None:
    heard: list[str] = []
    plan = Match(players(*LEVELS), **tiny(on_event=lambda event: heard.append(
        type(event).__name__)))  # fmt: skip
    widget = watch(plan)
    result = widget.result(timeout=120)
    assert heard.count("GameFinished") == 4 and heard[-1] == "MatchFinished"
    assert widget.state["status"] == "finished" and widget.state["played"] == 4
    widget.close()
    assert plan.on_event is not None and plan.on_event != widget._observe

    # A match watched after its end shows its result.
    late = MatchWidget(plan)
    late.result(timeout=10)
    assert late.state["status"] == "finished"
    assert late.state["score"]["wins"] == result.wins and len(late.games) == 4
    late.close()


def test_a_game_finished_while_the_state_is_published_is_sent_too() -> None:
    # The match's thread may take a game between the publisher's snapshot and its next look:
    # that game must still reach the trait `games`, here the last game of the match.
    result = Match(players(*LEVELS), games=2, limit=Limit(nodes=NODES)).run()
    widget = MatchWidget(Match(players(*LEVELS), games=2, limit=Limit(nodes=NODES)),
                         start=False)  # fmt: skip
    live, snapshot = widget.live, widget.live.snapshot

    def snapshot_then_the_last_game() -> Any:
        taken = snapshot()
        if live.record(1) is None:
            live.observe(GameFinished(result.games[1]))
            live.observe(MatchFinished(result))
        return taken

    live.snapshot = snapshot_then_the_last_game  # type: ignore[method-assign]
    live.observe(GameFinished(result.games[0]))
    widget._publisher.join(30)
    assert not widget._publisher.is_alive()  # it ends once the final state is published
    assert widget.state["status"] == "finished" and widget.state["played"] == 2
    assert sorted(row["index"] for row in widget.games) == [0, 1]
    widget.close()


def test_the_llr_chart_ends_at_the_final_results_games() -> None:
    # Games of later pairs may finish before the SPRT decides on the pairs in order; the final
    # result leaves them out, and so must the chart: its games never go back.
    progress: list[Any] = []
    plan = Match(players(*LEVELS), games=4, limit=Limit(nodes=NODES), sprt=SPRT(0, 5),
                 on_event=lambda event: progress.append(event.result)
                 if isinstance(event, match_module.Progress) else None)  # fmt: skip
    plan.run()
    live = LiveMatch(plan)
    live.observe(match_module.Progress(progress[-1]))
    after_two = next(result for result in progress if len(result.games) == 2)
    live.observe(MatchFinished(after_two))
    history = live.snapshot()[0]["sprt"]["history"]
    assert history[-1] == [2, pytest.approx(after_two.llr)]
    assert [games for games, _llr in history] == sorted(games for games, _llr in history)


def test_result_returns_once_the_final_state_is_shown_however_slow_the_updates() -> None:
    with MatchWidget(Match(players(*LEVELS), **tiny()), update_seconds=60) as widget:
        result = widget.result(timeout=120)
        assert widget.state["status"] == "finished"
        assert widget.state["played"] == len(result.games) == 4


def test_its_signature_is_ferrochess_match_matchs() -> None:
    ours = inspect.signature(match).parameters
    theirs = inspect.signature(match_module.match).parameters
    assert [(p.name, p.kind, p.default) for p in ours.values()] == [
        (p.name, p.kind, p.default) for p in theirs.values()]


def test_bad_arguments_are_refused_with_their_names() -> None:
    with pytest.raises(ValueError, match="games = 3"):
        match(players(*LEVELS), games=3, limit=Limit(nodes=NODES))
    with pytest.raises(TypeError, match="ferrochess.match.Match"):
        MatchWidget("a match")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="update_seconds"):
        MatchWidget(Match(players(*LEVELS), **tiny()), update_seconds=0)


def test_a_finished_games_row_reads_its_final_position() -> None:
    result = match_module.match(players(*LEVELS), games=2, limit=Limit(nodes=NODES),
                                progress=False)  # fmt: skip
    for record in result.games:
        row = game_row(record)
        board = record.opening.board()
        for uci in record.moves:
            board.push_uci(uci)
        assert row["fen"] == board.fen() and row["plies"] == len(record.moves)
        assert row["turn"] == ("white" if board.turn else "black")


# --- the front end's logic, run by Node ------------------------------------------------------

FRONT_END_SCRIPT = """
const base = process.argv[2];
const format = await import(base + "/match/format.js");
const { MatchCtrl } = await import(base + "/match/ctrl.js");
const { scales } = await import(base + "/match/sprt_view.js");
let now = 1000;
const traits = {
  state: { status: "running", boards: [{ game: 0, turn: "white", elapsed: 0.5,
                                          clocks: { white: 10, black: 8 } }] },
  games: [{ index: 0 }, { index: 3 }, { index: 1 }],
};
const listeners = {};
const source = { get: (name) => traits[name], on: (name, fn) => { listeners[name] = fn; },
                 off: (name) => { delete listeners[name]; } };
const asked = [];
let refuse = false;
const transport = { request: (path, body) => {
  asked.push([path, body]);
  return refuse ? Promise.reject({ kind: "network", status: 0 })
    : Promise.resolve({ pgn: "1. e4 *" });
} };
const ctrl = new MatchCtrl({ source, transport, now: () => now });
ctrl.connect();
now = 3000;
const board = ctrl.boards[0];
const running = [ctrl.clock(board, "white"), ctrl.clock(board, "black")];
const shownFirst = ctrl.shownGame().index;
ctrl.select(1);
const chosen = ctrl.shownGame().index;
await ctrl.stop();
const afterStop = [ctrl.stoppable, asked.length];
await ctrl.stop();
const pgn = await ctrl.pgn(3);
await ctrl.pgn(3);
traits.state = { ...traits.state, status: "stopped" };
listeners["change:state"]();
const over = [ctrl.over, ctrl.clock(board, "white"), ctrl.stopAsked];
ctrl.stopAsked = false;
traits.state = { ...traits.state, status: "running" };
listeners["change:state"]();
refuse = true;
await ctrl.stop();
const refused = [ctrl.problem, ctrl.stoppable];
const s = scales({ lower: -2.94, upper: 2.94, history: [[2, 0.5], [4, 3.1]] }, 4);
console.log(JSON.stringify({
  elo: [format.formatElo({ value: 55.58, low: 27.9, high: 83.2 }), format.formatElo(null),
        format.formatInterval({ value: -8.6, low: -19, high: 1.7 })],
  points: [0, 0.5, 1.5, 2].map(format.formatPoints),
  llr: [format.formatLlr(-1.074), format.formatLlr(2.944), format.formatLlr(-0.001)],
  percent: format.percent(0.7251),
  status: [format.statusWords("running"), format.statusWords("finished", "H1"),
           format.statusWords("stopping"), format.decisionWords(null, true)],
  running, shownFirst, chosen, afterStop, asked, pgn, over, refused,
  chart: [s.games, s.x(0), s.y(2.94) < s.y(0), s.y(0) < s.y(-2.94), s.y(3.1) >= 0],
}));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_front_end_says_the_numbers_runs_the_clock_and_asks_the_kernel(
    tmp_path: Path,
) -> None:
    """format.js, ctrl.js and sprt_view.js's scales, run by Node over copies of the modules
    (with their imports) in a folder of ES modules."""
    for name in ("match", "ui", "play"):
        shutil.copytree(STATIC / name, tmp_path / name)
    (tmp_path / "package.json").write_text('{"type": "module"}')
    script = tmp_path / "check.mjs"
    script.write_text(FRONT_END_SCRIPT)
    run = subprocess.run(["node", str(script), tmp_path.as_uri()], capture_output=True,
                         text=True, timeout=60)  # fmt: skip
    assert run.returncode == 0, run.stderr
    said = json.loads(run.stdout)
    assert said["elo"] == ["+55.6 ± 27.7", "–", "[−19.0, +1.7]"]
    assert said["points"] == ["0", "½", "1½", "2"]
    assert said["llr"] == ["−1.07", "2.94", "0.00"] and said["percent"] == "72.5 %"
    assert said["status"] == ["Playing", "H1 accepted", "Stopping…", "No decision"]
    # White to move: its clock runs down by the kernel's elapsed and the 2 s since it came.
    assert said["running"] == [7.5, 8]
    assert said["shownFirst"] == 1 and said["chosen"] == 1  # the last to finish, then chosen
    assert said["afterStop"] == [False, 1]  # asked once; pressed again, nothing more asked
    assert said["asked"][:2] == [["match/stop", {}], ["match/pgn", {"game": 3}]]
    assert said["pgn"] == "1. e4 *" and len(said["asked"]) == 3  # the PGN asked once
    assert said["over"] == [True, 10, False]  # over: the clocks stand still
    assert said["refused"] == ["Cannot reach the server: is it still running?", True]
    assert said["chart"] == [4, 38, True, True, True]


def test_without_anywidget_it_imports_and_says_what_to_install() -> None:
    """Without anywidget, ``ferrochess.notebook`` still imports, and match(), watch() and
    MatchWidget say what to install before any game is played."""
    script = textwrap.dedent(
        """
        import sys
        sys.modules["anywidget"] = None  # import anywidget now fails
        import ferrochess.notebook as notebook
        from ferrochess.match import Ferrochess, Limit, Match
        plan = Match([Ferrochess(level=2), Ferrochess(level=3)], limit=Limit(nodes=500))
        for attempt in (lambda: notebook.match([Ferrochess(level=2), Ferrochess(level=3)]),
                        lambda: notebook.watch(plan), lambda: notebook.MatchWidget):
            try:
                attempt()
            except ImportError as error:
                print(error)
        print(plan.done)
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60, check=True)  # fmt: skip
    lines = run.stdout.splitlines()
    assert len(lines) == 4 and lines[-1] == "False", lines
    assert all("pip install anywidget" in line for line in lines[:3])
