"""Heuristic players for the card games: one plain habit each, as a careful person plays.

- 6 nimmt! Baron Oxx: play the hand card whose placement costs least right now (ties:
  the one that leaves its row farthest from being taken); when asked, the cheapest row.
- Onix: the take, placements and effect that score most this turn: Hoard cards won,
  then Collections brought nearer to all four gems, then harm done to an opponent's
  Collections; a turn that ends the game counts as won or lost.
- Gem Forge: cash what is complete; set the gem that completes an ornament, else the one
  that brings an ornament nearest completion; take a gem only when an ornament can use
  it, discard one that none can; otherwise draw an action card.

`decision(engine, state, seat, rng)` gives a legal decision of the seat the game waits
for. It reads only what that seat may see (its own hand, the public table), so it is a
fair opponent in `pbem arena` (`heuristic`), and, being fast, the policy of the bots'
playouts (pbem.bots.search) for their own seat, the first of the family of styles they
draw for the others (pbem.bots.styles). Gem Forge's habit is in
pbem.bots.heuristic_gemforge.
"""

from __future__ import annotations

import random

from notation.baronoxx import NO_PREF
from notation.onix import NEW, effect_of
from pbem.engines.baronoxx.cards import CARDS, legal_rows
from pbem.engines.base import CHANCE, Decision, Engine, State
from pbem.engines.onix.state import PLACE, TAKE, chains

POPCOUNT = tuple(bin(mask).count("1") for mask in range(16))
#: What a Collection of 0–3 different gems is worth on the way to a Hoard (a card won
#: is worth 10): two gems are a start, three a Collection one card from complete.
PROGRESS = (0.0, 0.0, 1.0, 3.0)
WON, HOARDED = 1000.0, 10.0
HARM = 0.7  # what a point of an opponent's progress undone is worth, against one's own


#: The games with a heuristic player (Onyx has none: its bots are measured against an
#: independent UCT player, bench/README.md).
GAMES = ("baronoxx", "onix", "gemforge")


def decision(engine: Engine, state: State, seat: int, rng: random.Random) -> Decision:
    """The heuristic's decision for `seat` (a seat the game waits for). `rng` serves the
    dealer only: the habits themselves are deterministic."""
    if seat == CHANCE:
        return engine.deal(state, rng)
    if engine.id == "baronoxx":
        return baronoxx(engine, state, seat)
    if engine.id == "onix":
        return onix(engine, state, seat)
    if engine.id == "gemforge":
        from pbem.bots.heuristic_gemforge import gemforge
        return gemforge(engine, state, seat)
    raise ValueError(f"{engine.title} has no heuristic player")


def with_slips(engine: Engine, state: State, seat: int, rng: random.Random,
               epsilon: float) -> Decision:
    """The habit's decision, or with chance `epsilon` a random legal one: how the seats
    of the bots' playouts play (a habit never departed from makes every playout of a
    world the same game). The dealer deals."""
    if seat == CHANCE:
        return engine.deal(state, rng)
    if rng.random() >= epsilon:
        return decision(engine, state, seat, rng)
    return engine.random_decision(state, seat, rng)


# -- 6 nimmt! Baron Oxx -----------------------------------------------------------------

def baronoxx(engine, state, seat: int) -> tuple:
    """The card whose placement costs least now; asked, the cheapest row."""
    if seat == state.asked:
        card, kind, options = state.waiting()
        return (kind, min(options, key=lambda r: _oxx_cost(engine, state, kind, r, card)))
    if state.chosen[seat] is not None:  # chosen already (N14a): keep it
        return ("play",) + state.chosen[seat]
    best = min(state.hands[seat], key=lambda card: _oxx_card(engine, state, card))
    return ("play", best, NO_PREF)


def _oxx_card(engine, state, card: int) -> tuple:
    fits = legal_rows(state.rows, card)
    kind, options = ("row", fits) if fits else ("take", range(len(state.rows)))
    return min(_oxx_cost(engine, state, kind, r, card) for r in options) + (card,)


def _oxx_cost(engine, state, kind: str, row: int, card: int) -> tuple:
    """(points taken now, closeness of the row to being taken after): less is better.
    In Variant 2 points are won, so more is better, and a card that fits no row goes
    under its deck (N20): no points either way."""
    if kind == "take" and state.positive:
        return (0, 0)
    points = engine.cost(state, kind, row, card)
    if state.positive:
        points = -points
    if kind == "take" or points:
        return (points, 0)
    return (points, -_slack(state, state.rows[row] + (card,)))


def _slack(state, row: tuple) -> int:
    """How many more cards or bullheads of a colour a row takes before it is taken."""
    room = 6 - len(row) if state.rule1 else 6
    for colour in range(6):
        room = min(room, 6 - sum(CARDS[c].bullheads[colour] for c in row))
    return room


# -- Onix -------------------------------------------------------------------------------

def onix(engine, state, seat: int):
    """The choice of this step that leads to the best turn (`turn_value`)."""
    choices = engine.choices(state)
    if len(choices) == 1:
        return choices[0]
    return max(choices, key=lambda choice: onix_value(engine, state, choice))


def onix_value(engine, state, choice) -> float:
    """What the turn is worth to the active seat if it makes `choice` now and the rest
    of the turn greedily: Hoard cards won, progress, harm, the end of the game."""
    seat = state.turn
    own = [(number, _mask(cards), len(cards)) for number, cards in state.collections[seat]]
    piles = [list(pile) for pile in state.piles]
    value = 0.0
    if state.phase == TAKE:
        chain = next(c for c in chains(state, choice.gem) if c[0] == choice.pile)
        cards = [piles[p].pop() for p in chain]
        for p in chain:  # the card under a top taken is not seen yet: only its count
            piles[p] = [None] * len(piles[p])
        value += _place_all(own, cards)
        value += _best_effect(state, seat, choice.gem, own, piles)
    elif state.phase == PLACE:
        card = next(c for p, c in state.retrieved if p == choice.pile)
        value += _place(own, card, choice.target)
        value += _place_all(own, [c for p, c in state.retrieved if p != choice.pile])
        value += _best_effect(state, seat, state.gem, own, piles)
    else:
        value += _effect(state, seat, choice, own, piles)
    return value + _ending(state, seat, own, piles)


def _mask(cards) -> int:
    mask = 0
    for card in cards:
        mask |= card
    return mask


def _worth(mask: int, count: int) -> float:
    return HOARDED * count if mask == 15 else PROGRESS[POPCOUNT[mask]]


def _place(own: list, card: int, target) -> float:
    """Put `card` on Collection `target` (or a new one) in `own`; the value gained."""
    if target == NEW:
        own.append((None, card, 1))
        return _worth(card, 1)
    for i, (number, mask, count) in enumerate(own):
        if number == target:
            own[i] = (number, mask | card, count + 1)
            return _worth(mask | card, count + 1) - _worth(mask, count)
    raise ValueError(target)


def _best_target(own: list, card: int):
    """Where `card` gains most (a new Collection when nothing is gained), and the gain."""
    best, where = _worth(card, 1), NEW
    for number, mask, count in own:
        if not mask & card and mask != 15:
            gain = _worth(mask | card, count + 1) - _worth(mask, count)
            if gain > best:
                best, where = gain, number
    return where, best


def _place_all(own: list, cards: list[int]) -> float:
    """Place the cards greedily, those with more gems first."""
    value = 0.0
    for card in sorted(cards, key=lambda c: -POPCOUNT[c]):
        where, _ = _best_target(own, card)
        value += _place(own, card, where)
    return value


def _loss(mask: int, count: int, card: int) -> float:
    """What a Collection loses when its top card goes."""
    return _worth(mask, count) - (_worth(mask & ~card, count - 1) if count > 1 else 0.0)


def _best_effect(state, seat: int, gem: int, own: list, piles: list) -> float:
    """The best the gem's effect adds; `own` and `piles` are left as it leaves them."""
    best, done = None, None
    for option in _effects(state, seat, gem, own, piles):
        trial_own, trial_piles = list(own), [list(p) for p in piles]
        value = _effect(state, seat, option, trial_own, trial_piles)
        if best is None or value > best:
            best, done = value, (trial_own, trial_piles)
    if done is None:
        return 0.0
    own[:], piles[:] = done
    return best


class _Effect:
    __slots__ = ("verb", "pile", "seat", "collection", "target")

    def __init__(self, verb, pile=None, seat=None, collection=None, target=None):
        self.verb, self.pile, self.seat = verb, pile, seat
        self.collection, self.target = collection, target


def _effects(state, seat: int, gem: int, own: list, piles: list):
    """The effect's options, each with the best place for the card it brings."""
    verb = effect_of(gem)
    if verb in ("draw", "hoard"):
        for p, pile in enumerate(piles):
            # A card not seen yet may go to the Hoard (any card counts there), but
            # where a drawn one would go cannot be told.
            if pile and (verb == "hoard" or pile[-1] is not None):
                target = _best_target(own, pile[-1])[0] if verb == "draw" else None
                yield _Effect(verb, pile=p, target=target)
        return
    for other in range(state.players):
        if other != seat:
            for number, cards in state.collections[other]:
                target = _best_target(own, cards[-1])[0] if verb == "steal" else None
                yield _Effect(verb, seat=other, collection=number, target=target)


def _effect(state, seat: int, option, own: list, piles: list) -> float:
    """The value of one effect option (an engine choice or an `_Effect`)."""
    verb = option.verb
    if verb in ("draw", "hoard"):
        card = piles[option.pile].pop()
        if verb == "hoard":  # a card in the Hoard counts as a complete Collection of one
            own.append((None, 15, 1))
            return HOARDED
        return _place(own, card, option.target)
    cards = next(c for n, c in state.collections[option.seat] if n == option.collection)
    harm = HARM * _loss(_mask(cards), len(cards), cards[-1])
    if verb == "steal":
        return harm + _place(own, cards[-1], option.target)
    return harm


def _ending(state, seat: int, own: list, piles: list) -> float:
    """A turn that empties enough piles ends the game (X19): won or lost outright."""
    empty = sum(not pile for pile in piles)
    if empty < (1 if state.players <= 4 else 2):
        return 0.0
    hoards = [len(h) for h in state.hoards]
    hoards[seat] += sum(count for _, mask, count in own if mask == 15)
    gems = [sum(POPCOUNT[_mask(c)] for _, c in cols) for cols in state.collections]
    gems[seat] = sum(POPCOUNT[mask] for _, mask, _ in own if mask != 15)
    rank = sorted(((hoards[s], -gems[s]) for s in range(state.players)), reverse=True)
    mine = (hoards[seat], -gems[seat])
    if mine == rank[0]:
        return WON if rank.count(mine) == 1 else WON / 2
    return -WON
