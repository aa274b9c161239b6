"""Gem Forge's random decisions (the engine's `random_decision`): lively random play for
playouts, the bots' searches, timeouts and seeded tests.

The policy reads `legal`: standing answers now and then, reacting and cashing often,
otherwise a random kind of decision, then a random one of that kind (`plain_random`).
On a player's own turn, most of a game's decisions, `turn_random` draws the same: it
asks only which kinds there are and lists the decisions of the kind drawn, making the
same calls on the generator in the same order, so a seeded game plays as before
(tests/test_gemforge.py compares the two over many random positions). Listing every
card's every play at every decision was most of a random playout's time.
"""

from __future__ import annotations

import random

from pbem.engines.gemforge.rules import card_options, card_playable
from pbem.engines.gemforge.state import (CART, COLOURS, OWN_TURN, PREFS, SETUP, WINDOWS,
                                         GemState, brown_waiting, can_set, cash_options,
                                         set_options)

PREF_DRAW, REACT_DRAW, CASH_DRAW = 0.03, 0.6, 0.7  # how often each is chosen


def kind_of(decision: tuple) -> str:
    """The kind a decision is drawn by: its first word, each card a kind of its own."""
    return decision[1] if decision[0] == "play" else decision[0]


def plain_random(engine, state: GemState, seat: int, rng: random.Random) -> tuple:
    """The policy over the whole legal list."""
    legal = engine.legal(state, seat)
    answers = [d for d in legal if d[0] != "pref"]
    if not answers or rng.random() < PREF_DRAW:
        return rng.choice([d for d in legal if d[0] == "pref"])
    plays = [d for d in answers if d[0] == "play"]
    if engine._answering(state, seat):
        return rng.choice(plays) if plays and rng.random() < REACT_DRAW else ("pass",)
    cashes = [d for d in answers if d[0] == "cash"]
    if cashes and rng.random() < CASH_DRAW:
        return rng.choice(cashes)
    chosen = rng.choice(sorted({kind_of(d) for d in answers}))
    return rng.choice([d for d in answers if kind_of(d) == chosen])


def own_turn(state: GemState, seat: int) -> bool:
    """Whether `seat` decides on its own turn, nothing pending (`legal` is its turn's
    decisions and the standing answers)."""
    return (seat == state.active and state.winner is None and state.setup == len(SETUP)
            and not state.dealt and not state.pending)


def turn_random(state: GemState, seat: int, rng: random.Random) -> tuple:
    """`plain_random` on the own turn of `seat`, listing only the kind drawn."""
    cashes = [("cash", c) for c in cash_options(state, seat)]
    kinds = turn_kinds(state, seat)
    if not (cashes or kinds) or rng.random() < PREF_DRAW:
        return rng.choice(pref_decisions(state, seat))
    if cashes and rng.random() < CASH_DRAW:
        return rng.choice(cashes)
    chosen = rng.choice(sorted(kinds + ["cash"] if cashes else kinds))
    return rng.choice(cashes if chosen == "cash" else turn_options(state, seat, chosen))


def pref_decisions(state: GemState, seat: int) -> list[tuple]:
    """The standing answers a seat may change to, in `legal`'s order."""
    prefs = state.prefs[seat]
    return [("pref", w, v) for i, w in enumerate(WINDOWS) for v in PREFS[w]
            if v != prefs[i]]


def turn_kinds(state: GemState, seat: int) -> list[str]:
    """The kinds of the own turn's decisions besides cashing, in `legal`'s order."""
    if state.actions == 2:
        return [] if brown_waiting(state, seat) else ["end"]
    cart, hand = state.carts[seat], state.hands[seat]
    kinds = ["take"] if len(cart) < CART and state.mine else []
    kinds += ["set"] if can_set(state, seat) else []
    kinds += ["discard", "draw"] if cart else ["draw"]
    return kinds + [card for card in OWN_TURN
                    if card in hand and card_playable(state, seat, card)]


def turn_options(state: GemState, seat: int, kind: str) -> list[tuple]:
    """The own turn's decisions of one kind (not cashing), in `legal`'s order."""
    if kind in ("end", "take", "draw"):
        return [(kind,)]
    if kind == "set":
        return [("set", g, t) for g, t in set_options(state, seat)]
    if kind == "discard":
        return [("discard", g) for g in sorted(set(state.carts[seat]), key=COLOURS.index)]
    return [("play", kind, args) for args in card_options(state, seat, kind)]
