"""Reading the project's Markdown pages as a reader's browser would: links, headings, code,
tables. Shared by the documentation tests (tests/unit/test_docs.py, tests/gui/test_docs_keys.py)."""

from __future__ import annotations

import html
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

_FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[ \t]*$", re.M | re.S)
_INLINE_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_SEPARATOR = re.compile(r"^\|[\s:|-]+\|?\s*$")


def pages() -> list[Path]:
    """README.md and every page under docs/."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def prose(text: str) -> str:
    """The text outside code blocks, code spans and comments (where links are links)."""
    text = _COMMENT.sub("", _FENCE.sub("", text))
    return _INLINE_CODE.sub("", text)


def code(text: str) -> list[str]:
    """Every fenced block and code span: where commands are written."""
    text = _COMMENT.sub("", text)
    blocks = [m.group(0) for m in _FENCE.finditer(text)]
    return blocks + _INLINE_CODE.findall(_FENCE.sub("", text))


def links(text: str) -> list[str]:
    """The targets of the Markdown links and images in *text*."""
    return _LINK.findall(prose(text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lowercased, punctuation dropped, spaces
    made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = html.unescape(text.replace("`", ""))
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor in a page (a repeated heading gets -1, -2 … as on GitHub)."""
    found: set[str] = set()
    counts: dict[str, int] = {}
    for _, title in _HEADING.findall(_FENCE.sub("", text)):
        base = slug(title)
        n = counts.get(base, 0)
        counts[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def tables(text: str) -> list[tuple[list[str], str]]:
    """(the headings above it, from the page's title down, and the row) for each body row of
    each table, in order: (["Keys", "Menus and the toolbar", "File"], "| Ctrl+N | … |")."""
    rows: list[tuple[list[str], str]] = []
    path: list[str] = []
    lines = _FENCE.sub("", text).splitlines()
    for i, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            path = [*(path + [""] * level)[: level - 1], heading.group(2)]
            continue
        header = i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1])
        if line.startswith("|") and not _SEPARATOR.match(line) and not header:
            rows.append((list(path), line))
    return rows


def cells(row: str) -> list[str]:
    """A table row's cells, code marks removed ("\\|" is a bar inside a cell)."""
    parts = re.split(r"(?<!\\)\|", row.strip().strip("|"))
    return [part.strip().replace("\\|", "|").replace("`", "") for part in parts]
