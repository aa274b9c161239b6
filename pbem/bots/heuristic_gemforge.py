"""Gem Forge's heuristic player (pbem.bots.heuristic): work on the ornaments, waste nothing.

On its own turn, in this order: cash what is complete (the most points); set the gem
that completes an ornament, else the one that leaves an ornament fewest slots to fill
(two at once with set-two); take the mine's front gem when an ornament can use it (or
several with the mine card, or two from a cart with take-from-cart); discard a gem no
ornament can use; otherwise take an action card, or with a full hand the front gem, to
discard it and bring the next one up. Copy a take or a set when it helps,
cancel a card aimed at itself, keep and pick the tiles that use its gems, drop the least
useful cards. It reads only what its seat sees: the table, its own cart, hand and tiles.
"""

from __future__ import annotations

from itertools import combinations

from pbem.engines.gemforge.rules import card_options, card_targets
from pbem.engines.gemforge.state import (CARD_NAMES, CART, COLOURS, HAND_LIMIT, accepts,
                                         cash_options, set_options, tiles)

#: How much an action card in hand is worth keeping (the least are dropped first).
KEEPING = {"set-two": 6, "mine": 5, "copy-set": 4, "copy-take": 4, "take-from-cart": 3,
           "cancel": 3, "swap-gems": 2, "three-cards": 2, "discard-gems": 1,
           "take-from-ornament": 1, "swap-ornaments": 0}


def gemforge(engine, state, seat: int) -> tuple:
    if state.dealt:
        return _keep(state, seat)
    head = state.pending[0] if state.pending else {}
    step = head.get("step")
    if step in ("chain", "copy") and seat in head.get("asked", ()):
        return _answer(state, seat, head)
    if step == "limit" and seat in engine.to_act(state):
        return _drop(state, seat)
    if step == "replace" and head.get("seat") == seat:
        return _pick(state, seat)
    if seat == state.active and not state.pending:
        return _turn(state, seat)
    return engine.default_decision(state, seat)


# -- what the ornaments want -------------------------------------------------------------

def demand(row) -> dict[str, int]:
    """Per colour, how many more gems of it the ornaments could take (an empty rainbow
    ornament counts for every colour)."""
    wanted = dict.fromkeys(COLOURS, 0)
    for tile_id, gems in row:
        tile = tiles()[tile_id]
        empty = gems.count(".")
        if not empty:
            continue
        if tile.rainbow:
            placed = {g for g in gems if g != "."}
            for colour in placed or COLOURS:
                wanted[colour] += empty
        else:
            for slot, gem in zip(tile.slots, gems):
                if gem == ".":
                    wanted[slot] += 1
    return wanted


def useless(cart: str, row) -> list[str]:
    """The gems of a cart beyond what the ornaments could take."""
    wanted = demand(row)
    extra = []
    for gem in cart:
        if wanted[gem] > 0:
            wanted[gem] -= 1
        else:
            extra.append(gem)
    return extra


def useful(gem: str, cart: str, row) -> bool:
    return not useless(cart + gem, row) or gem not in useless(cart + gem, row)


def _set_value(state, seat: int, gem: str, tile_id: str) -> tuple:
    """(completes, its points, slots left after): more is better but for slots."""
    gems = next(g for t, g in state.ornaments[seat] if t == tile_id)
    left = gems.count(".") - 1
    return (left == 0, tiles()[tile_id].points if left == 0 else 0, -left,
            tiles()[tile_id].points)


# -- the own turn --------------------------------------------------------------------------

def _turn(state, seat: int) -> tuple:
    cashes = cash_options(state, seat)
    if cashes:
        return ("cash", max(cashes, key=lambda c: _cash_points(c)))
    if state.actions == 2:
        return ("end",)
    cart, row, hand = state.carts[seat], state.ornaments[seat], state.hands[seat]
    sets = set_options(state, seat)
    if len(sets) > 1 and "set-two" in hand:
        pairs = [a for a in card_options(state, seat, "set-two") if len(a) == 4]
        if pairs:
            return ("play", "set-two", max(pairs, key=lambda a: (
                _set_value(state, seat, a[0], a[1]), _set_value(state, seat, a[2], a[3]))))
    if sets:
        gem, tile_id = max(sets, key=lambda s: _set_value(state, seat, *s))
        return ("set", gem, tile_id)
    room = CART - len(cart)
    if room and state.mine and useful(state.mine[0], cart, row):
        return ("take",)
    if room and "mine" in hand:
        best = _best_mine(state, seat)
        if best is not None:
            return ("play", "mine", best)
    if room and "take-from-cart" in hand:
        best = _best_theft(state, seat)
        if best is not None:
            return ("play", "take-from-cart", best)
    extra = useless(cart, row)
    if extra:
        return ("discard", extra[0])
    if len(hand) >= HAND_LIMIT and room and state.mine:
        # A card drawn to a full hand is dropped again: take the front gem instead, to
        # discard it and bring the next one up. Tables that only drew went round in
        # circles, nobody taking the gem that no ornament could use.
        return ("take",)
    return ("draw",)


def _cash_points(chosen: tuple) -> int:
    faces = [tiles()[t] for t in chosen]
    return sum(f.points for f in faces) + (sum(f.set_bonus for f in faces)
                                           if len(faces) > 1 else 0)


def _best_mine(state, seat: int):
    """The mine card's way that keeps most useful gems (at least one), or None."""
    cart, row = state.carts[seat], state.ornaments[seat]
    best, found = 0, None
    for n, keep in card_options(state, seat, "mine"):
        kept = len(keep) - len(useless(cart + keep, row)) + len(useless(cart, row))
        if kept > best:
            best, found = kept, (n, keep)
    return found


def _best_theft(state, seat: int):
    """Take-from-cart when it brings two useful gems (the victim gets a point)."""
    cart, row = state.carts[seat], state.ornaments[seat]
    for args in card_options(state, seat, "take-from-cart"):
        gems = args[1]
        if len(gems) == 2 and not useless(cart + gems, row):
            return args
    return None


# -- answers out of turn -------------------------------------------------------------------

def _answer(state, seat: int, head: dict) -> tuple:
    if head["step"] == "chain":
        actor, card, args = head["links"][-1]
        if "cancel" in state.hands[seat] and seat in card_targets(state, actor, card, args):
            return ("play", "cancel", ())
        return ("pass",)
    card = head["card"]
    if card not in state.hands[seat]:
        return ("pass",)
    options = card_options(state, seat, card)
    if card == "copy-take":
        if options and useful(state.mine[0], state.carts[seat], state.ornaments[seat]):
            return ("play", card, ())
        return ("pass",)
    if options:
        return ("play", card, max(options, key=lambda s: _set_value(state, seat, *s)))
    return ("pass",)


def _drop(state, seat: int) -> tuple:
    hand = sorted(state.hands[seat], key=CARD_NAMES.index)
    excess = len(hand) - HAND_LIMIT
    worst = sorted(range(len(hand)), key=lambda i: (KEEPING[hand[i]], i))[:excess]
    return ("drop", tuple(hand[i] for i in sorted(worst)))


def _tile_value(tile_id: str, cart: str) -> float:
    tile = tiles()[tile_id]
    fits = sum(accepts(tile_id, "." * len(tile.slots), gem) for gem in set(cart))
    return tile.points / len(tile.slots) + 0.3 * fits - 0.05 * len(tile.slots)


def _pick(state, seat: int) -> tuple:
    cart = state.carts[seat]
    slots = [i for i, t in enumerate(state.market) if t]
    best = max(slots, key=lambda i: _tile_value(state.market[i], cart))
    return ("pick", best)


def _keep(state, seat: int) -> tuple:
    cart = state.carts[seat]
    return ("keep", max(combinations(state.dealt[seat], 3),
                        key=lambda kept: sum(_tile_value(t, cart) for t in kept)))
