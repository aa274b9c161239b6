"""Onix's bot search (pbem.bots.onix_search) and its evaluation
(pbem.bots.onix_evaluation): what they do on literal positions. How well the bot plays
is measured by bench/bots.py, not here.
"""

import random

import pytest

from bench.onix_evaluation import least_squares, self_play, solve
from pbem import bots
from pbem.bots import cpu_cap, heuristic, onix_search
from pbem.bots.onix_evaluation import BINS, WEIGHTS, expected_hoards, features, near_end
from pbem.bots.search import canonical, candidates

from onix_position import ENGINE as ONIX, play, position

SIX = """
    piles: A=[S O X] B=[D O] C=[S O] D=[D S] E=[O D]
    P1: 1=[O S D] 2=[S] hoard=2
    P2: 1=[O S] 2=[X]
    P3: 1=[D]
    P4: 1=[O] 2=[S]
    P5: 1=[X] hoard=1
    P6: 1=[D X]
    turn: P1  step: take
"""


def test_near_end_counts_the_smallest_pile_or_the_two_smallest_at_five_or_six():
    assert near_end(position(SIX)) == 4  # B and C hold 2 cards each
    three = position("""
        piles: A=[S O X] B=[D O] C=[S O O O] D=[D S] E=[O D D]
        P1: 1=[O]
        P2: 1=[X]
        P3: 1=[D]
    """)
    assert near_end(three) == 2


def test_features_count_collections_by_gems_and_the_seat_s_place_in_the_order():
    state = position(SIX)
    #           1, one gem, two gems, their cards, three gems, their cards, order
    assert features(state, 0) == (1.0, 1, 0, 0, 1, 3, 0.0)
    assert features(state, 1) == (1.0, 1, 1, 2, 0, 0, 1 / 6)
    assert features(state, 5) == (1.0, 0, 1, 2, 0, 0, 5 / 6)


def test_a_collection_one_gem_from_complete_is_worth_more_than_single_gems():
    state = position("""
        piles: A=[S O X S] B=[D O S O] C=[S O X D] D=[D S O O] E=[O D X X]
        P1: 1=[O S D]
        P2: 1=[O] 2=[S] 3=[D]
        P3: 1=[X]
        turn: P3
    """)
    first, second, _ = expected_hoards(state)
    assert first > second + 0.5


def test_at_the_end_the_expected_hoard_is_the_hoard_less_the_tie_break():
    state = play(position("""
        piles: A=[X] B=[D O] C=[S O] D=[D S] E=[O D]
        P1: 1=[O S D] 2=[S] hoard=2
        P2: 1=[O S] hoard=3
    """), "take X A", "place A -> 1", "destroy P2 1")
    assert state.phase == "over"
    # P1: 2 + 4 cards completed, S left (1 gem); P2: 3, O left.
    assert expected_hoards(state) == [6 - 0.01, 3 - 0.01]


def test_every_table_size_and_bin_has_weights():
    for players in range(2, 7):
        assert len(WEIGHTS[players]) == len(BINS)
        assert all(len(row) == 7 for row in WEIGHTS[players])


def test_a_round_ends_after_the_bot_s_next_turn():
    state = position(SIX.replace("piles: A=[", "piles: A=[O S D X O S D X S O X ")
                     .replace("B=[", "B=[S D X O S D X O D O ")
                     .replace("C=[", "C=[D X O S D X O S S O ")
                     .replace("D=[", "D=[X O S D X O S D D S ")
                     .replace("E=[", "E=[O D S X O D S X O D "))
    after, plies = onix_search.play_round(ONIX, state, 0, random.Random(1))
    assert after.phase == "take" and after.turn == 1
    assert plies >= 7  # the bot's two turns and the five others', a step or more each


def test_a_round_stops_at_the_end_of_the_game():
    state = position("""
        piles: A=[X] B=[D O] C=[S O] D=[D S] E=[O D]
        P1: 1=[O S D] 2=[S]
        P2: 1=[O S]
    """)
    after, _ = onix_search.play_round(ONIX, state, 0, random.Random(1))
    assert after.phase == "over"


@pytest.mark.parametrize("seat", [0, 3])
def test_with_one_option_compared_the_search_plays_the_habit(monkeypatch, seat):
    state = position(SIX.replace("turn: P1", f"turn: P{seat + 1}"))
    monkeypatch.setattr(onix_search, "WIDTH", 1)
    world = canonical(ONIX, state, seat)
    options = {ONIX.notation(world, seat, d): d for d in candidates(ONIX, world, seat)}
    chosen = onix_search.choose(ONIX, world, seat, options, random.Random(2), 1e9, None, 2)
    assert chosen == ONIX.notation(world, seat, heuristic.decision(ONIX, world, seat, None))


def test_the_hard_bot_completes_a_collection_at_six_players():
    state = position(SIX)  # P1's Collection 1 lacks only A's cross
    decision = bots.decide(ONIX, state, 0, "hard", seed="six", iterations=8,
                           time_limit=None)
    assert ONIX.notation(state, 0, decision) == "take X A"


def test_a_steal_among_many_is_chosen_among_the_habit_s_best(monkeypatch):
    state = play(position(SIX), "take D E", "place E -> 2")
    assert state.phase == "effect"  # a steal: every opponent's Collections, anywhere
    world = canonical(ONIX, state, 0)
    options = {ONIX.notation(world, 0, d): d for d in candidates(ONIX, world, 0)}
    assert len(options) > onix_search.WIDTH
    best = sorted(options, key=lambda k: -heuristic.onix_value(ONIX, world, options[k]))
    chosen = onix_search.choose(ONIX, world, 0, options, random.Random(3), 1e9, None, 4)
    assert chosen in best[:onix_search.WIDTH]


def test_the_fit_recovers_a_known_line():
    rows = [((1.0, x, 0, 0, 0, 0, 0), 2.0 + 3.0 * x) for x in range(10)]
    weights, r2 = least_squares(rows)
    assert weights[0] == pytest.approx(2.0, abs=1e-3)
    assert weights[1] == pytest.approx(3.0, abs=1e-3)
    assert r2 == pytest.approx(1.0)
    assert solve([[2.0, 1.0], [1.0, 3.0]], [3.0, 5.0]) == pytest.approx([0.8, 1.4])


def test_self_play_records_every_seat_at_every_turn_with_the_hoard_to_come():
    rows = self_play(3, 0)
    assert rows and len(rows) % 3 == 0
    assert all(0 <= row < len(BINS) and target >= 0 and len(found) == 7
               for row, found, target in rows)


def test_the_search_stops_when_its_longest_iteration_would_pass_the_cap(monkeypatch):
    # A round's length varies more than a whole game's: an iteration of 1 s then one of
    # 0.25 s average 0.625 s, but the next could take 1 s again and end past the cap.
    state = play(position(SIX), "take D E", "place E -> 2")  # a steal: many options
    world = canonical(ONIX, state, 0)
    options = {ONIX.notation(world, 0, d): d for d in candidates(ONIX, world, 0)}
    assert len(options) >= onix_search.WIDTH
    clock, calls = {"now": 0.0}, []

    def playout(engine, after, seat, rng, seated):
        calls.append(1)
        clock["now"] += 0.2 if len(calls) <= onix_search.WIDTH else 0.05
        return 0.0, 10
    monkeypatch.setattr(cpu_cap.time, "process_time", lambda: clock["now"])
    monkeypatch.setattr(onix_search, "playout", playout)
    onix_search.choose(ONIX, world, 0, options, random.Random(4), 1e12, 2.0, None)
    assert len(calls) == 2 * onix_search.WIDTH and clock["now"] == pytest.approx(1.25)


def test_the_fit_prints_weights_for_every_bin_taking_a_neighbour_s_where_few(monkeypatch,
                                                                                capsys):
    from bench import onix_evaluation
    monkeypatch.setattr(onix_evaluation, "FEWEST", 40)
    onix_evaluation.fit(3)
    printed = capsys.readouterr().out
    namespace = {}
    exec(printed, namespace)  # the literal to paste into pbem/bots/onix_evaluation.py
    weights = namespace["WEIGHTS"]
    assert sorted(weights) == [2, 3, 4, 5, 6]
    assert all(len(rows) == len(BINS) and all(len(row) == 7 for row in rows)
               for rows in weights.values())
    assert "too few seats, as >= " in printed and "R²" in printed


def test_the_fit_refuses_too_few_games(monkeypatch):
    from bench import onix_evaluation
    with pytest.raises(SystemExit, match="play more"):
        onix_evaluation.fit(1)
