"""6 nimmt! Baron Oxx move notation: reading and writing decisions, pure text.

A player writes `play 23`, optionally with a preference for where the card goes
(`play 23 row 2 4 take 5 low`), `pref ...` for a standing preference, and `row 3` or
`take 3` when asked to place a revealed card. The dealer's moves name the cards that
chance brought: `draw #2 3 18 77 90`, `rows 5 17 33 62 101`, `left #2 14 70`. The grammar,
with examples, is in notation/baronoxx.md; what a decision may do is the engine's business.

Rows are numbered 1–5 in text and 0–4 in decisions; seats #1… in text, 0… in decisions.
"""

from __future__ import annotations

#: A preference (N13): rows to place in, in order; rows to take under Rule 3, in order;
#: then "low", "high" or "" (none) for whatever the lists leave open.
Pref = tuple[tuple[int, ...], tuple[int, ...], str]
NO_PREF: Pref = ((), (), "")
PICKS = ("", "low", "high")
ROWS = 5


class NotationError(ValueError):
    """Text that is no Baron Oxx decision; the message says what would be."""


# -- writing -------------------------------------------------------------------------------

def pref_text(pref: Pref) -> str:
    """`row 2 4 take 5 low`; the empty string for no preference."""
    rows, takes, pick = pref
    parts = []
    if rows:
        parts.append("row " + " ".join(str(r + 1) for r in rows))
    if takes:
        parts.append("take " + " ".join(str(r + 1) for r in takes))
    if pick:
        parts.append(pick)
    return " ".join(parts)


def decision_text(decision: tuple) -> str:
    """The canonical text of any decision, a player's or the dealer's."""
    kind = decision[0]
    if kind == "play":
        return " ".join(filter(None, (f"play {decision[1]}", pref_text(decision[2]))))
    if kind == "pref":
        return f"pref {pref_text(decision[1]) or 'none'}"
    if kind in ("row", "take"):
        return f"{kind} {decision[1] + 1}"
    if kind == "rows":
        return "rows " + _cards(decision[1])
    if kind == "draw":
        return f"draw #{decision[1] + 1} {_cards(decision[2] + decision[3])}"
    if kind == "left":
        return f"left #{decision[1] + 1} {_cards(decision[2])}"
    raise ValueError(f"no such decision: {decision!r}")


def _cards(cards) -> str:
    return " ".join(map(str, cards))


# -- reading -------------------------------------------------------------------------------

def read_decision(text: str) -> tuple:
    """A decision from text, any case, commas allowed between numbers.

    A bare number is returned as ("number", n): a card while choosing, a row when asked
    to place, which only the engine can tell. Dealer's moves come back with the cards as
    written: ("draw", seat, cards), ("rows", cards), ("left", seat, cards).
    """
    words = text.lower().replace(",", " ").split()
    if not words:
        raise NotationError("the text is empty: write a card to play, such as play 23")
    head, rest = words[0], words[1:]
    if head == "play":
        if not rest or not _is_number(rest[0]):
            raise NotationError(f"{text.strip()!r}: write play and a card of your hand, "
                                f"such as play 23 or play 23 row 2")
        return ("play", int(rest[0]), read_pref(rest[1:]))
    if head == "pref":
        if rest in (["none"], ["ask"]):
            return ("pref", NO_PREF)
        if not rest:
            raise NotationError("pref needs a preference, such as pref row 1 2 low, or "
                                "pref none to clear it")
        return ("pref", read_pref(rest))
    if head in ("row", "take"):
        if len(rest) != 1 or not _is_number(rest[0]):
            raise NotationError(f"{text.strip()!r}: write {head} and one row number, "
                                f"such as {head} 3")
        return (head, _row(rest[0]))
    if head in ("draw", "left", "rows"):
        return _read_dealer(head, rest, text)
    if _is_number(head) and not rest:
        return ("number", int(head))
    if _is_number(head):
        return ("play", int(head), read_pref(rest))
    raise NotationError(f"{text.strip()!r} is not a Baron Oxx move: write play 23 to "
                        f"choose a card, row 3 or take 3 when asked where it goes, or "
                        f"pref row 1 low for a standing preference")


def read_pref(words: list[str]) -> Pref:
    """`row 2 4 take 5 low` as words; the clauses may come in any order."""
    lists: dict[str, list[int]] = {}
    pick, target = "", None
    for word in words:
        if word in ("row", "rows", "take"):
            key = "take" if word == "take" else "row"
            if key in lists:
                raise NotationError(f"{key} appears twice: list all its rows once, "
                                    f"such as {key} 2 4")
            target = lists[key] = []
        elif word in ("low", "high"):
            if pick:
                raise NotationError("write one of low or high, once")
            pick, target = word, None
        elif _is_number(word) and target is not None:
            row = _row(word)
            if row in target:
                raise NotationError(f"row {word} is listed twice")
            target.append(row)
        else:
            raise NotationError(f"{word!r} is not part of a preference: write row and "
                                f"rows to place in, take and rows to take, low or high")
    for key, rows in lists.items():
        if not rows:
            raise NotationError(f"{key} needs row numbers after it, such as {key} 2 4")
    return (tuple(lists.get("row", ())), tuple(lists.get("take", ())), pick)


def _read_dealer(head: str, rest: list[str], text: str) -> tuple:
    seat = None
    if head != "rows":
        if not rest or not rest[0].startswith("#") or not _is_number(rest[0][1:]) \
                or int(rest[0][1:]) < 1:
            raise NotationError(f"{text.strip()!r}: the dealer writes {head} #SEAT and the "
                                f"cards, such as {head} #2 3 18 77 90")
        seat, rest = int(rest[0][1:]) - 1, rest[1:]
    if not rest or not all(_is_number(word) for word in rest):
        raise NotationError(f"{text.strip()!r}: {head} needs card numbers")
    cards = tuple(int(word) for word in rest)
    return (head, cards) if seat is None else (head, seat, cards)


def _row(word: str) -> int:
    if not 1 <= int(word) <= ROWS:
        raise NotationError(f"there is no row {word}: the rows are numbered 1 to {ROWS}")
    return int(word) - 1


def _is_number(word: str) -> bool:
    return word.isascii() and word.isdigit() and len(word) <= 4
