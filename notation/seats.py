"""Seats named the way players name each other: by display name, or a prefix of it;
and the one word a record labels each seat with, made from its player's name.

Canonical move texts name seats by number (`P2`), so a record never depends on what
players call themselves (a name may change mid-game); a player may still write `bob` or
`bo` for the seat of Bob, if no other player's name starts the same way. Pure text: the
names come from the server, by seat.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Sequence

from notation.record import LABEL


class SeatNameError(ValueError):
    """A word that starts several players' names; the message says whose."""


_SAFE = re.compile(r"[a-z][a-z0-9_.+-]*$")


def seat_named(word: str, names: Sequence[str] | None) -> int | None:
    """The seat whose display name is `word` or starts with it (any case); None when no
    name fits; SeatNameError when several do and none is exactly `word`."""
    if not names or not word:
        return None
    word = word.lower()
    lowered = [name.strip().lower() for name in names]
    exact = [seat for seat, name in enumerate(lowered) if name == word]
    if len(exact) == 1:
        return exact[0]
    found = [seat for seat, name in enumerate(lowered) if name.startswith(word)]
    if len(found) > 1:
        raise SeatNameError(f"{word!r} could be {' or '.join(names[s] for s in found)}: "
                            f"write more of the name, or the seat's number")
    return found[0] if found else None


def spoken_name(seat: int, names: Sequence[str] | None, fallback: str,
                reserved: Sequence[str] = ()) -> str:
    """How an example names a seat: the first word of the player's name when it reads
    back as that seat (one safe word, not `reserved`), else `fallback` (`P2`)."""
    if not names or not 0 <= seat < len(names) or not names[seat].split():
        return fallback
    word = names[seat].split()[0].lower()
    if not _SAFE.match(word) or word in reserved or re.fullmatch(r"p\d+", word):
        return fallback
    try:
        return word if seat_named(word, names) == seat else fallback
    except SeatNameError:
        return fallback


def record_labels(names: Sequence[str], dealer: str = "Dealer") -> list[str]:
    """How a record labels each seat (`Label: text;`): its player's name as one word
    (`label_word`: `Ann Smith` is `Ann_Smith`), so that every seat is named the way the
    news names it; the seat's number (`1`, `2`, …) only where a name gives no such word
    (no letter or digit in it, all digits, `Dealer`) or two names give the same one
    (any case). The same names always give the same labels, so a record reads back."""
    words = [label_word(name) for name in names]
    lowered = [word.lower() for word in words]
    return [word if (LABEL.match(word) and not word.isdigit() and word.lower() != dealer.lower()
                     and lowered.count(word.lower()) == 1) else str(seat + 1)
            for seat, word in enumerate(words)]


def label_word(name: str) -> str:
    """A name as one word of a label: accents dropped (`José` is `Jose`), spaces as `_`,
    other characters a label cannot hold left out; a one-word name stays as it is."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", name)
                     if not unicodedata.combining(c))
    word = re.sub(r"[^A-Za-z0-9_.+-]", "", "_".join(folded.split()))
    return word.lstrip("_.+-")
