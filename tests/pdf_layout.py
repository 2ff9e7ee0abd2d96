"""Where a PDF put its text: every glyph read back with its box (pdfplumber), for the tests
that prove a printed document is laid out (docs/documents.md): nothing past the margins,
no glyph over another, no rule drawn through a glyph.

Coordinates are PDF points (1/72 inch) from the page's top-left corner, as pdfplumber gives
them. Rotated glyphs (a DRAFT watermark) are left out: they are meant to lie over the page.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import pdfplumber

# Glyph boxes come from the font's metrics: a glyph's neighbour in the same word may touch
# it, and kerning may bring them a hair closer; an overlap under this (points) is not one.
TOLERANCE = 0.4


@dataclass(frozen=True)
class Glyph:
    page: int  # 1-based
    text: str
    x0: float
    x1: float
    top: float
    bottom: float

    def where(self) -> str:
        return f"page {self.page}, {self.text!r} at x {self.x0:.1f}–{self.x1:.1f}, y {self.top:.1f}"


def glyphs(pdf: bytes) -> list[list[Glyph]]:
    """Each page's upright glyphs (spaces left out), in the order the PDF draws them."""
    pages = []
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        for number, page in enumerate(document.pages, start=1):
            pages.append(
                [
                    Glyph(number, c["text"], c["x0"], c["x1"], c["top"], c["bottom"])
                    for c in page.chars
                    if _upright(c) and c["text"].strip()
                ]
            )
    return pages


def layout_problems(pdf: bytes, *, margin: float, bottom_margin: float | None = None) -> list[str]:
    """Every way the PDF's text breaks its layout, in words (empty when it is laid out):

    - a glyph outside the page less `margin` points on each side (`bottom_margin` below, when
      the footer sits lower than the other margins);
    - two glyphs whose boxes overlap by more than `TOLERANCE` in both directions (text printed
      over text: a name running into the next column, a line over a heading);
    - a vertical rule (a table's cell border) drawn through a glyph (a figure cut by its cell).
    """
    problems = []
    low = margin if bottom_margin is None else bottom_margin
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        for number, page in enumerate(document.pages, start=1):
            chars = [
                Glyph(number, c["text"], c["x0"], c["x1"], c["top"], c["bottom"])
                for c in page.chars
                if _upright(c) and c["text"].strip()
            ]
            for glyph in chars:
                if (
                    glyph.x0 < margin - TOLERANCE
                    or glyph.x1 > page.width - margin + TOLERANCE
                    or glyph.top < margin - TOLERANCE
                    or glyph.bottom > page.height - low + TOLERANCE
                ):
                    problems.append(f"outside the margins: {glyph.where()}")
            problems += _overlaps(chars)
            problems += _rules_through(chars, _vertical_rules(page))
    return problems


def _upright(char: dict) -> bool:
    """Upright text: no rotation in the glyph's matrix. pdfminer's own `upright` flag is true
    for any turn under 90° (a watermark at 30° too), so the matrix is read instead."""
    _a, b, c, _d, _e, _f = char.get("matrix", (1, 0, 0, 1, 0, 0))
    return char.get("upright", True) and abs(b) < 1e-6 and abs(c) < 1e-6


def _overlaps(chars: list[Glyph]) -> list[str]:
    """Pairs of glyphs printed over each other (a sweep along x: each glyph is compared with
    those that start before it ends)."""
    found = []
    ordered = sorted(chars, key=lambda g: g.x0)
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            if b.x0 >= a.x1 - TOLERANCE:
                break
            overlap_x = min(a.x1, b.x1) - max(a.x0, b.x0)
            overlap_y = min(a.bottom, b.bottom) - max(a.top, b.top)
            if overlap_x > TOLERANCE and overlap_y > TOLERANCE:
                found.append(f"overlap: {a.where()} and {b.text!r} at x {b.x0:.1f}")
    return found


def _vertical_rules(page) -> list[tuple[float, float, float]]:
    """The page's vertical rules as (x, top, bottom): lines, thin rectangles and the left and
    right edges of stroked rectangles (table grids are drawn either way)."""
    rules = []
    for line in page.lines:
        if abs(line["x0"] - line["x1"]) < 0.5:
            rules.append((line["x0"], line["top"], line["bottom"]))
    for rect in page.rects:
        if rect["width"] < 0.5:
            rules.append((rect["x0"], rect["top"], rect["bottom"]))
        elif rect.get("stroke"):
            rules.append((rect["x0"], rect["top"], rect["bottom"]))
            rules.append((rect["x1"], rect["top"], rect["bottom"]))
    return rules


def _rules_through(chars: list[Glyph], rules: list[tuple[float, float, float]]) -> list[str]:
    found = []
    for glyph in chars:
        middle = (glyph.top + glyph.bottom) / 2
        for x, top, bottom in rules:
            if glyph.x0 + TOLERANCE < x < glyph.x1 - TOLERANCE and top < middle < bottom:
                found.append(f"a rule at x {x:.1f} crosses {glyph.where()}")
                break
    return found
