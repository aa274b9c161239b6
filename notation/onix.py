"""Onix decision notation as text: `take X C`, `place C -> 3`, `steal P2 4 -> new`, deals.

Pure text, no position: what a player (or the dealer) wrote, read into an `OnixText`
whose unwritten parts are None, and the canonical form written back. The engine matches
an `OnixText` against the decisions legal now, so a part may be left out wherever only
one legal decision fits. Gems are letters or names: O circle, S square, D diamond,
X cross. A card is its gems in that order (`OX`). Piles are A–E, players P1–P6 (or,
given the players' names, a name or an unambiguous prefix of one: `steal bob 2`),
Collections by number or `new`. Input is case-insensitive; `->` (or `>`, `to`) between
a card's source and its place is optional.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from notation.seats import SeatNameError, seat_named, spoken_name

GEMS = "OSDX"  # bit 1, 2, 4, 8: a card is the set of its gems
GEM_NAMES = ("circle", "square", "diamond", "cross")
EFFECTS = ("draw", "hoard", "steal", "destroy")  # of each gem, in the same order
PILES = "ABCDE"
NEW = "new"
VERBS = ("take", "place") + EFFECTS


class NotationError(ValueError):
    """The text is not an Onix decision; the message says what would be."""


@dataclass(frozen=True)
class OnixText:
    """What a decision text says, before any position is consulted; None = not written."""

    verb: str  # take, place, draw, hoard, steal, destroy or deal
    gem: int | None = None  # a gem's bit
    pile: int | None = None  # 0 = A
    seat: int | None = None  # 0 = P1
    collection: int | None = None  # the Collection a card is taken from (steal, destroy)
    target: int | str | None = None  # a Collection number or NEW
    first: int | None = None  # deal: the first player
    piles: tuple[tuple[int, ...], ...] | None = None  # deal: bottom card first


def card_text(card: int) -> str:
    return "".join(letter for i, letter in enumerate(GEMS) if card >> i & 1)


def gem_name(gem: int) -> str:
    return GEM_NAMES[gem.bit_length() - 1]


def effect_of(gem: int) -> str:
    return EFFECTS[gem.bit_length() - 1]


def seat_text(seat: int, names: Sequence[str] | None = None) -> str:
    """`P2`; given the players' names, the name an example may use for the seat."""
    return spoken_name(seat, names, f"P{seat + 1}", reserved=(*VERBS, NEW, "n", "to", "deal"))


def read_card(word: str) -> int:
    """`OX`, `xo` -> the card's bits; raises NotationError."""
    word = word.strip().upper()
    if not word or any(letter not in GEMS for letter in word) or len(set(word)) != len(word):
        raise NotationError(f"{word!r} is not a card: write its gems with the letters "
                            f"O S D X (circle, square, diamond, cross), such as X or OX.")
    return sum(1 << GEMS.index(letter) for letter in word)


def read_gem(word: str) -> int | None:
    word = word.lower()
    if len(word) == 1 and word.upper() in GEMS:
        return 1 << GEMS.index(word.upper())
    for i, name in enumerate(GEM_NAMES):
        if word in (name, name + "s", name + "es"):
            return 1 << i
    return None


_SEAT = re.compile(r"p(\d)$")
_ARROW = re.compile(r"->|=>|>")
_GROUP = re.compile(r"([a-e])=(.*)$")


def read_decision(text: str, names: Sequence[str] | None = None) -> OnixText:
    """Read one decision; raises NotationError with a message for the player. `names`,
    the players' display names by seat, lets a steal or destroy name a player by name."""
    raw = " ".join(text.split())
    words = _ARROW.sub(" -> ", raw.lower().replace("#", " ")).split()
    words = ["->" if w == "to" else w for w in words]
    if not words:
        raise NotationError("an empty line is no decision. " + _HELP)
    if "," in raw and words[0] != "deal":
        raise NotationError(f"{raw!r}: one decision at a time (write the decisions of a "
                            f"turn on separate lines, or separated by commas).")
    verb = words[0]
    if verb == "deal":
        return _read_deal(raw, words[1:])
    if verb not in VERBS:
        return _read_unnamed(raw, words)
    source, target = _split_target(raw, words[1:])
    if verb == "take":
        return _read_take(raw, source)
    if verb in ("place", "draw", "hoard"):
        if verb == "hoard" and target is not None:
            raise NotationError(f"{raw!r}: hoard takes a card into your Hoard, not onto a "
                                f"Collection; write hoard A.")
        if len(source) > 1 or (source and _pile(source[0]) is None):
            raise NotationError(f"{raw!r}: {verb} names a pile (A–E), such as "
                                f"{_EXAMPLES[verb]}.")
        return OnixText(verb, pile=_pile(source[0]) if source else None, target=target)
    return _read_from_collection(raw, verb, source, target, names)


_HELP = ("A turn: take X C, then place C -> 3 (or place C -> new) for each card taken, "
         "then the effect: draw A -> 2, hoard A, steal P2 4 -> new or destroy P2 4.")
_EXAMPLES = {"place": "place C -> 3 or place C -> new", "draw": "draw A -> 3 or draw A -> new",
             "hoard": "hoard A", "steal": "steal P2 4 -> new", "destroy": "destroy P2 4"}


def _pile(word: str) -> int | None:
    return PILES.index(word.upper()) if len(word) == 1 and word.upper() in PILES else None


def _read_target(raw: str, word: str) -> int | str:
    if word in (NEW, "n"):
        return NEW
    if word.isascii() and word.isdigit():
        return int(word)
    raise NotationError(f"{raw!r}: a card goes on a Collection by its number, or on a new "
                        f"one with 'new' (not {word!r}).")


def _split_target(raw: str, words: list[str]) -> tuple[list[str], int | str | None]:
    """The words naming where a card comes from, and where it goes (None: not written)."""
    if "->" in words:
        at = words.index("->")
        if at != len(words) - 2:
            raise NotationError(f"{raw!r}: write one Collection number or 'new' after '->'.")
        return words[:at], _read_target(raw, words[-1])
    if words and (words[-1] in (NEW, "n") or (words[-1].isdigit() and words[0] != "take"
                                               and _pile(words[0]) is not None)):
        return words[:-1], _read_target(raw, words[-1])
    return words, None


def _read_take(raw: str, words: list[str]) -> OnixText:
    gem = read_gem(words[0]) if words else None
    pile = _pile(words[1]) if len(words) == 2 else None
    if gem is None or len(words) > 2 or (len(words) == 2 and pile is None):
        raise NotationError(f"{raw!r}: write take, a Gem (O, S, D, X or its name) and the "
                            f"pile to take it from, such as take X C.")
    return OnixText("take", gem=gem, pile=pile)


def _read_unnamed(raw: str, words: list[str]) -> OnixText:
    """Without a verb: `X C` is a take, `C -> 3` or `C new` a placement."""
    source, target = _split_target(raw, words)
    if target is not None and len(source) == 1 and _pile(source[0]) is not None:
        return OnixText("place", pile=_pile(source[0]), target=target)
    if target is None and read_gem(words[0]) is not None:
        return _read_take(raw, words)
    raise NotationError(f"{raw!r} is not an Onix decision. " + _HELP)


def _read_from_collection(raw: str, verb: str, words: list[str],
                          target: int | str | None,
                          names: Sequence[str] | None = None) -> OnixText:
    """steal/destroy: [P2 or a name] [4], or the bare numbers `2 4` (player 2,
    Collection 4)."""
    if verb == "destroy" and target is not None:
        raise NotationError(f"{raw!r}: a destroyed card goes to the discard; write "
                            f"destroy P2 4 (player 2's Collection 4).")
    seat = None
    if words and (match := _SEAT.match(words[0])):
        seat, words = int(match.group(1)) - 1, words[1:]
    elif words and not words[0].isdigit():
        try:
            named = seat_named(words[0], names)
        except SeatNameError as error:
            raise NotationError(f"{raw!r}: {error}.") from None
        if named is not None:
            seat, words = named, words[1:]
    wrong = NotationError(f"{raw!r}: {verb} names a player and one of their Collections, "
                          f"such as {_EXAMPLES[verb]}.")
    if not all(w.isascii() and w.isdigit() for w in words):
        raise wrong
    numbers = [int(w) for w in words]
    if verb == "steal" and target is None and len(numbers) == 3 - (seat is not None):
        target = numbers.pop()  # steal P2 4 3: onto Collection 3
    if len(numbers) > 2 - (seat is not None):
        raise wrong
    if len(numbers) == 2:
        seat = numbers.pop(0) - 1
    return OnixText(verb, seat=seat, collection=numbers[0] if numbers else None,
                    target=target)


def _read_deal(raw: str, words: list[str]) -> OnixText:
    """`deal first P2 A=S,O,OX B=... C=... D=... E=...`, each pile bottom card first."""
    words = " ".join(words).replace("first=", "first ").split()
    if len(words) != 7 or words[0] != "first" or not _SEAT.match(words[1]):
        raise NotationError(f"{raw!r}: a deal is written deal first P2 A=S,O,OX B=… C=… "
                            f"D=… E=… (each pile from its bottom card to its top).")
    piles = []
    for letter, word in zip(PILES.lower(), words[2:]):
        match = _GROUP.match(word)
        if not match or match.group(1) != letter:
            raise NotationError(f"{raw!r}: the piles are given in the order A to E, as "
                                f"{letter.upper()}=S,O,OX; {word!r} was read instead.")
        cards = [c for c in match.group(2).split(",") if c not in ("", "-")]
        piles.append(tuple(read_card(card) for card in cards))
    return OnixText("deal", first=int(_SEAT.match(words[1]).group(1)) - 1, piles=tuple(piles))


def format_decision(move: OnixText, names: Sequence[str] | None = None) -> str:
    """The canonical text of a fully written decision; given the players' names, the
    text an example shows, naming a player as people do (`steal bob 2 -> new`)."""
    arrow = f" -> {move.target}" if move.target is not None else ""
    if move.verb == "take":
        return f"take {GEMS[move.gem.bit_length() - 1]} {PILES[move.pile]}"
    if move.verb in ("place", "draw", "hoard"):
        return f"{move.verb} {PILES[move.pile]}{arrow}"
    if move.verb in ("steal", "destroy"):
        return f"{move.verb} {seat_text(move.seat, names)} {move.collection}{arrow}"
    groups = " ".join(f"{PILES[i]}={','.join(map(card_text, pile)) or '-'}"
                      for i, pile in enumerate(move.piles))
    return f"deal first {seat_text(move.first)} {groups}"


def matches(written: OnixText, full: OnixText) -> bool:
    """Whether what was written fits a fully written decision: every written part agrees."""
    return written.verb == full.verb and all(
        mine is None or mine == theirs
        for mine, theirs in ((written.gem, full.gem), (written.pile, full.pile),
                             (written.seat, full.seat), (written.collection, full.collection),
                             (written.target, full.target)))
