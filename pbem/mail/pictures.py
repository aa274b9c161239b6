"""Pictures of positions for mail: the web's SVG diagram as a small palette PNG.

Mail clients do not show SVG, so a game mail carries the position as a PNG drawn from
the very SVG the seat's page shows (`engine.sheet(view, size)`, whose `svg()` is that
page's diagram, from the same view). A mail is read on a phone first: where a game has
a narrow diagram for phones (Gem Forge's rows of tiles, whose wide drawing's text would
be under 7 px on a phone), the picture is that one, as the seat's page shows it on a
phone (`engine.narrow_sheet`, pbem.web.diagrams), 300 px wide.

pbem.mail.rasters rasterises (resvg) and keeps the rasters a picture is put together
from, in a palette (Pillow); pbem.mail.png_bands writes its PNG in bands of rows; this
module gives a view's picture and keeps the pictures made. The same sheet twice gives
the same bytes, kept: both Onyx players and every spectator of a position cost one
picture.
"""

from __future__ import annotations

import operator
import re
import threading
from dataclasses import dataclass
from html import unescape

from pbem.engines.svg import Sheet
from pbem.mail import rasters
from pbem.mail.compose import Base64
from pbem.mail.kept import Kept
from pbem.mail.png_bands import Bands, Encoded

WIDTH = 480  # pixels: the seat page's diagram; a phone shows it at its 390 px or so
NARROW = 300  # pixels: a narrow diagram's, a pixel a unit of Gem Forge's (its text 11.7
# px; at the web's 360 its 4-player mail was 68 KB, over the card games' budget of 60)

# What is kept, in this process only (a picture is made again where it is not):
_PICTURES = Kept(64)  # PNGs and their base64 by their pieces' places (or SVG): ~12 MB at most
_LOCK = threading.Lock()  # the stores are shared by the threads that write mail
_NUMBER = operator.itemgetter(0)  # a place's number (rasters.placed)


@dataclass(frozen=True)
class Picture:
    """A position's picture for one mail: its size, its alt text, the PNG in base64
    lines for the mail (joined from its bands' own: Bands), and the PNG's bytes when
    asked for (`png`)."""
    encoded: "Encoded"
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


def encoded(sheet: Sheet) -> "Encoded":
    """The sheet's PNG and its base64 (callers hold _LOCK: picture(), png())."""
    if sheet.given is not None:
        key = ("given", sheet.given)
        return _PICTURES.get(key) or _PICTURES.put(key, rasters.whole(sheet))
    style = rasters.style_of(sheet)
    height = round(sheet.height)
    placed = rasters.placed(style, sheet)
    numbers = tuple(map(_NUMBER, placed))
    picture_key = (style.serial, height, sheet.view_height, numbers)
    found = _PICTURES.get(picture_key)
    if found is None:
        canvas = (height, sheet.view_height)
        last = style.last_bands.get(canvas)
        if last is None or last.serial != style.serial:
            last = style.last_bands.put(canvas, Bands(style.serial, style.palette.getpalette(),
                                                      style.width, height))
        background = style.canvas(sheet)
        dirty = last.dirty(numbers, style.by_number)
        if dirty is None:
            last.whole(rasters.compose(background, placed), style.width)
        elif dirty:
            last.redraw(background, placed, dirty, style.width, height)
        last.numbers = numbers
        found = _PICTURES.put(picture_key, last.picture())
    return found
