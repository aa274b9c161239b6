"""6 nimmt! Baron Oxx diagrams from a view: plain text for email, SVG for the web.

Both are pure functions of the data `BaronOxx.view` returns, so they show nothing the
view does not hold. A card is drawn as its number and one letter (text) or one dot (SVG)
per bullhead, by colour: `17 YYY` is card 17 with three yellow bullheads.
"""

from __future__ import annotations

import textwrap
from html import escape

from pbem.engines.baronoxx.cards import CARDS, COLOURS
from pbem.engines.svg import MARGIN, Sheet, caption_height, caption_text, text_box

WIDTH = 72
FILL = {"B": "#2a6fdb", "Y": "#f2c81e", "G": "#2e9e44", "R": "#d63a2f", "K": "#222222",
        "W": "#ffffff"}
LEGEND = "One letter per bullhead: B blue Y yellow G green R red K black W white"
VARIANTS = {"base": "base game", "1": "Variant 1", "2": "Variant 2",
            "1+2": "Variants 1 and 2"}


def card_text(number: int) -> str:
    return f"{number} {CARDS[number].face}"


def colour_totals(row: list[int]) -> str:
    """`Y6 B2`: the bullheads of each colour in a row, most first (Rule 2 counts them)."""
    totals = {c: sum(CARDS[n].bullheads[i] for n in row) for i, c in enumerate(COLOURS)}
    ranked = sorted((c for c in COLOURS if totals[c]), key=lambda c: -totals[c])
    return " ".join(f"{c}{totals[c]}" for c in ranked)


# -- text --------------------------------------------------------------------------------

def text_diagram(view: dict) -> str:
    """The rows, the table of players, then what happened and what the game waits for."""
    lines = [_title(view), LEGEND, ""]
    for r, row in enumerate(view["rows"]):
        lines += _row_lines(r, row)
    if not view["rows"]:
        lines.append("The rows are not dealt yet.")
    lines += ["", *_seats(view)]
    if view.get("hand") is not None:
        lines.append("")
        lines += _wrapped("Your hand: ", [card_text(c) for c in view["hand"]])
        if view.get("choice"):
            lines.append(f"Your choice: {view['choice']}")
        if view.get("preference"):
            lines.append(f"Your standing preference: pref {view['preference']}")
    lines += _this_round(view)
    return "\n".join(lines).rstrip() + "\n"


def _title(view: dict) -> str:
    match = view["match"]
    game = f", game {match['game']} of {match['games']}" if match["games"] > 1 else ""
    current = view["round"]
    return (f"6 nimmt! Baron Oxx, {view['players']} players, "
            f"{VARIANTS[view['variant']]}{game}, round {current}")


def _row_lines(r: int, row: list[int]) -> list[str]:
    lines = _wrapped(f"Row {r + 1}  ", [card_text(c) for c in row])
    tail = f"{len(row)} card{'s' * (len(row) != 1)}: {colour_totals(row)}"
    if len(lines[-1]) + len(tail) + 2 <= WIDTH:
        lines[-1] = f"{lines[-1]:<{WIDTH - len(tail)}}{tail}"
    else:
        lines.append(f"{tail:>{WIDTH}}")
    return lines


def _wrapped(head: str, items: list[str], sep: str = "   ") -> list[str]:
    """Items after a head, continued under the first item when a line is full."""
    lines, current = [], head + (items[0] if items else "")
    for item in items[1:]:
        if len(current) + len(sep) + len(item) > WIDTH:
            lines.append(current)
            current = " " * len(head) + item
        else:
            current += sep + item
    lines.append(current)
    return lines


def _seats(view: dict) -> list[str]:
    over = view["phase"] == "over"
    you = view.get("you")
    points = view["score"] if over else view["bullheads"]
    column = "score" if over else "bullheads"
    names = view.get("names")  # the server's, where it gave them
    labels = [f"#{s + 1}{' ' + names[s] if names else ''}{' you' if s == you else ''}"
              for s in range(view["players"])]
    width = max([8] + [len(label) + 1 for label in labels])
    lines = [(f"{'Seat':<{width}}{'hand':>5}{'deck':>6}{'pile':>6}{column:>11}  "
              + ("total" if view["match"]["games"] > 1 else "")).rstrip()]
    for s in range(view["players"]):
        status = _status(view, s)
        total = f"{view['match']['totals'][s]:>5}" if view["match"]["games"] > 1 else ""
        name = labels[s]
        lines.append(f"{name:<{width}}{view['hand_sizes'][s]:>5}{view['deck_sizes'][s]:>6}"
                     f"{len(view['piles'][s]):>6}{points[s]:>11}  {total}"
                     f"{'  ' + status if status else ''}".rstrip())
    if view["variant"] in ("2", "1+2"):
        lines.append("Variant 2: pile bullheads are plus points; "
                     "cards still held count minus at the end.")
    for key, where in (("known_in_hand", "in hand"), ("under_decks", "under the deck")):
        for s, cards in enumerate(view[key]):
            if cards and not (key == "known_in_hand" and s == you):
                lines.append(f"#{s + 1} has {' '.join(map(str, cards))} {where} "
                             f"(seen by all)")
    if over:
        for s, hand in enumerate(view.get("hands") or []):
            if hand:
                lines.append(f"#{s + 1} ended holding {' '.join(map(str, hand))}")
    return lines


def _status(view: dict, seat: int) -> str:
    if view["phase"] == "choose":
        return "chose" if view["chosen"][seat] else "choosing"
    if view["asking"] and view["asking"]["seat"] == seat:
        return "placing"
    if view["winner"] and seat in view["winner"]:
        return "wins"
    return ""


def _this_round(view: dict) -> list[str]:
    lines = []
    if view["revealed"]:
        lines += _wrapped(f"Round {view['revealed_in']} revealed: ",
                          [f"{c} (#{s + 1})" for c, s in view["revealed"]], sep=", ")
    for event in view["placed"]:
        lines.append(_event_text(event))
    asking = view["asking"]
    if asking:
        lines.append(_asking(view, _number))
    if view["to_place"][1:] if asking else view["to_place"]:
        lines.append("Still to place: " + ", ".join(f"{c} (#{s + 1})"
                                                    for c, s in view["to_place"]))
    if view["phase"] == "choose":
        lines.append(_choosing(view, _number))
    if view["result"]:
        lines.append(f"The match is over: {view['result']}.")
    return [""] + lines if lines else []


def _number(view: dict, seat: int) -> str:
    return f"#{seat + 1}"


def _named(view: dict, seat: int) -> str:
    """`#2 ben (you)`: the seat, its player where the server named them, and the reader."""
    names = view.get("names")
    return (f"#{seat + 1}{' ' + names[seat] if names else ''}"
            f"{' (you)' if seat == view.get('you') else ''}")


def _asking(view: dict, who) -> str:
    asking = view["asking"]
    word = asking["kind"]
    options = " or ".join(f"{word} {r + 1} ({cost} pts)" for r, cost in asking["options"])
    return f"Waiting for {who(view, asking['seat'])} to place {asking['card']}: {options}"


def _choosing(view: dict, who) -> str:
    waiting = ", ".join(who(view, s) for s in view["waiting_for"])
    return f"Round {view['round']}: waiting for cards from {waiting}."


def asked(view: dict) -> str:
    """Whom the game waits for and what it asks, the players named: the picture's words
    (its title, a mail's alt text) after the title line."""
    if view["result"]:
        return f"The match is over: {view['result']}."
    if view["asking"]:
        return _asking(view, _named) + "."
    if view["phase"] == "choose":
        return _choosing(view, _named)
    return ""


def _event_text(event: dict) -> str:
    who = f"{event['card']} (#{event['seat'] + 1})"
    if event["how"] == "under":
        return f"{who} fit no row and went under #{event['seat'] + 1}'s deck."
    text = f"{who} went to row {event['row'] + 1}"
    if event["taken"]:
        rule = event["how"].replace("rule ", "Rule ").replace("+", " and ")
        text += (f"; {rule}: took {' '.join(map(str, event['taken']))} "
                 f"({sum(CARDS[c].penalty for c in event['taken'])} pts)")
    return text + "."


# -- SVG ---------------------------------------------------------------------------------

def svg_diagram(view: dict, size: int = 480, caption: str | None = None) -> str:
    """The five rows as cards with coloured bullheads, the viewer's hand, one line a seat."""
    return sheet(view, size, caption).svg()


TABLE, INK = "#e9f1e4", "#222"
# ems a character of a seat's line: its words, digits and commas average at most 0.52
# in DejaVu Sans, the font of mail's pictures (a caption's free text takes CHAR_WIDTH)
SEAT_CHAR_WIDTH = 0.53
CARD_COLOURS = ("#fff4d6", "#fdfdfa", "#555", "#333")


def sheet(view: dict, size: int = 480, caption: str | None = None) -> Sheet:
    """The diagram as a Sheet (pbem.engines.svg): the table is the background; each
    card, row label and seat's line is a piece, so a picture for mail draws each card
    once and places it (pbem.mail.pictures)."""
    hand = view.get("hand") or []
    longest = max([len(row) for row in view["rows"]] + [len(hand), 6])
    card_w = size / (longest + 1.5)
    card_h, gap = card_w * 1.3, card_w * 0.15
    seat_h = card_w * 0.4
    lines = len(view["rows"]) + bool(hand)
    seat_lines = _seat_lines(view, size, card_w * 0.3, seat_h * 0.65)
    height = (gap * 2 + lines * (card_h + gap)
              + (sum(map(len, seat_lines)) + 1) * seat_h)
    caption_h = caption_height(size, caption)
    total = height + caption_h
    title = escape(" ".join(filter(None, (_title(view) + ".", asked(view)))))
    drawing = Sheet(size, round(total), size, total, TABLE,
                    (INK, *CARD_COLOURS, *FILL.values()), surfaces=CARD_COLOURS[:2])
    drawing.open(f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" '
                 f'height="{total:.0f}" viewBox="0 0 {size} {total:.1f}" role="img" '
                 f'aria-label="{title}">', f"<title>{title}</title>")
    drawing.add(f'<rect width="100%" height="100%" fill="{TABLE}"/>')
    labelled = [(str(r + 1), row) for r, row in enumerate(view["rows"])]
    labelled += [("you", hand)] if hand else []
    for line, (label, cards) in enumerate(labelled):
        y = gap * (2 if label == "you" else 1) + line * (card_h + gap)
        font = card_w * 0.25
        drawing.add(f'<text x="{card_w * 0.35:.1f}" y="{y + card_h / 2:.1f}" '
                    f'font-family="sans-serif" fill="{INK}" font-size="{font:.1f}" '
                    f'text-anchor="middle" dominant-baseline="central">{label}</text>',
                    ("label", label, font),
                    text_box(card_w * 0.35, y + card_h / 2, font, label, "middle", True))
        for i, number in enumerate(cards):
            x, w = card_w * (0.75 + i), card_w * 0.92
            drawing.add(_card_svg(number, x, y, w, card_h), ("card", number, w, card_h),
                        (x - 1, y - 1, x + w + 1, y + card_h + 1))
    y = gap * 3 + lines * (card_h + gap) + seat_h * 0.5
    font, x = seat_h * 0.65, card_w * 0.3
    for seat in seat_lines:
        for number, line in enumerate(seat):
            at = x + (font * 1.5 if number else 0)  # a line continued is indented
            drawing.add(f'<text x="{at:.1f}" y="{y:.1f}" '
                        f'font-family="sans-serif" fill="{INK}" font-size="{font:.1f}">'
                        f'{escape(line)}</text>', ("line", line, font),
                        text_box(at, y, font, line))
            y += seat_h
    if caption:
        drawing.add(caption_text(size, height, caption_h, caption), ("caption", caption),
                    (0, height, size, total))
    return drawing


def _seat_lines(view: dict, size: float, x: float, font: float) -> list[list[str]]:
    """Each seat's line (`#1 (you): 3 bullheads, pile 2, hand 4, deck 0, choosing`), in
    as many lines as it needs to stay inside the drawing at `font`: where the cards are
    few and large, one line ran past the right edge ("choosin"). Every seat's line is
    broken as if it said " (you)": a line breaks in the same place in every view, and
    one seat's view draws nothing apart that the public's does not."""
    chars = max(12, int((size * (1 - MARGIN) - x) / (font * SEAT_CHAR_WIDTH)))
    lines = []
    for s in range(view["players"]):
        you = " (you)" if s == view.get("you") else ""
        width = chars - len(" (you)") + len(you)
        status = _status(view, s)
        points = (f"score {view['score'][s]}" if view["score"] is not None
                  else f"{view['bullheads'][s]} bullheads")
        line = (f"#{s + 1}{you}: {points}, pile {len(view['piles'][s])}, "
                f"hand {view['hand_sizes'][s]}, deck {view['deck_sizes'][s]}"
                f"{', ' + status if status else ''}")
        lines.append([part.strip() for part in textwrap.wrap(
            line, width, subsequent_indent="   ", break_on_hyphens=False)])
    return lines


def _card_svg(number: int, x: float, y: float, w: float, h: float) -> str:
    card = CARDS[number]
    baron = card.note == "Baron Oxx"
    parts = [f'<g><title>{escape(card_text(number))}{" (Baron Oxx)" if baron else ""}'
             f'</title><rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
             f'rx="{w * 0.1:.1f}" fill="{"#fff4d6" if baron else "#fdfdfa"}" '
             f'stroke="#555" stroke-width="1"/>',
             f'<text x="{x + w / 2:.1f}" y="{y + h * 0.32:.1f}" font-family="sans-serif" '
             f'font-size="{w * 0.34:.1f}" font-weight="bold" text-anchor="middle" '
             f'fill="#222">{number}</text>']
    face = card.face
    per_line = 3
    radius = w * 0.1
    for i, colour in enumerate(face):
        line, col = divmod(i, per_line)
        in_line = min(per_line, len(face) - line * per_line)
        cx = x + w / 2 + (col - (in_line - 1) / 2) * radius * 2.4
        cy = y + h * 0.58 + line * radius * 2.4
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius:.1f}" '
                     f'fill="{FILL[colour]}" stroke="#333" stroke-width="0.8"/>')
    parts.append("</g>")
    return "".join(parts)
