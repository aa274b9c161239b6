"""Gem Forge diagrams from a view: plain text for email (72 columns), SVG for the web
(and for mail's picture of it) in two layouts: WIDE, rows of up to four tiles, and
NARROW, tiles two abreast, for a phone, where the wide one's text shrank to 6-7 px.

All are pure functions of the data `GemForge.view` returns, so they can show nothing
the view does not hold.
"""

from __future__ import annotations

import itertools
import textwrap
from dataclasses import dataclass
from html import escape

from pbem.engines.gemforge.state import seat_name
from pbem.engines.svg import Sheet, caption_height, caption_text, text_box

GEM_FILL = {"R": "#d33", "G": "#2a2", "Y": "#eb0", "L": "#7cd"}
BACKGROUND = {"brown": "#b08860", "light blue": "#bfe3f2"}
WIDTH = 72
CAPTION_FONT = 14  # px of the 640-wide drawing
# What a tile's marks mean (RULINGS' set scoring; tiles.csv): under the picture in
# mail's HTML, and at the end of the text diagram.
PICTURE_LEGEND = ("Gems: R red, G green, Y yellow, L light blue; * any one colour. "
                  "A tile's 2+1vp: 2 points, and 1 more (its set bonus) when cashed in a "
                  "set. Brown tiles take mixed colours and are cashed the turn they are "
                  "completed; blue (light blue) tiles take gems of one colour and may be "
                  "kept, to cash 2 or more of one colour together as a set.")


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
    lines += textwrap.wrap(PICTURE_LEGEND, WIDTH)
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

@dataclass(frozen=True)
class Layout:
    """Where the SVG puts things, in its own units: the mine's row(s) of gems, the
    market's tiles, and each seat's band (its name, points and cards, cart, ornaments),
    every place relative to the top of its band; then your cards. Text is 12 units
    high: readable only where the drawing is shown at least about as many pixels wide
    as it is units wide."""
    width: int
    mine_row: int  # gems a row of the mine (at most MINE_SHOWN in all)
    mine_h: float
    market_label: tuple[float, float]
    market: tuple[tuple[float, float], ...]  # each tile's top left
    market_h: float
    label: tuple[float, float]  # the seat's name
    counts: tuple[float, float]  # its points and cards
    cart: tuple[float, float]  # the first of its 3 gems (the others 18 units apart)
    ornaments: tuple[tuple[float, float], ...]  # each of its 3 tiles' top left
    seat_h: float
    hand_h: float  # the band of your cards: at least this, or a line each (wrapped)
    hand_chars: int | None  # where your cards wrap (None: one line)
    rule: bool = False  # a line above each seat's band: its tiles and the next one's meet


MINE_SHOWN = 40  # gems of the mine drawn, front first
# The wide drawing: 640 units, one row each (the mail's picture; the web on a wide screen).
WIDE = Layout(width=640, mine_row=MINE_SHOWN, mine_h=56,
              market_label=(8, 18), market=tuple((60 + i * 145, 6) for i in range(4)),
              market_h=56, label=(8, 18), counts=(8, 34), cart=(110, 26),
              ornaments=tuple((175 + i * 150, 4) for i in range(3)), seat_h=56,
              hand_h=56, hand_chars=None)
# The narrow drawing for a phone: 300 units, tiles two abreast, so that at a phone's
# 360 px its text is 14 px, where the wide one's was under 7.
NARROW = Layout(width=300, mine_row=18, mine_h=84,
                market_label=(8, 16), market=((8, 24), (154, 24), (8, 74), (154, 74)),
                market_h=124, label=(8, 22), counts=(8, 40), cart=(100, 17),
                ornaments=((154, 10), (8, 60), (154, 60)), seat_h=112,
                hand_h=0, hand_chars=43, rule=True)
TILE_STEP = 50  # units from a tile's top to the next row's: 44 high, 6 apart


def tile_places(layout: Layout, count: int) -> tuple[list[tuple[float, float]], float]:
    """Where `count` tiles go in the market's band (its places, then as many again
    under them: your 5 dealt tiles in the 4 places of the market), and the band's
    height."""
    block = max(y for _, y in layout.market) - min(y for _, y in layout.market) + TILE_STEP
    places = [(x, y + block * (i // len(layout.market)))
              for i, (x, y) in zip(range(count), itertools.cycle(layout.market))]
    extra = max(0, -(-count // len(layout.market)) - 1)  # blocks under the first
    return places, layout.market_h + extra * block


def svg_diagram(view: dict, size: int = 480, caption: str | None = None,
                narrow: bool = False) -> str:
    """Rows: the mine as a line of gems, the market, then each seat's cart and ornaments
    (`narrow`: laid out for a phone's width)."""
    return sheet(view, size, caption, narrow).svg()


PAPER, INK, EDGE = "#fbf8f2", "#000", "#555"


def sheet(view: dict, size: int = 480, caption: str | None = None,
          narrow: bool = False) -> Sheet:
    """The diagram as a Sheet (pbem.engines.svg): the paper is the background; each gem,
    tile and line of text is a piece, so a picture for mail draws each once and places
    it (pbem.mail.pictures). `narrow`: the same drawing in the NARROW layout."""
    layout = NARROW if narrow else WIDE
    width, gem_r = layout.width, 7
    hand = _hand_lines(view, layout)
    market_top = layout.mine_h
    # In the keep phase the market is still empty: a seat's own view shows in its place
    # the 5 tiles dealt to it, the ones it asks about (nobody else's view has them).
    dealt = view.get("dealt") if view["phase"] == "keep" else None
    shown = dealt if dealt else view["market"]
    places, market_h = tile_places(layout, len(shown))
    seats_top = market_top + market_h
    hand_top = seats_top + view["players"] * layout.seat_h
    body = hand_top + max(layout.hand_h, 16 * len(hand) + 10 if hand else 0)
    height = body + caption_height(width, caption, CAPTION_FONT)
    inherit = 'font-family="sans-serif" font-size="12"'
    drawing = Sheet(size, round(height * size / width), width, height, PAPER,
                    (INK, EDGE, "#888", "#fff", *GEM_FILL.values(), *BACKGROUND.values()),
                    inherit, surfaces=tuple(BACKGROUND.values()))
    drawing.open(f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" '
                 f'height="{height * size / width:.0f}" viewBox="0 0 {width} {height}" '
                 f'{inherit}>', f"<title>{escape(_headline(view))}</title>")
    drawing.add(f'<rect width="{width}" height="100%" fill="{PAPER}"/>')

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
    for i, letter in enumerate(view["mine"][:MINE_SHOWN]):
        row, column = divmod(i, layout.mine_row)
        gem(14 + column * 15.5, 34 + row * 17, letter)
    text(layout.market_label[0], market_top + layout.market_label[1],
         "Keep 3" if dealt else "Market", bold=bool(dealt))
    kept = set(view.get("kept") or ()) if dealt else set()
    for (x, y), face in zip(places, shown):
        if face:
            tile(x, market_top + y, face, None)
            if face["tile"] in kept:
                text(x + 104, market_top + y + 36, "kept", bold=True)
    for seat in range(view["players"]):
        top = seats_top + seat * layout.seat_h
        if layout.rule:
            drawing.add(f'<path d="M0 {top + 2:g}H{width}" stroke="#888"/>', ("rule", width),
                        (0, top + 1, width, top + 3))
        label = f"{seat_name(seat)}{' (you)' if seat == view.get('you') else ''}"
        text(layout.label[0], top + layout.label[1], label, bold=seat == view["active"])
        text(layout.counts[0], top + layout.counts[1],
             f"{view['points'][seat]} pts, {_count(view['hand_sizes'][seat], 'card')}")
        for i in range(3):
            letter = view["carts"][seat][i] if i < len(view["carts"][seat]) else None
            gem(layout.cart[0] + i * 18, top + layout.cart[1], letter)
        for (x, y), face in zip(layout.ornaments, view["ornaments"][seat]):
            tile(x, top + y, face, face["gems"])
    baseline = hand_top + (44 if layout.hand_h else 16)
    for i, line in enumerate(hand):
        text(8, baseline + 16 * i, line)
    if caption:
        drawing.add(caption_text(width, body, 0, caption, CAPTION_FONT, "sans-serif"),
                    ("caption", caption), (0, body, width, height))
    return drawing


def _hand_lines(view: dict, layout: Layout) -> list[str]:
    """`Your cards: …` in the lines the layout gives it (none in a view without a hand)."""
    if view.get("hand") is None:
        return []
    line = "Your cards: " + (", ".join(view["hand"]) or "none")
    if layout.hand_chars is None:
        return [line]
    return textwrap.wrap(line, layout.hand_chars, break_on_hyphens=False)


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
