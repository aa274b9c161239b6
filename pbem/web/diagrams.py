"""A position's diagram for a page read on any screen.

A page draws the engine's SVG at its size (480 px), and a phone shrinks it to its own
width (358 px at 390). A board or a table of cards stays readable so; a game whose
diagram is rows of small text (Gem Forge's tiles) offers a second SVG laid out for a
phone (`engine.narrow_svg_diagram`), drawn from the same view, so it can show nothing the
wide one does not. The page then carries both, and its stylesheet shows one by the
screen's width (`.wide-only`, `.narrow-only` in style.css): no script, no guess at the
reader's screen on the server.
"""

from __future__ import annotations

from markupsafe import Markup

from pbem.engines.base import Engine

NARROW = 360  # px: a phone's width, less the page's margins


def for_any_width(engine: Engine, view: dict, wide: str, caption: str | None = None,
                  narrow_size: int = NARROW) -> Markup:
    """`wide` (the engine's SVG of `view`, as the page drew it), and beside it the
    engine's narrow layout of the same view where it has one."""
    narrow = engine.narrow_svg_diagram(view, size=narrow_size, caption=caption)
    if narrow is None:
        return Markup(wide)
    return Markup(f'<div class="wide-only">{wide}</div>\n'
                  f'<div class="narrow-only">{narrow}</div>')


def column_diagram(engine: Engine, view: dict, size: int) -> Markup:
    """A diagram for a box narrower than a phone on any screen (the seat page's preview
    of a move, 240 px): the narrow layout where the engine has one."""
    return Markup(engine.narrow_svg_diagram(view, size=size)
                  or engine.svg_diagram(view, size=size))
