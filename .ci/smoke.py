"""Smoke test of an installed ferrochess, run by .ci/wheel-smoke inside a fresh virtual environment
whose PATH has no cargo or rustc: the package imports from that environment (not from a source
tree), is the build it should be (--tag), and its user-facing pieces work: select_move, the
compiled-in book, the UCI engine through python-chess, the play page over HTTP and the notebook
helpers. Every check asserts a fact; any failure makes the exit status 1.

Needs only ferrochess's runtime dependencies (python-chess, Flask, SQLAlchemy, tqdm) and the
standard library; the extras (serve, postgresql) must not be there (check_extras).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import traceback
import urllib.request
from collections.abc import Callable
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path

import chess
import chess.engine

FOOLS_MATE = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 2"
# Out of the book (a quiet middlegame from the Ruy Lopez, Closed): a search must answer.
MIDDLEGAME = "r1bq1rk1/2p1bppp/p1np1n2/1p2p3/4P3/1BP2N1P/PP1P1PP1/RNBQR1K1 b - - 0 9"
SERVER_START_SECONDS = 60
REQUEST_SECONDS = 30

CHECKS: list[Callable[[argparse.Namespace], str]] = []


def check(function: Callable[[argparse.Namespace], str]) -> Callable[[argparse.Namespace], str]:
    CHECKS.append(function)
    return function


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tag", required=True, help="regular expression the installed wheel's Tag must match"
    )
    args = parser.parse_args()
    failed = 0
    for function in CHECKS:
        name = function.__name__.removeprefix("check_")
        started = time.monotonic()
        try:
            detail = function(args)
        except Exception:
            failed += 1
            print(f"smoke: FAIL {name}", flush=True)
            traceback.print_exc()
        else:
            print(f"smoke: ok   {name} ({time.monotonic() - started:.1f} s): {detail}", flush=True)
    print(f"smoke: {len(CHECKS) - failed} passed, {failed} failed")
    return 1 if failed else 0


def console_script() -> str:
    """The ``ferrochess`` command this environment installed."""
    scripts = sysconfig.get_path("scripts")
    found = shutil.which("ferrochess", path=scripts)
    assert found is not None, f"ferrochess is not installed in {scripts}"
    return found


@check
def check_no_rust(_args: argparse.Namespace) -> str:
    for tool in ("cargo", "rustc", "rustup"):
        assert shutil.which(tool) is None, f"{tool} is on PATH: {shutil.which(tool)}"
    return f"no cargo, rustc or rustup on PATH={os.environ.get('PATH')}"


@check
def check_installed_wheel(args: argparse.Namespace) -> str:
    import ferrochess
    import ferrochess._core

    site = Path(sysconfig.get_path("platlib")).resolve()
    where = Path(ferrochess.__file__).resolve()
    assert where.is_relative_to(site), f"ferrochess imported from {where}, not from {site}"
    extension = Path(ferrochess._core.__file__).name
    assert extension in ("_core.abi3.so", "_core.pyd"), f"not the abi3 extension: {extension}"
    dist = importlib.metadata.distribution("ferrochess")
    tags = re.findall(r"^Tag: (\S+)$", dist.read_text("WHEEL") or "", re.MULTILINE)
    assert tags and all(re.fullmatch(args.tag, tag) for tag in tags), f"{tags} !~ {args.tag}"
    direct = json.loads(dist.read_text("direct_url.json") or "{}")
    assert not direct.get("dir_info", {}).get("editable"), f"an editable install: {direct}"
    assert dist.version == ferrochess.__version__, (dist.version, ferrochess.__version__)
    version = subprocess.run(
        [console_script(), "--version"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert version == ["ferrochess", ferrochess.__version__], version
    return f"ferrochess {dist.version} from {where.parent}, tags {', '.join(tags)}"


@check
def check_package_data(_args: argparse.Namespace) -> str:
    package = files("ferrochess")
    wanted = [
        "py.typed",
        "_core.pyi",
        "data/eco_names.tsv",
        "web/templates/play/base.html",
        "web/templates/play/index.html",
        "web/templates/play/analysis.html",
        "web/static/play/app.js",
        "web/static/ui/score.js",
        "service/archive/queries.py",
        "web/static/analysis/app.js",
        "web/static/vendor/chessground/chessground.min.js",
    ]
    for name in wanted:
        assert package.joinpath(name).is_file(), f"ferrochess/{name} is not installed"
    stub = package.joinpath("_core.pyi").read_text(encoding="utf-8")
    assert "def select_move" in stub or "class Engine" in stub, "_core.pyi looks empty"
    return ", ".join(wanted)


@check
def check_select_move(_args: argparse.Namespace) -> str:
    import ferrochess

    mate = ferrochess.select_move(FOOLS_MATE, 3, book=None)
    assert mate == "d8h4", f"fool's mate: {mate}"
    board = chess.Board(MIDDLEGAME)
    move = ferrochess.select_move(board, 4, book=None)
    assert move is not None and chess.Move.from_uci(move) in board.legal_moves, move
    assert ferrochess.perft(chess.STARTING_FEN, 3) == 8902
    return f"fool's mate d8h4; {MIDDLEGAME!r} -> {move}; perft(start, 3) 8902"


@check
def check_book(_args: argparse.Namespace) -> str:
    import ferrochess

    board = chess.Board()
    with ferrochess.open_book("default") as book:
        entries = list(book.find_all(board))
    assert entries, "the compiled-in book has no move for the start position"
    assert all(entry.move in board.legal_moves for entry in entries), entries
    with ferrochess.Engine(seed=7) as engine:
        result = engine.play(board, chess.engine.Limit(depth=4))
    info: dict[str, object] = dict(result.info)
    assert info["source"] == "book", info
    assert result.move in {entry.move for entry in entries}, result.move
    moves = ", ".join(f"{board.san(entry.move)} {entry.weight}" for entry in entries[:4])
    return f"start position: {len(entries)} book moves ({moves}, ...); play -> {result.move}"


@check
def check_uci(_args: argparse.Namespace) -> str:
    engine = chess.engine.SimpleEngine.popen_uci([console_script(), "uci"], timeout=30)
    try:
        name = engine.id.get("name", "")
        assert name.lower().startswith("ferrochess"), engine.id
        board = chess.Board(FOOLS_MATE)
        info = engine.analyse(board, chess.engine.Limit(depth=4))
        assert info["score"].relative == chess.engine.Mate(1), info
        board = chess.Board(MIDDLEGAME)
        result = engine.play(board, chess.engine.Limit(depth=5))
        assert result.move is not None and result.move in board.legal_moves, result.move
    finally:
        engine.quit()
    return f"{name!r}: fool's mate scored {info['score'].relative}, go depth 5 -> {result.move}"


class StaticLinks(HTMLParser):
    """The ``/static/`` URLs a page links to (style sheets, scripts, images)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("href", "src") and value and value.startswith("/static/"):
                self.links.append(value)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def fetch(url: str, body: object = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as response:
        return response.status, response.read()


@check
def check_play_page(_args: argparse.Namespace) -> str:
    port = free_port()
    server = subprocess.Popen(
        [console_script(), "play", "--port", str(port), "--engines", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while True:
            assert server.poll() is None, f"ferrochess play exited {server.returncode}"
            try:
                status, page = fetch(f"{base}/")
                break
            except OSError:
                assert time.monotonic() < deadline, f"no answer on port {port}"
                time.sleep(0.2)
        assert status == 200 and b"<html" in page.lower(), status
        links = StaticLinks()
        links.feed(page.decode())
        assert any("chessground" in link for link in links.links), links.links
        for link in links.links:
            status, content = fetch(base + link)
            assert status == 200 and content, f"{link}: {status}"
        status, levels = fetch(f"{base}/api/levels")
        assert status == 200 and json.loads(levels)["levels"], levels[:200]
        status, board_page = fetch(f"{base}/analysis")  # the analysis board and its modules
        assert status == 200 and b"analysis/page.js" in board_page, status
        board_links = StaticLinks()
        board_links.feed(board_page.decode())
        for link in board_links.links:
            status, content = fetch(base + link)
            assert status == 200 and content, f"{link}: {status}"
        status, reply = fetch(f"{base}/api/move", {"moves": ["e2e4"], "level": 1, "book": True})
        move = json.loads(reply)
        after_e4 = chess.Board()
        after_e4.push_uci("e2e4")
        assert status == 200 and chess.Move.from_uci(move["move"]) in after_e4.legal_moves, move
    finally:
        server.terminate()
        try:
            output, _ = server.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            output, _ = server.communicate()
            raise AssertionError("ferrochess play did not end on SIGTERM") from None
    assert f"127.0.0.1:{port}" in output, output[-2000:]
    return (
        f"port {port}: GET / 200 and its {len(links.links)} static files 200, /analysis 200, "
        f"/api/levels 200, "
        f"POST /api/move after e4 -> {move['move']} ({move['source']}); ended on SIGTERM"
    )


@check
def check_notebook_helpers(_args: argparse.Namespace) -> str:
    from ferrochess.notebook import NotebookGame
    from ferrochess.widget_comm import ANALYSIS_FOLDERS, module_sources, widget_css

    modules = module_sources()
    assert "play/app.js" in modules and any("chessground" in name for name in modules), modules
    assert ".cg-wrap" in widget_css() or "cg-board" in widget_css(), "chessground's CSS missing"
    analysis = module_sources(folders=ANALYSIS_FOLDERS)
    assert "analysis/app.js" in analysis and "analysis/wire.js" in analysis, sorted(analysis)
    game = NotebookGame(level=1, book=True)
    try:
        svg = game.svg()
    finally:
        game.close()
    assert svg.lstrip().startswith("<svg"), svg[:80]
    return (f"{len(modules)} play widget modules, {len(analysis)} analysis widget modules, "
            "widget CSS, NotebookGame.svg()")  # fmt: skip


@check
def check_extras(_args: argparse.Namespace) -> str:
    import importlib.util

    heavy = ("psycopg", "waitress", "flask_limiter", "gunicorn")
    web_and_database = ("flask", "jinja2", "werkzeug", "sqlalchemy")
    installed = [name for name in heavy if importlib.util.find_spec(name) is not None]
    assert not installed, f"the plain install installed {installed}: they belong to extras"
    code = "import sys, ferrochess.notebook; print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    web = sorted({name.split(".")[0] for name in loaded} & set(web_and_database))
    assert not web, f"import ferrochess.notebook loaded {web}"
    serve = subprocess.run(
        [console_script(), "serve", "--port", "0"], capture_output=True, text=True, timeout=60
    )  # fmt: skip
    assert serve.returncode == 2 and serve.stdout == "", serve
    line = 'pip install "ferrochess[serve]"'
    assert line in serve.stderr and "Traceback" not in serve.stderr, serve.stderr
    return (f"none of {', '.join(heavy)} installed; import ferrochess.notebook loads no web server "
            f"or database; ferrochess serve exits 2: {serve.stderr.strip()}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
