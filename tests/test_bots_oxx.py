"""The 6 nimmt! bot (pbem.bots.search with pbem.bots.oxx_playout): its fast playout plays
the game as the engine does, and its search makes the decisions a careful player would
in literal positions. Budgets are small and fixed (iterations, no CPU cap): these tests
say what the bot does, bench/bots.py measures how well it plays.
"""

import random

import pytest

from notation.baronoxx import NO_PREF
from pbem import bots
from pbem.bots import heuristic, oxx_playout
from pbem.engines.base import CHANCE

from test_baronoxx import OXX, position, round_of


def hard(state, seat, seed="t", worlds=40):
    return bots.decide(OXX, state, seat, "hard", seed=seed, iterations=worlds,
                       time_limit=None)


def habit_to_the_end(state):
    """The match played to its end by the heuristic at every seat, through the engine;
    the dealer draws from the unseen cards at random."""
    rng = random.Random(0)
    while OXX.to_act(state):
        seat = min(OXX.to_act(state))
        decision = (OXX.deal(state, rng) if seat == CHANCE
                    else heuristic.decision(OXX, state, seat, rng))
        state = OXX.apply(state, seat, decision)
    return OXX.totals(state)


# Row 1 holds five cards (3 BGW, 8 BGR, 2 GRW, 26 GRW, 1 R: 13 bullheads) and ends red:
# 7 (RRR) fits only there, as its sixth card. 60 (K), 75 (G) and 105 (B) each go on a
# short row of their colour (30 KKK, 47 GGG, 12 BB) and take nothing.
FIFTH = "rows: 1=[3 8 2 26 1] 2=[30] 3=[47] 4=[12] 5=[86]"


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_the_bot_never_takes_a_five_card_row_when_a_harmless_card_exists(seed):
    state = position(f"""
        {FIFTH}
        hands: 1=[7 60 75 105] 2=[20 40 50 70] 3=[44 64 84 99]
        decks: 1=4 2=4 3=4
    """)
    decision = hard(state, 0, seed)
    assert decision[0] == "play" and decision[1] != 7, decision


def test_the_bot_takes_the_cheapest_row_when_its_card_fits_none():
    # 86 (WW) shares no colour with any row's last card (Rule 3). Rows 1-4 hold 5, 6
    # (after 60 goes on it), 5 and 4 bullheads, row 5 (51 BBB) only 3.
    state = round_of(position("""
        rows: 1=[17 87] 2=[9 30] 3=[20 47] 4=[54 7] 5=[51]
        hands: 1=[86 1] 2=[60 2]
        decks: 1=4 2=4
    """), "play 86", "play 60")
    assert OXX.to_act(state) == {0} and state.waiting()[1] == "take"
    assert hard(state, 0) == ("take", 4)


def test_the_bot_plays_its_card_without_a_preference():
    state = position(f"""
        {FIFTH}
        hands: 1=[7 60] 2=[20 40]
        decks: 1=0 2=0
    """)
    assert hard(state, 0)[2] == NO_PREF


def test_the_fast_playout_plays_a_last_hand_as_the_engine_does():
    # No card is left to draw: the heuristic at every seat (epsilon 0) decides the game
    # alone, so the playout's points are the engine's, card for card.
    state = position(f"""
        {FIFTH}
        hands: 1=[7 60 75 105] 2=[20 40 50 70] 3=[44 64 84 99]
        piles: 2=[17 54]
        decks: 1=0 2=0 3=0
    """)
    points, decisions = oxx_playout.playout(state, 0, random.Random(1), 0.0)
    assert points == habit_to_the_end(state)
    assert decisions >= 12  # every seat chose four cards


@pytest.mark.parametrize("variant", ["base", "1"])
def test_the_fast_playout_agrees_with_the_engine_on_every_last_hand(variant):
    """From every position of games the heuristic plays, once no card is left to draw:
    the same points (Variant 1 takes no row at its sixth card)."""
    checked = 0
    for game in range(12):
        players = (2, 3, 5, 10)[game % 4]
        state, rng = OXX.start({"variant": variant}, players, seed=str(game)), \
            random.Random(game)
        while OXX.to_act(state):
            seat = min(OXX.to_act(state))
            if seat == CHANCE:
                state = OXX.apply(state, seat, OXX.deal(state, rng))
                continue
            if not any(state.unknown) and rng.random() < 0.3:
                assert oxx_playout.playout(state, seat, rng, 0.0)[0] == \
                    habit_to_the_end(state)
                checked += 1
            state = OXX.apply(state, seat, heuristic.decision(OXX, state, seat, rng))
    assert checked > 20


def test_the_fast_playout_ends_with_the_current_game_of_a_match():
    state = position(f"""
        {FIFTH}
        hands: 1=[60] 2=[75]
        decks: 1=0 2=0
    """, games=2)
    state = state.__class__(**{**state.__dict__, "results": ((4, 9),)})
    points, _ = oxx_playout.playout(state, 0, random.Random(1), 0.0)
    assert points == [4, 9]  # both cards go on short rows and take nothing


def test_variant_2_is_left_to_the_engines_playouts():
    state = position(f"""
        {FIFTH}
        hands: 1=[7 60] 2=[20 40]
        decks: 1=0 2=0
    """, variant="2")
    assert not oxx_playout.fits(state)
    assert hard(state, 0, worlds=4) in OXX.legal(state, 0)


def test_in_the_bots_worlds_the_others_choose_as_the_habit_and_state_no_preference():
    # #1 has chosen 60 in secret with a preference; the bot (#2) cannot see either.
    state = round_of(position(f"""
        {FIFTH}
        hands: 1=[7 60 75 105] 2=[20 40 50 70] 3=[44 64 84 99]
        decks: 1=4 2=4 3=4
    """), "play 60 row 1 low")
    world = oxx_playout.as_habit(OXX.determinize(state, 1, random.Random(3)), 1,
                                 random.Random(4), 0.0)
    hand = world.hands[0]
    table = oxx_playout.Table(world.rows, True)
    assert world.chosen[0] == (oxx_playout.choose_card(table, list(hand), random.Random(0), 0.0),
                               NO_PREF)
    assert world.chosen[1] is None and world.standing == (NO_PREF,) * 3


def test_the_bot_decides_the_same_whatever_another_seat_chose_in_secret():
    base = f"""
        {FIFTH}
        hands: 1=[7 60 75 105] 2=[20 40 50 70] 3=[44 64 84 99]
        decks: 1=4 2=4 3=4
    """
    worlds = [round_of(position(base), text) for text in ("play 7", "play 105 row 4")]
    assert len({hard(world, 1, worlds=12) for world in worlds}) == 1


def test_the_table_weighs_a_card_by_every_colour_of_the_row_as_the_rules_count_them():
    # FIFTH's rows and 300 random ones: the table's cost, which looks only at the card's
    # own colours beside the row's most of one colour, equals the cost counted over all
    # six colours afresh; 7 on FIFTH's five-card row 1 takes its 13 points.
    def counted(rows, rule1, r, card):
        mask = oxx_playout.MASKS[card]
        fits = [i for i, row in enumerate(rows) if oxx_playout.MASKS[row[-1]] & mask]
        if r not in fits:
            return (sum(oxx_playout.PENALTY[c] for c in rows[r]), 0)
        colours = [sum(oxx_playout.BULLS[c][i] for c in rows[r] + [card]) for i in range(6)]
        if max(colours) >= 6 or (rule1 and len(rows[r]) >= 5):
            return (sum(oxx_playout.PENALTY[c] for c in rows[r]), 0)
        room = 5 - len(rows[r]) if rule1 else 6
        return (0, -min(room, 6 - max(colours)))

    rng = random.Random(7)
    tables = [[[3, 8, 2, 26, 1], [30], [47], [12], [86]]]
    for _ in range(300):
        cards = rng.sample(range(1, 111), 12)
        tables.append([cards[i:i + rng.randrange(1, 4)] for i in range(0, 10, 2)])
    for rows in tables:
        for rule1 in (True, False):
            table = oxx_playout.Table(rows, rule1)
            for card in range(1, 111):
                kind, fits = table.options(card)
                costs = [counted(rows, rule1, r, card) for r in range(5)]
                assert [table.cost(kind, r, card) for r in fits] == [costs[r] for r in fits]
                assert table.cheapest(card) == min(costs[r] for r in fits)
    assert oxx_playout.Table(tables[0], True).cheapest(7) == (13, 0)  # the sixth card
