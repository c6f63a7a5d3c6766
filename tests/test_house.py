"""Guards the house's layout: modules depend on each other in one direction, with no circle of
imports, in the engine crate (`src/`), in the tools crate (`tools/src/`, its binaries included),
in the Python package `ferrochess` and in the tools package `ferrochess_tools` (read together with
it), as `ferrochess_tools.module_graph` reads them; and the checkers themselves find a circle when
there is one, and none once it is broken, for Rust and for Python (where an import that only a
type checker sees, under `if TYPE_CHECKING:`, never makes one)."""

from __future__ import annotations

from pathlib import Path

from ferrochess_tools.module_graph import circles, graph, python_graph


def test_the_engine_has_no_import_circle(repo_root: Path) -> None:
    edges = graph(repo_root)
    assert ("search",) in edges and ("level",) in edges, sorted(edges)
    assert ("eval",) in edges and ("eval", "nnue") in edges, sorted(edges)
    assert circles(edges) == []


def test_the_tools_crate_has_no_import_circle(repo_root: Path) -> None:
    edges = graph(repo_root / "tools")
    assert ("train",) in edges and ("datagen",) in edges, sorted(edges)
    assert ("train",) in edges[("bin", "train")], edges[("bin", "train")]
    assert circles(edges) == []


def test_the_python_packages_have_no_import_circle(repo_root: Path) -> None:
    package = repo_root / "python" / "ferrochess"
    edges = python_graph(package)
    assert {"ferrochess", "ferrochess.engine", "ferrochess.cli"} <= set(edges), sorted(edges)
    assert "ferrochess.engine" in edges["ferrochess"]
    assert circles(edges) == []
    both = python_graph(package, repo_root / "tools" / "ferrochess_tools")
    # The tools play their games with the package's match runner: an edge across the packages.
    assert "ferrochess.match" in both["ferrochess_tools.calibrate"], sorted(both)
    assert "ferrochess.match" in both["ferrochess_tools.spsa"], sorted(both)
    assert circles(both) == []


def test_a_circle_is_found(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "search").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod level;\npub mod search;\n")
    (src / "level.rs").write_text("use crate::search::{Line, Searcher};\n")
    (src / "search" / "mod.rs").write_text("mod request;\npub use request::Request;\n")
    (src / "search" / "request.rs").write_text(
        "// use crate::nothing; (a comment names nothing)\n"
        "pub struct Request(crate::level::Strength);\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n}\n"
    )
    assert circles(graph(tmp_path)) == [["level", "search", "search/request"]]
    (src / "search" / "request.rs").write_text("pub struct Request;\n")
    assert circles(graph(tmp_path)) == []


def test_a_binary_is_a_crate_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "the-tools"\n')
    src = tmp_path / "src"
    (src / "bin" / "big").mkdir(parents=True)
    (src / "lib.rs").write_text("pub mod train;\n")
    (src / "train.rs").write_text("pub fn train() {}\n")
    (src / "bin" / "small.rs").write_text("use the_tools::train::train;\nfn main() {}\n")
    (src / "bin" / "big" / "main.rs").write_text("mod options;\nuse crate::options::Options;\n")
    (src / "bin" / "big" / "options.rs").write_text("pub struct Options(the_tools::train::X);\n")
    edges = graph(tmp_path)
    assert edges[("bin", "small")] == {("train",)}
    assert edges[("bin", "big")] == {("bin", "big", "options")}
    assert edges[("bin", "big", "options")] == {("train",)}
    assert circles(edges) == []


def test_a_python_circle_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "service").mkdir(parents=True)
    (package / "__init__.py").write_text("from pkg.engine import Engine\n")
    (package / "engine.py").write_text("import chess\n\nclass Engine: ...\n")
    (package / "service" / "__init__.py").write_text("")
    (package / "service" / "game.py").write_text(
        '"""import pkg.web (a docstring names nothing)"""\n'
        "from .. import engine\n"
        "def play() -> None:\n"
        "    from ..web import app\n"
    )
    (package / "web.py").write_text("from pkg.service import game\n\napp = 1\n")
    edges = python_graph(package)
    assert edges["pkg"] == {"pkg.engine"}
    assert edges["pkg.web"] == {"pkg.service.game"}  # not the package `pkg.service` too
    assert circles(edges) == [["pkg.service.game", "pkg.web"]]
    (package / "service" / "game.py").write_text("import pkg.engine\n")
    assert circles(python_graph(package)) == []
    (package / "engine.py").write_text("from . import engine\n")
    assert circles(python_graph(package)) == [["pkg.engine"]]


def test_an_import_only_a_type_checker_sees_makes_no_circle(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "engine.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "import typing\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.game import Game\n"
        "if typing.TYPE_CHECKING and True:\n"
        "    import pkg.game\n"
        "if not TYPE_CHECKING:\n"
        "    pass\n"
        "else:\n"
        "    from . import game\n"
    )
    (package / "game.py").write_text("from pkg.engine import Engine\n")
    edges = python_graph(package)
    assert edges["pkg.engine"] == set() and edges["pkg.game"] == {"pkg.engine"}
    assert circles(edges) == []
    (package / "engine.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    pass\n"
        "else:\n"
        "    from pkg.game import Game\n"
    )
    assert circles(python_graph(package)) == [["pkg.engine", "pkg.game"]]
