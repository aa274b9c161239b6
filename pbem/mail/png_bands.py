"""The PNG of a picture for mail, written in bands of rows, and its base64 joined from
the bands' own.

A picture's compressed data is made of bands of 8 rows, each compressed on its own
and kept by its bytes: a move changes a few bands, so only those are drawn and
compressed again, found from the pieces added and taken away since the last picture
on the same canvas (Pillow's encoder, compressing the whole picture, took ten times
as long: bench/pictures.py). Independently compressed deflate blocks ending on a
byte boundary join into one valid stream; each band is an IDAT chunk of its own, its
CRC made with it, and the stream's Adler-32 is summed from the bands' own, so
nothing runs over the bands a move left alone. Each band is a multiple of 3 bytes
long (empty stored blocks pad it), so the mail's base64 of the PNG is joined from the
bands' own, each encoded once (Bands).

What is kept here is shared by the threads that write mail: callers hold
pbem.mail.pictures's lock.
"""

from __future__ import annotations

import operator
import struct
import zlib
from itertools import compress
from typing import NamedTuple

from PIL import Image

from pbem.mail.compose import Base64, base64_lines
from pbem.mail.kept import Kept

BAND = 8  # rows a band
# zlib's level: 4 deflates a band of a 480-wide board in 0.045 ms, 6 in 0.075 and 9 in
# 0.19, for pictures 5% and 7% smaller (a late 26×26 board's: 62 KB, 59 and 58)
LEVEL = 4
MEMORY = 5  # zlib's memLevel: its hash table (cleared for every band, each compressed on
# its own) is 8 KB, not 7's 32 or 8's 64, for the same bytes a band of 3.8 KB; 3 loses 2%
SIGNATURE = b"\x89PNG\r\n\x1a\n"
ADLER = 65521  # Adler-32's modulus

# What is kept, in this process only (a band is made again where it is not):
_BANDS = Kept(3000)  # compressed bands and their base64 by their rows' bytes: ~20 MB


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
    stream's Adler-32 needs of them (Bands.adler), and the chunk's base64 in lines, as
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


class Encoded:
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
_COVERS = operator.itemgetter(4)  # the bands a place touches (rasters.Style.place)


def _runs(bits: int):
    """(first, last) of each run of set bits, from the lowest."""
    while bits:
        low = (bits & -bits).bit_length() - 1
        run = bits >> low
        length = (~run & (run + 1)).bit_length() - 1  # its trailing ones
        yield low, low + length - 1
        bits &= ~(((1 << length) - 1) << low)


class Bands:
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

    def picture(self) -> Encoded:
        """The PNG as its parts, and its base64."""
        bands = self.bands
        # the last deflate block (empty, final) and the Adler-32, in an IDAT chunk
        end = _chunk(b"IDAT", b"\x03\x00" + struct.pack(">I", self.adler())) + IEND
        end_text = base64_lines(end)
        text = "".join([self.head_text, *map(_TEXT, bands), end_text])
        wire = b"".join([self.head_wire, *map(_WIRE, bands),
                         end_text.replace("\n", "\r\n").encode("ascii")])
        return Encoded([self.head, *map(_DATA, bands), end], Base64(text, wire))
