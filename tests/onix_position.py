"""Onix positions written as text, for tests that read like the rulebook.

    piles: A=[S X] B=[OX] C=[] D=[D] E=[X]      # bottom card first, top card last
    P1: 1=[O] 2=[S D] hoard=3                   # Collections by number; Hoard size
    P2: 1=[X]
    turn: P1  step: take  discard: 2  advanced

Cards are their gems: O circle, S square, D diamond, X cross. A Hoard of N holds N
circle cards (only its size matters), and so does the discard. A player's next new
Collection gets the highest number written + 1 unless `next=N` says otherwise.
"""

from __future__ import annotations

import re

from notation.onix import card_text, read_card
from pbem.engines.onix.engine import Onix
from pbem.engines.onix.state import OnixState

ENGINE = Onix()
_GROUP = re.compile(r"(\w+)=\[([^\]]*)\]")


def _cards(text: str) -> tuple[int, ...]:
    return tuple(read_card(card) for card in text.split())


def position(text: str) -> OnixState:
    piles, collections, hoards, nexts = ((),) * 5, [], [], []
    settings = {"turn": "P1", "step": "take", "discard": "0"}
    advanced = False
    for line in text.strip().splitlines():
        line = line.split("#")[0].strip()
        if line.startswith("piles:"):
            found = dict(_GROUP.findall(line))
            piles = tuple(_cards(found.get(letter, "")) for letter in "ABCDE")
        elif re.match(r"P\d:", line):
            own = tuple((int(n), _cards(cards)) for n, cards in _GROUP.findall(line))
            collections.append(own)
            hoard = re.search(r"hoard=(\d+)", line)
            hoards.append((1,) * int(hoard.group(1)) if hoard else ())
            number = re.search(r"next=(\d+)", line)
            nexts.append(int(number.group(1)) if number else
                         max([n for n, _ in own] + [4]) + 1)
        elif line:
            advanced = advanced or "advanced" in line
            settings.update(re.findall(r"(\w+):\s*(\w+)", line))
    return OnixState(len(collections), advanced, tuple(collections), tuple(nexts),
                     tuple(hoards), piles=piles, discard=(1,) * int(settings["discard"]),
                     phase=settings["step"], turn=int(settings["turn"][1:]) - 1)


def play(state: OnixState, *texts: str, seat: int | None = None) -> OnixState:
    """Play decision texts in order for the active seat (or `seat`)."""
    for text in texts:
        who = state.turn if seat is None else seat
        state = ENGINE.apply(state, who, ENGINE.parse(state, who, text))
    return state


def collections(state: OnixState, seat: int) -> dict[int, str]:
    """A seat's Collections as {number: 'O SD'} (cards bottom first)."""
    return {n: " ".join(map(card_text, cards)) for n, cards in state.collections[seat]}


def tops(state: OnixState) -> str:
    return " ".join(f"{letter}={card_text(p[-1]) if p else '-'}"
                    for letter, p in zip("ABCDE", state.piles))
