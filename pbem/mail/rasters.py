"""The rasters a picture for mail is put together from, kept: a sheet's background with
its palette, and each kind of piece, rasterised once by resvg (the `resvg-py` wheel: the
Rust renderer, no system library) and turned into the palette's pixels by Pillow.

A whole 26×26 board costs resvg ~180 ms, a hundred moves' worth of a server's CPU, so
a diagram given in parts (a Sheet with pieces: every game's) is put together from
rasters that are kept (one process's memory, bounded):

- the *background* of a sheet (an empty board of a size, a card table) is rasterised
  once, with a palette made from it and the sheet's declared colours only, so the
  palette never depends on the position (nor on what other seats were shown);
- each kind of *piece* (a black stone of a radius, the card 23 at a size, a line of
  text) is rasterised once at its box's size, blended onto the sheet's ground, and
  placed wherever it stands, each at the whole pixel nearest its place; the new pieces
  of a picture are rasterised together, in one call of resvg.

A diagram given whole (an engine without a sheet of its own: RecordsAndPictures.sheet)
is rasterised whole and given a palette of its own pixels (whole).

What is kept here is shared by the threads that write mail: callers hold
pbem.mail.pictures's lock.
"""

from __future__ import annotations

import io
import itertools
import math
import operator
from itertools import compress, count, repeat
from pathlib import Path

import resvg_py
from PIL import Image

from pbem.engines.svg import Sheet
from pbem.mail.kept import Kept
from pbem.mail.png_bands import BAND, Bands, Encoded

FONT_DIRECTORY = Path("/usr/share/fonts/truetype/dejavu")  # Debian's fonts-dejavu-core
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSerif.ttf")


def _fonts() -> dict:
    """resvg's font options: the diagrams' `sans-serif` is DejaVu Sans. resvg reads every
    system font at each call unless given its files (half the time of a card table), so
    it is given DejaVu's where they are, and looks for them among all fonts otherwise."""
    family = {"sans_serif_family": "DejaVu Sans", "serif_family": "DejaVu Serif",
              "monospace_family": "DejaVu Sans Mono"}
    files = [str(FONT_DIRECTORY / name) for name in FONT_FILES
             if (FONT_DIRECTORY / name).exists()]
    if files:
        return {**family, "skip_system_fonts": True, "font_files": files}
    return family


FONTS = _fonts()
WHOLE_COLOURS = 64  # a diagram drawn whole: its own 64 colours (a card table ~20 KB)
BACKGROUND_COLOURS = 12  # a late 26×26 board: 50 KB; 58 with 24, 68 with 128
PLACEMENTS = 50_000  # kept places of pieces a style (a 26×26 board's mail needs ~4,000)
OPAQUE = 24  # a piece's pixel less covered than this (of 255) leaves the background

# What is kept, in this process only (a style is made again where it is not):
_STYLES = Kept(16)  # backgrounds with their palettes and pieces


def placed(style, sheet: Sheet) -> list:
    """Where each of the sheet's pieces goes (Style.place), in the order drawn.

    A piece is looked up by its SVG first, whose hash its string keeps (an engine writes
    a board's stones once, so the same strings, keys and boxes come back), and taken
    when its key and box are those found there, all in C's loops: looking each up by
    its key and box hashed four floats twice a piece, and Python's loop over 600 stones
    was a fifth of a late 26×26 picture's instructions."""
    height = round(sheet.height)
    pieces = sheet.pieces()
    by_svg = style.by_svg.get(height)
    if by_svg is None:
        by_svg = style.by_svg[height] = {}
    found = list(map(by_svg.get, map(_FIRST, pieces), repeat(_ABSENT)))  # (piece, place)
    wheres = list(map(_SECOND, found))
    # the pieces not found so, or found with another key or box (a move's new stone and
    # ring): their numbers, from C's loops too
    missing = list(compress(count(), map(operator.ne, map(_FIRST, found), pieces)))
    if missing and not _place(style, by_svg, pieces, wheres, missing, height):
        return placed(style, sheet)  # the places kept reached their bound: forgotten
    return wheres if OUTSIDE not in wheres else [w for w in wheres if w is not OUTSIDE]


def _place(style, by_svg: dict, pieces: list, wheres: list, missing: list,
           height: int) -> bool:
    """The places of the pieces `missing` in `wheres`, looked up by key and box, and
    placed the first time; False when the places kept reached their bound (PLACEMENTS,
    never reached by a board's mail) and were all forgotten instead."""
    placements = style.placements
    kept = max(len(placements), sum(map(len, style.by_svg.values())))
    if placements and kept + len(missing) > PLACEMENTS:
        placements.clear()
        style.by_svg.clear()
        style.by_number.clear()
        style.serial = next(_SERIALS)  # the numbers start again: new keys
        return False
    new = [pieces[number] for number in missing
           if (pieces[number][1], pieces[number][2], height) not in placements]
    if new:
        style.rasterise(new)  # the sprites they lack, all in one call of resvg
    for number in missing:
        svg, key, box = piece = pieces[number]
        where = placements.get((key, box, height))
        if where is None:
            where = placements[(key, box, height)] = style.place(key, box, svg, height)
        by_svg[svg] = (piece, where)
        wheres[number] = where
    return True


_ABSENT = (None, None)  # a piece not found by its SVG (placed)
OUTSIDE = (-1,)  # a piece wholly outside the drawing
_SERIALS = itertools.count()  # styles made in this process: the pictures' keys name theirs
_FIRST, _SECOND = (operator.itemgetter(n) for n in (0, 1))


class Style:
    """A background, its palette, and the pieces rasterised for it: one for every sheet
    of a width and a background, whatever its height (a card table grows with the
    cards on it), with a canvas rasterised for each height."""

    def __init__(self, sheet: Sheet, key):
        self.key = key
        self.width = round(sheet.width)
        self.inherit, self.ground = sheet.inherit, sheet.ground
        self.view_width = sheet.view_width
        self.background = "\n".join(sheet.background())
        drawn = _raster(_svg(sheet, self.background), self.width, round(sheet.height),
                        sheet.ground)
        self.palette = _palette(drawn, sheet.ground, sheet.colours, sheet.surfaces)
        self.canvases = Kept(4)
        self.canvases.put((round(sheet.height), sheet.view_height), self._canvas(drawn))
        self.pieces: dict = {}
        self.last_bands = Kept(4)  # the last picture's bands on each canvas (Bands)
        # Where each (kind of piece, box) goes, found once: (its number, the rectangle
        # on the canvas, the sprite's and the mask's cores, cut to the drawing). A
        # board's points are few (1,300 on 26×26), so they are kept as long as the style.
        self.placements: dict = {}
        self.by_number: dict = {}  # the same places by their numbers
        self.by_svg: dict = {}  # by height, SVG: ((svg, key, box), place) last found (placed)
        self.serial = next(_SERIALS)

    def _canvas(self, drawn: Image.Image) -> Image.Image:
        """The background's pixels in the palette, with one column more on the left,
        always 0: PNG's filter byte "none" of each row, so the canvas's bytes are the
        PNG's rows as they are."""
        canvas = Image.new("P", (self.width + 1, drawn.height), 0)
        canvas.putpalette(self.palette.getpalette())
        canvas.paste(_indexed(drawn, self.palette), (1, 0))
        return canvas

    def canvas(self, sheet: Sheet) -> Image.Image:
        """The background at the sheet's height, rasterised the first time."""
        key = (round(sheet.height), sheet.view_height)
        found = self.canvases.get(key)
        if found is None:
            drawn = _raster(_svg(sheet, self.background), self.width, key[0], sheet.ground)
            found = self.canvases.put(key, self._canvas(drawn))
        return found

    def pixels(self, box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
        """A box of the diagram's units as whole pixels, every pixel it touches."""
        scale = self.width / self.view_width
        return (math.floor(box[0] * scale), math.floor(box[1] * scale),
                math.ceil(box[2] * scale), math.ceil(box[3] * scale))

    def place(self, key, box: tuple[float, float, float, float], svg: str, height: int):
        """Where the piece `key` at `box` (the diagram's units) goes on a canvas of
        `height`: each at the whole pixel nearest its place, cut to the canvas, its
        sprite rasterised for its size the first time."""
        x0, y0, x1, y1 = self.pixels(box)
        left, top = max(0, -x0), max(0, -y0)
        right, bottom = max(0, x1 - self.width), max(0, y1 - height)
        if x1 - right <= x0 + left or y1 - bottom <= y0 + top:
            return OUTSIDE
        found = self.pieces.get((key, x1 - x0, y1 - y0))
        if found is None:
            self.rasterise([(svg, key, box)])
            found = self.pieces[(key, x1 - x0, y1 - y0)]
        sprite, mask, sprite_core, mask_core = found
        if left or top or right or bottom:
            crop = (left, top, sprite.width - right, sprite.height - bottom)
            sprite_core, mask_core = sprite.crop(crop).im, mask.crop(crop).im
        top, bottom = y0 + top, y1 - bottom
        first, last = top // BAND, (bottom - 1) // BAND  # the bands of rows it touches
        where = (len(self.placements), (x0 + left + 1, top, x1 - right + 1, bottom),
                 sprite_core, mask_core, (1 << last + 1) - (1 << first))
        self.by_number[where[0]] = where
        return where

    def rasterise(self, pieces: list) -> None:
        """The sprites of the pieces (svg, key, box) not kept yet, each at its box's
        size in pixels with the mask of the pixels it covers, drawn in one call of resvg
        one under the other: a call costs ~3 ms before it draws anything (its fonts),
        and a card table's mail may want a dozen new pieces (a seat's new line)."""
        scale = self.width / self.view_width
        wanted = {}
        for svg, key, box in pieces:
            x0, y0, x1, y1 = self.pixels(box)
            size = (key, x1 - x0, y1 - y0)
            if size not in self.pieces and x1 > x0 and y1 > y0:
                wanted.setdefault(size, (svg, x0, y0))
        if not wanted:
            return
        parts, top = [], 0
        for (_, width, height), (svg, x0, y0) in wanted.items():
            parts.append(f'<svg x="0" y="{top}" width="{width}" height="{height}" '
                         f'viewBox="{x0 / scale:.4f} {y0 / scale:.4f} {width / scale:.4f} '
                         f'{height / scale:.4f}">{svg}</svg>')
            top += height
        widest = max(width for _, width, _ in wanted)
        drawn = _rgba(f'<svg xmlns="http://www.w3.org/2000/svg" width="{widest}" '
                      f'height="{top}" {self.inherit}>{"".join(parts)}</svg>')
        mask = drawn.getchannel("A").point(lambda a: 255 if a >= OPAQUE else 0, "1")
        flat = Image.alpha_composite(Image.new("RGBA", drawn.size, self.ground), drawn)
        flat = _indexed(flat.convert("RGB"), self.palette)
        top = 0
        for size in wanted:
            _, width, height = size
            sprite = flat.crop((0, top, width, top + height))
            cover = mask.crop((0, top, width, top + height))
            # Pillow's cores, kept: compose pastes with them directly
            self.pieces[size] = (sprite, cover, sprite.im, cover.im)
            top += height


def style_of(sheet: Sheet) -> Style:
    """The sheet's style (its width and background), made the first time."""
    key = (sheet.width, sheet.view_width, sheet.inherit, sheet.ground, sheet.colours,
           sheet.surfaces, tuple(sheet.background()))
    return _STYLES.get(key) or _STYLES.put(key, Style(sheet, key))


def compose(background: Image.Image, placed: list) -> Image.Image:
    """The background with the pieces pasted on, in the order drawn. The canvas's first
    column is the rows' filter bytes: a piece at x goes to x + 1."""
    canvas = background.copy()
    core = canvas.im  # Pillow's own paste, without Image.paste's checks: 0.4 µs a piece, not 3
    for _, rectangle, sprite, mask, _ in placed:
        core.paste(sprite, rectangle, mask)
    return canvas


# -- rasterising ---------------------------------------------------------------------

def _svg(sheet: Sheet, body: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{round(sheet.width)}" '
            f'height="{round(sheet.height)}" viewBox="0 0 {sheet.view_width} '
            f'{sheet.view_height}" {sheet.inherit}>{body}</svg>')


def _rgba(svg: str) -> Image.Image:
    drawn = Image.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(svg_string=svg, **FONTS))))
    return drawn.convert("RGBA")


def _raster(svg: str, width: int, height: int, ground: str) -> Image.Image:
    """The SVG's pixels on its ground, RGB, exactly width × height."""
    drawn = _rgba(svg)
    if drawn.size != (width, height):
        drawn = drawn.resize((width, height))
    return Image.alpha_composite(Image.new("RGBA", drawn.size, ground), drawn).convert("RGB")


def whole(sheet: Sheet) -> Encoded:
    """A drawing given whole (no pieces): rasterised, and given a palette of its own
    made from its own pixels only (what this seat's view shows)."""
    drawn = _raster(sheet.given, round(sheet.width), round(sheet.height), sheet.ground)
    indexed = drawn.quantize(WHOLE_COLOURS, method=Image.Quantize.MEDIANCUT,
                             dither=Image.Dither.NONE)
    canvas = Image.new("P", (drawn.width + 1, drawn.height), 0)
    canvas.paste(indexed, (1, 0))
    bands = Bands(None, indexed.getpalette(), drawn.width, drawn.height)
    bands.whole(canvas, drawn.width)
    return bands.picture()


def _hex(colour: str) -> tuple[int, int, int]:
    colour = colour.lstrip("#")
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    return int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)


def _palette(drawn: Image.Image, ground: str, colours: tuple[str, ...],
             surfaces: tuple[str, ...] = ()) -> Image.Image:
    """A palette of at most 256 colours: the background's own (BACKGROUND_COLOURS), then
    every declared colour and its half-way blend onto the ground (soft edges), and its
    blends by quarters onto each surface (text on a card)."""
    own = drawn.quantize(BACKGROUND_COLOURS, method=Image.Quantize.MEDIANCUT).getpalette()
    own = own[:BACKGROUND_COLOURS * 3]
    entries = list(dict.fromkeys(tuple(own[i:i + 3]) for i in range(0, len(own), 3)))
    rgb = [_hex(c) for c in (ground, *colours)]

    def mix(a, b, t):
        return tuple(round(x + (y - x) * t) for x, y in zip(a, b))
    wanted = [c for c in rgb]
    wanted += [mix(c, rgb[0], 0.5) for c in rgb[1:]]
    wanted += [mix(c, _hex(surface), t) for surface in surfaces for c in rgb[1:]
               for t in (0.25, 0.5, 0.75)]
    for colour in wanted:
        if colour not in entries and len(entries) < 256:
            entries.append(colour)
    entries += [entries[-1]] * (256 - len(entries))
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for colour in entries for v in colour])
    return palette


def _indexed(drawn: Image.Image, palette: Image.Image) -> Image.Image:
    return drawn.quantize(palette=palette, dither=Image.Dither.NONE)
