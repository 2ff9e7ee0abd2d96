"""Code cites the documentation by its pages: every `docs/….md` named in a docstring or comment
exists (and holds the section named after it), no code cites a README section (the README is
a short front page: docs/index.md is the map) or an issue number, and the README stays short
with every link in it resolving."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

BASE = Path(settings.BASE_DIR)
SOURCES = ("audit", "config", "jobcost", "webhooks", "tests", "templates")
EXTRA = ("Makefile", ".ci/run", "mkdocs.yml")
# `docs/page.md`, optionally followed by `, "Section"` (the section may wrap onto the next
# line, behind a comment's "#").
CITED = re.compile(
    r"docs/(?P<page>[\w./-]+\.md)(?:,[ \t]*(?:\n[ \t]*(?:#[ \t]*)?)?\"(?P<section>[^\"]+)\")?"
)
README_SECTION = re.compile(r"\bREADME(?!\.md)\b")
ISSUE = re.compile(r"\bissues?[ \t]+#?\d+|\bGH-\d+", re.IGNORECASE)
THIS = Path(__file__).resolve()


def _files():
    for top in SOURCES:
        for path in sorted((BASE / top).rglob("*")):
            if path.suffix in {".py", ".html", ".txt"} and path.resolve() != THIS:
                yield path
    for name in EXTRA:
        yield BASE / name


def _plain(text: str) -> str:
    """Text as compared: no Markdown emphasis, code marks or quotes, whitespace runs as one
    space."""
    return re.sub(r"\s+", " ", re.sub(r"[*`#\"'“”‘’]", "", text)).lower()


def test_every_cited_docs_page_exists_and_holds_the_cited_section():
    missing = []
    for path in _files():
        for match in CITED.finditer(path.read_text()):
            page = BASE / "docs" / match["page"]
            where = f"{path.relative_to(BASE)}: docs/{match['page']}"
            if not page.is_file():
                missing.append(where)
            elif match["section"]:
                section = _plain(match["section"])
                if section not in _plain(page.read_text()):
                    missing.append(f'{where}, "{match["section"]}"')
    assert missing == []


def test_no_code_cites_a_readme_section_or_an_issue_number():
    found = []
    for path in _files():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if README_SECTION.search(line) or ISSUE.search(line):
                found.append(f"{path.relative_to(BASE)}:{number}: {line.strip()}")
    assert found == []


def test_the_readme_is_short_and_its_links_resolve():
    readme = (BASE / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    links = re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", readme)
    assert links, "the README links to the docs"
    broken = [link for link in links if "://" not in link and not (BASE / link).exists()]
    assert broken == []


def test_every_docs_page_is_in_the_site_navigation():
    nav = (BASE / "mkdocs.yml").read_text()
    pages = {str(p.relative_to(BASE / "docs")) for p in (BASE / "docs").rglob("*.md")}
    listed = set(re.findall(r":\s*([\w/.-]+\.md)\s*$", nav, flags=re.M))
    assert pages == listed
