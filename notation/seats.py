"""Seats named the way players name each other: by display name, or a prefix of it.

Canonical move texts name seats by number (`P2`), so a record never depends on what
players call themselves (a name may change mid-game); a player may still write `bob` or
`bo` for the seat of Bob, if no other player's name starts the same way. Pure text: the
names come from the server, by seat.
"""

from __future__ import annotations

import re
from typing import Sequence


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
