"""Onix rules, ruling by ruling (RULINGS.md X1–X23), on literal positions and notation:
components and setup, the four steps of a turn, and the end. Play by email (X24–X26) and
the engine's promises are in test_onix_by_email.py."""

from fractions import Fraction

import pytest

from pbem.engines.base import CHANCE, AmbiguousMove, IllegalMove
from pbem.engines.game import Game
from pbem.engines.onix.state import card_list, chains, draw_deck, pile_sizes, symbols

from onix_position import ENGINE, collections, play, position, tops

# -- components and setup ------------------------------------------------------------------


def test_x1_the_card_list_has_80_single_and_24_double_gem_cards_never_a_gem_twice():
    cards = card_list()
    assert len(cards) == 104
    assert sum(bin(c).count("1") == 1 for c in cards) == 80
    assert sum(bin(c).count("1") == 2 for c in cards) == 24


def test_x1_the_card_table_is_package_data_marked_as_assumed():
    from importlib import resources
    text = resources.files("pbem.engines.onix").joinpath("cards.csv").read_text()
    assert text.startswith("# Onix: ASSUMED card list")


def test_x2_every_player_starts_with_four_single_gem_collections_numbered_in_gem_order():
    state = ENGINE.start({}, 3)
    for seat in range(3):
        assert collections(state, seat) == {1: "O", 2: "S", 3: "D", 4: "X"}
    assert state.next_number == (5, 5, 5)
    assert len(draw_deck(3)) == 104 - 12


@pytest.mark.parametrize("players, sizes", [(2, [20, 19, 19, 19, 19]),
                                            (3, [19, 19, 18, 18, 18]),
                                            (4, [18, 18, 18, 17, 17]),
                                            (5, [17, 17, 17, 17, 16]),
                                            (6, [16, 16, 16, 16, 16])])
def test_x3_the_piles_are_dealt_round_robin_extra_cards_on_the_first(players, sizes):
    assert pile_sizes(players) == sizes
    game = Game(ENGINE, {}, [f"p{n}" for n in range(players)], seed="x3")
    assert [len(p) for p in game.state.piles] == sizes
    assert game.plies[0].text.startswith("Dealer: ") is False  # the text is the move
    assert game.plies[0].seat == CHANCE and game.plies[0].text.startswith("deal first P")


def test_x3_the_card_dealt_last_to_a_pile_is_its_top():
    import random
    deck = list(draw_deck(2))
    random.Random(5).shuffle(deck)
    deal = ENGINE.deal(ENGINE.start({}, 2), _ShuffleAs(deck))
    assert deal.piles[0][-1] == deck[95] and deal.piles[4][-1] == deck[94]


class _ShuffleAs:
    """A generator whose shuffle lays the cards out as given."""

    def __init__(self, order):
        self.order = order

    def shuffle(self, cards):
        cards[:] = self.order

    def randrange(self, n):
        return 0


def test_x3_a_transcribed_deal_must_hold_the_right_cards_in_the_right_sizes():
    state = ENGINE.start({}, 2)
    good = ENGINE.notation(state, CHANCE, ENGINE.deal(state, _ShuffleAs(list(draw_deck(2)))))
    assert ENGINE.parse(state, CHANCE, good).first == 0
    with pytest.raises(IllegalMove, match="20/19/19/19/19 cards"):
        ENGINE.parse(state, CHANCE, good.replace("A=", "A=O,"))
    swapped = good.replace("A=O", "A=OX", 1)
    with pytest.raises(IllegalMove, match="exactly the cards left"):
        ENGINE.parse(state, CHANCE, swapped)
    with pytest.raises(IllegalMove, match="Only the dealer"):
        ENGINE.parse(state, 0, good)


def test_x5_the_deal_names_the_first_player():
    state = ENGINE.start({}, 4)
    deal = ENGINE.parse(state, CHANCE, ENGINE.notation(
        state, CHANCE, ENGINE.deal(state, _ShuffleAs(list(draw_deck(4))))).replace(
            "first P1", "first P3"))
    after = ENGINE.apply(state, CHANCE, deal)
    assert ENGINE.to_act(after) == {2}


# -- step 1: choose and retrieve -----------------------------------------------------------

ROUND = """
piles: A=[S X] B=[D X] C=[S OX] D=[S] E=[D]
P1: 1=[O] 2=[S] 3=[D] 4=[X]
P2: 1=[O] 2=[S] 3=[D] 4=[X]
"""


def test_x8_cards_are_linked_through_the_announced_gem_only():
    state = position(ROUND)
    assert chains(state, 8) == [[0, 1, 2]]  # X X OX
    assert chains(state, 1) == [[2]]  # OX alone: its neighbours show no circle
    assert chains(state, 4) == [[4]]


def test_x8_the_chain_wraps_from_e_to_a():
    state = position(ROUND.replace("E=[D]", "E=[X]"))
    assert chains(state, 8) == [[4, 0, 1, 2]]
    after = play(state, "take X A")
    assert tops(after) == "A=S B=D C=S D=S E=-"
    assert [card for _, card in after.retrieved] == [8, 8, 8, 9]


def test_x8_a_card_uncovered_by_the_take_never_joins_the_chain():
    state = position("piles: A=[X X] B=[D] C=[S] D=[S] E=[D]\nP1: 1=[O]\nP2: 1=[O]")
    after = play(state, "take X A")
    assert [card for _, card in after.retrieved] == [8]
    assert tops(after).startswith("A=X")


def test_x8_when_every_top_shows_the_gem_the_chain_is_the_whole_circle():
    state = position("piles: A=[S X] B=[X] C=[DX] D=[SX] E=[OX]\nP1: 1=[O]\nP2: 1=[O]")
    assert chains(state, 8) == [[0, 1, 2, 3, 4]]
    assert ENGINE.notation(state, 0, ENGINE.parse(state, 0, "take cross D")) == "take X A"


def test_x9_any_pile_of_the_chain_may_be_named_the_text_names_the_first():
    state = position(ROUND)
    assert ENGINE.notation(state, 0, ENGINE.parse(state, 0, "take x c")) == "take X A"
    assert ENGINE.notation(state, 0, ENGINE.parse(state, 0, "cross B")) == "take X A"


def test_x9_the_pile_may_be_left_out_when_the_gem_has_one_chain_only():
    state = position(ROUND)
    assert ENGINE.notation(state, 0, ENGINE.parse(state, 0, "take X")) == "take X A"
    two = position("piles: A=[D] B=[D] C=[S] D=[D] E=[X]\nP1: 1=[O]\nP2: 1=[O]")
    with pytest.raises(AmbiguousMove, match="take D A or take D D"):
        ENGINE.parse(two, 0, "take D")


def test_x9_a_gem_no_top_card_shows_cannot_be_chosen():
    state = position(ROUND.replace("S OX", "S X").replace("D=[S]", "D=[X]"))
    with pytest.raises(IllegalMove, match="no top card shows a Circle"):
        ENGINE.parse(state, 0, "take O")
    with pytest.raises(IllegalMove, match="top card of pile B is X, which shows no Square"):
        ENGINE.parse(position(ROUND), 0, "take S B")


def test_x10_taking_uncovers_the_next_card_before_step_2():
    after = play(position(ROUND), "take X A")
    assert tops(after) == "A=S B=D C=S D=S E=D"
    assert after.phase == "place"


# -- step 2: collect -----------------------------------------------------------------------


def test_x11_a_card_goes_on_a_collection_holding_none_of_its_gems_or_starts_a_new_one():
    state = play(position(ROUND.replace("P1: 1=[O] 2=[S] 3=[D] 4=[X]",
                                        "P1: 1=[O] 2=[S X] 3=[D] 5=[S]")), "take X A")
    with pytest.raises(IllegalMove, match="Collection 2 already has a cross"):
        ENGINE.parse(state, 0, "place A -> 2")
    with pytest.raises(IllegalMove, match="Collection 1 already has a circle"):
        ENGINE.parse(state, 0, "place C -> 1")  # OX: both gems count
    after = play(state, "place A -> 1", "place B -> 3", "place C -> 5")
    assert collections(after, 0) == {1: "O X", 2: "S X", 3: "D X", 5: "S OX"}


def test_x12_cards_are_placed_in_the_order_chosen_and_the_last_placed_is_the_top():
    state = play(position(ROUND), "take X A", "place C -> new", "place A -> 3")
    assert collections(state, 0)[5] == "OX"
    assert state.retrieved == ((1, 8),)
    after = play(position(ROUND), "take X", "place B -> 2", "place A -> 3",
                 "place C -> new", "destroy P2 2")
    assert collections(after, 1) == {1: "O", 3: "D", 4: "X"}


def test_x12_a_collection_started_in_step_2_may_receive_the_drawn_card():
    state = position("piles: A=[X O] B=[S] C=[S] D=[D] E=[S]\n"
                     "P1: 1=[O] 2=[S] 3=[D]\nP2: 1=[O]")
    after = play(state, "take O A", "place A -> new", "draw A -> 5")
    assert collections(after, 0)[5] == "O X"


def test_x13_new_collections_take_the_next_number_never_reused_and_may_be_named_so():
    state = position(ROUND.replace("P1: 1=[O] 2=[S] 3=[D] 4=[X]",
                                   "P1: 1=[O] 2=[S] next=7"))
    taken = play(state, "take X A")
    decision = ENGINE.parse(taken, 0, "place A -> 7")
    assert ENGINE.notation(taken, 0, decision) == "place A -> new"
    after = play(taken, "place A -> 7", "place B -> new", "place C -> 2")
    assert list(collections(after, 0)) == [1, 2, 7, 8]
    with pytest.raises(IllegalMove, match="no Collection 3 .yours: 1, 2; a new one would"):
        ENGINE.parse(taken, 0, "place A -> 3")


# -- step 3: effect ------------------------------------------------------------------------


def test_x14_only_the_announced_gems_effect_applies_once_then_the_turn_ends():
    state = play(position(ROUND), "take X", "place A -> 1", "place B -> 2", "place C -> 3")
    assert state.phase == "effect"
    with pytest.raises(IllegalMove, match="its effect is Destroy, once"):
        ENGINE.parse(state, 0, "draw A -> new")  # the OX card brings no Draw
    after = play(state, "destroy P2 1")
    assert after.turn == 1 and after.phase == "take" and len(after.discard) == 1


def test_x15_draw_takes_the_current_top_hoard_puts_it_face_down_in_the_hoard():
    state = position("piles: A=[D O] B=[S S] C=[X] D=[D] E=[S]\nP1: 1=[O]\nP2: 1=[O]")
    drawn = play(state, "take O A", "place A -> new", "draw A -> 5")
    assert collections(drawn, 0) == {1: "O", 5: "O D"}
    hoarded = play(position("piles: A=[D O] B=[D S] C=[X] D=[D] E=[O]\nP1: 1=[O]\nP2: 1=[O]"),
                   "take S B", "place B -> 1", "hoard B")
    assert hoarded.hoards[0] == (4,) and tops(hoarded).startswith("A=O B=-")


def test_x15_an_effect_card_links_nothing_and_triggers_nothing():
    state = position("piles: A=[D O] B=[D S] C=[X] D=[D] E=[O]\nP1: 1=[O]\nP2: 1=[O]")
    after = play(state, "take S B", "place B -> 1", "hoard A")
    assert after.hoards[0] == (1,) and after.turn == 1  # only A's top, no draw effect


def test_x16_steal_takes_an_opponents_top_card_destroy_discards_it():
    state = position("piles: A=[D D] B=[S] C=[X] D=[O] E=[S]\n"
                     "P1: 1=[O] 2=[S]\nP2: 1=[O] 3=[S X]")
    stolen = play(state, "take D A", "place A -> new", "steal P2 3 -> 1")
    assert collections(stolen, 1) == {1: "O", 3: "S"}
    assert collections(stolen, 0) == {1: "O X", 2: "S", 5: "D"}
    state = position("piles: A=[D X] B=[S] C=[O] D=[O] E=[S]\nP1: 1=[O]\nP2: 1=[O] 3=[S]")
    destroyed = play(state, "take X A", "place A -> 1", "destroy 2 3")
    assert collections(destroyed, 1) == {1: "O"} and len(destroyed.discard) == 1


def test_x16_you_steal_or_destroy_an_opponents_card_never_your_own():
    state = play(position("piles: A=[D X] B=[S] C=[O] D=[O] E=[S]\nP1: 1=[O]\n"
                          "P2: 1=[O] 2=[S]"), "take X A", "place A -> new")
    with pytest.raises(IllegalMove, match="never your own"):
        ENGINE.parse(state, 0, "destroy P1 1")
    with pytest.raises(IllegalMove, match="P2 has no Collection 4 .theirs: 1, 2"):
        ENGINE.parse(state, 0, "destroy P2 4")


def test_x17_an_effect_with_no_target_is_skipped():
    state = position("piles: A=[D D] B=[S] C=[X] D=[O] E=[S]\nP1: 1=[O]\nP2:")
    after = play(state, "take D A", "place A -> 1")
    assert after.turn == 1 and after.phase == "take"
    assert [entry[1] for entry in after.last_turn][-1] == "steal: no target"


# -- step 4: validate ----------------------------------------------------------------------


def test_x18_completed_collections_go_to_the_hoard_at_the_end_of_the_turn():
    state = position("piles: A=[D OX] B=[S] C=[O] D=[O] E=[S]\n"
                     "P1: 1=[S D] 2=[SD] 3=[X]\nP2: 1=[O] 2=[S]")
    placed = play(state, "take X A", "place A -> 1")
    assert collections(placed, 0)[1] == "S D OX"  # complete, but the turn goes on
    after = play(placed, "destroy P2 2")
    assert collections(after, 0) == {2: "SD", 3: "X"} and len(after.hoards[0]) == 3


def test_x18_a_collection_completed_by_steal_validates_too():
    state = position("piles: A=[D D] B=[S] C=[O] D=[O] E=[S]\n"
                     "P1: 1=[O S X]\nP2: 1=[O] 2=[S]")
    after = play(state, "take D A", "place A -> new", "steal P2 1 -> new")
    assert collections(after, 0) == {1: "O S X", 5: "D", 6: "O"}
    state = position("piles: A=[D D] B=[S] C=[O] D=[O] E=[S]\n"
                     "P1: 1=[O S X] 2=[S]\nP2: 1=[OD]")
    after = play(state, "take D A", "place A -> 2")  # OD fits nowhere: a forced steal
    assert collections(after, 0) == {1: "O S X", 2: "S D", 5: "OD"}
    assert len(after.hoards[0]) == 0
    state = position("piles: A=[D D] B=[S] C=[O] D=[O] E=[S]\n"
                     "P1: 1=[S X] 2=[S]\nP2: 1=[OD]")
    after = play(state, "take D A", "place A -> 2", "steal P2 1 -> 1")
    assert len(after.hoards[0]) == 3 and 1 not in collections(after, 0)


# -- the end -------------------------------------------------------------------------------


def test_x19_a_pile_emptied_mid_turn_ends_the_game_only_at_the_end_of_the_turn():
    state = position("piles: A=[O] B=[S] C=[X] D=[D D] E=[S S]\n"
                     "P1: 1=[S] 2=[D]\nP2: 1=[O] 2=[S]")
    taken = play(state, "take O A")
    assert taken.phase == "place" and ENGINE.outcome(taken) is None
    after = play(taken, "place A -> 1", "draw E -> 2")
    assert ENGINE.to_act(after) == frozenset() and ENGINE.outcome(after) is not None


def test_x20_with_five_players_the_first_empty_pile_leaves_the_circle():
    five = "\n".join(f"P{n}: 1=[O]" for n in range(1, 6))
    state = position(f"piles: A=[X] B=[D O] C=[S] D=[D] E=[X]\n{five}")
    after = play(state, "take D D", "place D -> new", "steal P2 1 -> new")
    assert ENGINE.outcome(after) is None and tops(after) == "A=X B=O C=S D=- E=X"
    assert chains(after, 8) == [[4, 0]]  # C and E are now neighbours; E and A still are
    state = position(f"piles: A=[X] B=[S O] C=[X] D=[D] E=[X]\n{five}")
    after = play(state, "take D", "place D -> new", "steal P2 1 -> new")
    assert chains(after, 8) == [[2, 4, 0]]  # C, E, A linked across the gap
    ended = play(after, "take X C", "destroy P3 1")  # P2 has no Collection left
    assert ENGINE.outcome(ended) is not None and "4 Draw Piles empty" in ended.reason


def _final(hoards, collections_text, players=3, advanced=""):
    """A position one Hoard effect from the end: P1 hoards the last card of pile E."""
    lines = ["piles: A=[O] B=[O] C=[O] D=[O] E=[S]", f"step: take {advanced}"]
    for seat in range(players):
        lines.append(f"P{seat + 1}: {collections_text[seat]} hoard={hoards[seat]}")
    return play(position("\n".join(lines)), "take S", "place E -> new", "hoard A")


def test_x21_most_hoard_cards_win():
    after = _final([3, 5, 4], ["1=[O]", "1=[O]", "1=[O]"])
    assert ENGINE.outcome(after).winners == {1}
    assert "P2 wins with 5 Hoard cards" in ENGINE.outcome(after).reason


def test_x21_a_tie_goes_to_the_fewest_gems_in_collections_a_double_counts_two():
    after = _final([5, 6, 1], ["1=[X] 2=[O]", "1=[OX]", "1=[O]"])
    assert len(after.hoards[0]) == len(after.hoards[1]) == 6
    outcome = ENGINE.outcome(after)
    assert symbols(after.collections[0]) == 3 and symbols(after.collections[1]) == 2
    assert outcome.winners == {1} and "tie broken" in outcome.reason


def test_x21_a_tie_on_both_counts_is_a_shared_win():
    after = _final([3, 4, 4], ["1=[O X]", "1=[O] 2=[S]", "1=[SD]"])
    outcome = ENGINE.outcome(after)
    assert outcome.winners == {1, 2}
    assert outcome.shares == (0, Fraction(1, 2), Fraction(1, 2))
    assert ENGINE.result_token(after) == "0-1/2-1/2"


def test_x22_advanced_a_player_left_with_no_gems_wins_at_once_even_an_opponent():
    state = position("piles: A=[D X] B=[S] C=[O] D=[O] E=[S]\nadvanced: yes\n"
                     "P1: 1=[O] 2=[S]\nP2: 1=[O] hoard=0\nP3: 1=[S] hoard=9")
    after = play(state, "take X A", "place A -> 1", "destroy P2 1")
    outcome = ENGINE.outcome(after)
    assert outcome.winners == {1} and "Advanced Mode" in outcome.reason
    plain = play(position("piles: A=[D X] B=[S] C=[O] D=[O] E=[S]\n"
                          "P1: 1=[O] 2=[S]\nP2: 1=[O]\nP3: 1=[S]"),
                 "take X A", "place A -> 1", "destroy P2 1")
    assert ENGINE.outcome(plain) is None


def test_x22_the_advanced_win_goes_before_the_empty_pile_ending():
    state = position("piles: A=[X] B=[S] C=[O] D=[O] E=[S]\nadvanced: yes\n"
                     "P1: 1=[O] 2=[S] hoard=9\nP2: 1=[O] hoard=0")
    after = play(state, "take X A", "place A -> 1", "destroy P2 1")
    assert ENGINE.outcome(after).winners == {1}


def test_x22_the_active_player_emptied_by_validation_wins_too():
    state = position("piles: A=[D X] B=[S] C=[O] D=[O] E=[S]\nadvanced: yes\n"
                     "P1: 1=[O S D]\nP2: 1=[O] 2=[S]")
    after = play(state, "take X A", "place A -> 1", "destroy P2 2")
    assert ENGINE.outcome(after).winners == {0}


def test_x23_several_players_with_no_gems_most_hoard_wins_else_shared():
    state = position("piles: A=[D X] B=[S] C=[O] D=[O] E=[S]\nadvanced: yes\n"
                     "P1: 1=[O S D] hoard=2\nP2: 1=[O] hoard=7\nP3: 1=[S] hoard=1")
    after = play(state, "take X A", "place A -> 1", "destroy P2 1")
    assert ENGINE.outcome(after).winners == {1}  # 7 against P1's 2 + 4
    state = position("piles: A=[D X] B=[S] C=[O] D=[O] E=[S]\nadvanced: yes\n"
                     "P1: 1=[O S D] hoard=0\nP2: 1=[O] hoard=4\nP3: 1=[S] hoard=1")
    after = play(state, "take X A", "place A -> 1", "destroy P2 1")
    assert ENGINE.outcome(after).winners == {0, 1}  # 4 + 4 cards
