"""The file-level import graph of a Rust crate's `src/`, and its circles.

Contract: :func:`graph` reads every ``.rs`` file under ``src`` (``bin/`` and the Python binding
``bindings/`` left out: nothing in the core may depend on them) as one node, named by its module
path (``search/mod.rs`` is ``search``), with an edge for every module another one names: in a
``use`` (groups like ``crate::a::{b, c::d}`` expanded), in a ``crate::``, ``super::`` or
``self::`` path, or by a child module's name in its parent (``use child::Item``). An item
re-exported by a parent counts as the parent's, so a child that names ``super::Item`` depends on
its parent. Comments and a file's trailing ``#[cfg(test)] mod tests`` are left out (a test may use
anything). :func:`circles` gives the strongly connected components with more than one file.

    python -m ferrochess_tools.module_graph [CRATE_DIR] [--edges]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

Module = tuple[str, ...]

COMMENT = re.compile(r"//[^\n]*")
TESTS = re.compile(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{")
USE = re.compile(r"\buse\s+([^;]+);")
PATH = re.compile(r"\b((?:crate|super|self)(?:::\w+)+)")
LEFT_OUT = ("bin", "bindings")


def modules(src: Path) -> dict[Module, Path]:
    """Every module file under ``src`` by its module path (``()`` is ``lib.rs``)."""
    found: dict[Module, Path] = {}
    for path in sorted(src.rglob("*.rs")):
        parts = path.relative_to(src).with_suffix("").parts
        if parts[-1] in ("mod", "lib"):
            parts = parts[:-1]
        if parts and parts[0] in LEFT_OUT:
            continue
        found[tuple(parts)] = path
    return found


def expand(use: str) -> list[list[str]]:
    """The paths one ``use`` names: ``a::{b, c::{d}}`` gives ``a::b`` and ``a::c::d``."""
    out: list[list[str]] = []

    def walk(prefix: list[str], body: str) -> None:
        depth, item, items = 0, "", []
        for char in body:
            depth += char == "{"
            depth -= char == "}"
            if char == "," and depth == 0:
                items.append(item)
                item = ""
            else:
                item += char
        items.append(item)
        for item in filter(None, items):
            group = re.match(r"^([\w:]*?)::\{(.*)\}$", item)
            if group:
                walk(prefix + group.group(1).split("::"), group.group(2))
            else:
                out.append(prefix + [part for part in item.split("::") if part])

    walk([], re.sub(r"\s+", "", use))
    return out


def graph(crate: Path) -> dict[Module, set[Module]]:
    """Each module of ``crate/src`` and the modules it depends on (itself and the root left out)."""
    files = modules(crate / "src")

    def owner(path: list[str]) -> Module | None:
        for length in range(len(path), 0, -1):
            if tuple(path[:length]) in files:
                return tuple(path[:length])
        return None

    edges: dict[Module, set[Module]] = {module: set() for module in files}
    for module, path in files.items():
        text = COMMENT.sub("", path.read_text(encoding="utf-8"))
        tests = TESTS.search(text)
        if tests:
            text = text[: tests.start()]
        # Where `self::` and a child's bare name point: the module itself for mod.rs and lib.rs.
        here = list(module) if path.name in ("mod.rs", "lib.rs") else list(module[:-1])
        names = [name for use in USE.findall(text) for name in expand(use)]
        names += [match.split("::") for match in PATH.findall(text)]
        for name in names:
            if not name:
                continue
            if name[0] == "crate":
                target = name[1:]
            elif name[0] == "super":
                supers = len(name) - len([part for part in name if part != "super"])
                parent = list(module[:-1])
                target = parent[: len(parent) - (supers - 1)] + [p for p in name if p != "super"]
            elif name[0] == "self":
                target = here + name[1:]
            elif tuple(here + [name[0]]) in files:
                target = here + name
            else:
                continue
            found = owner(target)
            if found is not None and found != module:
                edges[module].add(found)
    return edges


def circles(edges: dict[Module, set[Module]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), as sorted names."""
    index: dict[Module, int] = {}
    low: dict[Module, int] = {}
    stack: list[Module] = []
    on_stack: set[Module] = set()
    found: list[list[str]] = []

    def visit(node: Module) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted("/".join(member) for member in component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(edges) + 100))
    try:
        for node in sorted(edges):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crate", nargs="?", default=".", type=Path, help="the crate's folder")
    parser.add_argument("--edges", action="store_true", help="print every module's dependencies")
    arguments = parser.parse_args(argv)
    edges = graph(arguments.crate)
    if arguments.edges:
        for module in sorted(edges):
            targets = ", ".join(sorted("/".join(target) for target in edges[module]))
            print(f"{'/'.join(module) or '(lib)'} -> {targets}")
    found = circles(edges)
    for circle in found:
        print("circle: " + " <-> ".join(circle))
    print(f"{len(edges)} modules, {len(found)} circles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
