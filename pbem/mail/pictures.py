"""Pictures of positions for mail: the web's SVG diagram as a small palette PNG.

Mail clients do not show SVG, so a game mail carries the position as a PNG drawn from
the very SVG the seat's page shows (`engine.sheet(view, size)`, whose `svg()` is that
page's diagram, from the same view). A mail is read on a phone first: where a game has
a narrow diagram for phones (Gem Forge's rows of tiles, whose wide drawing's text would
be under 7 px on a phone), the picture is that one, as the seat's page shows it on a
phone (`engine.narrow_sheet`, pbem.web.diagrams), 300 px wide. resvg (the `resvg-py` wheel: the Rust renderer, no
system library) rasterises; Pillow turns its pixels into a palette; this module writes
the PNG.

A whole 26×26 board costs resvg ~180 ms, a hundred moves' worth of a server's CPU, so
a diagram given in parts (a Sheet with pieces: every game's) is put together from
rasters that are kept (one process's memory, bounded):

- the *background* of a sheet (an empty board of a size, a card table) is rasterised
  once, with a palette made from it and the sheet's declared colours only, so the
  palette never depends on the position (nor on what other seats were shown);
- each kind of *piece* (a black stone of a radius, the card 23 at a size, a line of
  text) is rasterised once at its box's size, blended onto the sheet's ground, and
  placed wherever it stands, each at the whole pixel nearest its place; the new pieces
  of a picture are rasterised together, in one call of resvg;
- the PNG's compressed data is made of bands of 8 rows, each compressed on its own
  and kept by its bytes: a move changes a few bands, so only those are drawn and
  compressed again, found from the pieces added and taken away since the last picture
  on the same canvas (Pillow's encoder, compressing the whole picture, took ten times
  as long: bench/pictures.py). Independently compressed deflate blocks ending on a
  byte boundary join into one valid stream; each band is an IDAT chunk of its own, its
  CRC made with it, and the stream's Adler-32 is summed from the bands' own, so
  nothing runs over the bands a move left alone;
- each band is a multiple of 3 bytes long (empty stored blocks pad it), so the mail's
  base64 of the PNG is joined from the bands' own, each encoded once (_Bands).

A diagram given whole (an engine without a sheet of its own: RecordsAndPictures.sheet)
is rasterised whole and given a palette of its own pixels. The same sheet twice gives
the same bytes, kept: both Onyx players and every spectator of a position cost one
picture.
"""

from __future__ import annotations

import io
import itertools
import math
import operator
import re
import struct
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from html import unescape
from itertools import compress, count, repeat
from pathlib import Path
from typing import NamedTuple

import resvg_py
from PIL import Image

from pbem.engines.svg import Sheet
from pbem.mail.compose import Base64, base64_lines

WIDTH = 480  # pixels: the seat page's diagram; a phone shows it at its 390 px or so
NARROW = 300  # pixels: a narrow diagram's, a pixel a unit of Gem Forge's (its text 11.7
# px; at the web's 360 its 4-player mail was 68 KB, over the card games' budget of 60)
BAND = 8  # rows a band
# zlib's level: 4 deflates a band of a 480-wide board in 0.045 ms, 6 in 0.075 and 9 in
# 0.19, for pictures 5% and 7% smaller (a late 26×26 board's: 62 KB, 59 and 58)
LEVEL = 4
MEMORY = 5  # zlib's memLevel: its hash table (cleared for every band, each compressed on
# its own) is 8 KB, not 7's 32 or 8's 64, for the same bytes a band of 3.8 KB; 3 loses 2%
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
SIGNATURE = b"\x89PNG\r\n\x1a\n"


class Kept(OrderedDict):
    """A least-recently-used store bounded by a count of entries."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit

    def get(self, key, default=None):
        value = super().get(key, default)
        if value is not default:
            self.move_to_end(key)
        return value

    def put(self, key, value):
        self[key] = value
        if len(self) > self.limit:
            self.popitem(last=False)
        return value


# What is kept, in this process only (a picture is made again where it is not):
_STYLES = Kept(16)  # backgrounds with their palettes and pieces
_BANDS = Kept(3000)  # compressed bands and their base64 by their rows' bytes: ~20 MB
_PICTURES = Kept(64)  # PNGs and their base64 by their pieces' places (or SVG): ~12 MB at most
_LOCK = threading.Lock()  # the stores are shared by the threads that write mail


@dataclass(frozen=True)
class Picture:
    """A position's picture for one mail: its size, its alt text, the PNG in base64
    lines for the mail (joined from its bands' own: _Bands), and the PNG's bytes when
    asked for (`png`)."""
    encoded: "_Encoded"
    width: int
    height: int
    alt: str

    @property
    def base64(self) -> Base64:
        return self.encoded.base64

    @property
    def png(self) -> bytes:
        return self.encoded.png


def picture(engine, view: dict, width: int = WIDTH, caption: str | None = None) -> Picture:
    """The picture of `view`, drawn by the engine's own SVG of it (engine.sheet), the
    one the web shows for that view, with `caption` under it (in Onyx: the seat's
    colour and goal); alt: the SVG's title, the position in words, and the caption."""
    sheet = mail_sheet(engine, view, width, caption)
    with _LOCK:
        data = encoded(sheet)
    head = sheet.given or "".join(sheet.parts[:sheet.head])  # the root and its title
    title = re.search(r"<title>(.*?)</title>", head, re.S)
    alt = unescape(title.group(1)).strip() if title else engine.title
    return Picture(data, round(sheet.width), round(sheet.height),
                   f"{alt}. {caption}" if caption else alt)


def mail_sheet(engine, view: dict, width: int = WIDTH, caption: str | None = None) -> Sheet:
    """The drawing a mail's picture is made from: the engine's narrow diagram for phones,
    NARROW wide, where it has one; its diagram, `width` wide, otherwise."""
    return engine.narrow_sheet(view, NARROW, caption) or engine.sheet(view, width, caption)


def png(sheet: Sheet) -> bytes:
    """The sheet as PNG bytes, its width and height as the sheet says."""
    with _LOCK:
        return encoded(sheet).png


def encoded(sheet: Sheet) -> "_Encoded":
    """The sheet's PNG and its base64 (callers hold _LOCK: picture(), png())."""
    if sheet.given is not None:
        key = ("given", sheet.given)
        return _PICTURES.get(key) or _PICTURES.put(key, _whole(sheet))
    style = _style(sheet)
    height = round(sheet.height)
    placed = _placed(style, sheet)
    numbers = tuple(map(_FIRST, placed))
    picture_key = (style.serial, height, sheet.view_height, numbers)
    found = _PICTURES.get(picture_key)
    if found is None:
        canvas = (height, sheet.view_height)
        last = style.last_bands.get(canvas)
        if last is None or last.serial != style.serial:
            last = style.last_bands.put(canvas, _Bands(style.serial, style.palette.getpalette(),
                                                       style.width, height))
        background = style.canvas(sheet)
        dirty = last.dirty(numbers, style.by_number)
        if dirty is None:
            last.whole(_compose(background, placed), style.width)
        elif dirty:
            last.redraw(background, placed, dirty, style.width, height)
        last.numbers = numbers
        found = _PICTURES.put(picture_key, last.picture())
    return found


def _placed(style, sheet: Sheet) -> list:
    """Where each of the sheet's pieces goes (_Style.place), in the order drawn.

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
        return _placed(style, sheet)  # the places kept reached their bound: forgotten
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


_ABSENT = (None, None)  # a piece not found by its SVG (_placed)
OUTSIDE = (-1,)  # a piece wholly outside the drawing
_SERIALS = itertools.count()  # styles made in this process: the pictures' keys name theirs


class _Style:
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
        self.last_bands = Kept(4)  # the last picture's bands on each canvas (_Bands)
        # Where each (kind of piece, box) goes, found once: (its number, the rectangle
        # on the canvas, the sprite's and the mask's cores, cut to the drawing). A
        # board's points are few (1,300 on 26×26), so they are kept as long as the style.
        self.placements: dict = {}
        self.by_number: dict = {}  # the same places by their numbers
        self.by_svg: dict = {}  # by height, SVG: ((svg, key, box), place) last found (_placed)
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
            # Pillow's cores, kept: _compose pastes with them directly
            self.pieces[size] = (sprite, cover, sprite.im, cover.im)
            top += height


def _style(sheet: Sheet) -> _Style:
    key = (sheet.width, sheet.view_width, sheet.inherit, sheet.ground, sheet.colours,
           sheet.surfaces, tuple(sheet.background()))
    return _STYLES.get(key) or _STYLES.put(key, _Style(sheet, key))


def _compose(background: Image.Image, placed: list) -> Image.Image:
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


def _whole(sheet: Sheet) -> bytes:
    """A drawing given whole (no pieces): rasterised, and given a palette of its own
    made from its own pixels only (what this seat's view shows)."""
    drawn = _raster(sheet.given, round(sheet.width), round(sheet.height), sheet.ground)
    indexed = drawn.quantize(WHOLE_COLOURS, method=Image.Quantize.MEDIANCUT,
                             dither=Image.Dither.NONE)
    canvas = Image.new("P", (drawn.width + 1, drawn.height), 0)
    canvas.paste(indexed, (1, 0))
    bands = _Bands(None, indexed.getpalette(), drawn.width, drawn.height)
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


# -- the PNG -------------------------------------------------------------------------

def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind))))


EMPTY = b"\x00\x00\x00\xff\xff"  # an empty stored deflate block, from a byte boundary
IEND = _chunk(b"IEND", b"")


def _padded(data: bytes) -> bytes:
    """Data made a multiple of 3 bytes long, so that its base64 stands on its own and a
    picture's base64 is the join of its parts': empty stored blocks after deflate blocks
    that end on a byte boundary, 5 bytes each (k of them add 2k mod 3: k = len % 3)."""
    return data + EMPTY * (len(data) % 3)


class _Band(NamedTuple):
    """One band's rows as an IDAT chunk of their own (deflate blocks ending on a byte
    boundary, a multiple of 3 bytes long: _padded; the chunk's CRC made once), what the
    stream's Adler-32 needs of them (_Bands.adler), and the chunk's base64 in lines, as
    the mail's payload (LF) and on the wire (CRLF)."""
    data: bytes
    sum: int  # the rows' bytes summed, mod ADLER: their Adler-32's low half less its 1
    term: int  # their Adler-32's high half less their length, mod ADLER
    length: int
    text: str
    wire: bytes


def _band(raw: bytes) -> _Band:
    found = _BANDS.get(raw)
    if found is None:
        squeeze = zlib.compressobj(LEVEL, zlib.DEFLATED, -15, MEMORY)
        data = _chunk(b"IDAT", _padded(squeeze.compress(raw)
                                       + squeeze.flush(zlib.Z_SYNC_FLUSH)))
        text = base64_lines(data)
        adler = zlib.adler32(raw)
        found = _BANDS.put(raw, _Band(data, ((adler & 0xFFFF) - 1) % ADLER,
                                      ((adler >> 16) - len(raw)) % ADLER, len(raw), text,
                                      text.replace("\n", "\r\n").encode("ascii")))
    return found


ADLER = 65521  # Adler-32's modulus


class _Encoded:
    """A picture's PNG, kept as its parts and joined only when asked for (a mail needs
    only its base64), and its base64 (the join of its parts')."""
    __slots__ = ("parts", "base64", "_png")

    def __init__(self, parts: list[bytes], base64: Base64):
        self.parts, self.base64, self._png = parts, base64, None

    @property
    def png(self) -> bytes:
        if self._png is None:
            self._png = b"".join(self.parts)
        return self._png


_DATA, _SUM, _TERM, _LENGTH, _TEXT, _WIRE = (operator.itemgetter(n)
                                             for n in range(6))
_FIRST, _SECOND, _COVERS = (operator.itemgetter(n) for n in (0, 1, 4))


def _runs(bits: int):
    """(first, last) of each run of set bits, from the lowest."""
    while bits:
        low = (bits & -bits).bit_length() - 1
        run = bits >> low
        length = (~run & (run + 1)).bit_length() - 1  # its trailing ones
        yield low, low + length - 1
        bits &= ~(((1 << length) - 1) << low)


class _Bands:
    """The PNG of the last picture on a canvas, in its bands: the next picture on the
    canvas draws and compresses again only the bands whose pieces changed.

    A band's rows are the background's with the pieces that touch them pasted on, in
    the order drawn; so a band that no piece added or taken away touches is the same as
    in the last picture, as long as the pieces kept are drawn in the same order. Each
    band is an IDAT chunk of its own (PNG joins its IDAT chunks' contents into the one
    zlib stream), whose CRC is made with it; the stream's Adler-32 is summed from the
    bands' own (adler). So nothing runs over the bands a move did not change, and every
    part of the PNG being a multiple of 3 bytes long (the head, padded with empty stored
    blocks after zlib's header; each band: _padded), its base64 is the join of theirs,
    each band's made once (lines of at most 76, RFC 2045, a line ending where a band
    does)."""

    def __init__(self, serial, palette: list[int], width: int, height: int):
        self.serial = serial
        self.numbers: tuple | None = None  # the pieces' places of the last picture
        self.bands: list[_Band] = []
        self.after: list[int] = []  # the bytes of rows after each band's
        head = (SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3,
                                                         0, 0, 0))
                + _chunk(b"PLTE", bytes(palette[:768])))
        # zlib's header (deflate, 32K window, a fast level), padded so that its IDAT
        # chunk (12 bytes more) ends the head on a multiple of 3
        zlib_head = b"\x78\x5e" + EMPTY * ((len(head) + 14) % 3)
        self.head = head + _chunk(b"IDAT", zlib_head)
        self.head_text = base64_lines(self.head)
        self.head_wire = self.head_text.replace("\n", "\r\n").encode("ascii")

    def dirty(self, numbers: tuple, by_number: dict) -> int | None:
        """The bands (as bits) that a picture of pieces at `numbers` changes from the
        last one; None when it is to be drawn whole (the first picture on the canvas,
        the kept pieces in another order, or half the bands changed)."""
        if self.numbers is None:
            return None
        old, new = set(self.numbers), set(numbers)
        gone, came = old - new, new - old
        kept_before = tuple(filter(new.__contains__, self.numbers)) if gone else self.numbers
        kept_now = tuple(filter(old.__contains__, numbers)) if came else numbers
        if kept_before != kept_now:
            return None
        bits = 0
        for number in gone | came:
            bits |= by_number[number][4]
        return None if bits.bit_count() * 2 > len(self.bands) else bits

    def whole(self, canvas: Image.Image, width: int) -> None:
        """All the bands of a canvas whose first column is the rows' filter bytes (0)."""
        raw = canvas.tobytes()
        stride = (width + 1) * BAND
        self.bands = [_band(raw[at:at + stride]) for at in range(0, len(raw), stride)]
        self.after = [max(0, len(raw) - at - stride) for at in range(0, len(raw), stride)]

    def redraw(self, background: Image.Image, placed: list, bits: int, width: int,
               height: int) -> None:
        """The bands in `bits` drawn again: each run of them cropped from the background,
        with the pieces that touch it pasted on, in the order drawn."""
        touching = list(compress(placed, map(bits.__and__, map(_COVERS, placed))))
        stride = (width + 1) * BAND
        for first, last in _runs(bits):
            top = first * BAND
            strip = background.crop((0, top, width + 1, min((last + 1) * BAND, height)))
            core, run = strip.im, (1 << last + 1) - (1 << first)
            for _, (x0, y0, x1, y1), sprite, mask, covers in touching:
                if covers & run:
                    core.paste(sprite, (x0, y0 - top, x1, y1 - top), mask)
            raw = strip.tobytes()
            self.bands[first:last + 1] = [_band(raw[at:at + stride])
                                          for at in range(0, len(raw), stride)]

    def adler(self) -> int:
        """The Adler-32 of all the rows, from the bands' own, in C's loops: its low half
        is 1 and the bytes summed; its high half is what each byte adds to each running
        sum from it to the end, so each band's own high half less its length (the 1s it
        counted), its bytes' sum once for every byte after it, and 1 for every byte."""
        sums = list(map(_SUM, self.bands))
        low = (1 + sum(sums)) % ADLER
        high = (sum(map(_LENGTH, self.bands)) + sum(map(_TERM, self.bands))
                + sum(map(operator.mul, sums, self.after))) % ADLER
        return high << 16 | low

    def picture(self) -> _Encoded:
        """The PNG as its parts, and its base64."""
        bands = self.bands
        # the last deflate block (empty, final) and the Adler-32, in an IDAT chunk
        end = _chunk(b"IDAT", b"\x03\x00" + struct.pack(">I", self.adler())) + IEND
        end_text = base64_lines(end)
        text = "".join([self.head_text, *map(_TEXT, bands), end_text])
        wire = b"".join([self.head_wire, *map(_WIRE, bands),
                         end_text.replace("\n", "\r\n").encode("ascii")])
        return _Encoded([self.head, *map(_DATA, bands), end], Base64(text, wire))
