"""Every link in the README and docs/ leads to a file of the checkout (none into `../shared`,
which a clone does not have) and to a heading that is there."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:")


def prose(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, numbered."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.

    >>> slug('What "Summarize up to here" puts back (2.1.332)')
    'what-summarize-up-to-here-puts-back-21332'
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    return {slug(line.lstrip("#")) for _, line in prose(text) if line.startswith("#")}


def broken(page: Path, text: str | None = None) -> list[str]:
    """The links of `page` (its text, else `text` as if it stood there) that leave the
    checkout, name no file, or name no heading."""
    found = []
    for number, line in prose(page.read_text(encoding="utf-8") if text is None else text):
        for target in LINK.findall(line):
            if SCHEME.match(target):
                continue
            path, _, anchor = target.partition("#")
            where = Path(os.path.normpath(page.parent / path)) if path else page
            if not where.is_relative_to(ROOT):
                found.append(f"{page.name}:{number}: {target} is outside the checkout")
            elif not where.exists():
                found.append(f"{page.name}:{number}: {target} does not exist")
            elif anchor and where.suffix == ".md" and anchor not in anchors(where):
                found.append(f"{page.name}:{number}: {target} names no heading of {where.name}")
    return found


def test_every_link_leads_to_a_file_and_heading_of_the_checkout() -> None:
    assert [problem for page in PAGES for problem in broken(page)] == []


def test_a_link_out_of_the_checkout_or_to_a_missing_heading_is_found() -> None:
    text = (
        "# A page\n\n[a](../../shared/docs/evaluation.md) [b](claude-code.md#no-such-heading)\n"
        "[c](gone.md) [d](claude-code.md#the-picker) [e](https://example.com/x)\n"
        "```\n[f](inside-a-fence.md)\n```\n"
    )
    assert broken(ROOT / "docs" / "links-check.md", text) == [
        "links-check.md:3: ../../shared/docs/evaluation.md is outside the checkout",
        "links-check.md:3: claude-code.md#no-such-heading names no heading of claude-code.md",
        "links-check.md:4: gone.md does not exist",
    ]


def test_no_page_sends_the_reader_to_the_shared_folder_for_docs() -> None:
    """Data lives in `../shared/corpus` (tests skip without it); an explanation does not.
    docs/EVALUATION.md is written by `python -m evaluation.full` and left to its generator."""
    mentions = [
        f"{page.name}:{number}"
        for page in PAGES
        if page.name != "EVALUATION.md"
        for number, line in prose(page.read_text(encoding="utf-8"))
        if "../shared/docs" in line
    ]
    assert mentions == []
