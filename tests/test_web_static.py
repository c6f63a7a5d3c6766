"""Guards the page's static files: chessground is vendored whole (its built module, CSS and GPL
licence, with the version it came from); our ES modules import only files that exist, in the
exact forms the notebook widget rewrites, without cycles; and no chess rule is written in them
(the server, with python-chess, is the only judge: a scan of the code, comments and strings left
out, finds none of the words a rule needs). The page serves every module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ferrochess.web import create_app

STATIC = Path(__file__).resolve().parent.parent / "python" / "ferrochess" / "web" / "static"
PLAY = STATIC / "play"
ANALYSIS = STATIC / "analysis"
TRAIN = STATIC / "train"
UI = STATIC / "ui"
VENDOR = STATIC / "vendor" / "chessground"
CHESSGROUND = "../vendor/chessground/chessground.min.js"
IMPORT = re.compile(r"""^\s*(?:import|export)\b[^;]*?\bfrom\s*(["'])(?P<path>[^"']+)\1""", re.M)
BARE_IMPORT = re.compile(r"""^\s*import\s*(["'])(?P<path>[^"']+)\1""", re.M)
DYNAMIC_IMPORT = re.compile(r"\bimport\s*\(")
SPECIFIER = r"\./[a-z_]+\.js|\.\./(?:play|ui)/[a-z_]+\.js"
"""How a module names another: in its own folder, the UI kit's, or the play page's from the
analysis board's."""
MAX_MODULE_LINES = 500
"""The longest a module of ours may be (lichess's ui/ keeps its files about this size)."""
# What code that implements a chess rule has to name: castling, en passant, the ways a game
# ends, attacks and pins, piece movement (offsets, sliding), the move counters of a FEN.
RULE_WORDS = re.compile(
    r"castl|passant|checkmate|stalemate|insufficient|repetition|fifty|seventy|halfmove"
    r"|attack|pinned|offsets|sliding|rank\s*===?\s*[18]|backrank|kingside|queenside"
    r"|rookfrom|rookto|epsquare|ep_square",
    re.I,
)


def every_module() -> list[Path]:
    """The UI kit's modules (static/ui/), the play page's, the analysis board's and the training
    page's."""
    return sorted(
        [*UI.glob("*.js"), *PLAY.glob("*.js"), *ANALYSIS.glob("*.js"), *TRAIN.glob("*.js")]
    )


def code_only(source: str) -> str:
    """The source with comments and string literals blanked (template literals included)."""
    pattern = re.compile(
        r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`",
        re.S,
    )
    return pattern.sub(lambda match: " " * len(match.group(0)), source)


def test_chessground_is_vendored_with_its_licence_and_version() -> None:
    module = (VENDOR / "chessground.min.js").read_text(encoding="utf-8")
    assert re.search(r"export\s*\{[^}]*\bas Chessground\b", module), "no Chessground export"
    for sheet in ("chessground.base.css", "chessground.brown.css", "chessground.cburnett.css"):
        assert (VENDOR / sheet).stat().st_size > 1000, sheet
    assert "GNU GENERAL PUBLIC LICENSE" in (VENDOR / "LICENSE").read_text(encoding="utf-8")
    version = (VENDOR / "VERSION").read_text(encoding="utf-8")
    assert re.search(r"10\.\d+\.\d+", version), version


def test_modules_import_only_existing_files_without_cycles() -> None:
    """A module imports ``./x.js`` from its own folder, ``../ui/x.js`` (the UI kit),
    ``../play/x.js`` (the analysis board's from the play page's) or chessground: the forms
    widget.js rewrites; and nothing in a circle."""
    graph: dict[str, set[str]] = {}
    for path in every_module():
        name = path.relative_to(STATIC).as_posix()
        source = path.read_text(encoding="utf-8")
        code = code_only(source)
        assert not DYNAMIC_IMPORT.search(code) or path.name == "widget.js", name
        targets: set[str] = set()
        for match in [*IMPORT.finditer(source), *BARE_IMPORT.finditer(source)]:
            if code[match.start("path") - 1] != " ":  # the specifier was blanked: it is a string
                continue
            specifier = match.group("path")
            if specifier == CHESSGROUND:
                continue
            assert re.fullmatch(SPECIFIER, specifier), (name, specifier)
            target = (path.parent / specifier).resolve().relative_to(STATIC).as_posix()
            assert (STATIC / target).exists(), (name, specifier)
            targets.add(target)
        graph[name] = targets

    def visit(name: str, trail: tuple[str, ...]) -> None:
        assert name not in trail, f"import cycle: {' -> '.join((*trail, name))}"
        for target in graph.get(name, ()):
            visit(target, (*trail, name))

    for name in graph:
        visit(name, ())
    assert any(target.startswith("play/") for target in graph["analysis/ctrl.js"])


@pytest.mark.parametrize(
    "path", every_module(), ids=lambda path: path.relative_to(STATIC).as_posix()
)
def test_no_module_is_too_long_to_read(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.name} has {lines} lines: split it into rooms"


@pytest.mark.parametrize(
    "path", every_module(), ids=lambda path: path.relative_to(STATIC).as_posix()
)
def test_no_chess_rule_in_the_javascript(path: Path) -> None:
    code = code_only(path.read_text(encoding="utf-8"))
    found = sorted({match.group(0).lower() for match in RULE_WORDS.finditer(code)})
    assert not found, f"{path.name} names {found}: a chess rule belongs on the server"


def test_the_page_serves_every_module_and_the_vendored_files() -> None:
    app = create_app({"TESTING": True, "FERROCHESS_ENGINES": 1})
    client = app.test_client()
    for path in [
        *every_module(),
        *PLAY.glob("*.css"),
        *ANALYSIS.glob("*.css"),
        *TRAIN.glob("*.css"),
        *VENDOR.glob("*.*"),
    ]:
        relative = path.relative_to(STATIC).as_posix()
        response = client.get(f"/static/{relative}")
        assert response.status_code == 200, relative
        response.close()
    app.extensions["ferrochess_pool"].close()
