"""Gem Forge move texts: how players' and the dealer's decisions are written and read.

The grammar is in notation/gemforge.md. A player's text is matched against the legal
decisions (pbem.engines.gemforge.engine parses by filtering `legal`), so this module only folds
spellings (`words`) and writes the canonical text (`decision_text`); a dealer's text is
read and checked here (`read_deal`), since shuffles are too many to list.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from notation.seats import SeatNameError, seat_named
from pbem.engines.base import IllegalMove, InvalidMove
from pbem.engines.gemforge.rules import card_words, chance_need
from pbem.engines.gemforge.state import (CARD_NAMES, DECK, GEMS, PREFS, SETUP, GemState,
                                         seat_name, tiles)


# -- players' moves --------------------------------------------------------------------

COLOUR_WORDS = {"red": "r", "green": "g", "yellow": "y", "blue": "l", "lightblue": "l",
                "light-blue": "l", "lb": "l"}
VERBS = ("take", "set", "discard", "draw", "play", "cash", "pick", "refresh", "end", "keep",
         "pass", "drop", "pref")


@lru_cache(maxsize=None)
def tile_aliases() -> dict[str, str]:
    """t5, t05 and T05 all name tile T05 (any id: its prefix, then its number)."""
    aliases = {}
    for tile_id in tiles():
        aliases[tile_id.lower()] = tile_id.lower()
        match = re.fullmatch(r"([a-z]*)0*(\d+)", tile_id.lower())
        if match:
            aliases[match[1] + match[2]] = tile_id.lower()
    return aliases


#: Words that are notation, so never read as the start of a player's name.
KEYWORDS = frozenset(VERBS) | {"keep", "set"} | set(PREFS) | {v for vs in PREFS.values()
                                                               for v in vs}


def words(text: str, names: Sequence[str] | None = None) -> tuple[str, ...]:
    """A move text folded for comparison: case, colour names, tile and seat spellings;
    given the players' display names, a word no other spelling reads that names one
    player (or starts only their name) is that seat (`take-from-cart bob Y`)."""
    out: list[str] = []
    text = re.sub(r"light[\s_-]+blue", "l", text.lower().replace(",", " "))
    for word in text.split():
        word = COLOUR_WORDS.get(word, word)
        if re.fullmatch(r"[rgyl]+", word):
            out.extend(word)
        elif word in tile_aliases():
            out.append(tile_aliases()[word])
        elif match := re.fullmatch(r"(?:p|seat)(\d+)", word):
            out.append("p" + match[1])
        else:
            word = word.replace("_", "-")
            card = next((c for c in CARD_NAMES if c.replace("-", "") == word
                         .replace("-", "")), None)
            out.append(card or _seat_or_word(word, names))
    if out and out[0] in CARD_NAMES:
        out.insert(0, "play")  # "cancel" for "play cancel"
    return tuple(out)


def _seat_or_word(word: str, names: Sequence[str] | None) -> str:
    if word in KEYWORDS or word.isdigit():
        return word
    try:
        seat = seat_named(word, names)
    except SeatNameError as error:
        raise InvalidMove(f"{error}.") from None
    return word if seat is None else "p" + str(seat + 1)


def meaning(folded: tuple[str, ...]) -> tuple:
    """What folded words mean, for matching: the parts that are sets — the tiles kept,
    cashed or the cards dropped, the gems kept by mine or taken by take-from-cart, the
    two sets of set-two — in a fixed order, so any written order matches (G4a: only
    discard-gems returns gems in the order written)."""
    head = folded[:1]
    if head and head[0] in ("keep", "cash", "drop"):
        return (head[0], *sorted(folded[1:]))
    if folded[:2] == ("play", "mine") and "keep" in folded:
        at = folded.index("keep") + 1
        return (*folded[:at], *sorted(folded[at:]))
    if folded[:2] == ("play", "take-from-cart"):
        return (*folded[:3], *sorted(folded[3:]))
    if folded[:2] == ("play", "set-two") and len(folded) == 6:
        return (*folded[:2], *sorted([folded[2:4], folded[4:6]]))
    return folded


def decision_text(decision: tuple) -> str:
    """The canonical text of a player's decision."""
    kind = decision[0]
    if kind == "play":
        return "play " + card_words(decision[1], decision[2])
    if kind in ("cash", "keep", "drop"):
        return " ".join((kind, *decision[1]))
    if kind in ("pick", "refresh"):
        return f"{kind} {decision[1] + 1}"
    return " ".join(map(str, decision))


# -- the dealer's moves ------------------------------------------------------------------

def deal_text(decision: tuple) -> str:
    """The canonical text of a dealer's move: `first P2`, `mine RGYL...`, `cards ...`."""
    kind, what = decision
    if kind == "first":
        return f"first {seat_name(what)}"
    return f"{kind} {what}" if kind == "mine" else " ".join((kind, *what))


def read_deal(state: GemState, text: str) -> tuple:
    """A dealer's move (G4, G6–G8, G19, G26), checked against what the game needs now."""
    need = chance_need(state)
    kind, *rest = text.split() or [""]
    if need is None:
        raise IllegalMove("the dealer has nothing to deal now")
    if kind.lower() != need:
        raise InvalidMove(f"{text[:30]!r}: the dealer's move here is '{need} ...'")
    if need == "first":
        match = re.fullmatch(r"[pP](\d+)", "".join(rest))
        if not match or not 1 <= int(match[1]) <= state.players:
            raise InvalidMove(f"write first and a seat, P1 to P{state.players}")
        return ("first", int(match[1]) - 1)
    if need == "mine":
        order = "".join(rest).upper()
        if sorted(order) != sorted(GEMS):
            raise InvalidMove("the mine is the 40 gems, 10 each of R G Y L, front first")
        return ("mine", order)
    if need == "cards":
        order = tuple(w.lower() for w in rest)
    else:
        order = tuple(tile_aliases().get(w.lower(), w).upper() for w in rest)
    pool = to_shuffle(state, need)
    if sorted(order) != sorted(pool):
        raise InvalidMove(f"the dealer shuffles exactly these {len(pool)} {need}: "
                          f"{' '.join(sorted(pool))}")
    return (need, order)


def to_shuffle(state: GemState, need: str) -> tuple:
    """The cards or tiles the dealer shuffles: all at the start; later the discard,
    less the tiles discarded in the step that needs the new deck (G19, G26)."""
    if state.setup < len(SETUP):
        return DECK if need == "cards" else tuple(tiles())
    if need == "cards":
        return state.discard
    return tuple(t for t in state.tile_discard if t not in state.fresh)
