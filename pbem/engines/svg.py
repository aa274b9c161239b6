"""Small pieces every SVG diagram shares: the caption, wrapped to fit its width.

A caption is the only text of a diagram that the server writes at any length (game,
players, ply, move), so it is wrapped at word boundaries into as many lines as it needs,
and the diagram grows to hold them: it never runs past the edge at any size. A glyph is
taken as CHAR_WIDTH ems wide, more than the average of common serif and sans-serif
fonts, so that a line fits whatever font the reader's viewer picks.
"""

from __future__ import annotations

import textwrap
from html import escape

CHAR_WIDTH = 0.55  # ems per character: more than most fonts' average
LINE_HEIGHT = 1.25  # lines of a caption, in ems
MARGIN = 0.03  # of the width, on each side


def caption_lines(caption: str, width: float, font: float) -> list[str]:
    """The caption in lines that fit `width` at `font` pixels."""
    chars = max(8, int(width * (1 - 2 * MARGIN) / (font * CHAR_WIDTH)))
    return textwrap.wrap(caption, chars, break_on_hyphens=False) or [""]


def caption_height(width: float, caption: str | None, font: float | None = None) -> float:
    """The band a caption needs under a diagram `width` wide (0 without a caption)."""
    if not caption:
        return 0.0
    font = font or caption_font(width)
    return (len(caption_lines(caption, width, font)) * LINE_HEIGHT + 0.6) * font


def caption_font(width: float) -> float:
    return 0.035 * width


def caption_text(width: float, baseline: float, height: float, caption: str,
                 font: float | None = None, family: str = "serif") -> str:
    """A caption centred under a diagram, in the band from `baseline` that
    caption_height measured (`height` is kept for the callers' symmetry)."""
    font = font or caption_font(width)
    lines = caption_lines(caption, width, font)
    return "".join(
        f'<text x="{width / 2:.1f}" y="{baseline + (0.3 + LINE_HEIGHT * (i + 0.8)) * font:.1f}" '
        f'font-family="{family}" font-size="{font:.1f}" text-anchor="middle">'
        f'{escape(line)}</text>' for i, line in enumerate(lines))
