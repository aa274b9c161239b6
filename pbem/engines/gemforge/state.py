"""Gem Forge: the state, the components and the small pure helpers the rules are made of.

Gems are letters (R red, G green, Y yellow, L light blue). The mine is a string, front
first; a cart is a string, oldest gem first; an ornament is (tile id, one character per
slot: a gem or '.'). Seats are written P1, P2, … in move texts. Action cards are named
by their hyphenated names in CARDS. pbem.engines.gemforge.rules builds the rules on these.
"""

from __future__ import annotations

import csv
import io
import random
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from itertools import combinations, permutations

from pbem.engines.core import change  # noqa: F401 (the engine's modules import it from here)

COLOURS = "RGYL"
COLOUR_NAMES = {"R": "red", "G": "green", "Y": "yellow", "L": "light blue"}
CART, HAND_LIMIT, MARKET, KEEP, DEALT_TILES = 3, 4, 4, 3, 5
WIN, THRESHOLDS = 20, (5, 10, 15)
GEMS = COLOURS * 10

#: (name, copies, played on): "turn" costs an action, "window" is a lightning card.
CARDS = (("swap-ornaments", 2, "turn"), ("swap-gems", 2, "turn"),
         ("take-from-ornament", 2, "turn"), ("three-cards", 2, "turn"),
         ("discard-gems", 4, "turn"), ("mine", 6, "turn"), ("take-from-cart", 2, "turn"),
         ("set-two", 2, "turn"), ("cancel", 4, "window"), ("copy-take", 4, "window"),
         ("copy-set", 4, "window"))
CARD_NAMES = tuple(name for name, _, _ in CARDS)
OWN_TURN = tuple(name for name, _, when in CARDS if when == "turn")
LIGHTNING = tuple(name for name, _, when in CARDS if when == "window")
DECK = tuple(name for name, copies, _ in CARDS for _ in range(copies))

#: Standing answers per window type (G38), the first value of each is its default.
PREFS = {"cancel": ("ask-if-targeted", "ask", "pass"),
         "copy-take": ("pass", "ask", "auto"), "copy-set": ("pass", "ask", "auto")}
WINDOWS = tuple(PREFS)
SETUP = ("first", "mine", "cards", "tiles")  # the dealer's setup moves, in order


@dataclass(frozen=True)
class Tile:
    """One ornament tile's face (G1): slots are colour letters or '*' for rainbow."""

    id: str
    name: str
    background: str
    slots: str
    points: int
    set_bonus: int

    @property
    def light(self) -> bool:
        return self.background == "light blue"

    @property
    def rainbow(self) -> bool:
        return "*" in self.slots

    def face(self) -> dict:
        return {"tile": self.id, "name": self.name, "background": self.background,
                "slots": self.slots, "points": self.points, "set_bonus": self.set_bonus}


@lru_cache(maxsize=None)
def tiles() -> dict[str, Tile]:
    """The ornament tiles from the assumed data file, by id, in file order."""
    text = (resources.files("pbem.engines.gemforge") / "tiles.csv").read_text()
    rows = csv.DictReader(io.StringIO("".join(
        line for line in text.splitlines(keepends=True) if not line.startswith("#"))))
    table = {}
    for row in rows:
        tile = Tile(row["id"].strip(), row["name"].strip(), row["background"].strip(),
                    row["slots"].strip(), int(row["points"]), int(row["set_bonus"]))
        if tile.rainbow and not tile.light:
            raise ValueError(f"{tile.id}: a rainbow ornament must be light blue (G1)")
        table[tile.id] = tile
    return table


@dataclass(frozen=True)
class GemState:
    players: int
    setup: int = 0                   # dealer's setup moves done (SETUP)
    first: int = 0
    active: int = 0
    actions: int = 0                 # actions used this turn
    mine: str = ""
    carts: tuple = ()                # per seat: gems, oldest first
    hands: tuple = ()                # per seat: action cards in the order drawn
    deck: tuple = ()                 # action cards, top first
    discard: tuple = ()
    ornaments: tuple = ()            # per seat: ((tile id, slot gems), ...)
    dealt: tuple = ()                # per seat: the 5 tiles dealt at setup (until the reveal)
    kept: tuple = ()                 # per seat: the 3 chosen, () while undecided
    market: tuple = ()
    tiles: tuple = ()                # the tile deck, top first
    tile_discard: tuple = ()
    fresh: tuple = ()                # tiles discarded in this step: not reshuffled (G19)
    points: tuple = ()
    prefs: tuple = ()                # per seat: one standing answer per WINDOWS entry
    pending: tuple = ()              # steps (dicts), head first
    winner: int | None = None
    news: tuple = ()                 # the last public events, (number, text)
    events: int = 0
    automatic: tuple = ()            # what the last decision led to by itself: (seat, text)


# -- small pure helpers ----------------------------------------------------------------

def seat_name(seat: int) -> str:
    return f"P{seat + 1}"


def clockwise(state: GemState, start: int) -> list[int]:
    return [(start + k) % state.players for k in range(state.players)]


def put(row: tuple, index: int, value) -> tuple:
    return row[:index] + (value,) + row[index + 1:]


def without(gems: str, gem: str) -> str:
    """`gems` less its oldest `gem`."""
    i = gems.index(gem)
    return gems[:i] + gems[i + 1:]


def remove_cards(hand: tuple, cards) -> tuple:
    """The hand less one copy of each card, the latest drawn copy first."""
    hand = list(hand)
    for card in cards:
        del hand[len(hand) - 1 - hand[::-1].index(card)]
    return tuple(hand)


@lru_cache(maxsize=None)  # a few thousand (tile, slots, gem): asked at every decision
def accepts(tile_id: str, gems: str, gem: str) -> bool:
    """Whether an ornament takes `gem` in one of its empty slots (G12, G13)."""
    tile = tiles()[tile_id]
    if "." not in gems:
        return False
    if tile.rainbow:
        return all(g in (".", gem) for g in gems)
    set_colours = {g for g in gems if g != "."}
    if tile.light and set_colours - {gem}:
        return False
    return any(slot == gem and g == "." for slot, g in zip(tile.slots, gems))


def place(tile_id: str, gems: str, gem: str) -> str:
    tile = tiles()[tile_id]
    for i, (slot, g) in enumerate(zip(tile.slots, gems)):
        if g == "." and slot in (gem, "*"):
            return gems[:i] + gem + gems[i + 1:]
    raise ValueError(f"{tile_id} does not take {gem}")


def complete(ornament) -> bool:
    return "." not in ornament[1]


def empty_ornament(tile_id: str) -> tuple:
    return (tile_id, "." * len(tiles()[tile_id].slots))


def owner_of(state: GemState, tile_id: str) -> int | None:
    for seat, row in enumerate(state.ornaments):
        if any(o[0] == tile_id for o in row):
            return seat
    return None


def ornament(state: GemState, seat: int, tile_id: str) -> tuple:
    return next(o for o in state.ornaments[seat] if o[0] == tile_id)


def set_options(state: GemState, seat: int, cart: str | None = None,
                row: tuple | None = None) -> list[tuple[str, str]]:
    """Every (gem, tile) a seat may set now: distinct gems, ornaments in the order held."""
    cart = state.carts[seat] if cart is None else cart
    row = state.ornaments[seat] if row is None else row
    return [(gem, o[0]) for gem in sorted(set(cart), key=COLOURS.index)
            for o in row if accepts(o[0], o[1], gem)]


def can_set(state: GemState, seat: int) -> bool:
    """Whether `set_options` has any (gem, tile)."""
    row = state.ornaments[seat]
    return any(accepts(o[0], o[1], gem) for gem in set(state.carts[seat]) for o in row)


def set_gem(state: GemState, seat: int, gem: str, tile_id: str) -> GemState:
    row = tuple((o[0], place(o[0], o[1], gem)) if o[0] == tile_id else o
                for o in state.ornaments[seat])
    return change(state, carts=put(state.carts, seat, without(state.carts[seat], gem)),
                  ornaments=put(state.ornaments, seat, row))


def say(state: GemState, text: str, **fields) -> GemState:
    """Add a public event to the news (the last 12 are kept), with `fields` changed in
    the same copy of the state."""
    number = state.events + 1
    return change(state, events=number, news=(state.news + ((number, text),))[-12:],
                  **fields)


def push(state: GemState, *steps: dict) -> GemState:
    return change(state, pending=tuple(steps) + state.pending)


def pop(state: GemState) -> GemState:
    return change(state, pending=state.pending[1:])


def cash_options(state: GemState, seat: int) -> list[tuple[str, ...]]:
    """Complete tiles a seat may cash (G14–G16): a brown one alone, a light-blue one
    alone or with others of its gem colour as a set."""
    done = [o for o in state.ornaments[seat] if complete(o)]
    options = [(o[0],) for o in done]
    if not done:
        return options
    by_colour: dict[str, list[str]] = {}
    for o in done:
        if tiles()[o[0]].light:
            by_colour.setdefault(o[1][0], []).append(o[0])
    for group in by_colour.values():
        for size in range(2, len(group) + 1):
            options += combinations(group, size)
    return options


def brown_waiting(state: GemState, seat: int) -> bool:
    return any(complete(o) and not tiles()[o[0]].light for o in state.ornaments[seat])


# Carts hold 3 gems and the mine card looks at 3: few (gems, most) pairs, asked often.
@lru_cache(maxsize=None)
def multisets(gems: str, most: int) -> tuple[str, ...]:
    """Distinct sub-multisets of `gems` of size 1..most, each in `gems` order."""
    found = {"".join(sorted(pick, key=gems.index)) for size in range(1, most + 1)
             for pick in combinations(gems, size)}
    return tuple(sorted(found, key=lambda s: (len(s), [COLOURS.index(g) for g in s])))


@lru_cache(maxsize=None)
def sequences(gems: str, most: int) -> tuple[str, ...]:
    """Distinct orderings of sub-multisets of `gems` of size 1..most."""
    found = {"".join(p) for size in range(1, most + 1) for p in permutations(gems, size)}
    return tuple(sorted(found, key=lambda s: (len(s), [COLOURS.index(g) for g in s])))


def shuffled(items, rng: random.Random) -> tuple:
    items = list(items)
    rng.shuffle(items)
    return tuple(items)

# -- points (G20–G22) ------------------------------------------------------------------

def score(state: GemState, seat: int, amount: int) -> GemState:
    """Move a marker: the win at 20 stops everything; else threshold bonus cards."""
    old = state.points[seat]
    state = change(state, points=put(state.points, seat, old + amount))
    if old + amount >= WIN:
        return say(change(state, winner=seat, pending=()),
                   f"{seat_name(seat)} reaches {old + amount} points and wins")
    drawers = [other for t in THRESHOLDS if old < t <= old + amount
               for other in clockwise(state, state.active) if state.points[other] < t]
    if not drawers:
        return state
    state = say(state, "bonus action card for " + ", ".join(map(seat_name, drawers)))
    # G25a: every seat over the limit after this move is asked at once, in secret.
    limit = {"step": "limit", "seats": tuple(dict.fromkeys(drawers))}
    return push(state, *[{"step": "draw", "seat": s, "n": 1} for s in drawers], limit)


def limit_seats(state: GemState, head: dict) -> tuple[int, ...]:
    """The seats a hand-limit step waits for: those still over the limit (G25, G25a).
    (A snapshot written before G25a holds one `seat`.)"""
    seats = head.get("seats", (head.get("seat"),))
    return tuple(s for s in seats if len(state.hands[s]) > HAND_LIMIT)


def return_gems(state: GemState, gems: str) -> GemState:
    return change(state, mine=state.mine + gems)
