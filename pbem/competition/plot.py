"""A rating's history as an SVG picture, drawn on the server: readable without
JavaScript, the same in every browser and printable.

One point per rated game, oldest on the left: the rating (mu) as a line, its uncertainty
(mu ± sigma) as a shaded band around it; the scale on the left in whole steps. Pure: a
list of (mu, sigma) in, the SVG text out (escaping is not needed: only numbers and the
fixed words below are written).
"""

from __future__ import annotations

import math
from typing import Sequence

WIDTH, HEIGHT = 480, 160
LEFT, RIGHT, TOP, BOTTOM = 40, 10, 10, 24


def history_svg(points: Sequence[tuple[float, float]], title: str = "Rating") -> str:
    """The picture of `points` ((mu, sigma) after each game); a note when there are none."""
    if not points:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="40" '
                f'role="img" aria-label="{title}: no rated games yet"><text x="0" y="24">'
                f'No rated games yet.</text></svg>')
    series = [(25.0, 25 / 3)] + list(points)  # from where everyone starts
    low = math.floor(min(mu - sigma for mu, sigma in series))
    high = math.ceil(max(mu + sigma for mu, sigma in series))
    high = max(high, low + 1)

    def x(index: int) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * index / max(len(series) - 1, 1)

    def y(value: float) -> float:
        return TOP + (HEIGHT - TOP - BOTTOM) * (high - value) / (high - low)

    line = " ".join(f"{x(i):.1f},{y(mu):.1f}" for i, (mu, _) in enumerate(series))
    upper = [f"{x(i):.1f},{y(mu + s):.1f}" for i, (mu, s) in enumerate(series)]
    lower = [f"{x(i):.1f},{y(mu - s):.1f}" for i, (mu, s) in enumerate(series)]
    band = " ".join(upper + lower[::-1])
    step = max(1, math.ceil((high - low) / 5))
    ticks = "".join(
        f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
        f'stroke="#ddd"/><text x="{LEFT - 4}" y="{y(v) + 4:.1f}" text-anchor="end" '
        f'font-size="11">{v}</text>' for v in range(low, high + 1, step))
    last_mu, last_sigma = series[-1]
    label = (f"{title}: {last_mu:.1f} ± {last_sigma:.1f} after {len(points)} rated "
             f"game{'s' if len(points) != 1 else ''}")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{label}">'
            f'<title>{label}</title>{ticks}'
            f'<polygon points="{band}" fill="#9bc" fill-opacity="0.35"/>'
            f'<polyline points="{line}" fill="none" stroke="#246" stroke-width="2"/>'
            f'<text x="{LEFT}" y="{HEIGHT - 6}" font-size="11">start</text>'
            f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 6}" font-size="11" text-anchor="end">'
            f'game {len(points)}</text></svg>')
