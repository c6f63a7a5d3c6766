"""The file-level import graphs of a Rust crate and of Python packages, and their circles.

Contract, Rust: :func:`graph` reads every ``.rs`` file under ``CRATE/src`` (the Python binding
``bindings/`` left out: nothing in the core may depend on it) as one node, named by its module
path (``search/mod.rs`` is ``search``), with an edge for every module another one names: in a
``use`` (groups like ``crate::a::{b, c::d}`` expanded), in a ``crate::``, ``super::`` or
``self::`` path, or by a child module's name in its parent (``use child::Item``). An item
re-exported by a parent counts as the parent's, so a child that names ``super::Item`` depends on
its parent. Each binary of ``src/bin/`` (``bin/NAME.rs``, or ``bin/NAME/main.rs`` and its
modules) is a crate of its own, named ``bin/NAME``: its ``crate::`` paths point into it, and
paths through the library's name (``ferrochess_tools::train``) into the library. Comments and a
file's trailing ``#[cfg(test)] mod tests`` are left out (a test may use anything).

Contract, Python: :func:`python_graph` reads every ``.py`` file of the packages it is given as one
node, named by its dotted module name (``pkg/__init__.py`` is ``pkg``; an extension module such
as ``_core.abi3.so`` is a node that imports nothing), with an edge for every one of those modules
that it imports, at module level or inside a function: ``import a.b.c`` is an edge to ``a.b.c``
alone (not to the packages ``a`` and ``a.b`` that Python runs first), ``from pkg import name`` an
edge to the module ``pkg.name`` where there is one and to ``pkg`` otherwise, relative imports
resolved. An import under ``if TYPE_CHECKING:`` is left out (it never runs).

:func:`circles` gives either graph's strongly connected components of more than one module, and
each module that imports itself, as sorted names.

    python -m ferrochess_tools.module_graph [CRATE_DIR] [--edges]
    python -m ferrochess_tools.module_graph --python PACKAGE_DIR... [--edges]
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TypeVar

Module = tuple[str, ...]
Node = TypeVar("Node", Module, str)

COMMENT = re.compile(r"//[^\n]*")
TESTS = re.compile(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{")
USE = re.compile(r"\buse\s+([^;]+);")
PATH = re.compile(r"\b((?:crate|super|self)(?:::\w+)+)")
LEFT_OUT = ("bindings",)
BIN = "bin"
EXTENSION = re.compile(r"^(\w+)\.[\w.-]*(?:so|pyd)$")


def modules(src: Path) -> dict[Module, Path]:
    """Every module file under ``src`` by its module path (``()`` is ``lib.rs``, ``("bin",
    NAME)`` the root of the binary ``NAME``)."""
    found: dict[Module, Path] = {}
    for path in sorted(src.rglob("*.rs")):
        parts = path.relative_to(src).with_suffix("").parts
        if len(parts) == 3 and parts[0] == BIN and parts[-1] == "main":
            parts = parts[:-1]
        elif parts[-1] in ("mod", "lib"):
            parts = parts[:-1]
        if parts and parts[0] in LEFT_OUT:
            continue
        found[tuple(parts)] = path
    return found


def library_name(crate: Path) -> str:
    """The name the crate's binaries call its library by (``[lib] name``, else the package's
    name with ``-`` as ``_``)."""
    manifest = crate / "Cargo.toml"
    text = manifest.read_text(encoding="utf-8") if manifest.is_file() else ""
    sections = dict(
        (match.group(1), match.group(2))
        for match in re.finditer(r"^\[(\w+)\]\s*\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    )
    for section in ("lib", "package"):
        name = re.search(r'^name\s*=\s*"([^"]+)"', sections.get(section, ""), re.M)
        if name:
            return name.group(1).replace("-", "_")
    return crate.resolve().name.replace("-", "_")


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
    """Each module of ``crate/src`` and the modules it depends on (itself and the library's
    root left out)."""
    files = modules(crate / "src")
    library = library_name(crate)

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
        # The crate this file belongs to: the library (root `()`) or one binary (`("bin", NAME)`).
        binary = module[:2] if module[:1] == (BIN,) else None
        root = list(binary or ())
        # Where `self::` and a child's bare name point: the module itself for mod.rs, lib.rs
        # and a binary's root file.
        is_root = path.name in ("mod.rs", "lib.rs") or module == binary
        here = list(module) if is_root else list(module[:-1])
        names = [name for use in USE.findall(text) for name in expand(use)]
        names += [match.split("::") for match in PATH.findall(text)]
        if binary is not None:
            names += [match.split("::") for match in re.findall(rf"\b{library}(?:::\w+)+", text)]
        for name in names:
            if not name:
                continue
            if name[0] == "crate":
                target = root + name[1:]
            elif name[0] == "super":
                supers = len(name) - len([part for part in name if part != "super"])
                parent = list(module[:-1])
                target = parent[: len(parent) - (supers - 1)] + [p for p in name if p != "super"]
            elif name[0] == "self":
                target = here + name[1:]
            elif binary is not None and name[0] == library:
                target = name[1:]
            elif tuple(here + [name[0]]) in files:
                target = here + name
            else:
                continue
            found = owner(target)
            if found is not None and found != module and found != binary:
                edges[module].add(found)
    return edges


def python_modules(packages: Iterable[Path]) -> dict[str, Path]:
    """Every module of ``packages`` (package folders) by its dotted name: ``.py`` files, and
    extension modules (``.so``, ``.pyd``) as modules without a readable source."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted(package.rglob("*")):
            relative = path.relative_to(package)
            extension = EXTENSION.match(path.name)
            if path.suffix == ".py":
                parts = relative.with_suffix("").parts
            elif extension:
                parts = (*relative.parent.parts, extension.group(1))
            else:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not path.is_file() or not all(part.isidentifier() for part in parts):
                continue
            found[".".join((package.name, *parts))] = path
    return found


def _at_run_time(test: ast.expr) -> bool | None:
    """What an ``if`` test is while the program runs, as far as ``TYPE_CHECKING`` decides it
    (``False`` there): True, False, or None when something else decides."""
    if isinstance(test, ast.Name) and test.id == "TYPE_CHECKING":
        return False
    if isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING":
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _at_run_time(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        values = [_at_run_time(value) for value in test.values]
        decisive = isinstance(test.op, ast.Or)  # `or` is decided by a True, `and` by a False
        if decisive in values:
            return decisive
        return (not decisive) if all(value is not None for value in values) else None
    return None


class _Imports(ast.NodeVisitor):
    """Collects the import statements that can run, wherever they are."""

    def __init__(self) -> None:
        self.found: list[ast.Import | ast.ImportFrom] = []

    def visit_Import(self, node: ast.Import) -> None:
        self.found.append(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.found.append(node)

    def visit_If(self, node: ast.If) -> None:
        runs = _at_run_time(node.test)
        for statement in (node.body if runs is not False else []) + (
            node.orelse if runs is not True else []
        ):
            self.visit(statement)


def python_graph(*packages: Path) -> dict[str, set[str]]:
    """Each module of ``packages`` and the modules of ``packages`` it imports (see the module's
    documentation), read together so that a circle between two packages shows."""
    files = python_modules(packages)
    edges: dict[str, set[str]] = {module: set() for module in files}
    for module, path in files.items():
        if path.suffix != ".py":
            continue
        collector = _Imports()
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        # The package a relative import starts from: the module itself for an __init__.py.
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        targets: list[str] = []
        for statement in collector.found:
            if isinstance(statement, ast.Import):
                targets += [alias.name for alias in statement.names]
                continue
            if statement.level:
                if statement.level - 1 >= len(package):
                    continue  # above the top-level package: Python refuses it too
                parts = package[: len(package) - (statement.level - 1)]
                base = ".".join(parts + ([statement.module] if statement.module else []))
            else:
                base = statement.module or ""
            for alias in statement.names:
                submodule = f"{base}.{alias.name}"
                targets.append(submodule if submodule in files else base)
        edges[module].update(target for target in targets if target in files)
    return edges


def _name(node: Module | str) -> str:
    return node if isinstance(node, str) else "/".join(node)


def circles(edges: Mapping[Node, set[Node]]) -> list[list[str]]:
    """The strongly connected components of more than one module, and each module that depends
    on itself (Tarjan), as sorted names (``search/request`` for Rust, dotted for Python)."""
    index: dict[Node, int] = {}
    low: dict[Node, int] = {}
    stack: list[Node] = []
    on_stack: set[Node] = set()
    found: list[list[str]] = []

    def visit(node: Node) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, set())):
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
            if len(component) > 1 or node in edges.get(node, set()):
                found.append(sorted(_name(member) for member in component))

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
    parser.add_argument(
        "--python",
        nargs="+",
        type=Path,
        metavar="PACKAGE_DIR",
        help="read these Python packages (together) instead of a crate",
    )
    parser.add_argument("--edges", action="store_true", help="print every module's dependencies")
    arguments = parser.parse_args(argv)
    if arguments.python:
        python_edges = python_graph(*arguments.python)
        names = {module: sorted(targets) for module, targets in python_edges.items()}
        found = circles(python_edges)
    else:
        rust_edges = graph(arguments.crate)
        names = {
            _name(module) or "(lib)": sorted(_name(target) for target in targets)
            for module, targets in rust_edges.items()
        }
        found = circles(rust_edges)
    if arguments.edges:
        for module in sorted(names):
            print(f"{module} -> {', '.join(names[module])}")
    for circle in found:
        print("circle: " + " <-> ".join(circle))
    print(f"{len(names)} modules, {len(found)} circles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
