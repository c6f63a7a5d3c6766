"""Guards the house's layout: the engine crate's modules depend on each other in one direction
(no circle of imports in `src/`, as `ferrochess_tools.module_graph` reads them), and the checker
itself finds a circle when there is one."""

from __future__ import annotations

from pathlib import Path

from ferrochess_tools.module_graph import circles, graph


def test_the_engine_has_no_import_circle(repo_root: Path) -> None:
    edges = graph(repo_root)
    assert ("search",) in edges and ("level",) in edges, sorted(edges)
    assert circles(edges) == []


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
