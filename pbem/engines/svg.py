"""Small pieces every SVG diagram shares: the caption, wrapped to fit its width.

A caption is the only text of a diagram that the server writes at any length (game,
players, ply, move), so it is wrapped at word boundaries into as many lines as it needs,
and the diagram grows to hold them: it never runs past the edge at any size. A glyph is
taken as CHAR_WIDTH ems wide, more than the average of common serif and sans-serif
fonts, so that a line fits whatever font the reader's viewer picks.

And the Sheet: a diagram written as its parts, the background and the pieces (a stone,
a card, a line of text) with what each looks like and where it stands, so that the
picture of a position for mail (pbem.mail.pictures) draws each kind of piece once and
places it; its `svg()` is the web's diagram.
"""

from __future__ import annotations

import textwrap
from functools import lru_cache
from html import escape
from operator import itemgetter

CHAR_WIDTH = 0.55  # ems per character: more than most fonts' average
LINE_HEIGHT = 1.25  # lines of a caption, in ems
MARGIN = 0.03  # of the width, on each side


@lru_cache(maxsize=1024)
def caption_lines(caption: str, width: float, font: float) -> tuple[str, ...]:
    """The caption in lines that fit `width` at `font` pixels. Kept: a seat's caption
    under its picture in every mail (Onyx's colour and goal) is wrapped once."""
    chars = max(8, int(width * (1 - 2 * MARGIN) / (font * CHAR_WIDTH)))
    return tuple(textwrap.wrap(caption, chars, break_on_hyphens=False)) or ("",)


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


# -- sheets: a diagram in the parts a picture is made of ---------------------------------

class Sheet:
    """An SVG diagram as a list of parts, with what a raster of it may reuse.

    `svg()` is the diagram the web shows, byte for byte: the parts joined by newlines.
    The head (the root element, the title) and the closing tag are not drawn. The drawn
    parts before the first piece are the *background*: they depend on the layout only
    (an empty board of a size), so a picture rasterises them once and keeps them. Every
    later part is a *piece*: `key` says what it looks like wherever it stands (a black
    stone of radius 6.2, the card 23 at 48×62) and `box` (x0, y0, x1, y1, in the
    diagram's own units) where it stands, with its stroke and soft edges inside, so a
    picture rasterises each kind of piece once and places it (pbem.mail.pictures).

    `inherit` holds the root's attributes that pieces inherit (a font), `ground` the
    colour most pieces stand on (their soft edges are blended onto it), and `colours`
    every colour a piece may have, so that the picture's palette holds them all whatever
    the position: a palette that depended on the position could tell one seat something
    about what another was shown. `surfaces`: colours inside pieces on which others are
    drawn (a card's face under its number), whose soft edges the palette holds too.
    """

    def __init__(self, width: float, height: float, view_width: float, view_height: float,
                 ground: str, colours: tuple[str, ...] = (), inherit: str = "",
                 surfaces: tuple[str, ...] = ()):
        self.width, self.height = width, height  # pixels
        self.view_width, self.view_height = view_width, view_height  # the viewBox
        self.ground, self.colours, self.inherit = ground, tuple(colours), inherit
        self.surfaces = tuple(surfaces)
        self.parts: list[str] = []
        self.head = 0  # parts that open the drawing: the root element, its title
        self.drawn: list[tuple[int, object, tuple[float, float, float, float] | None]] = []
        self.given: str | None = None  # a drawing given whole (Sheet.whole)
        self._first_piece: int | None = None  # where the background ends (parts)

    def open(self, *parts: str) -> None:
        """The root element and its title: shown to the web, not drawn."""
        self.parts.extend(parts)
        self.head = len(self.parts)

    def add(self, svg: str, key: object = None, box=None) -> None:
        """A drawn part; with `key` and `box` a piece. A part with neither after the
        first piece is a piece too, that looks like itself and may cover the drawing."""
        if key is None and self._first_piece is not None:
            key, box = ("part", svg), (0.0, 0.0, self.view_width, self.view_height)
        elif key is not None and self._first_piece is None:
            self._first_piece = len(self.drawn)
        self.drawn.append((len(self.parts), key, box))
        self.parts.append(svg)

    def add_pieces(self, pieces) -> None:
        """Sheet.add of each (svg, key, box), every one with its key, in C's loops rather
        than Python's: a late 26×26 board adds 600 stones to every mail's sheet."""
        pieces = list(pieces)
        if not pieces:
            return
        if None in map(_SECOND, pieces):
            raise ValueError("Sheet.add_pieces: every piece needs its key")
        if self._first_piece is None:
            self._first_piece = len(self.drawn)
        start = len(self.parts)
        self.parts.extend(map(_FIRST, pieces))
        self.drawn.extend(zip(range(start, start + len(pieces)), map(_SECOND, pieces),
                              map(_THIRD, pieces)))

    def background(self) -> list[str]:
        """The drawn parts before the first piece."""
        end = len(self.drawn) if self._first_piece is None else self._first_piece
        return [self.parts[index] for index, _, _ in self.drawn[:end]]

    def pieces(self) -> list[tuple[str, object, tuple[float, float, float, float]]]:
        """(svg, key, box) of each piece, in the order drawn: every part drawn from the
        first piece on (add makes a part without a key a piece there)."""
        if self._first_piece is None:
            return []
        drawn = self.drawn[self._first_piece:]
        return list(zip(map(self.parts.__getitem__, map(_FIRST, drawn)), map(_SECOND, drawn),
                        map(_THIRD, drawn)))

    def svg(self) -> str:
        if self.given is not None:
            return self.given
        return "\n".join(self.parts) + "\n</svg>"

    @classmethod
    def whole(cls, svg: str, width: float, height: float, ground: str = "#ffffff") -> "Sheet":
        """A drawing given whole, rasterised whole: for a renderer without pieces."""
        sheet = cls(width, height, width, height, ground)
        sheet.given = svg
        return sheet


_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)


def text_box(x: float, y: float, font: float, text: str, anchor: str = "start",
             central: bool = False, bold: bool = False) -> tuple[float, float, float, float]:
    """A box sure to hold a line of text at (x, y): glyphs are taken as 1 em wide
    (1.1 bold), as wide as DejaVu Sans's widest capitals; a box too wide costs nothing
    but a few transparent pixels, one too narrow would cut the text."""
    width = len(text) * font * (1.1 if bold else 1.0) + font * 0.3
    left = {"start": x - font * 0.15, "middle": x - width / 2, "end": x - width}[anchor]
    top = y - font * 0.75 if central else y - font * 1.05
    return (left, top, left + width, top + font * (1.5 if central else 1.45))
