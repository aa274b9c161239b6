"""Clickable points on the Onyx board of a seat's page.

The engine's SVG (pbem.engines.onyx.render) draws the position; this lays over it one
link per point the seat may play, at the point's place in the same drawing, each leading
to the read-back of that move (`?move=F6#answer`: a phone opens the page at it). Links
work without JavaScript; /play.js only adds stepping between them with the arrow keys.
The places follow the renderer's own geometry (`coordinates` and its margin), and
tests/test_web_play.py checks them against the stones it draws, so the two cannot drift
apart unnoticed.
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from pbem.engines.onyx.board import board_of
from pbem.engines.onyx.render import coordinates

MARGIN = 1.1  # board lines, as pbem.engines.onyx.render.svg_diagram leaves around the board


def pixel_points(board_size: int, size: int) -> tuple[dict[str, tuple[float, float]], float]:
    """Every point's (x, y) in a `size`-pixel-wide diagram, by name; and the pixels of
    one board line."""
    board = board_of(board_size)
    places = coordinates(board_size)
    min_x = min(x for x, _ in places)
    max_x = max(x for x, _ in places)
    max_y = max(y for _, y in places)
    scale = size / (max_x - min_x + 2 * MARGIN)
    return ({board.names[p]: ((x - min_x + MARGIN) * scale, (max_y - y + MARGIN) * scale)
             for p, (x, y) in enumerate(places)}, scale)


def clickable(svg: str, view: dict, size: int, playable: list[str], href: str,
              anchor: str = "") -> str:
    """`svg` with a link on each playable point (`href` + the point's name + `anchor`)."""
    at, scale = pixel_points(view["board"], size)
    radius = 0.33 * scale  # a square's midpoint is 0.71 lines from its corners
    spots = []
    for name in playable:
        x, y = at[name]
        spots.append(f'<a class="point" href="{escape(href + quote(name) + anchor)}" '
                     f'aria-label="Play {name}" data-point="{name}">'
                     f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius:.1f}" fill="#000" '
                     f'fill-opacity="0" stroke="none"/></a>')
    layer = '<g class="points">' + "".join(spots) + "</g>"
    return svg.replace("</svg>", layer + "\n</svg>", 1) if spots else svg
