"""The family of opponent styles (pbem.bots.styles, styles_oxx): each makes the move its
rule names in a literal position of 6 nimmt! Baron Oxx, Onix and Gem Forge, decides
legally and only from its seat's view; `pbem arena` and bench/bots.py seat them; and
the bots' playouts seat a style drawn from the family at every other seat.
"""

import random

import pytest

from bench.bots import matches
from pbem.bots import heuristic, oxx_playout, search, styles
from pbem.bots.arena import (GAME_CAP, arena, check_contestant, mixed, play_game,
                             Standing, style_decision, summary)
from pbem.bots.styles_oxx import FAMILY as OXX_FAMILY, Counter
from pbem.engines import ENGINES

from onix_position import ENGINE as ONIX, play as onix_play, position as onix_position
from test_baronoxx import OXX, position as oxx_position, round_of
from test_bots import random_positions
from test_bots_heuristic import NO_COMPLETION, ONIX_TABLE
from test_gemforge import GF, MARKET, position as gem_position


def style(engine, state, seat, name, seed=0):
    return style_decision(engine, state, seat, name, random.Random(seed))


def oxx_card(state, name, seat=0):
    decision = style(OXX, state, seat, name)
    assert decision[0] == "play"
    return decision[1]


# -- 6 nimmt! Baron Oxx -------------------------------------------------------------------

# Row 1 ends KKK, row 2 GGG, row 3 holds five blue (51 BBB, 12 BB), row 4 YYY, row 5 RRR.
# 60 (K), 75 (G) and 98 (YGW) each fit a row without taking it, all three leaving it two
# bullheads from six; 105 (B) would make six blue on row 3 and take it.
FREE = """
    rows: 1=[30] 2=[47] 3=[51 12] 4=[17] 5=[7]
    hands: 1=[60 75 98 105] 2=[20 40 50 70] 3=[44 64 84 99]
    decks: 1=4 2=4 3=4
"""


def test_the_habit_plays_the_lowest_of_equally_safe_cards():
    assert oxx_card(oxx_position(FREE), "habit") == 60


def test_the_dumper_dumps_the_highest_card_that_fits():
    assert oxx_card(oxx_position(FREE), "dumper") == 98


def test_the_keeper_keeps_its_lowest_card_back():
    assert oxx_card(oxx_position(FREE), "keeper") == 75


def test_the_keeper_takes_a_cheap_row_on_purpose_with_its_lowest_card():
    # 7 (RRR) shares no colour with any row's end (Rule 3); row 1 holds one bullhead.
    state = oxx_position("""
        rows: 1=[60] 2=[47] 3=[12] 4=[17] 5=[75]
        hands: 1=[7 64 98 105] 2=[20 40 50 70] 3=[44 84 99 100]
        decks: 1=4 2=4 3=4
    """)
    assert oxx_card(state, "keeper") == 7 and oxx_card(state, "habit") != 7


def test_the_counter_avoids_a_row_the_unseen_lower_cards_will_fill():
    # 60 (K) leaves row 1 two bullheads from six, 11 (YW) leaves row 4 one from six: the
    # habit plays 60. But every card the counter has not seen is black and below 60 (the
    # others' hands; nothing else is unseen): two of them are expected in row 1 before 60.
    state = oxx_position("""
        rows: 1=[30] 2=[47] 3=[12] 4=[17 54] 5=[7]
        hands: 1=[11 60] 2=[14 18 19 20] 3=[21 32 33 34]
        decks: 1=0 2=0 3=0
        unseen: []
    """)
    assert oxx_card(state, "habit") == 60
    assert oxx_card(state, "counter") == 11


def test_the_counter_counts_only_cards_its_seat_has_not_seen():
    # The same rows; the others' hands are unknown to #1 and only the cards not in a
    # row, a pile or #1's hand count, so the count is alike in every world #1 cannot
    # tell apart, and a card in a pile is not counted.
    state = oxx_position("""
        rows: 1=[30] 2=[47] 3=[12] 4=[17 54] 5=[7]
        hands: 1=[11 60] 2=[14 18 19 20] 3=[21 32 33 34]
        piles: 2=[35 40]
        decks: 1=0 2=0 3=0
        unseen: []
    """)
    worlds = [state] + [OXX.determinize(state, 0, random.Random(k)) for k in range(4)]
    live = [oxx_playout.live_cards(search.canonical(OXX, w, 0)) for w in worlds]
    assert len({bytes(found) for found in live}) == 1
    assert not live[0][35] and not live[0][30] and live[0][14] and live[0][11]
    table = oxx_playout.Table(state.rows, True)
    unseen = [x for x in range(1, 111) if live[0][x] and x not in (11, 60)]
    assert unseen == [14, 18, 19, 20, 21, 32, 33, 34]
    assert Counter.risk(table, 60, unseen, 3)[0] > 0 == Counter.risk(table, 11, unseen, 3)[0]


def test_the_careless_style_slips_about_one_time_in_three():
    state, rng = oxx_position(FREE), random.Random(5)
    cards = [style_decision(OXX, state, 0, "careless", rng)[1] for _ in range(300)]
    assert 50 < sum(card != 60 for card in cards) < 110  # a slip hits 60 one time in 4


def test_a_style_asked_for_a_row_takes_the_cheapest():
    # 86 (WW) fits no row: the cheapest to take is row 5 (51 BBB, 3 bullheads).
    state = round_of(oxx_position("""
        rows: 1=[17 87] 2=[9 30] 3=[20 47] 4=[54 7] 5=[51]
        hands: 1=[86 1] 2=[60 2]
        decks: 1=4 2=4
    """), "play 86", "play 60")
    for name in ("habit", "dumper", "keeper", "counter"):
        assert style(OXX, state, 0, name) == ("take", 4), name


# -- Onix -----------------------------------------------------------------------------------

def onix_text(state, name):
    return ONIX.notation(state, state.turn, style(ONIX, state, state.turn, name))


def test_the_grabber_takes_the_gem_that_brings_most_cards():
    # The circles of B and C lie side by side: two cards; the habit takes the cross.
    state = onix_position(ONIX_TABLE)
    assert onix_text(state, "habit") == "take X A"
    assert onix_text(state, "grabber") in ("take O B", "take O C")


def test_the_hoarder_takes_the_hoard_gem_whenever_it_shows():
    assert onix_text(onix_position(ONIX_TABLE), "hoarder") == "take S D"


def test_the_spiteful_style_destroys_the_leader_s_collection():
    state = onix_play(onix_position("""
        piles: A=[S O X] B=[D O] C=[S O] D=[D S] E=[O D]
        P1: 1=[O S D] 2=[S]
        P2: 1=[O] hoard=3
        P3: 1=[O S D]
        turn: P1  step: take
    """), "take X A", "place A -> 1")
    assert onix_text(state, "habit") == "destroy P3 1"  # nearest completion
    assert onix_text(state, "spiteful") == "destroy P2 1"  # the leader's


def test_the_spiteful_style_takes_a_gem_that_harms():
    state = onix_position(NO_COMPLETION)  # the habit takes the Hoard gem
    assert onix_text(state, "habit") == "take S A"
    assert onix_text(state, "spiteful").startswith("take D ")


# -- Gem Forge --------------------------------------------------------------------------------

GEM_ROWS = """
    P1: / / 0 / T01 T18 T22
    P2: Y / / 0 / T02 T19 T35
""" + MARKET


def test_the_drawer_draws_where_the_habit_takes_a_useful_gem():
    state = gem_position(GEM_ROWS + "\nmine RYY")
    assert style(GF, state, 0, "habit") == ("take",)
    assert style(GF, state, 0, "drawer") == ("draw",)


def test_the_miner_takes_a_gem_no_ornament_can_use():
    state = gem_position(GEM_ROWS + "\nmine YRR")
    assert style(GF, state, 0, "habit") == ("draw",)
    assert style(GF, state, 0, "miner") == ("take",)


# -- legal, and blind to what the seat may not see ---------------------------------------------

@pytest.mark.parametrize("game, options, players",
                         [("baronoxx", {}, 3), ("baronoxx", {}, 10), ("onix", {}, 3),
                          ("onix", {}, 6), ("gemforge", {}, 3), ("gemforge", {}, 4)])
def test_every_style_decides_legally_and_alike_in_worlds_its_seat_cannot_tell_apart(
        game, options, players):
    engine, positions = random_positions(game, options, players, 20, seed=players + 11)
    for name in styles.FAMILIES[game]:
        for n, (state, seat) in enumerate(positions):
            worlds = [state] + [engine.determinize(state, seat, random.Random(k))
                                for k in range(2)]
            decisions = [style(engine, w, seat, name, seed=n) for w in worlds]
            assert decisions[0] in engine.legal(state, seat), (name, n)
            assert len({engine.notation(w, seat, d) for w, d in zip(worlds, decisions)}) \
                == 1, (name, n)


# -- the arena and the bench seat them ----------------------------------------------------------

def test_the_arena_seats_a_style_and_mixed_tables_meet_every_pair():
    assert check_contestant(" Style:Dumper ") == "style:dumper"
    assert check_contestant("mixed") == "mixed"
    with pytest.raises(ValueError, match="style:NAME"):
        check_contestant("style:nobody")
    with pytest.raises(ValueError, match="styles are"):
        arena(ENGINES["onix"], ["style:dumper"], 1, players=3)
    family = styles.FAMILIES["baronoxx"]
    pairs = {tuple(mixed(OXX, ["bot:hard", "mixed", "mixed"], k)[1:]) for k in range(20)}
    assert len(pairs) == 20 and all(a != b for a, b in pairs)
    assert {name for pair in pairs for name in pair} == {f"style:{n}" for n in family}
    standings = arena(OXX, ["style:keeper"], 3, players=3, seed="m", fill="mixed")
    assert set(standings) == {"style:keeper", "mixed"}
    assert sum(s.mean for s in standings.values()) > 0


def test_a_game_that_goes_round_in_circles_is_a_fair_share_each(monkeypatch):
    monkeypatch.setattr("pbem.bots.arena.GAME_CAP", 10)
    assert GAME_CAP == 5000
    assert play_game(OXX, {}, ["heuristic"] * 4, "circles") == [0.25] * 4


def test_the_bench_measures_hard_and_normal_against_each_style_and_mixed():
    lines = matches("baronoxx", "styles", None, 3)
    assert [(line[2], line[4]) for line in lines] == [
        ([f"bot:{level}"], fill) for fill in
        [f"style:{n}" for n in styles.FAMILIES["baronoxx"]] + ["mixed"]
        for level in ("hard", "normal")]
    assert {line[3] for line in matches("gemforge", "miner", "hard", None)} == {3, 4}
    assert matches("onix", "dumper", None, None) == []


# -- the bots' playouts seat the family -----------------------------------------------------------

def test_in_the_bots_worlds_another_seat_s_secret_card_is_its_style_s():
    state = round_of(oxx_position(FREE), "play 60 row 1 low")
    world = OXX.determinize(state, 1, random.Random(3))
    seated = (OXX_FAMILY["dumper"], OXX_FAMILY["habit"], OXX_FAMILY["habit"])
    styled = oxx_playout.as_habit(world, 1, random.Random(4), 0.0, seated)
    table = oxx_playout.Table(world.rows, True)
    live = oxx_playout.live_cards(world)
    assert styled.chosen[0][0] == OXX_FAMILY["dumper"].card(
        table, list(world.hands[0]), live, 3, random.Random(0), 0.0)


@pytest.mark.parametrize("game", ["baronoxx", "onix", "gemforge"])
def test_the_bot_draws_the_other_seats_styles_from_the_family(monkeypatch, game):
    from pbem import bots
    engine, positions = random_positions(game, {}, 3, 8, seed=2)
    drawn = []

    def sample(engine, players, at, rng):
        found = real(engine, players, at, rng)
        drawn.append((at, found))
        return found
    real = styles.sample
    monkeypatch.setattr(styles, "sample", sample)
    for state, seat in positions:  # the first with a choice to search
        bots.decide(engine, state, seat, "easy", seed="d", iterations=6, time_limit=None)
        if drawn:
            break
    assert drawn and all(at == seat and found[at] == "habit" for at, found in drawn)
    others = {found[s] for _, found in drawn for s in range(3) if s != seat}
    assert others <= set(styles.FAMILIES[game]) and len(others) > 1


def test_styles_are_fair_players_against_the_habit():
    standings = arena(OXX, ["style:counter"], 6, players=3, seed="f", fill="heuristic")
    assert 0 < standings["style:counter"].mean < 1
    assert heuristic.GAMES == tuple(styles.FAMILIES)


def test_pbem_arena_seats_a_style_among_mixed_seats_and_names_a_game_s_styles(capsys):
    from pbem.cli import main
    assert main(["arena", "baronoxx", "--players", "style:keeper", "--seats", "3",
                 "--fill", "mixed", "--games", "2", "--seed", "t"]) == 0
    out = capsys.readouterr().out
    assert "6 nimmt! Baron Oxx, 3 players, 2 games:" in out
    assert "style:keeper:" in out and "mixed:" in out
    assert main(["arena", "onix", "--players", "style:keeper"]) == 2
    assert ("Onix's styles are habit, grabber, hoarder, spiteful, careless"
            in capsys.readouterr().err)


def test_the_arena_summary_lines_up_names_longer_than_ten_letters():
    standings = {name: Standing(name, shares=[0.5, 0.0]) for name in
                 ("bot:hard", "style:keeper", "style:counter")}
    lines = summary(standings, 3)
    assert lines[0].startswith("     bot:hard:  25.0% of the wins (95% CI ")
    assert lines[2].startswith("style:counter:  25.0% of the wins")
    assert len({line.index(":", 9) for line in lines}) == 1
