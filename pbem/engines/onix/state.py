"""Onix: the cards, the state and the pure helpers the engine is made of (RULINGS X1–X13).

A card is the set of its gems as bits (circle 1, square 2, diamond 4, cross 8): copies of
a card are alike, so the state holds gem sets, not card ids. The engine that changes the
state is in pbem.engines.onix.engine, what it says to players in pbem.engines.onix.messages.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from notation.onix import EFFECTS

ALL_GEMS = 0b1111
DEAL, TAKE, PLACE, EFFECT, OVER = "deal", "take", "place", "effect", "over"
DRAW, HOARD, STEAL, DESTROY = EFFECTS
REPEAT = "repeat"  # ("repeat", text): an automatic decision sent again by its player (an
# echo: not in `legal`, accepted by `parse` when it agrees with what was done, X13a)


# -- the cards ---------------------------------------------------------------------------

@lru_cache(maxsize=None)
def card_list() -> tuple[int, ...]:
    """Every card in the data file's order (id order), as gem bits (X1)."""
    text = resources.files("pbem.engines.onix").joinpath("cards.csv").read_text()
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    names = {name: 1 << i for i, name in enumerate(("circle", "square", "diamond", "cross"))}
    cards = []
    for row in sorted(rows, key=lambda row: int(row["id"])):
        gems = row["gems"].split()
        if not 1 <= len(gems) <= 2 or len(set(gems)) != len(gems):
            raise ValueError(f"onix-cards.csv card {row['id']}: one gem or two different ones")
        cards.append(sum(names[gem] for gem in gems))
    return tuple(cards)


@lru_cache(maxsize=None)
def draw_deck(players: int) -> tuple[int, ...]:
    """The cards left for the piles once each player has one single card per gem (X2)."""
    deck = list(card_list())
    for _ in range(players):
        for gem in (1, 2, 4, 8):
            deck.remove(gem)
    return tuple(deck)


def pile_sizes(players: int) -> list[int]:
    """X3: round-robin into five piles, the extra cards on the first piles."""
    total = len(draw_deck(players))
    return [total // 5 + (i < total % 5) for i in range(5)]


def gems_in(cards) -> int:
    mask = 0
    for card in cards:
        mask |= card
    return mask


def symbols(collections) -> int:
    """Gem symbols in Collections (a double card counts 2): the tie-break of X21."""
    return sum(bin(card).count("1") for _, cards in collections for card in cards)


# -- state -------------------------------------------------------------------------------

Collection = tuple[int, tuple[int, ...]]  # (number, cards bottom first; the top is last)


@dataclass(frozen=True)
class OnixState:
    players: int
    advanced: bool
    collections: tuple[tuple[Collection, ...], ...]
    next_number: tuple[int, ...]  # the number a seat's next new Collection gets (X13)
    hoards: tuple[tuple[int, ...], ...]
    piles: tuple[tuple[int, ...], ...] = ((),) * 5  # bottom first; the top is last
    discard: tuple[int, ...] = ()
    phase: str = DEAL
    turn: int = 0  # the active seat
    gem: int = 0  # the gem announced this turn
    retrieved: tuple[tuple[int, int], ...] = ()  # (pile, card) still to place, clockwise
    log: tuple[tuple[int, str, bool], ...] = ()  # this turn: (seat, text, automatic)
    last_turn: tuple[tuple[int, str, bool], ...] = ()
    autos: tuple[tuple[int, str, tuple[str, ...]], ...] = ()  # repeatable: seat, text, aliases
    echoed: tuple[str, ...] = ()  # the autos their player has sent again (X13a, X24)
    automatic: tuple[tuple[int, str], ...] = ()  # what the last decision led to by itself
    winners: tuple[int, ...] = ()
    reason: str = ""


def in_circle(state: OnixState) -> list[int]:
    """The piles in the circle, clockwise: every non-empty one (X4, X20)."""
    return [p for p in range(5) if state.piles[p]]


def chains(state: OnixState, gem: int) -> list[list[int]]:
    """X8: maximal runs of adjacent piles whose tops show `gem`, each from its first pile."""
    circle = in_circle(state)
    shows = [bool(state.piles[p][-1] & gem) for p in circle]
    if circle and all(shows):
        return [circle]
    n, runs = len(circle), []
    for k in range(n):
        if shows[k] and not shows[k - 1]:
            run = []
            while shows[(k + len(run)) % n]:
                run.append(circle[(k + len(run)) % n])
            runs.append(run)
    return runs


def fits(cards: tuple[int, ...], card: int) -> bool:
    """X11: a Collection takes a card that shares no gem with its cards."""
    return not gems_in(cards) & card


# -- snapshots: tuples to JSON lists and back ------------------------------------------

def to_lists(value):
    if isinstance(value, (tuple, list)):
        return [to_lists(v) for v in value]
    return value


def to_tuples(value):
    if isinstance(value, list):
        return tuple(to_tuples(v) for v in value)
    return value
