"""Gem Forge diagrams from a view: plain text for email (72 columns), SVG for the web.

Both are pure functions of the data `GemForge.view` returns, so they can show nothing
the view does not hold.
"""

from __future__ import annotations

from html import escape

from pbem.engines.gemforge.state import seat_name
from pbem.engines.svg import Sheet, caption_height, caption_text, text_box

GEM_FILL = {"R": "#d33", "G": "#2a2", "Y": "#eb0", "L": "#7cd"}
BACKGROUND = {"brown": "#b08860", "light blue": "#bfe3f2"}
WIDTH = 72
CAPTION_FONT = 14  # px of the 640-wide drawing


def tile_text(tile: dict, gems: str | None = None) -> str:
    """T05 pendant  RL [R.] 2 VP   (brown)  or   T18 ring RR [..] 2+1 VP (blue)."""
    bonus = f"+{tile['set_bonus']}" if tile["set_bonus"] else ""
    held = f" [{gems}]" if gems is not None else ""
    back = "brown" if tile["background"] == "brown" else "blue"
    done = " done" if gems is not None and "." not in gems else ""
    return (f"{tile['tile']} {tile['name']} {tile['slots']}{held} "
            f"{tile['points']}{bonus}vp {back}{done}")


def _wrapped(label: str, items: list[str], sep: str = " ") -> list[str]:
    lines, line = [], label
    for item in items:
        if len(line) + len(sep) + len(item) > WIDTH and line.strip():
            lines.append(line)
            line = " " * len(label) + item
        else:
            line = line + (sep if line.strip() and line != label else "") + item
    lines.append(line)
    return lines


def text_diagram(view: dict) -> str:
    """The mine, the market, then one block per seat; your own cards and the news."""
    you = view.get("you")
    lines = [_headline(view)]
    mine = view["mine"]
    lines += _wrapped(f"Mine ({len(mine)}, front first): ",
                      [mine[i:i + 5] for i in range(0, len(mine), 5)] or ["empty"])
    lines.append(f"Action cards: deck {view['action_deck']}, "
                 f"discard {view['action_discard']}.  Tiles: deck {view['tile_deck']}, "
                 f"discard {view['tile_discard']}.")
    if view["market"]:
        lines.append("Market:")
        lines += [f"  {n}. {tile_text(t) if t else '(empty)'}"
                  for n, t in enumerate(view["market"], start=1)]
    for seat in range(view["players"]):
        lines.append("")
        lines.append(_seat_line(view, seat))
        for tile in view["ornaments"][seat]:
            lines.append("    " + tile_text(tile, tile["gems"]))
    lines.append("")
    if you is not None:
        lines += _own(view, you)
    if view["chain"]:
        lines += _wrapped("On the table: ", [f"{_named(view, link['seat'])} {link['text']};"
                                             for link in view["chain"]])
    if view["news"]:
        lines += _wrapped("Lately: ", [text + ";" for _, text in view["news"][-6:]])
    lines.append("Gems: R red, G green, Y yellow, L light blue; * any one colour.")
    return "\n".join(line.rstrip() for line in lines)


def _named(view: dict, seat: int) -> str:
    """`P2`, or `P2 ben` when the server put the players' names in the view."""
    names = view.get("names")
    return f"{seat_name(seat)} {names[seat]}" if names else seat_name(seat)


def _headline(view: dict) -> str:
    phase = view["phase"]
    if phase == "over":
        return (f"Gem Forge: {_named(view, view['winner'])} wins with "
                f"{view['points'][view['winner']]} points.")
    if phase == "keep":
        return "Gem Forge: everyone keeps 3 of their 5 tiles."
    if phase == "dealing":
        return "Gem Forge: the dealer is setting up."
    waiting = view["waiting"]
    extra = ""
    if waiting:
        who = ", ".join(_named(view, seat) for seat in waiting["seats"])
        extra = (f"; {who} takes a market tile" if waiting["for"] == "replace"
                 else f"; {who} discard{'s' * (len(waiting['seats']) == 1)} to 4 cards")
    return (f"Gem Forge: {_named(view, view['active'])}'s turn, "
            f"{view['actions_left']} action(s) left{extra}.")


def _seat_line(view: dict, seat: int) -> str:
    marks = []
    if seat == view.get("you"):
        marks.append("you")
    if seat == view["active"] and view["phase"] == "play":
        marks.append("to play")
    mark = f" ({', '.join(marks)})" if marks else ""
    cart = " ".join(view["carts"][seat].ljust(3, "."))
    return (f"{_named(view, seat)}{mark}: {_count(view['points'][seat], 'point')}, "
            f"{_count(view['hand_sizes'][seat], 'card')}, cart [{cart}]")


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}{'' if n == 1 else 's'}"


def _own(view: dict, you: int) -> list[str]:
    lines = _wrapped("Your cards: ", _listed(view["hand"]))
    prefs = ", ".join(f"{window} {value}" for window, value in view["prefs"].items())
    lines.append(f"Standing answers: {prefs}.")
    if view.get("dealt"):
        lines.append("Dealt to you (keep 3):")
        lines += ["    " + tile_text(t) for t in view["dealt"]]
        if view.get("kept"):
            lines.append("You keep: " + " ".join(view["kept"]))
    if view.get("asked"):
        lines.append(f"You are asked: play {view['asked']} or pass.")
    if view.get("hands"):
        for seat, hand in enumerate(view["hands"]):
            lines += _wrapped(f"{_named(view, seat)} held: ", _listed(hand))
    return lines


def _listed(cards: list[str]) -> list[str]:
    return [card + "," for card in cards[:-1]] + cards[-1:] or ["none"]


# -- SVG ---------------------------------------------------------------------------------

def svg_diagram(view: dict, size: int = 480, caption: str | None = None) -> str:
    """Rows: the mine as a line of gems, the market, then each seat's cart and ornaments."""
    return sheet(view, size, caption).svg()


PAPER, INK, EDGE = "#fbf8f2", "#000", "#555"


def sheet(view: dict, size: int = 480, caption: str | None = None) -> Sheet:
    """The diagram as a Sheet (pbem.engines.svg): the paper is the background; each gem,
    tile and line of text is a piece, so a picture for mail draws each once and places
    it (pbem.mail.pictures)."""
    row_h, gem_r = 56, 7
    rows = 3 + view["players"]
    height = rows * row_h + caption_height(640, caption, CAPTION_FONT)
    inherit = 'font-family="sans-serif" font-size="12"'
    drawing = Sheet(size, round(height * size / 640), 640, height, PAPER,
                    (INK, EDGE, "#888", "#fff", *GEM_FILL.values(), *BACKGROUND.values()),
                    inherit, surfaces=tuple(BACKGROUND.values()))
    drawing.open(f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" '
                 f'height="{height * size / 640:.0f}" viewBox="0 0 640 {height}" {inherit}>',
                 f"<title>{escape(_headline(view))}</title>")
    drawing.add(f'<rect width="640" height="100%" fill="{PAPER}"/>')

    def text(x: float, y: float, line: str, bold: bool = False) -> None:
        drawing.add(_text(x, y, line, bold), ("text", line, bold),
                    text_box(round(x), round(y), 12, line, bold=bold))

    def gem(x: float, y: float, letter: str | None) -> None:
        reach = gem_r + 2
        drawing.add(_gem(x, y, letter, gem_r), ("gem", letter),
                    (x - reach, y - reach, x + reach, y + reach))

    def tile(x: float, y: float, face: dict, gems: str | None) -> None:
        drawing.add(_tile(x, y, face, gems), ("tile", repr(face), gems),
                    (x - 1, y - 1, x + 139, y + 45))

    text(8, 18, f"Mine ({len(view['mine'])}), front first")
    for i, letter in enumerate(view["mine"][:40]):
        gem(14 + i * 15.5, 34, letter)
    text(8, row_h + 18, "Market")
    for i, face in enumerate(view["market"]):
        if face:
            tile(60 + i * 145, row_h + 6, face, None)
    for seat in range(view["players"]):
        y = (2 + seat) * row_h + 4
        label = f"{seat_name(seat)}{' (you)' if seat == view.get('you') else ''}"
        text(8, y + 14, label, bold=seat == view["active"])
        text(8, y + 30, f"{view['points'][seat]} pts, {view['hand_sizes'][seat]} cards")
        for i in range(3):
            letter = view["carts"][seat][i] if i < len(view["carts"][seat]) else None
            gem(110 + i * 18, y + 22, letter)
        for i, face in enumerate(view["ornaments"][seat]):
            tile(175 + i * 150, y, face, face["gems"])
    y = rows * row_h - 12
    if view.get("hand") is not None:
        text(8, y, "Your cards: " + (", ".join(view["hand"]) or "none"))
    if caption:
        drawing.add(caption_text(640, rows * row_h, 0, caption, CAPTION_FONT, "sans-serif"),
                    ("caption", caption), (0, rows * row_h, 640, height))
    return drawing


def _text(x: float, y: float, text: str, bold: bool = False) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return f'<text x="{x:.0f}" y="{y:.0f}"{weight}>{escape(text)}</text>'


def _gem(x: float, y: float, gem: str | None, r: float) -> str:
    fill = GEM_FILL.get(gem or "", "none")
    dash = ' stroke-dasharray="2 2"' if gem is None else ""
    return (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="{fill}" stroke="#555" '
            f'stroke-width="1"{dash}/>')


def _tile(x: float, y: float, tile: dict, gems: str | None) -> str:
    """A tile: its background, id and points, and a circle per slot (filled when set)."""
    parts = [f'<g><rect x="{x}" y="{y}" width="138" height="44" rx="6" '
             f'fill="{BACKGROUND.get(tile["background"], "#ddd")}" stroke="#555"/>',
             _text(x + 5, y + 14, f"{tile['tile']} {tile['name']} {tile['points']}"
                                  + (f"+{tile['set_bonus']}" if tile["set_bonus"] else "")
                                  + "vp")]
    for i, slot in enumerate(tile["slots"]):
        gem = gems[i] if gems and gems[i] != "." else None
        cx, cy = x + 12 + i * 17, y + 31
        fill = GEM_FILL.get(gem or "", "#fff")
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="7" fill="{fill}" '
                     f'stroke="{GEM_FILL.get(slot, "#888")}" stroke-width="2.5"/>')
    parts.append("</g>")
    return "".join(parts)
