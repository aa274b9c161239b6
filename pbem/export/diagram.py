"""The SVG diagram of a game after any ply: the public view, sized for a page or print.

Drawn by the engine's renderer from `engine.view(state, None)` — the view of nobody in
particular — whatever the game's status, so a diagram never shows a hand. Its caption
names the game and the ply, with the ply's move as the public may read it while the game
runs (a secret choice stays one) and in full after the end.

Size: `480` is pixels (the renderers draw in pixels); `8cm`, `80mm` or `3.5in` is a
width on paper: the diagram is drawn at that width in CSS pixels (96 to the inch) and its
root element then says the width and height in that unit, with the same viewBox, so it
prints exactly that wide.

Onyx diagrams for print number the stones of a range of plies (`numbers=41-60`, as Go
books print "moves 41-60"), cross out the points whose stones were captured in it, and
label the points a comment on the ply marks (`[%mark E5]`, notation/marks.py).

The card games have a compact print form too (`form=compact`), as a newspaper column
prints a deal: the position as the mail's text diagram in a monospace block, and once
the game is over every player's hidden lines (their hand, their standing answers) under
it, by name. It is drawn from views like every diagram: while the game runs, the public
one only.
"""

from __future__ import annotations

import re

from html import escape

from notation.marks import marks_in
from pbem.engines.onyx.render import print_notes
from pbem.engines.svg import caption_height, caption_text
from pbem.export.public import real_ply
from pbem.export.source import ExportError, is_over, state_at
from pbem.play import Table
from pbem.store import Comment, Move

DEFAULT_SIZE = 480
PIXELS = (100, 4000)  # smaller is unreadable; larger is a mistake, not a diagram
PER_INCH = {"in": 1.0, "cm": 2.54, "mm": 25.4}  # units per inch
PRINT_WIDTH_INCHES = (0.5, 40.0)
_SIZE = re.compile(r"^(\d{1,4}(?:\.\d{1,2})?)(px|cm|mm|in)?$")
_RANGE = re.compile(r"^(\d{1,6})-(\d{1,6})$")
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


def parse_numbers(text: str | None, table: Table, ply: int) -> tuple[int, int] | None:
    """`numbers=41-60`: the plies whose stones are numbered, ending at the diagram's."""
    if text is None or not text.strip():
        return None
    if table.engine.id != "onyx":
        raise ExportError(400, f"numbers= numbers the stones of Onyx diagrams; "
                               f"{table.engine.title} has none.")
    match = _RANGE.match(text.strip())
    first, last = (int(match.group(1)), int(match.group(2))) if match else (0, -1)
    if not 1 <= first <= last <= ply:
        raise ExportError(400, f"numbers={text!r}: write the plies to number as FIRST-LAST, "
                               f"from 1 up to this diagram's ply {ply}, such as "
                               f"numbers={max(1, ply - 19)}-{ply}.")
    return first, last


FORMS = ("full", "compact")


def parse_form(text: str | None, table: Table) -> str:
    """`form=full` (the default) or `form=compact` (card games, for print)."""
    form = (text or "full").strip().lower()
    if form not in FORMS:
        raise ExportError(400, f"form={text!r}: write form=full or form=compact.")
    if form == "compact" and not table.engine.dealt:
        raise ExportError(400, f"form=compact is the card games' print form; "
                               f"{table.engine.title}'s diagram is compact already.")
    return form


def compact_svg(table: Table, ply: int, pixels: int = DEFAULT_SIZE,
                with_caption: bool = False) -> str:
    """The compact print form of a card game's position after `ply` plies."""
    engine, state = table.engine, state_at(table, ply)
    lines = engine.text_diagram(engine.view(state, None)).splitlines()
    if is_over(table):  # everything may be shown: each player's hidden lines, by name
        public = set(lines)
        for seat, name in enumerate(table.names):
            own = engine.text_diagram(engine.view(state, seat)).splitlines()
            hidden = [line for line in own if line.startswith("Your ") and line not in public]
            if hidden:
                lines.append("")
                lines += [f"{engine.seat_label(state, seat)} {name}, "
                          f"{line[len('Your '):]}" for line in hidden]
    longest = max(map(len, lines), default=1)
    font = min(pixels / (longest * 0.62 + 2), 0.035 * pixels + 2)
    step = font * 1.2
    text = caption(table, ply) if with_caption else None
    height = step * (len(lines) + 1)
    band = caption_height(pixels, text)
    rows = "".join(f'<text x="{font:.1f}" y="{step * (i + 1):.1f}" xml:space="preserve">'
                   f'{escape(line)}</text>' for i, line in enumerate(lines) if line)
    label = escape(f"{engine.title}, after ply {ply}")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{pixels}" '
            f'height="{height + band:.0f}" viewBox="0 0 {pixels} {height + band:.1f}" '
            f'role="img" aria-label="{label}"><title>{label}</title>'
            f'<rect width="100%" height="100%" fill="#fff"/>'
            f'<g font-family="monospace" font-size="{font:.1f}" fill="#111">{rows}</g>'
            + (caption_text(pixels, height, band, text) if text else "") + "</svg>")


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
            print_width: str | None = None, with_caption: bool = False,
            numbers: tuple[int, int] | None = None) -> str:
    """The standalone SVG of the public position after `ply` plies (Onyx: with the
    stones of the plies `numbers` numbered, and the points its comments mark)."""
    view = table.engine.view(state_at(table, ply), None)
    text = caption(table, ply) if with_caption else None
    notes = {}
    if table.engine.id == "onyx":
        notes = onyx_notes(table, ply, numbers)
        if numbers and text:
            text += (f"; plies {numbers[0]}-{numbers[1]} numbered"
                     + "".join(f"; {gone}" for gone in notes.pop("gone")))
        notes.pop("gone", None)
    svg = table.engine.svg_diagram(view, size=pixels, caption=text, **notes)
    return printed_at(svg, print_width) if print_width else svg


def onyx_notes(table: Table, ply: int, numbers: tuple[int, int] | None) -> dict:
    """What an Onyx print diagram writes on the board (pbem.engines.onyx.render)."""
    said = [c.text for c in Comment.select(Comment.text).where(
        (Comment.game == table.game) & (Comment.ply == ply))]
    notes = {"marks": marks_in(said) or None, "gone": []}
    if numbers:
        first, last = numbers
        rows = Move.select(Move.ply, Move.state).where(
            (Move.game == table.game) & (Move.ply >= first) & (Move.ply <= last)
        ).order_by(Move.ply)
        views = [table.engine.view(table.engine.from_json(row.state), None) for row in rows]
        numbered, captured, gone = print_notes(views, first)
        notes.update(numbers=numbered, captured=captured, gone=gone)
    return notes


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
