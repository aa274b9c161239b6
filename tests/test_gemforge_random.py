"""Gem Forge's fast random decisions against the plain ones (pbem.engines.gemforge.random_play).

A random decision on a player's own turn lists only the kind drawn; it must draw the
same decision with the same calls on the generator as the policy over the whole `legal`
list, or every seeded game changes. Compared over many random positions of 2 to 4
players, and on literal positions where a card has no way to be played.
"""

import random

import pytest
from test_gemforge import GF, P1, P2, position

from pbem.engines.base import CHANCE
from pbem.engines.gemforge.random_play import (kind_of, own_turn, plain_random, turn_kinds,
                                          turn_options)
from pbem.engines.gemforge.rules import card_options, card_playable
from pbem.engines.gemforge.state import CARD_NAMES, can_set, set_options


def positions(games: int, seed: str):
    """(state, seat) for every seat at every decision of random games, dealer's aside."""
    rng = random.Random(seed)
    for game in range(games):
        state = GF.start({}, 2 + game % 3)
        while waiting := sorted(GF.to_act(state)):
            seat = rng.choice(waiting)
            if seat == CHANCE:
                state = GF.apply(state, CHANCE, GF.deal(state, rng))
                continue
            for other in range(state.players):
                yield state, other
            state = GF.apply(state, seat, GF.random_decision(state, seat, rng))


def test_the_fast_random_decision_draws_what_the_plain_one_draws():
    """Two generators seeded alike: the same decision, and the generators still alike
    after it (the same calls were made), at every seat's every decision."""
    own_turns = 0
    for index, (state, seat) in enumerate(positions(12, "fast-random")):
        if not GF.legal(state, seat):
            continue
        fast, plain = random.Random(index), random.Random(index)
        for _ in range(3):  # a few draws from the same position, the generator moving on
            assert GF.random_decision(state, seat, fast) == plain_random(GF, state, seat,
                                                                         plain)
            assert fast.getstate() == plain.getstate()
        own_turns += own_turn(state, seat)
    assert own_turns > 4000


def test_the_own_turns_kinds_and_lists_are_legals():
    """What the fast draw reads: the kinds present, in order, and each kind's list, are
    those of `legal` (cashing and standing answers aside)."""
    checked = 0
    for state, seat in positions(12, "kinds"):
        if not own_turn(state, seat):
            continue
        answers = [d for d in GF.legal(state, seat) if d[0] not in ("pref", "cash")]
        kinds = list(dict.fromkeys(map(kind_of, answers)))
        assert turn_kinds(state, seat) == kinds
        assert [d for kind in kinds for d in turn_options(state, seat, kind)] == answers
        checked += 1
    assert checked > 2000


def test_a_card_is_playable_when_it_has_a_way_to_be_played():
    """`card_playable` and `can_set` against the lists they stand for, every card of the
    game for every seat, held or not."""
    counts = {True: 0, False: 0}
    for index, (state, seat) in enumerate(positions(8, "playable")):
        if index % 3 or not state.carts:
            continue
        assert can_set(state, seat) == bool(set_options(state, seat))
        for card in CARD_NAMES:
            playable = bool(card_options(state, seat, card))
            assert card_playable(state, seat, card) == playable, (card, state)
            counts[playable] += 1
    assert min(counts.values()) > 500


@pytest.mark.parametrize("card, text", [
    ("mine", "mine RRR"),           # a full cart, and the mine turned round is the same
    ("take-from-cart", "mine RGYL"),  # a full cart: no room for the gems
    ("take-from-ornament", "mine RGYL"),
    ("swap-gems", "mine RGYL"),     # the other cart holds only the same colour
])
def test_cards_with_no_way_to_be_played(card, text):
    state = position(f"""
        P1: RRR / {card} / 0 / T18=R. T05 T07
        P2: RR / cancel / 0 / T19=R. T06 T08
        {text}
    """)
    assert card_options(state, P1, card) == [] and not card_playable(state, P1, card)
    assert not [d for d in GF.legal(state, P1) if d[:2] == ("play", card)]


def test_the_mine_card_with_room_in_the_cart_keeps_a_gem_even_from_a_still_mine():
    state = position("""
        P1: RR / mine / 0 / T18 T05 T07
        P2: RR / cancel / 0 / T19 T06 T08
        mine RRR
    """)
    assert card_playable(state, P1, "mine")
    assert all(keep for _, keep in card_options(state, P1, "mine"))
    assert not card_playable(state, P2, "take-from-ornament")  # nothing set to take
