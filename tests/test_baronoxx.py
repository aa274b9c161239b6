"""6 nimmt! Baron Oxx, rule by rule (RULINGS N1–N18), on literal positions: the cards,
the deal, what each seat sees, a round, preferences and deadlines, scoring and matches.
The variants are in test_baronoxx_variants.py; records, views, the command line and bad
input in test_baronoxx_records.py.

Positions are written as the table looks: rows left to right, hands, the unseen cards in
each deck (a count), public cards under a deck, Oxx piles. Seats and rows are numbered
from 1, as players write them. Cards used below (one letter per bullhead, data file):

    17 YYY   30 KKK   47 GGG   7 RRR   51 BBB   87 YY    54 Y     60 K     39 W
    86 WW    92 WWW   12 BB    105 B   9 YK     46 KW    67 YK    52/104 Baron Oxx
"""

from __future__ import annotations

import re
import textwrap

import pytest

from notation.baronoxx import NO_PREF
from pbem.engines import get_engine
from pbem.engines.base import CHANCE, IllegalMove
from pbem.engines.baronoxx.cards import CARDS, read_cards
from pbem.engines.baronoxx.state import CARDS_EACH, CHOOSE, OxxState
from pbem.engines.game import Game, selfplay

OXX = get_engine("baronoxx")
ENDS = "rows: 1=[17] 2=[30] 3=[47] 4=[7] 5=[51]"  # one colour each: Y K G R B


def position(text: str, variant: str = "base", games: int = 1) -> OxxState:
    """A state from lines `rows: 1=[17 87] ...`, `hands:`, `decks: 1=8`, `under:`,
    `piles:`, `unseen: [...]` (default: every card not named)."""
    spec, unseen = {}, None
    for line in textwrap.dedent(text).strip().splitlines():
        key, _, rest = line.partition(":")
        if key.strip() == "unseen":
            unseen = tuple(sorted(map(int, rest.strip(" []").split())))
            continue
        spec[key.strip()] = {int(n) - 1: tuple(map(int, v.strip("[]").split()))
                             for n, v in re.findall(r"(\d+)=(\[[^\]]*\]|\d+)", rest)}
    players = len(spec["hands"])
    seats = range(players)

    def per_seat(key, empty=()):
        return tuple(spec.get(key, {}).get(s, empty) for s in seats)

    named = {c for key in ("rows", "hands", "under", "piles") for cards in
             spec.get(key, {}).values() for c in cards}
    return OxxState(
        players, variant, games, phase=CHOOSE, round=1,
        rows=tuple(spec["rows"][r] for r in range(5)),
        hands=tuple(tuple(sorted(h)) for h in per_seat("hands")), known=((),) * players,
        unknown=tuple(d[0] if d else 0 for d in per_seat("decks")),
        bottoms=per_seat("under"),
        unseen=unseen if unseen is not None else tuple(sorted(set(range(1, 111)) - named)),
        piles=per_seat("piles"), chosen=(None,) * players, standing=(NO_PREF,) * players)


def play(state: OxxState, seat: int, text: str) -> OxxState:
    """Seat `seat` (from 1) sends `text`; the dealer is seat 0."""
    return OXX.play(state, seat - 1 if seat else CHANCE, text)[0]


def round_of(state: OxxState, *texts: str) -> OxxState:
    for seat, text in enumerate(texts, start=1):
        state = play(state, seat, text)
    return state


def rows(state: OxxState) -> list[list[int]]:
    return [list(row) for row in state.rows]


def asked(state: OxxState) -> int | None:
    """The seat (from 1) the placement waits for."""
    return None if state.asked is None else state.asked + 1


# -- N1 cards -------------------------------------------------------------------------

def test_n1_the_table_has_110_cards_and_two_barons_of_every_colour():
    assert sorted(CARDS) == list(range(1, 111))
    for baron in (52, 104):
        assert CARDS[baron].bullheads == (1,) * 6 and CARDS[baron].penalty == 6
    assert all(card.penalty == sum(card.bullheads) for card in CARDS.values())


def test_n1_the_data_file_is_marked_assumed_and_checked_when_read():
    from importlib import resources
    text = resources.files("pbem.engines.baronoxx").joinpath("cards.csv").read_text()
    assert "ASSUMED" in text.splitlines()[0]
    with pytest.raises(ValueError, match="penalty"):
        read_cards(text.replace("\n7,R3,3,", "\n7,R3,2,"))


# -- N2–N5 the deal and the decks ------------------------------------------------------

@pytest.mark.parametrize("players", range(2, 11))
def test_n2_n4_each_player_gets_a_deck_of_the_rulebook_size_and_draws_four(players):
    game = Game(OXX, {}, [f"p{n}" for n in range(players)], seed="deal")
    view = OXX.view(game.state, None)
    assert [ply.text.split()[0] for ply in game.plies] == ["draw"] * players + ["rows"]
    assert view["hand_sizes"] == [4] * players
    assert view["deck_sizes"] == [CARDS_EACH[players] - 4] * players
    assert [len(row) for row in view["rows"]] == [1] * 5
    assert len(game.state.unseen) == 110 - 5 - 4 * players  # decks and the set-aside


def test_n3_set_aside_cards_are_shown_only_after_the_game():
    game = selfplay(OXX, {}, 2, "n3")
    final = OXX.view(game.state, 0)
    assert len(final["set_aside"]) == 110 - 5 - 2 * 24
    running = Game(OXX, {}, ["a", "b"], seed="n3")
    assert "set_aside" not in OXX.view(running.state, 0)


def test_n5_hands_are_refilled_only_when_empty_at_the_end_of_a_round():
    state = position(f"""
        {ENDS}
        hands: 1=[54 60] 2=[9 46]
        decks: 1=4 2=4
    """)
    state = round_of(state, "play 54", "play 46")
    assert OXX.to_act(state) == {0, 1} and state.hands == ((60,), (9,))
    state = round_of(state, "play 60", "play 9 row 2")
    assert OXX.to_act(state) == {CHANCE}
    state = play(state, 0, "draw #1 1 2 3 4")
    with pytest.raises(IllegalMove, match="draw #2"):
        play(state, 0, "draw #1 5 6 8 10")
    state = play(state, 0, "draw #2 5 6 8 10")
    assert state.hands == ((1, 2, 3, 4), (5, 6, 8, 10)) and OXX.to_act(state) == {0, 1}


# -- N6, N16 what each seat sees ---------------------------------------------------------

def test_n6_a_seat_sees_its_hand_and_who_has_chosen_never_what():
    state = play(position(f"""
        {ENDS}
        hands: 1=[54 60] 2=[9 46]
        decks: 1=4 2=4
    """), 1, "play 60 row 2")
    mine, theirs, public = (OXX.view(state, 0), OXX.view(state, 1), OXX.view(state, None))
    assert mine["hand"] == [54, 60] and mine["choice"] == "play 60 row 2"
    assert theirs["hand"] == [9, 46] and theirs["choice"] is None
    assert theirs["chosen"] == public["chosen"] == [True, False]
    for view in (theirs, public):
        assert "54" not in str(view) and "60" not in str(view)
        assert "54" not in OXX.text_diagram(view) and ">54<" not in OXX.svg_diagram(view)
    assert public["piles"] == [[], []] and public["deck_sizes"] == [4, 4]


def test_n6_secret_decisions_are_read_only_by_their_author():
    state = position(f"{ENDS}\nhands: 1=[54 60] 2=[9 46]\ndecks: 1=4 2=4")
    choice = OXX.parse(state, 0, "play 60 row 2")
    assert OXX.visible_notation(state, 0, choice, 0) == "play 60 row 2"
    assert OXX.visible_notation(state, 0, choice, 1) is None
    assert OXX.visible_notation(state, 0, choice, None) is None
    pref = OXX.parse(state, 1, "pref take 3")
    assert OXX.visible_notation(state, 1, pref, 0) is None
    draw = ("draw", 1, (1, 2, 3, 4), ())
    assert OXX.visible_notation(state, CHANCE, draw, 1) == "draw #2 1 2 3 4"
    assert OXX.visible_notation(state, CHANCE, draw, 0) is None


def test_n6_a_card_put_under_a_deck_stays_public_when_drawn_again():
    state = position(f"""
        {ENDS}
        hands: 1=[39] 2=[60 9]
    """, variant="2")
    state = round_of(state, "play 39", "play 60")
    assert OXX.view(state, None)["under_decks"] == [[], []]
    assert state.hands[0] == (39,) and OXX.view(state, 1)["known_in_hand"] == [[39], []]
    assert "39 in hand (seen by all)" in OXX.text_diagram(OXX.view(state, 1))


# -- N7–N12 a round ---------------------------------------------------------------------

def test_n8_the_last_choice_reveals_and_the_order_of_arrival_does_not_matter():
    start = position(f"{ENDS}\nhands: 1=[54 60] 2=[9 46] 3=[12 67]\ndecks: 1=4 2=4 3=4")
    texts = {1: "play 54", 2: "play 46", 3: "play 12"}
    finals = []
    for order in ([1, 2, 3], [3, 1, 2], [2, 3, 1]):
        state = start
        for seat in order[:-1]:
            state = play(state, seat, texts[seat])
            assert OXX.view(state, None)["revealed"] == []
        state = play(state, order[-1], texts[order[-1]])
        finals.append(OXX.to_json(state))
    assert finals[0] == finals[1] == finals[2]
    assert OXX.view(OXX.from_json(finals[0]), None)["revealed"] == [[12, 2], [46, 1],
                                                                     [54, 0]]


def test_n8_n14a_a_choice_may_be_replaced_until_the_reveal():
    state = play(position(f"{ENDS}\nhands: 1=[54 60] 2=[9 46]\ndecks: 1=4 2=4"),
                 1, "play 54")
    assert OXX.to_act(state) == {1}
    replacement = OXX.parse(state, 0, "play 60")
    assert replacement in OXX.legal(state, 0)
    assert not OXX.reveals(state, 0, replacement)
    state = OXX.apply(state, 0, replacement)
    assert state.chosen[0] == (60, NO_PREF)
    assert OXX.reveals(state, 1, OXX.parse(state, 1, "play 46"))
    state = play(state, 2, "play 46")
    assert rows(state)[1] == [30, 46, 60]


def test_n9_cards_go_down_lowest_first_and_see_the_earlier_placements():
    # 92 (white) fits no row on its own, but 46 (black and white) is placed first.
    state = round_of(position(f"{ENDS}\nhands: 1=[46 1] 2=[92 2]\ndecks: 1=4 2=4"),
                     "play 46", "play 92")
    assert rows(state)[1] == [30, 46, 92]
    assert [e[:3] for e in state.events] == [(0, 46, 1), (1, 92, 1)]


def test_n10_colour_with_colour_and_baron_oxx_fits_every_row():
    state = round_of(position(f"{ENDS}\nhands: 1=[52 1] 2=[60 2]\ndecks: 1=4 2=4"),
                     "play 52", "play 60")
    assert asked(state) == 1 and len(OXX.legal(state, 0).plain) == 5
    state = play(state, 1, "row 3")
    # 60 (black) may follow the Baron in row 3 or row 2's black: a real choice.
    assert rows(state)[2] == [47, 52]
    assert asked(state) == 2 and {d[1] for d in OXX.legal(state, 1).plain} == {1, 2}


def test_n11_one_matching_row_is_filled_in_without_asking():
    state = round_of(position(f"{ENDS}\nhands: 1=[54 1] 2=[60 2]\ndecks: 1=4 2=4"),
                     "play 54", "play 60")
    assert rows(state)[:2] == [[17, 54], [30, 60]] and OXX.to_act(state) == {0, 1}


def test_n11_several_matching_rows_ask_that_player_only():
    state = round_of(position(f"{ENDS}\nhands: 1=[9 1] 2=[60 2]\ndecks: 1=4 2=4"),
                     "play 9", "play 60")
    assert OXX.to_act(state) == {0}
    assert "fits rows 1 and 2" in OXX.prompt(state, 0)
    with pytest.raises(IllegalMove, match="shares no colour"):
        play(state, 1, "row 3")
    with pytest.raises(IllegalMove, match="Nobody asked you"):
        play(state, 2, "row 2")
    state = play(state, 1, "2")  # a bare number is a row when asked
    assert rows(state)[1] == [30, 9, 60]


def test_n12_rule_2_six_bullheads_of_a_colour_counting_the_card_placed():
    state = round_of(position("""
        rows: 1=[17 87] 2=[30] 3=[47] 4=[7] 5=[51]
        hands: 1=[54 1] 2=[60 2]
        decks: 1=4 2=4
    """), "play 54", "play 60")
    assert rows(state)[0] == [54] and state.piles[0] == (17, 87)
    assert state.events[0][4] == "rule 2"


def test_n12_rule_1_the_sixth_card_takes_five():
    state = round_of(position("""
        rows: 1=[1 105 54 75 39] 2=[30] 3=[47] 4=[7] 5=[51]
        hands: 1=[46 2] 2=[60 3]
        decks: 1=4 2=4
    """), "play 46 row 1", "play 60 row 2")
    assert rows(state)[0] == [46] and state.piles[0] == (1, 105, 54, 75, 39)


def test_n12_both_rules_at_once_take_the_row_once():
    state = round_of(position("""
        rows: 1=[87 1 105 54 11] 2=[30] 3=[47] 4=[7] 5=[51]
        hands: 1=[17 2] 2=[60 3]
        decks: 1=4 2=4
    """), "play 17", "play 60")
    assert state.piles[0] == (87, 1, 105, 54, 11) and state.events[0][4] == "rule 1+2"
    assert OXX.view(state, None)["bullheads"] == [7, 0]


def test_n7_a_taken_row_starts_again_in_its_own_place():
    state = round_of(position("""
        rows: 1=[30] 2=[17 87] 3=[47] 4=[7] 5=[51]
        hands: 1=[54 1] 2=[60 2]
        decks: 1=4 2=4
    """), "play 54", "play 60")
    assert rows(state)[1] == [54]


# -- N13–N15 preferences, deadlines, Rule 3 -----------------------------------------------

def test_n13_the_cards_row_list_chooses_the_first_legal_row():
    state = round_of(position(f"{ENDS}\nhands: 1=[9 1] 2=[60 2]\ndecks: 1=4 2=4"),
                     "play 9 row 4 2 1", "play 60")
    assert rows(state)[1] == [30, 9, 60] and OXX.to_act(state) == {0, 1}


def test_n13_a_row_list_never_takes_a_row_under_rule_3():
    state = round_of(position(f"{ENDS}\nhands: 1=[39 1] 2=[60 2]\ndecks: 1=4 2=4"),
                     "play 39 row 1", "play 60")
    assert asked(state) == 1 and "Rule 3" in OXX.prompt(state, 0)
    state = round_of(position(f"{ENDS}\nhands: 1=[39 1] 2=[60 2]\ndecks: 1=4 2=4"),
                     "play 39 row 1 take 4", "play 60")
    assert rows(state)[3] == [39] and state.piles[0] == (7,)


def test_n13_low_and_high_compare_the_points_taken_now():
    text = """
        rows: 1=[17 87] 2=[30 9] 3=[47] 4=[7] 5=[51]
        hands: 1=[54 1] 2=[60 2]
        decks: 1=4 2=4
    """  # 54 (yellow) fits row 1 (Rule 2: 5 points) and row 2 (no take)
    low = round_of(position(text), "play 54 low", "play 60")
    assert rows(low)[1] == [30, 9, 54] and low.piles[0] == ()
    high = round_of(position(text), "play 54 high", "play 60 row 2")
    assert rows(high)[0] == [54] and high.piles[0] == (17, 87)


def test_n13_the_cards_preference_comes_before_the_standing_one():
    state = play(position(f"{ENDS}\nhands: 1=[9 1] 2=[60 2]\ndecks: 1=4 2=4"),
                 1, "pref row 1")
    assert OXX.view(state, 0)["preference"] == "row 1"
    assert OXX.view(state, 1)["preference"] is None
    after = round_of(state, "play 9 row 2", "play 60 row 2")
    assert rows(after)[1][:2] == [30, 9]
    after = round_of(state, "play 9", "play 60")
    assert rows(after)[0] == [17, 9]


def test_n13_a_standing_preference_sent_while_asked_settles_the_placement():
    state = round_of(position(f"{ENDS}\nhands: 1=[9 1] 2=[60 2]\ndecks: 1=4 2=4"),
                     "play 9", "play 60")
    pref = OXX.parse(state, 0, "pref row 2")
    assert OXX.reveals(state, 0, pref)
    state = OXX.apply(state, 0, pref)
    assert rows(state)[1] == [30, 9, 60]


def test_n14_the_deadline_plays_the_lowest_card_low_and_places_it_low():
    state = position("""
        rows: 1=[17 87] 2=[30 9] 3=[47] 4=[7] 5=[51]
        hands: 1=[54 80] 2=[60 2]
        decks: 1=4 2=4
    """)
    assert OXX.default_decision(state, 0) == ("play", 54, ((), (), "low"))
    assert OXX.default_decision(position(ENDS + "\nhands: 1=[54] 2=[60]", variant="2"),
                                0) == ("play", 54, ((), (), "high"))
    state = round_of(state, "play 54", "play 60 row 2")
    assert OXX.default_decision(state, 0) == ("row", 1)


def test_n15_rule_3_takes_the_chosen_row_and_always_asks():
    state = round_of(position(f"""
        {ENDS}
        hands: 1=[39 1] 2=[92 2]
        decks: 1=4 2=4
    """), "play 39", "play 92")
    assert asked(state) == 1 and len(OXX.legal(state, 0).plain) == 5
    with pytest.raises(IllegalMove, match="take 1 to take 5"):
        play(state, 1, "row 4")
    state = play(state, 1, "take 4")
    assert state.piles[0] == (7,)
    assert rows(state)[3] == [39, 92]  # 92 then follows the white 39 by itself


# -- N17–N18 scoring and matches ----------------------------------------------------------

def test_n17_fewest_bullheads_win_and_ties_share():
    state = round_of(position("""
        rows: 1=[17 87] 2=[30] 3=[47] 4=[7] 5=[51]
        hands: 1=[54] 2=[60] 3=[65]
    """), "play 54", "play 60", "play 65")
    outcome = OXX.outcome(state)
    assert OXX.view(state, None)["match"]["results"] == [[5, 0, 0]]
    assert outcome.winners == {1, 2} and OXX.result_token(state) == "0-1/2-1/2"


def test_n18_a_match_adds_up_the_games_each_freshly_dealt():
    game = selfplay(OXX, {"games": "3"}, 3, "match")
    view = OXX.view(game.state, None)
    results = view["match"]["results"]
    assert len(results) == 3
    assert view["match"]["totals"] == [sum(r[s] for r in results) for s in range(3)]
    assert [p.text.split()[0] for p in game.plies].count("rows") == 3
    best = min(view["match"]["totals"])
    assert OXX.outcome(game.state).winners == {s for s in range(3)
                                               if view["match"]["totals"][s] == best}


def test_n18_variant_2_matches_are_won_by_the_highest_total():
    game = selfplay(OXX, {"games": "2", "variant": "2"}, 4, "match2")
    totals = OXX.view(game.state, None)["match"]["totals"]
    assert OXX.outcome(game.state).winners == {s for s in range(4)
                                               if totals[s] == max(totals)}
