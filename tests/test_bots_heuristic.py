"""The heuristic players (pbem.bots.heuristic): each makes the move its rule names, in
literal positions of 6 nimmt! Baron Oxx, Onix and Gem Forge, and only from what its seat
sees. They are the sensible opponents `pbem arena` and bench/bots.py measure bots against.
"""

import random

import pytest

from notation.baronoxx import NO_PREF
from pbem.bots import heuristic
from pbem.bots.arena import arena, check_contestant
from pbem.cli import main
from pbem.engines import ENGINES

from onix_position import ENGINE as ONIX, position as onix_position
from test_baronoxx import OXX, position as oxx_position, round_of
from test_bots import random_positions
from test_gemforge import GF, MARKET, position as gem_position

RNG = random.Random(0)


def oxx(state, seat):
    return heuristic.decision(OXX, state, seat, RNG)


def onix_text(state):
    return ONIX.notation(state, state.turn, heuristic.decision(ONIX, state, state.turn, RNG))


def gem(state, seat=0):
    return heuristic.decision(GF, state, seat, RNG)


# -- 6 nimmt! Baron Oxx: the card that costs least now, the cheapest row ----------------

# Row 1 ends with 54 and holds four yellow bullheads (17 YYY, 54 Y): 87 (YY) would make
# six and take it (4 bullheads). 12 (BB) on row 5 makes five blue, 60 (K) on row 2 four
# black: both cost nothing now, and 60 leaves its row farther from being taken.
OXX_ROWS = "rows: 1=[17 54] 2=[30] 3=[47] 4=[7] 5=[51]"


def test_oxx_plays_the_card_whose_placement_costs_least_now():
    state = oxx_position(f"{OXX_ROWS}\nhands: 1=[87 12] 2=[1 2]\ndecks: 1=4 2=4")
    assert oxx(state, 0) == ("play", 12, NO_PREF)


def test_oxx_among_free_cards_plays_the_one_that_leaves_its_row_farthest_from_taken():
    state = oxx_position(f"{OXX_ROWS}\nhands: 1=[87 12 60] 2=[1 2]\ndecks: 1=4 2=4")
    assert oxx(state, 0) == ("play", 60, NO_PREF)


def test_oxx_takes_the_cheapest_row_when_its_card_fits_none():
    # 86 (WW) shares no colour with any row's last card: Rule 3. Penalties: rows 1-4
    # hold 5, 6 (after 60 goes on it), 5 and 4 bullheads, row 5 (51 BBB) only 3.
    state = round_of(oxx_position("""
        rows: 1=[17 87] 2=[9 30] 3=[20 47] 4=[54 7] 5=[51]
        hands: 1=[86 1] 2=[60 2]
        decks: 1=4 2=4
    """), "play 86", "play 60")
    assert OXX.to_act(state) == {0} and state.waiting()[1] == "take"
    assert oxx(state, 0) == ("take", 4)


def test_oxx_asked_between_rows_avoids_the_one_its_card_would_take():
    # 9 (YK) fits row 1 (ends Y) and row 2 (ends K); on row 1 it makes six yellow.
    state = round_of(oxx_position("""
        rows: 1=[17 87] 2=[30] 3=[47] 4=[7] 5=[51]
        hands: 1=[9 1] 2=[105 2]
        decks: 1=4 2=4
    """), "play 9", "play 105")
    assert OXX.to_act(state) == {0} and state.waiting() == (9, "row", [0, 1])
    assert oxx(state, 0) == ("row", 1)


# -- Onix: the take and placements that score most this turn -----------------------------

# P1's Collection 1 lacks only a cross; pile A shows one. Taking the two circles of B and
# C, or the square of D, completes nothing.
ONIX_TABLE = """
    piles: A=[S O X] B=[D O] C=[S O] D=[D S] E=[O D]
    P1: 1=[O S D] 2=[S]
    P2: 1=[O S D] 2=[X]
    turn: P1  step: take
"""


def test_onix_takes_the_gem_that_completes_a_collection_and_places_it_there():
    state = onix_position(ONIX_TABLE)
    assert onix_text(state) == "take X A"
    state = ONIX.apply(state, 0, ONIX.parse(state, 0, "take X A"))
    assert onix_text(state) == "place A -> 1"


def test_onix_destroys_the_opponents_collection_nearest_completion():
    state = onix_position(ONIX_TABLE)
    for text in ("take X A", "place A -> 1"):
        state = ONIX.apply(state, 0, ONIX.parse(state, 0, text))
    assert (1, (1, 2, 4, 8)) in state.collections[0]  # complete: Hoarded at the turn's end
    assert onix_text(state) == "destroy P2 1"


NO_COMPLETION = """
    piles: A=[O D S] B=[S X O] C=[X D O] D=[O S D] E=[S O D]
    P1: 1=[S] 2=[S D]
    P2: 1=[O] 2=[X]
    turn: P1  step: take
"""


def test_onix_without_a_completion_prefers_a_card_won_to_progress():
    # Nothing completes. The square of A brings the Hoard effect: a card won. The two
    # circles of B and C would bring 2=[S D] to three gems and 1=[S] to two, and their
    # Draw a diamond onto 1: progress only, worth less than a card won.
    state = onix_position(NO_COMPLETION)
    assert onix_text(state) == "take S A"
    state = ONIX.apply(state, 0, ONIX.parse(state, 0, "take S A"))
    assert onix_text(state).startswith("hoard ")


def test_onix_does_not_count_on_the_card_under_a_top_it_takes():
    # Taking the circles of B and C uncovers two cards nobody has seen: their Draw can
    # only count on the tops in sight (A, D, E), whatever lies under B and C.
    state = onix_position(NO_COMPLETION)
    take = next(c for c in ONIX.choices(state) if ONIX.notation(state, 0, c) == "take O B")
    values = {heuristic.onix_value(ONIX, ONIX.determinize(state, 0, random.Random(k)), take)
              for k in range(8)}
    assert len(values) == 1


# -- Gem Forge: cash, complete, advance, take what helps, discard what cannot -------------

def test_gemforge_cashes_a_complete_ornament_first():
    state = gem_position("""
        P1: G / / 0 / T01=RG T22 T34
        P2: Y / / 0 / T02 T19 T35
    """ + MARKET)
    assert gem(state) == ("cash", ("T01",))


def test_gemforge_sets_the_gem_that_completes_an_ornament():
    state = gem_position("""
        P1: G / / 0 / T01=R. T22 T34=Y.
        P2: Y / / 0 / T02 T19 T35
    """ + MARKET)
    assert gem(state) == ("set", "G", "T01")


def test_gemforge_else_sets_where_fewest_slots_are_left():
    state = gem_position("""
        P1: R / / 0 / T07 T21=RR.. T22
        P2: Y / / 0 / T02 T19 T35
    """ + MARKET)
    assert gem(state) == ("set", "R", "T21")


def test_gemforge_takes_a_gem_only_when_an_ornament_can_use_it():
    rows = """
        P1: / / 0 / T01 T18 T22
        P2: Y / / 0 / T02 T19 T35
    """ + MARKET
    assert gem(gem_position(rows + "\nmine RYY")) == ("take",)
    assert gem(gem_position(rows + "\nmine YRR")) == ("draw",)


def test_gemforge_with_a_full_hand_takes_the_useless_front_gem_to_bring_the_next_up():
    rows = """
        P1: / cancel swap-ornaments discard-gems swap-gems / 0 / T01 T18 T22
        P2: Y / / 0 / T02 T19 T35
    """ + MARKET + "\nmine YRR"
    state = gem_position(rows)
    assert gem(state) == ("take",)  # a card drawn now would only be dropped again
    state = GF.apply(state, 0, ("take",))
    assert state.carts[0] == "Y" and state.mine[0] == "R"
    assert gem(state) == ("take",)  # the R that T01 wants came up; the Y goes later
    state = GF.apply(state, 0, ("take",))
    assert state.carts[0] == "YR" and state.active == 1  # two actions: P2 to play


def test_gemforge_discards_a_gem_no_ornament_can_use():
    state = gem_position("""
        P1: Y / / 0 / T01 T18 T22
        P2: Y / / 0 / T02 T19 T35
    """ + MARKET + "\nmine YRR")
    assert gem(state) == ("discard", "Y")


# -- fair and legal -----------------------------------------------------------------------

@pytest.mark.parametrize("game, options, players",
                         [("baronoxx", {}, 3), ("baronoxx", {"variant": "2"}, 10),
                          ("onix", {}, 3), ("onix", {"advanced": "true"}, 6),
                          ("gemforge", {}, 2), ("gemforge", {}, 4)])
def test_the_heuristic_decides_legally_and_alike_in_worlds_its_seat_cannot_tell_apart(
        game, options, players):
    engine, positions = random_positions(game, options, players, 25, seed=players + 5)
    for state, seat in positions:
        worlds = [state] + [engine.determinize(state, seat, random.Random(k))
                            for k in range(3)]
        decisions = [heuristic.decision(engine, w, seat, RNG) for w in worlds]
        assert decisions[0] in engine.legal(state, seat)
        assert len({engine.notation(w, seat, d) for w, d in zip(worlds, decisions)}) == 1


def test_heuristic_players_beat_random_ones_in_every_card_game():
    for game in ("baronoxx", "onix", "gemforge"):
        standings = arena(ENGINES[game], ["heuristic"], 6, players=3, seed="h",
                          fill="random")
        assert standings["heuristic"].mean > 0.5, game


def test_an_arena_run_in_parts_plays_the_games_of_the_whole(monkeypatch):
    # bench/bots.py --first K: game k's seed and seating come from k alone.
    from pbem.bots import arena as arena_module
    played = []

    def play_game(engine, options, seats, seed, standings):
        played.append((seed, seats))
        return [1.0, 0.0, 0.0]
    monkeypatch.setattr(arena_module, "play_game", play_game)
    standings = arena(ENGINES["onix"], ["heuristic"], 2, players=3, seed="parts", first=3)
    assert played == [("parts/3", ["heuristic", "random", "random"]),
                      ("parts/4", ["random", "random", "heuristic"])]
    assert standings["heuristic"].shares == [1.0, 0.0]


def test_pbem_arena_seats_heuristic_players(capsys):
    assert check_contestant(" Heuristic ") == "heuristic"
    assert main(["arena", "onix", "--players", "heuristic", "--seats", "4", "--fill",
                 "random", "--games", "2", "--seed", "t"]) == 0
    out = capsys.readouterr().out
    assert "Onix, 4 players, 2 games:" in out and "heuristic:" in out and "random:" in out
    assert main(["arena", "onix", "--players", "heuristic", "--fill", "nobody"]) == 2
    assert "bot:hard, heuristic or random" in capsys.readouterr().err

