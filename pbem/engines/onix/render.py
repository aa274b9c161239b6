"""Onix diagrams from a view: plain text for email, SVG for the web.

Both are pure functions of the data `Onix.view` returns, so they can show nothing the
view does not hold: pile tops and sizes, Collections, Hoard sizes, the discard count
(and, once the game is over, what the view reveals then).
"""

from __future__ import annotations

import math
import textwrap
from html import escape

from notation.onix import EFFECTS, GEM_NAMES, GEMS
from pbem.engines.svg import Sheet, caption_height, caption_text, text_box

WIDTH = 72
LEGEND = "  ".join(f"{letter} {name}={effect.capitalize()}"
                   for letter, name, effect in zip(GEMS, GEM_NAMES, EFFECTS))
STEPS = {"take": "to take a Gem", "place": "to place the cards taken",
         "effect": "to apply the effect"}


def seat_name(view: dict, seat: int) -> str:
    """`P2`, or `P2 ben` when the server put the players' names in the view."""
    names = view.get("names")
    name = f"P{seat + 1} {names[seat]}" if names else f"P{seat + 1}"
    return name + (" (you)" if seat == view.get("you") else "")


def status(view: dict) -> str:
    """One line: whose step it is, or how the game ended."""
    if view["step"] == "over":
        return f"Game over: {view['result']}."
    if view["step"] == "deal":
        return "Waiting for the deal."
    line = f"{seat_name(view, view['turn'])} {STEPS[view['step']]}"
    if view["gem"]:
        index = GEMS.index(view["gem"])
        line += (f"; chose {view['gem']} {GEM_NAMES[index]} "
                 f"({EFFECTS[index].capitalize()})")
    return line + "."


# -- text --------------------------------------------------------------------------------

def text_diagram(view: dict) -> str:
    """The piles in their circle, then each player's Hoard size and Collections."""
    mode = ", Advanced Mode" if view["advanced"] else ""
    lines = [f"Onix, {view['players']} players{mode}.",
             *textwrap.wrap(status(view), WIDTH), ""]
    lines += _circle(view)
    width = max([8] + [len(seat_name(view, s)) for s in range(view["players"])])
    lines += ["", f"{'Player':<{width + 1}}Hoard  Collections (number: cards, bottom to top)"]
    for seat, collections in enumerate(view["collections"]):
        marker = ">" if seat == view["turn"] else " "
        head = f"{marker}{seat_name(view, seat):<{width}} {view['hoards'][seat]:>4}  "
        lines += _wrapped(head, [f"{c['number']}:[{' '.join(c['cards'])}]"
                                 for c in collections] or ["(none)"])
    if view["retrieved"]:
        lines.append("Taken, still to place: " + ", ".join(
            f"{r['card']} from {r['pile']}" for r in view["retrieved"]))
    for key, label in (("last_turn", "Last turn"), ("this_turn", "This turn")):
        if view[key]:
            who = seat_name(view, view[key][0]["seat"])
            moves = [m["move"] + (" (auto)" if m["automatic"] else "") + ","
                     for m in view[key]]
            moves[-1] = moves[-1][:-1]
            lines += _wrapped(f"{label}, {who}: ", moves)
    if view.get("revealed"):
        lines += ["", "Revealed at the end (piles bottom to top):"]
        for name, cards in zip("ABCDE", view["revealed"]["piles"]):
            lines += _wrapped(f"  {name}: ", cards or ["-"])
    lines += ["", LEGEND]
    return "\n".join(lines)


def _circle(view: dict) -> list[str]:
    """Five piles round the discard, A at the top, clockwise:

                         A: OX  (17)
          E: X   (18)                  B: S   (16)
                          discard: 0
              D: D   (18)          C: SD  (16)
    """
    def label(pile: dict) -> str:
        if not pile["size"]:
            return f"{pile['name']}: empty"
        return f"{pile['name']}: {pile['top']:<3}({pile['size']})"

    a, b, c, d, e = map(label, view["piles"])
    rows = [" " * 25 + a,
            "  " + e.ljust(33) + b,
            " " * 24 + f"discard: {view['discard']}",
            " " * 8 + d.ljust(24) + c]
    note = "  Draw Piles clockwise; E is next to A"
    if any(not pile["size"] for pile in view["piles"]):
        note += "; an empty pile leaves the circle"
    return [row.rstrip() for row in rows] + [note + "."]


def _wrapped(head: str, items: list[str]) -> list[str]:
    lines, current = [], head
    for item in items:
        if len(current) + len(item) + 1 > WIDTH and current.strip() != head.strip():
            lines.append(current.rstrip())
            current = " " * len(head)
        current += item + " "
    lines.append(current.rstrip())
    return lines


# -- SVG ---------------------------------------------------------------------------------

GEM_COLOURS = {"O": "#c8302c", "S": "#2e8b57", "D": "#2a63c4", "X": "#8e44ad"}
# The picture's gems in words, with the letters a player types for them (mail's HTML).
PICTURE_LEGEND = "Gems: " + ", ".join(
    f"{letter} {name} ({colour}): {effect.capitalize()}"
    for letter, name, colour, effect in zip(GEMS, GEM_NAMES, ("red", "green", "blue",
                                                              "purple"), EFFECTS)) + "."


def _gem(letter: str, x: float, y: float, r: float) -> str:
    """One gem symbol centred on (x, y), `r` its half-size."""
    fill = f'fill="{GEM_COLOURS[letter]}"'
    if letter == "O":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" {fill}/>'
    if letter == "S":
        return (f'<rect x="{x - r * .85:.1f}" y="{y - r * .85:.1f}" width="{r * 1.7:.1f}" '
                f'height="{r * 1.7:.1f}" {fill}/>')
    if letter == "D":
        return (f'<polygon points="{x:.1f},{y - r:.1f} {x + r:.1f},{y:.1f} {x:.1f},'
                f'{y + r:.1f} {x - r:.1f},{y:.1f}" {fill}/>')
    t = r / 3
    arm = [(-t, -r), (t, -r), (t, -t), (r, -t), (r, t), (t, t), (t, r), (-t, r), (-t, t),
           (-r, t), (-r, -t), (-t, -t)]
    return (f'<polygon points="{" ".join(f"{x + dx:.1f},{y + dy:.1f}" for dx, dy in arm)}" '
            f'{fill}/>')


def _card(letters: str, x: float, y: float, w: float, h: float) -> str:
    """A face-up card with its one or two gems, top-left corner at (x, y)."""
    parts = [f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{w / 8:.1f}" '
             f'fill="#fffdf6" stroke="#555"/>']
    for i, letter in enumerate(letters):
        cy = y + h * (i + 1) / (len(letters) + 1)
        parts.append(_gem(letter, x + w / 2, cy, min(w, h / len(letters)) * 0.3))
    return "".join(parts)


def _text(x: float, y: float, size: float, text: str, anchor: str = "middle",
          weight: str = "normal") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family="sans-serif" font-size="{size:.1f}" '
            f'font-weight="{weight}" text-anchor="{anchor}">{escape(text)}</text>')


def svg_diagram(view: dict, size: int = 480, caption: str | None = None) -> str:
    """A standalone SVG `size` pixels wide: the piles in their circle, then a row per
    player with the Hoard size and every Collection's cards."""
    return sheet(view, size, caption).svg()


TABLE = "#eef3e8"
CARD, EDGE = "#fffdf6", "#555"


def sheet(view: dict, size: int = 480, caption: str | None = None) -> Sheet:
    """The diagram as a Sheet (pbem.engines.svg): the table is the background; each
    card, line of text and rule is a piece, so a picture for mail draws each card once
    and places it (pbem.mail.pictures). The height is known once the rows are laid out,
    so they are laid out first, then written in order."""
    u = size / 100  # one unit: a hundredth of the width
    pieces = _pile_circle(view, u)
    y = 66 * u
    for seat, collections in enumerate(view["collections"]):
        row, height = _player_row(view, seat, collections, y, u)
        pieces += row
        y += height
    if caption:
        pieces.append((caption_text(size, y, 0, caption, family="sans-serif"),
                       ("caption", caption), (0, y, size, y + caption_height(size, caption))))
        y += caption_height(size, caption)
    description = escape(f"Onix, {view['players']} players. {status(view)}")
    drawing = Sheet(size, round(y + 2 * u), size, y + 2 * u, TABLE,
                    ("#000", EDGE, "#999", "#b9c7ad", "#cbd5c0", CARD,
                     *GEM_COLOURS.values()), surfaces=(CARD,))
    drawing.open(f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" '
                 f'height="{y + 2 * u:.0f}" viewBox="0 0 {size} {y + 2 * u:.1f}" role="img" '
                 f'aria-label="{description}"><title>{description}</title>')
    drawing.add(f'<rect width="100%" height="100%" fill="{TABLE}"/>')
    for piece in pieces:
        drawing.add(*piece)
    return drawing


def _text_piece(x: float, y: float, size: float, text: str, anchor: str = "middle",
                weight: str = "normal") -> tuple:
    return (_text(x, y, size, text, anchor, weight), ("text", text, size, anchor, weight),
            text_box(x, y, size, text, {"middle": "middle", "start": "start",
                                        "end": "end"}[anchor], bold=weight == "bold"))


def _card_piece(letters: str, x: float, y: float, w: float, h: float) -> tuple:
    return (_card(letters, x, y, w, h), ("card", letters, w, h),
            (x - 1, y - 1, x + w + 1, y + h + 1))


def _pile_circle(view: dict, u: float) -> list[tuple]:
    first, _, rest = status(view).partition("; ")
    parts = [_text_piece(2 * u, 5 * u, 3.2 * u, first + ("." if rest else ""), "start",
                         "bold"),
             _text_piece(2 * u, 9 * u, 2.8 * u, rest[:1].upper() + rest[1:], "start")]
    if view["retrieved"]:  # a column at the left: each card with the pile it came from
        parts.append(_text_piece(2 * u, 14 * u, 2.6 * u, "to place:", "start"))
        for i, taken in enumerate(view["retrieved"]):
            y = 16 * u + i * 8.5 * u
            parts.append(_card_piece(taken["card"], 2 * u, y, 5 * u, 7 * u))
            parts.append(_text_piece(8 * u, y + 4.5 * u, 2.8 * u, taken["pile"], "start",
                                     "bold"))
    cx, cy, radius, w, h = 50 * u, 37 * u, 21 * u, 10 * u, 14 * u
    reach = radius + u
    parts.append((f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius:.1f}" fill="none" '
                  f'stroke="#b9c7ad" stroke-width="{u:.1f}"/>', ("circle", radius, u),
                  (cx - reach, cy - reach, cx + reach, cy + reach)))
    parts.append(_text_piece(cx, cy - u, 3 * u, "discard"))
    parts.append(_text_piece(cx, cy + 3 * u, 3 * u, str(view["discard"])))
    for index, pile in enumerate(view["piles"]):
        angle = -math.pi / 2 + index * 2 * math.pi / 5  # A at the top, then clockwise
        x, y = cx + radius * math.cos(angle), cy + radius * math.sin(angle)
        if pile["top"]:
            parts.append(_card_piece(pile["top"], x - w / 2, y - h / 2, w, h))
        else:
            parts.append((f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" '
                          f'height="{h:.1f}" rx="{w / 8:.1f}" fill="none" stroke="#999" '
                          f'stroke-dasharray="4 3"/>', ("empty", w, h),
                          (x - w / 2 - 1, y - h / 2 - 1, x + w / 2 + 1, y + h / 2 + 1)))
        side = -1 if index in (3, 4) else 1
        parts.append(_text_piece(x + side * (w / 2 + 1.5 * u), y, 3.4 * u, pile["name"],
                                 anchor="start" if side > 0 else "end", weight="bold"))
        parts.append(_text_piece(x + side * (w / 2 + 1.5 * u), y + 4 * u, 2.8 * u,
                                 f"{pile['size']} cards",
                                 anchor="start" if side > 0 else "end"))
    return parts


def _player_row(view: dict, seat: int, collections: list[dict], y: float,
                u: float) -> tuple[list[tuple], float]:
    """One player's Hoard size and Collections (cards top to bottom = bottom to top).
    The player's name has the row's first line to itself, the whole width: a long name
    beside the Collections was drawn over their numbers, which a player types."""
    w, h, gap = 6 * u, 8 * u, 2 * u
    marker = "▶ " if seat == view["turn"] else ""
    parts = [_text_piece(2 * u, y + 4 * u, 3.2 * u, f"{marker}{seat_name(view, seat)}",
                         "start", "bold"),
             _text_piece(2 * u, y + 9 * u, 2.8 * u, f"Hoard {view['hoards'][seat]}",
                         "start")]
    y += 5 * u  # the Collections start under the name
    x, top, tallest = 22 * u, y + 4 * u, 0.0
    for collection in collections:
        if x + w > 98 * u:
            x, top = 22 * u, top + tallest + 5 * u
            tallest = 0.0
        parts.append(_text_piece(x + w / 2, top - u, 2.6 * u, str(collection["number"])))
        for i, card in enumerate(collection["cards"]):
            parts.append(_card_piece(card, x, top + i * (h + 0.6 * u), w, h))
        tallest = max(tallest, len(collection["cards"]) * (h + 0.6 * u))
        x += w + gap
    height = max(top - y + tallest, 10 * u) + 4 * u
    rule = y + height - 2 * u
    parts.append((f'<line x1="{2 * u:.1f}" y1="{rule:.1f}" x2="{98 * u:.1f}" '
                  f'y2="{rule:.1f}" stroke="#cbd5c0"/>', ("rule", u),
                  (2 * u - 1, rule - 1.5, 98 * u + 1, rule + 1.5)))
    return parts, height + 5 * u
