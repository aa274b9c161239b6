"""Pictures of positions for mail: the web's SVG diagram as a small palette PNG.

Mail clients do not show SVG, so a game mail carries the position as a PNG drawn from
the very SVG the seat's page shows (`engine.sheet(view, size)`, whose `svg()` is that
page's diagram). resvg (the `resvg-py` wheel: the Rust renderer, no system library)
rasterises; Pillow turns its pixels into a palette; this module writes the PNG.

A whole 26×26 board costs resvg ~150 ms, seventy moves' worth of a server's CPU, so a
picture is put together from rasters that are kept (one process's memory, bounded):

- the *background* of a sheet (an empty board of a size, a card table's cloth) is
  rasterised once, with a palette made from it and the sheet's declared colours only,
  so the palette never depends on the position (nor on what other seats were shown);
- each kind of *piece* (a black stone of a radius, the card 23 at a size) is rasterised
  once at its box's size, blended onto the sheet's ground, and placed wherever it
  stands, each at the whole pixel nearest its place;
- the PNG's compressed data is made of bands of 8 rows, each compressed on its own
  and kept by its bytes: a move changes a few bands, so only those are compressed
  again. Independently compressed deflate blocks ending on a byte boundary join into
  one valid stream, and the stream's Adler-32 is combined from the bands' own.

The same sheet twice gives the same bytes (kept by the sheet's parts), so both Onyx
players and every spectator of a move cost one picture.
"""

from __future__ import annotations

import io
import math
import struct
import zlib
from collections import OrderedDict

import resvg_py
from PIL import Image

from pbem.engines.svg import Sheet

BAND = 8  # rows a band
FONTS = {"sans_serif_family": "DejaVu Sans", "serif_family": "DejaVu Serif",
         "monospace_family": "DejaVu Sans Mono"}  # fonts-dejavu-core: .ci/run installs it
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


_STYLES = Kept(32)  # backgrounds with their palettes and pieces
_BANDS = Kept(3000)  # compressed bands by their bytes: ~15 MB of 640-wide rows at most
_PICTURES = Kept(64)  # whole PNGs by their sheet's parts


def png(sheet: Sheet) -> bytes:
    """The sheet as PNG bytes, its width and height as the sheet says."""
    if sheet.given is not None:
        key = ("given", sheet.given)
        return _PICTURES.get(key) or _PICTURES.put(key, _whole(sheet))
    style = _style(sheet)
    scale = sheet.width / sheet.view_width
    placed = []
    for svg, key, box in sheet.pieces():
        x0, y0 = math.floor(box[0] * scale), math.floor(box[1] * scale)
        x1, y1 = math.ceil(box[2] * scale), math.ceil(box[3] * scale)
        cut = (max(0, -x0), max(0, -y0), max(0, x1 - style.width), max(0, y1 - style.height))
        if x1 - cut[2] <= x0 + cut[0] or y1 - cut[3] <= y0 + cut[1]:
            continue  # wholly outside the drawing
        placed.append((key, x0, y0, x1, y1, cut, svg))
    picture_key = (style.key, tuple(p[:6] for p in placed))
    found = _PICTURES.get(picture_key)
    if found is None:
        found = _PICTURES.put(picture_key, _encode(_compose(style, placed, scale), style))
    return found


class _Style:
    """A background rasterised, its palette, and the pieces rasterised for it."""

    def __init__(self, sheet: Sheet, key):
        self.key = key
        self.width, self.height = round(sheet.width), round(sheet.height)
        self.inherit, self.ground = sheet.inherit, sheet.ground
        self.view = (sheet.view_width, sheet.view_height)
        drawn = _raster(_svg(sheet, "\n".join(sheet.background())), self.width, self.height,
                        sheet.ground)
        self.palette = _palette(drawn, sheet.ground, sheet.colours)
        # One column more on the left, always 0: PNG's filter byte "none" of each row, so
        # the canvas's bytes are the PNG's rows as they are.
        self.canvas = Image.new("P", (self.width + 1, self.height), 0)
        self.canvas.putpalette(self.palette.getpalette())
        self.canvas.paste(_indexed(drawn, self.palette), (1, 0))
        self.pieces: dict = {}

    def piece(self, key, svg: str, box: tuple[int, int, int, int], scale: float):
        """The piece `key` at `box`'s size (pixels), rasterised the first time: it and
        its mask of the pixels it covers."""
        x0, y0, x1, y1 = box
        found = self.pieces.get((key, x1 - x0, y1 - y0))
        if found is None:
            width, height = x1 - x0, y1 - y0
            svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                   f'viewBox="{x0 / scale:.4f} {y0 / scale:.4f} {width / scale:.4f} '
                   f'{height / scale:.4f}" {self.inherit}>{svg}</svg>')
            drawn = _rgba(svg)
            mask = drawn.getchannel("A").point(lambda a: 255 if a >= OPAQUE else 0, "1")
            ground = Image.new("RGBA", drawn.size, self.ground)
            flat = Image.alpha_composite(ground, drawn).convert("RGB")
            found = self.pieces[(key, width, height)] = (_indexed(flat, self.palette), mask)
        return found


def _style(sheet: Sheet) -> _Style:
    key = (sheet.width, sheet.height, sheet.view_width, sheet.view_height, sheet.inherit,
           sheet.ground, sheet.colours, tuple(sheet.background()))
    return _STYLES.get(key) or _STYLES.put(key, _Style(sheet, key))


def _compose(style: _Style, placed: list, scale: float) -> Image.Image:
    canvas = style.canvas.copy()
    core = canvas.im  # Pillow's own paste, without Image.paste's checks: 0.4 µs a piece, not 3
    for key, x0, y0, x1, y1, cut, svg in placed:
        sprite, mask = style.piece(key, svg, (x0, y0, x1, y1), scale)
        if any(cut):
            left, top, right, bottom = cut
            crop = (left, top, sprite.width - right, sprite.height - bottom)
            sprite, mask = sprite.crop(crop), mask.crop(crop)
            x0, y0, x1, y1 = x0 + left, y0 + top, x1 - right, y1 - bottom
        core.paste(sprite.im, (x0 + 1, y0, x1 + 1, y1), mask.im)
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
    """A drawing given whole (no pieces): rasterised and given a palette of its own."""
    drawn = _raster(sheet.given, round(sheet.width), round(sheet.height), sheet.ground)
    palette = drawn.quantize(255, method=Image.Quantize.MEDIANCUT)
    canvas = Image.new("P", (drawn.width + 1, drawn.height), 0)
    canvas.putpalette(palette.getpalette())
    canvas.paste(palette, (1, 0))

    class Plain:  # what _encode reads of a style
        width, height = drawn.width, drawn.height
    Plain.palette = palette
    return _encode(canvas, Plain)


def _hex(colour: str) -> tuple[int, int, int]:
    colour = colour.lstrip("#")
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    return int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)


def _palette(drawn: Image.Image, ground: str, colours: tuple[str, ...]) -> Image.Image:
    """A palette of at most 256 colours: the background's own (up to 128), then every
    declared colour with its blends onto the ground and onto each other (soft edges)."""
    own = drawn.quantize(128, method=Image.Quantize.MEDIANCUT).getpalette()[:128 * 3]
    entries = list(dict.fromkeys(tuple(own[i:i + 3]) for i in range(0, len(own), 3)))
    rgb = [_hex(c) for c in (ground, *colours)]

    def mix(a, b, t):
        return tuple(round(x + (y - x) * t) for x, y in zip(a, b))
    wanted = [c for c in rgb]
    wanted += [mix(c, rgb[0], t) for c in rgb[1:] for t in (0.25, 0.5, 0.75)]
    wanted += [mix(a, b, 0.5) for i, a in enumerate(rgb[1:]) for b in rgb[i + 2:]]
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
        squeeze = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
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


def _encode(canvas: Image.Image, style) -> bytes:
    raw = canvas.tobytes()
    stride = (style.width + 1) * BAND
    blocks, adler = [b"\x78\xda"], 1
    for start in range(0, len(raw), stride):
        band = raw[start:start + stride]
        data, check = _band(band)
        blocks.append(data)
        adler = adler32_combine(adler, check, len(band))
    blocks.append(b"\x03\x00")  # the last block: empty, final
    blocks.append(struct.pack(">I", adler))
    header = struct.pack(">IIBBBBB", style.width, style.height, 8, 3, 0, 0, 0)
    return b"".join((SIGNATURE, _chunk(b"IHDR", header),
                     _chunk(b"PLTE", bytes(style.palette.getpalette()[:768])),
                     _chunk(b"IDAT", b"".join(blocks)), _chunk(b"IEND", b"")))
