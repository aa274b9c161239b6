"""The SVG diagram of a game after any ply: the public view, sized for a page or print.

Drawn by the engine's renderer from `engine.view(state, None)` — the view of nobody in
particular — whatever the game's status, so a diagram never shows a hand. Its caption
names the game and the ply, with the ply's move as the public may read it while the game
runs (a secret choice stays one) and in full after the end.

Size: `480` is pixels (the renderers draw in pixels); `8cm`, `80mm` or `3.5in` is a
width on paper: the diagram is drawn at that width in CSS pixels (96 to the inch) and its
root element then says the width and height in that unit, with the same viewBox, so it
prints exactly that wide.
"""

from __future__ import annotations

import re

from pbem.export.public import real_ply
from pbem.export.source import ExportError, is_over, state_at
from pbem.play import Table
from pbem.store import Move

DEFAULT_SIZE = 480
PIXELS = (100, 4000)  # smaller is unreadable; larger is a mistake, not a diagram
PER_INCH = {"in": 1.0, "cm": 2.54, "mm": 25.4}  # units per inch
PRINT_WIDTH_INCHES = (0.5, 40.0)
_SIZE = re.compile(r"^(\d{1,4}(?:\.\d{1,2})?)(px|cm|mm|in)?$")
_ROOT_SIZE = re.compile(r'^(<svg\b[^>]*?) width="([\d.]+)" height="([\d.]+)"')


def parse_size(text: str | None) -> tuple[int, str | None]:
    """(pixels to draw, print width such as '8cm' or None); ExportError 400 otherwise."""
    if text is None or not text.strip():
        return DEFAULT_SIZE, None
    match = _SIZE.match(text.strip().lower())
    if match is None:
        raise ExportError(400, f"size={text!r} is not a size: write pixels such as 480, or a "
                               f"print width such as 8cm, 80mm or 3.5in.")
    number, unit = float(match.group(1)), match.group(2) or "px"
    if unit == "px":
        if not PIXELS[0] <= number <= PIXELS[1]:
            raise ExportError(400, f"size={text!r}: a diagram is {PIXELS[0]} to {PIXELS[1]} "
                                   f"pixels wide.")
        return round(number), None
    inches = number / PER_INCH[unit]
    if not PRINT_WIDTH_INCHES[0] <= inches <= PRINT_WIDTH_INCHES[1]:
        raise ExportError(400, f"size={text!r}: a printed diagram is 1.3cm to 1m wide.")
    pixels = min(max(round(inches * 96), PIXELS[0]), PIXELS[1])
    return pixels, f"{number:g}{unit}"


def parse_caption(text: str | None) -> bool:
    """`caption=1` adds a caption, `caption=0` (the default) leaves it out."""
    if text is None or text.strip() in ("", "0"):
        return False
    if text.strip() == "1":
        return True
    raise ExportError(400, f"caption={text!r}: write caption=1 for a caption under the "
                           f"diagram, or caption=0 for none.")


def move_seen(table: Table, move: Move) -> str:
    """A ply's text as the public may read it: all of it once the game is over."""
    if is_over(table):
        return move.text
    return move.visible.get("public") or "a secret choice"


def caption(table: Table, ply: int) -> str:
    """`Onyx #12, alice v bob: after ply 150 of 300 (F6)`."""
    head = f"{table.engine.title} #{table.game.id}, {' v '.join(table.names)}"
    if ply == 0:
        return f"{head}: the start"
    move = Move.get((Move.game == table.game) & (Move.ply == real_ply(table.game, ply)))
    return f"{head}: after ply {ply} of {table.game.plies} ({move_seen(table, move)})"


def ply_svg(table: Table, ply: int, pixels: int = DEFAULT_SIZE,
            print_width: str | None = None, with_caption: bool = False) -> str:
    """The standalone SVG of the public position after `ply` plies."""
    view = table.engine.view(state_at(table, ply), None)
    svg = table.engine.svg_diagram(view, size=pixels,
                                   caption=caption(table, ply) if with_caption else None)
    return printed_at(svg, print_width) if print_width else svg


def printed_at(svg: str, width: str) -> str:
    """The SVG with its root width set to `width` (such as '8cm') and its height in
    proportion; the viewBox keeps the drawing's own coordinates."""
    match = _ROOT_SIZE.match(svg)
    if match is None:  # every renderer writes width and height first; keep it as drawn
        return svg
    number, unit = re.match(r"([\d.]+)(\w+)", width).groups()
    ratio = float(match.group(3)) / float(match.group(2))
    height = f"{float(number) * ratio:.2f}{unit}"
    return f'{match.group(1)} width="{width}" height="{height}"' + svg[match.end():]
