"""Pictures of positions for mail: the web's SVG diagram as a small palette PNG.

Mail clients do not show SVG, so a game mail carries the position as a PNG drawn from
the very SVG the seat's page shows (`engine.sheet(view, size)`, whose `svg()` is that
page's diagram, from the same view; on a phone Gem Forge's page shows the same sheet in
its narrow layout, pbem.web.diagrams). resvg (the `resvg-py` wheel: the Rust renderer, no
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
  and kept by its bytes: a move changes a few bands, so only those are compressed
  again (Pillow's encoder, compressing the whole picture, took ten times as long:
  bench/pictures.py). Independently compressed deflate blocks ending on a byte
  boundary join into one valid stream, and the stream's Adler-32 is combined from the
  bands' own.

A diagram given whole (an engine without a sheet of its own: RecordsAndPictures.sheet)
is rasterised whole and given a palette of its own pixels. The same sheet twice gives
the same bytes, kept: both Onyx players and every spectator of a position cost one
picture.
"""

from __future__ import annotations

import io
import itertools
import math
import re
import struct
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from html import unescape
from pathlib import Path

import resvg_py
from PIL import Image

from pbem.engines.svg import Sheet

WIDTH = 480  # pixels: the seat page's diagram; a phone shows it at its 390 px or so
BAND = 8  # rows a band
LEVEL = 6  # zlib's: 0.08 ms a band of a 480-wide picture; 9 took 0.19 for 2% less
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
_BANDS = Kept(3000)  # compressed bands by their rows' bytes: ~15 MB at most
_PICTURES = Kept(64)  # whole PNGs by their pieces' places (or their whole SVG)
_LOCK = threading.Lock()  # the stores are shared by the threads that write mail


@dataclass(frozen=True)
class Picture:
    """A position's picture for one mail: the PNG, its size, and its alt text."""
    png: bytes
    width: int
    height: int
    alt: str


def picture(engine, view: dict, width: int = WIDTH, caption: str | None = None) -> Picture:
    """The picture of `view`, drawn by the engine's own SVG of it (engine.sheet), the
    one the web shows for that view, with `caption` under it (in Onyx: the seat's
    colour and goal); alt: the SVG's title, the position in words, and the caption."""
    sheet = engine.sheet(view, width, caption)
    with _LOCK:
        data = png(sheet)
    head = sheet.given or "".join(sheet.parts[:sheet.head])  # the root and its title
    title = re.search(r"<title>(.*?)</title>", head, re.S)
    alt = unescape(title.group(1)).strip() if title else engine.title
    return Picture(data, round(sheet.width), round(sheet.height),
                   f"{alt}. {caption}" if caption else alt)


def png(sheet: Sheet) -> bytes:
    """The sheet as PNG bytes, its width and height as the sheet says (callers hold
    _LOCK: picture())."""
    if sheet.given is not None:
        key = ("given", sheet.given)
        return _PICTURES.get(key) or _PICTURES.put(key, _whole(sheet))
    style = _style(sheet)
    height = round(sheet.height)
    placed = _placed(style, sheet)
    picture_key = (style.serial, height, sheet.view_height,
                   tuple(where[0] for where in placed))
    found = _PICTURES.get(picture_key)
    if found is None:
        canvas = _compose(style.canvas(sheet), placed)
        last = style.last_bands.get((height, sheet.view_height))
        if last is None:
            last = style.last_bands.put((height, sheet.view_height), [])
        found = _PICTURES.put(picture_key, _encode(canvas, style.width, height,
                                                   style.palette.getpalette(), last))
    return found


def _placed(style, sheet: Sheet) -> list:
    """Where each of the sheet's pieces goes (_Style.place), in the order drawn."""
    placements, placed = style.placements, []
    height = round(sheet.height)
    pieces = sheet.pieces()
    new = [piece for piece in pieces if (piece[1], piece[2], height) not in placements]
    if new:
        style.rasterise(new)  # the sprites they lack, all in one call of resvg
    for svg, key, box in pieces:
        where = placements.get((key, box, height))
        if where is None:
            if len(placements) >= PLACEMENTS:  # a bound, never reached by a board's mail
                placements.clear()
                style.serial = next(_SERIALS)  # the numbers start again: new keys
            where = placements[(key, box, height)] = style.place(key, box, svg, height)
        if where is not OUTSIDE:
            placed.append(where)
    return placed


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
        self.last_bands = Kept(4)  # the last picture's bands on each canvas (_encode)
        # Where each (kind of piece, box) goes, found once: (its number, the rectangle
        # on the canvas, the sprite's and the mask's cores, cut to the drawing). A
        # board's points are few (1,300 on 26×26), so they are kept as long as the style.
        self.placements: dict = {}
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
        return (len(self.placements), (x0 + left + 1, y0 + top, x1 - right + 1, y1 - bottom),
                sprite_core, mask_core)

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
    for _, rectangle, sprite, mask in placed:
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
    return _encode(canvas, drawn.width, drawn.height, indexed.getpalette())


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


def _band(raw: bytes) -> tuple[bytes, int]:
    """One band's rows as deflate blocks that end on a byte boundary, and its Adler-32."""
    found = _BANDS.get(raw)
    if found is None:
        squeeze = zlib.compressobj(LEVEL, zlib.DEFLATED, -15, 8)
        found = _BANDS.put(raw, (squeeze.compress(raw) + squeeze.flush(zlib.Z_SYNC_FLUSH),
                                 zlib.adler32(raw)))
    return found


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from theirs (zlib's
    adler32_combine, which Python's zlib does not offer)."""
    base = 65521
    rem = second_length % base
    sum1 = first & 0xFFFF
    sum2 = (rem * sum1) % base
    sum1 += (second & 0xFFFF) + base - 1
    sum2 += ((first >> 16) & 0xFFFF) + ((second >> 16) & 0xFFFF) + base - rem
    return (sum1 % base) | ((sum2 % base) << 16)


def _encode(canvas: Image.Image, width: int, height: int, palette: list[int],
            last: list | None = None) -> bytes:
    """The PNG of a canvas whose first column is the rows' filter bytes (0). `last`:
    the bands of the picture before on this canvas, with their deflate, updated here:
    a band equal to the one before it is not looked up (comparing bytes costs a tenth
    of hashing them), and most bands of a move are."""
    raw = canvas.tobytes()
    stride = (width + 1) * BAND
    blocks, adler = [b"\x78\x9c"], 1  # zlib's header: deflate, 32K window, level 6
    for number, start in enumerate(range(0, len(raw), stride)):
        band = raw[start:start + stride]
        if last is not None and number < len(last) and last[number][0] == band:
            data, check = last[number][1]
        else:
            data, check = _band(band)
            if last is not None:
                last[number:number + 1] = [(band, (data, check))]
        blocks.append(data)
        adler = adler32_combine(adler, check, len(band))
    blocks.append(b"\x03\x00")  # the last block: empty, final
    blocks.append(struct.pack(">I", adler))
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return b"".join((SIGNATURE, _chunk(b"IHDR", header),
                     _chunk(b"PLTE", bytes(palette[:768])),
                     _chunk(b"IDAT", b"".join(blocks)), _chunk(b"IEND", b"")))
