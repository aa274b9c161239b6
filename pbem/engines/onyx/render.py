"""Onyx diagrams from a view: plain text for email, SVG in the board's true geometry.

Both are pure functions of the data `Onyx.view` returns, so they can show nothing the
view does not hold.

The true board is the snub square tiling: every square of the naming grid (O3) is a
real square turned by 15° (anticlockwise in even columns, clockwise in odd ones), and
every other cell is a rhombus of two equilateral triangles. So rows and columns zig-zag
while the names stay straight (O2). Every board line then has the same length.
"""

from __future__ import annotations

import math
from functools import lru_cache
from html import escape
from itertools import repeat

from pbem.engines.onyx.board import board_of
from pbem.engines.svg import Sheet, caption_height, caption_text, text_box

STONE_TEXT = {"black": "X", "white": "O"}
STONE_BYTE = {colour: ord(text) for colour, text in STONE_TEXT.items()}


# -- text --------------------------------------------------------------------------------

def text_diagram(view: dict) -> str:
    """Rows top to bottom, points joined by '-', cells drawn as '/', '\\' or a midpoint.

       12  . - . - . - . - . - O - O - . - . - . - . - .  12
           | / | . | / | . | / | . | / | . | / | . | / |
    """
    empty, where = _empty_diagram(view["board"])
    chars = bytearray(empty)  # the empty board; only the stones are written
    for colour in ("black", "white"):
        stone = STONE_BYTE[colour]
        for name in view[colour]:
            chars[where[name]] = stone
    last = (view.get("last") or {}).get("point")
    if last in where:
        at = where[last]
        chars[at - 1], chars[at + 1] = ord("("), ord(")")
    return chars.decode("ascii") + "\n".join(_legend(view))


@lru_cache(maxsize=None)
def _empty_diagram(size: int) -> tuple[bytes, dict[str, int]]:
    """The text diagram of an empty board (legend aside), ASCII, and where each point's
    character is in it: a move's diagram copies it and writes its stones, rather than
    drawing every point of a 26×26 board again (a mail each)."""
    board = board_of(size)
    n = board.size
    chars: list[str] = []
    where: dict[str, int] = {}

    def write(text: str) -> None:
        chars.extend(text)

    letters = "    " + "   ".join(board.names[g][0] for g in range(n)) + "\n"
    write(letters)
    for r in range(n, 0, -1):
        write(f"{r:>2}  ")
        for g in range(n):
            if g:
                write(" - ")
            where[board.names[board.corner(g, r)]] = len(chars)
            write(".")
        write(f"  {r}\n")
        if r > 1:
            write("    |")
            for g in range(n - 1):
                mid = board.square_at.get((g, r - 1))
                if mid is None:
                    write(" / " if (r - 1) % 2 else " \\ ")
                else:
                    where[board.names[mid]] = len(chars) + 1
                    write(" . ")
                write("|")
            write("\n")
    write(letters + "\n")
    return "".join(chars).encode("ascii"), where


def _legend(view: dict) -> list[str]:
    lines = ["X Black   O White   (X) last move"]
    last = view.get("last")
    if last:
        captured = f", capturing {' '.join(last['captured'])}" if last["captured"] else ""
        lines.append(f"Last move: {last['move']}{captured}")
    if view.get("winner"):
        lines.append(f"{view['winner'].capitalize()} has won.")
    elif view.get("to_move"):
        lines.append(f"{view['to_move'].capitalize()} to move.")
    return lines


# -- geometry ----------------------------------------------------------------------------

@lru_cache(maxsize=None)
def coordinates(size: int) -> tuple[tuple[float, float], ...]:
    """(x, y) of every point, y up, board lines of length 1; midpoints at square centres."""
    board = board_of(size)
    tilt = math.radians(15)

    def turn(g: int) -> float:  # the rotation of the squares in column g
        return -tilt if g % 2 == 0 else tilt

    xs = [0.0] * size
    ys = [0.0] * size
    x = y = 0.0
    for g in range(size):  # along row 1
        xs[g], ys[g] = x, y
        x, y = x + math.cos(turn(g)), y + math.sin(turn(g))
    points: list[tuple[float, float]] = [(0.0, 0.0)] * board.points
    for g in range(size):
        x, y = xs[g], ys[g]
        for r in range(1, size + 1):
            points[board.corner(g, r)] = (x, y)
            # the square beside the vertical line from (g, r) up: right if g + r is even
            angle = math.pi / 2 + (turn(g) if (g + r) % 2 == 0 else -turn(g))
            x, y = x + math.cos(angle), y + math.sin(angle)
    for mid, corners in enumerate(board.mid_corners, start=board.corners):
        points[mid] = (sum(points[c][0] for c in corners) / 4,
                       sum(points[c][1] for c in corners) / 4)
    return tuple(points)


# -- SVG ---------------------------------------------------------------------------------

def svg_diagram(view: dict, size: int = 480, caption: str | None = None,
                numbers: dict[str, int] | None = None, marks: dict[str, str] | None = None,
                captured: list[str] | None = None) -> str:
    """A standalone SVG of the position, `size` pixels wide, with an optional caption.

    For print (`print_notes`): `numbers` writes a move number on each stone, `captured`
    crosses out the points whose stones were taken, `marks` labels points (an
    annotator's `[%mark E5]`, notation/marks.py)."""
    return sheet(view, size, caption, numbers, marks, captured).svg()


STONES = (("black", "#111", "#000"), ("white", "#fafafa", "#333"))
RED, LABEL, BOARD = "#d22", "#1560bd", "#f3e6c4"


def sheet(view: dict, size: int = 480, caption: str | None = None,
          numbers: dict[str, int] | None = None, marks: dict[str, str] | None = None,
          captured: list[str] | None = None) -> Sheet:
    """The diagram as a Sheet (pbem.engines.svg): the empty board of its size is the
    background; stones, the ring round the last move, crosses and labels are pieces."""
    board = board_of(view["board"])
    at, scale, height, empty_board = _layout(board.size, size)
    caption_band = caption_height(size, caption)
    stone = 0.24 * scale
    drawing = Sheet(size, round(height + caption_band), size, height + caption_band,
                    BOARD, ("#111", "#000", "#fafafa", "#333", RED, LABEL, "#e6d3a3"))
    drawing.open(f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" '
                 f'height="{height + caption_band:.0f}" viewBox="0 0 {size} '
                 f'{height + caption_band:.1f}" role="img" '
                 f'aria-label="{escape(_description(view))}">',
                 f"<title>{escape(_description(view))}</title>")
    drawing.add(empty_board)
    reach = stone + 1.5  # the stroke, and a pixel of soft edge
    stones = _stones(board.size, size)
    for colour, _, _ in STONES:
        drawing.add_pieces(map(stones.__getitem__, zip(repeat(colour), view[colour])))
    last = view.get("last")
    crossed = list(captured or [])
    if last and last["point"] and numbers is None:
        x, y = at(board.index[last["point"]])
        width = max(2, stone / 4)
        ring = stone * 1.35 + width / 2 + 1
        drawing.add(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{stone * 1.35:.1f}" fill="none" '
                    f'stroke="{RED}" stroke-width="{width:.1f}"/>', ("ring", stone),
                    (x - ring, y - ring, x + ring, y + ring))
        crossed += last["captured"]
    for name in dict.fromkeys(crossed):
        if name in board.index:
            x, y = at(board.index[name])
            d = stone * 0.6
            drawing.add(f'<path d="M{x - d:.1f},{y - d:.1f}L{x + d:.1f},{y + d:.1f}'
                        f'M{x - d:.1f},{y + d:.1f}L{x + d:.1f},{y - d:.1f}" stroke="{RED}" '
                        f'stroke-width="2"/>', ("cross", stone),
                        (x - d - 2, y - d - 2, x + d + 2, y + d + 2))
    black = set(view["black"])
    for name, number in (numbers or {}).items():
        if name in board.index:
            x, y = at(board.index[name])
            font = stone * (1.05 if number < 100 else 0.8)
            ink = "#fafafa" if name in black else "#111"
            drawing.add(_on_point(x, y, font, str(number), ink), ("number", number, ink, font),
                        text_box(x, y, font, str(number), "middle", True))
    for name, label in (marks or {}).items():
        if name in board.index:
            x, y = at(board.index[name])
            if name not in black and name not in view["white"]:
                drawing.add(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{stone * 0.8:.1f}" '
                            f'fill="{BOARD}"/>', ("clear", stone),
                            (x - reach, y - reach, x + reach, y + reach))
            drawing.add(_on_point(x, y, stone * 1.1, label, LABEL, bold=True),
                        ("mark", label, stone), text_box(x, y, stone * 1.1, label, "middle",
                                                         True, True))
    if caption:
        drawing.add(caption_text(size, height, caption_band, caption), ("caption", caption),
                    (0, height, size, height + caption_band))
    return drawing


def _on_point(x: float, y: float, font: float, text: str, fill: str,
              bold: bool = False) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="sans-serif" font-size="{font:.1f}" '
            f'fill="{fill}"{weight} text-anchor="middle" dominant-baseline="central">'
            f'{escape(text)}</text>')


def print_notes(views: list[dict], first: int) -> tuple[dict[str, int], list[str], list[str]]:
    """Go books' "moves 41-60": from the public views after plies first, first + 1, …
    (the last is the diagram's), the numbers of the stones placed then that still
    stand, the points whose stones were captured then and are empty now, and notes such
    as "43 at E7, captured" for numbered stones that are gone."""
    final = views[-1]
    standing = set(final["black"]) | set(final["white"])
    placed: dict[str, int] = {}
    gone: list[str] = []
    captured: list[str] = []
    for ply, view in enumerate(views, start=first):
        last = view.get("last") or {}
        for name in last.get("captured", []):
            if name in placed:
                gone.append(f"{placed.pop(name)} at {name}, captured")
            captured.append(name)
        if last.get("point"):
            placed[last["point"]] = ply
    numbers = {name: ply for name, ply in placed.items() if name in standing}
    empty = [name for name in dict.fromkeys(captured) if name not in standing]
    return numbers, empty, gone


@lru_cache(maxsize=16)
def _stones(board_size: int, size: int) -> dict[tuple[str, str], tuple]:
    """Each point's stone of each colour, for a board and a width: its SVG, what it looks
    like and its box (Sheet.add's arguments). Written once: a late 26×26 position has
    700 stones, and writing their numbers was most of a diagram's cost."""
    board = board_of(board_size)
    at, scale, _, _ = _layout(board.size, size)
    stone = 0.24 * scale
    reach = stone + 1.5  # the stroke, and a pixel of soft edge
    table = {}
    for colour, fill, edge in STONES:
        for name, index in board.index.items():
            x, y = at(index)
            table[colour, name] = (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{stone:.1f}" '
                                   f'fill="{fill}" stroke="{edge}" stroke-width="1"/>',
                                   (colour, stone),
                                   (x - reach, y - reach, x + reach, y + reach))
    return table


@lru_cache(maxsize=32)
def _layout(board_size: int, size: int):
    """What a diagram `size` pixels wide of an empty board of `board_size` is, whatever
    the position: where each point is drawn (`at`), the scale, the height, and the
    background, squares, lines and labels as SVG text. Drawn once per size: it was most
    of a diagram's cost, and the print page draws fifteen."""
    board = board_of(board_size)
    points = coordinates(board.size)
    min_x = min(x for x, _ in points)
    max_x = max(x for x, _ in points)
    min_y = min(y for _, y in points)
    max_y = max(y for _, y in points)
    margin = 1.1
    scale = size / (max_x - min_x + 2 * margin)
    height = (max_y - min_y + 2 * margin) * scale
    drawn = tuple(((x - min_x + margin) * scale, (max_y - y + margin) * scale)
                  for x, y in points)
    at = drawn.__getitem__
    parts = ['<rect width="100%" height="100%" fill="#f3e6c4"/>']
    for mid, corners in enumerate(board.mid_corners, start=board.corners):
        ll, lr, ul, ur = corners
        corner_path = " ".join(f"{x:.1f},{y:.1f}" for x, y in map(at, (ll, lr, ur, ul)))
        parts.append(f'<polygon points="{corner_path}" fill="#e6d3a3"/>')
    lines = []
    for a, neighbours in enumerate(board.neighbours):
        for b in neighbours:
            if a < b:
                (x1, y1), (x2, y2) = at(a), at(b)
                width = 0.6 if b >= board.corners else 1.2
                lines.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" '
                             f'y2="{y2:.1f}" stroke-width="{width}"/>')
    parts.append('<g stroke="#5a4a2a">' + "".join(lines) + "</g>")
    parts.extend(_labels(board, at, scale))
    return at, scale, height, "\n".join(parts)


def _labels(board, at, scale: float) -> list[str]:
    n, font = board.size, 0.42 * scale
    style = (f'font-family="sans-serif" font-size="{font:.1f}" fill="#333" '
             f'text-anchor="middle" dominant-baseline="central"')
    labels = []
    for g in range(n):
        for r, dy in ((1, 0.75), (n, -0.75)):
            x, y = at(board.corner(g, r))
            labels.append(f'<text x="{x:.1f}" y="{y + dy * scale:.1f}" {style}>'
                          f'{board.names[g][0]}</text>')
    for r in range(1, n + 1):
        for g, dx in ((0, -0.75), (n - 1, 0.75)):
            x, y = at(board.corner(g, r))
            labels.append(f'<text x="{x + dx * scale:.1f}" y="{y:.1f}" {style}>{r}</text>')
    return labels


def _description(view: dict) -> str:
    text = (f"Onyx {view['board']}×{view['board']}: {len(view['black'])} black and "
            f"{len(view['white'])} white stones")
    if view.get("last"):
        text += f"; last move {view['last']['move']}"
    if view.get("winner"):
        text += f"; {view['winner']} has won"
    elif view.get("to_move"):
        text += f"; {view['to_move']} to move"
    return text
