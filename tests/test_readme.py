"""Guards the README: every ```python block in README.md runs without error, in order, each in a
fresh namespace, from the repository root."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def python_blocks() -> list[tuple[int, str]]:
    """Return (line number, source) of each ```python block of the README."""
    if not README.is_file():
        return []
    text = README.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, match.start()) + 1, match.group(1)) for match in BLOCK.finditer(text)
    ]


BLOCKS = python_blocks()


@pytest.mark.skipif(not BLOCKS, reason=f"no ```python blocks in {README}")
@pytest.mark.parametrize(("line", "source"), BLOCKS, ids=[f"line {line}" for line, _ in BLOCKS])
def test_readme_block_runs(line: int, source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(README.parent)
    code = compile(source, f"{README.name}:{line}", "exec")
    exec(code, {"__name__": f"readme_line_{line}"})
