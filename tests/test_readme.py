"""Guards the README and docs/: every ```python block of README.md and docs/*.md runs without error,
in order, each in a fresh namespace, from the repository root; every relative link in them points to
a file that exists, and a `#section` to a heading of the page it names; the README stays short."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [page for page in [README, *sorted((ROOT / "docs").glob("*.md"))] if page.is_file()]
README_MAX_LINES = 200

BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^)]*[\"'])?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.MULTILINE)
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
HTML_ANCHOR = re.compile(r"<[^>]+\s(?:id|name)=[\"']([^\"']+)[\"']")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def name(page: Path) -> str:
    """The page's path from the repository root (as given, outside it)."""
    return page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else str(page)


def python_blocks() -> list[tuple[str, int, str]]:
    """Return (page, line number, source) of each ```python block of the README and docs/."""
    blocks = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            blocks.append((name(page), text.count("\n", 0, match.start()) + 1, match.group(1)))
    return blocks


def without_code(text: str) -> str:
    """The text with fenced blocks and inline code blanked, so their brackets are no links."""
    text = FENCE.sub(lambda match: "\n" * match.group(0).count("\n"), text)
    return INLINE_CODE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    heading = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    heading = re.sub(r"<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The `#...` targets a page offers: its headings (GitHub numbers repeats) and HTML ids."""
    text = page.read_text(encoding="utf-8")
    found: set[str] = set(HTML_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", text)):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path) -> list[str]:
    """The relative links of `page` whose file does not exist or whose `#section` it lacks."""
    text = without_code(page.read_text(encoding="utf-8"))
    broken = []
    for target in LINK.findall(text) + REFERENCE.findall(text):
        if EXTERNAL.match(target) or target.startswith("//"):
            continue
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no such file {linked}")
        elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
            broken.append(f"{target}: no heading #{fragment} in {name(linked)}")
    return broken


BLOCKS = python_blocks()


def test_the_readme_has_a_python_quick_start() -> None:
    assert any(page == "README.md" for page, _, _ in BLOCKS)


@pytest.mark.parametrize(
    ("doc", "line", "source"), BLOCKS, ids=[f"{doc}:{line}" for doc, line, _ in BLOCKS]
)
def test_python_block_runs(
    doc: str, line: int, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    code = compile(source, f"{doc}:{line}", "exec")
    exec(code, {"__name__": f"{Path(doc).stem}_line_{line}"})


# (Named `doc`, not `page`: pytest-playwright's fixture of that name would mark them browser tests.)
@pytest.mark.parametrize("doc", PAGES, ids=[name(page) for page in PAGES])
def test_relative_links_point_to_files_that_exist(doc: Path) -> None:
    assert broken_links(doc) == []


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## A section\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](other.md#a-section) [ok](#page) [web](https://example.org/x.md) "
        "`[code](missing.md)`\n[gone](missing.md) [no section](other.md#nowhere)\n"
        "```\n[in a block](missing-too.md)\n```\n",
        encoding="utf-8",
    )
    broken = broken_links(page)
    assert [entry.split(":")[0] for entry in broken] == ["missing.md", "other.md#nowhere"]


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines: it is for users; move detail into docs/"
    )
