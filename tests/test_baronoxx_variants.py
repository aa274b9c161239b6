"""6 nimmt! Baron Oxx's variants, rule by rule (RULINGS N19–N23), on literal positions:
rows past six (variant 1), cards under the deck and the ends of variant 2.

Positions are written as test_baronoxx.py explains, with its helpers.
"""

from __future__ import annotations

import pytest

from pbem.engines.base import CHANCE, IllegalMove
from test_baronoxx import ENDS, OXX, play, position, round_of, rows


# -- N19–N23 the variants ------------------------------------------------------------------

def test_n19_variant_1_lets_rows_grow_past_six():
    state = round_of(position("""
        rows: 1=[1 105 54 75 39] 2=[30] 3=[47] 4=[7] 5=[51]
        hands: 1=[46 2] 2=[60 3]
        decks: 1=4 2=4
    """, variant="1"), "play 46 row 1", "play 60 row 2")
    assert rows(state)[0] == [1, 105, 54, 75, 39, 46] and state.piles[0] == ()


def test_n20_variant_2_puts_a_card_that_fits_nowhere_under_its_deck():
    state = round_of(position(f"""
        {ENDS}
        hands: 1=[39 1] 2=[60 2]
        decks: 1=4 2=4
    """, variant="2"), "play 39", "play 60")
    assert state.bottoms[0] == (39,) and OXX.to_act(state) == {0, 1}
    assert OXX.view(state, 1)["under_decks"] == [[39], []]
    assert OXX.view(state, None)["deck_sizes"] == [5, 4]


def test_n21_n23_variant_2_ends_after_the_round_someone_places_their_last_card():
    state = round_of(position(f"""
        {ENDS}
        hands: 1=[54] 2=[60 9]
        piles: 1=[12] 2=[105]
    """, variant="2"), "play 54", "play 60")
    assert OXX.outcome(state) is not None
    assert OXX.view(state, None)["match"]["results"] == [[2, 1 - 2]]  # 9 (YK) is held


def test_n21_a_last_card_gone_under_the_deck_has_not_finished():
    state = round_of(position(f"{ENDS}\nhands: 1=[39] 2=[60 9]", variant="2"),
                     "play 39", "play 60")
    assert OXX.outcome(state) is None and state.hands[0] == (39,)


def test_n22_variant_2_ends_when_nothing_held_can_ever_be_placed():
    state = round_of(position(f"{ENDS}\nhands: 1=[39] 2=[86]", variant="2"),
                     "play 39", "play 86")
    assert OXX.outcome(state) is not None
    assert OXX.view(state, None)["match"]["results"] == [[-1, -2]]


def test_n22_n23_a_deadlock_with_unseen_deck_cards_has_the_dealer_show_them():
    # Rows end in yellow, black, green, red, yellow: blue and white cards fit nowhere,
    # and the only unseen cards are blue and white.
    unseen = [12, 22, 51, 92, 99, 105]
    others = sorted(set(range(1, 111)) - set(unseen) - {17, 30, 47, 7, 87, 39, 86})
    state = round_of(position(f"""
        rows: 1=[17] 2=[30] 3=[47] 4=[7] 5=[87]
        hands: 1=[39] 2=[86]
        decks: 1=5
        piles: 2=[{' '.join(map(str, others))}]
    """, variant="2"), "play 39", "play 86")
    state = play(state, 0, "draw #1 12 22 51 92")
    assert OXX.to_act(state) == {CHANCE}
    with pytest.raises(IllegalMove, match="not among the unseen"):
        play(state, 0, "left #1 12")
    state = play(state, 0, "left #1 105")
    assert OXX.outcome(state) is not None
    assert OXX.view(state, 0)["set_aside"] == [99]
    held = 2 + 2 + 3 + 3 + 1 + 1  # 12 22 51 92, then 105 and 39 in the deck
    assert OXX.view(state, None)["match"]["results"][0][0] == -held
