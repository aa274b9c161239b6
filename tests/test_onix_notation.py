"""Onix notation: what a player may type for each decision, and the messages for mistakes."""

import pytest
from hypothesis import given, settings, strategies as st

from notation.onix import OnixText, format_decision, read_card, read_decision
from pbem.engines.base import CHANCE, IllegalMove, InvalidMove, MoveError

from onix_position import ENGINE, play, position

START = """
piles: A=[S X] B=[D X] C=[S OX] D=[S] E=[D]
P1: 1=[O] 2=[S] 3=[D] 4=[X]
P2: 1=[O] 2=[S] 3=[D] 4=[X] 6=[OS]
"""


def canonical(state, text, seat=0):
    return ENGINE.notation(state, seat, ENGINE.parse(state, seat, text))


@pytest.mark.parametrize("text, meant", [
    ("take X A", "take X A"),
    ("TAKE x a", "take X A"),
    ("take cross C", "take X A"),
    ("take crosses", "take X A"),
    ("X B", "take X A"),
    ("cross", "take X A"),
    ("take circle", "take O C"),
    ("take diamond e", "take D E"),
    ("D", "take D E"),
    ("D E", "take D E"),
])
def test_a_take_by_gem_letter_or_name_and_any_pile_of_the_chain(text, meant):
    assert canonical(position(START), text) == meant


@pytest.mark.parametrize("text, meant", [
    ("place A -> 1", "place A -> 1"),
    ("place a 1", "place A -> 1"),
    ("place A->1", "place A -> 1"),
    ("place A > #1", "place A -> 1"),
    ("place A to 1", "place A -> 1"),
    ("A -> 1", "place A -> 1"),
    ("a 1", "place A -> 1"),
    ("place C new", "place C -> new"),
    ("place C -> NEW", "place C -> new"),
    ("c n", "place C -> new"),
    ("place C -> 5", "place C -> new"),
])
def test_a_placement_names_the_pile_the_card_came_from_and_its_collection(text, meant):
    assert canonical(play(position(START), "take X A"), text) == meant


@pytest.mark.parametrize("text, meant", [
    ("destroy P2 6", "destroy P2 6"),
    ("destroy p2 #6", "destroy P2 6"),
    ("destroy 2 6", "destroy P2 6"),
    ("destroy 6", "destroy P2 6"),
])
def test_destroy_names_the_player_and_the_collection(text, meant):
    state = play(position(START), "take X A", "place A -> 1", "place B -> 2", "place C -> 3")
    assert canonical(state, text) == meant


@pytest.mark.parametrize("text, meant", [
    ("steal P2 6 -> new", "steal P2 6 -> new"),
    ("steal p2 6 new", "steal P2 6 -> new"),
    ("steal 2 6 -> 4", "steal P2 6 -> 4"),
    ("steal 2 6 4", "steal P2 6 -> 4"),
    ("steal P2 6 4", "steal P2 6 -> 4"),
    ("steal 6 -> 6", "steal P2 6 -> new"),
    ("steal 6 -> 5", "steal P2 6 -> 5"),
])
def test_steal_names_the_player_the_collection_and_where_the_card_goes(text, meant):
    state = position(START.replace("E=[D]", "E=[S D]"))
    state = play(state, "take D E", "place E -> new")
    assert canonical(state, text) == meant


def test_draw_and_hoard_name_a_pile():
    state = position(START.replace("C=[S OX]", "C=[S O]"))
    drawing = play(state, "take O C", "place C -> new")
    assert canonical(drawing, "draw a -> 3") == "draw A -> 3"
    assert canonical(drawing, "draw D new") == "draw D -> new"
    hoarding = play(position(START), "take S D", "place D -> 1")
    assert canonical(hoarding, "hoard e") == "hoard E"


@pytest.mark.parametrize("text, message", [
    ("", "an empty line is no decision"),
    ("pass", "is not an Onix decision"),
    ("take Q", "write take, a Gem"),
    ("take X F", "write take, a Gem"),
    ("place A -> two", "by its number, or on a new one"),
    ("place A -> 1 2", "one Collection number or 'new' after '->'"),
    ("hoard A -> 2", "not onto a Collection"),
    ("destroy P2 4 -> new", "goes to the discard"),
    ("steal bob 4", "names a player and one of their Collections"),
    ("take X A, place A -> 1", "one decision at a time"),
    ("deal A=O", "a deal is written deal first P2"),
    ("deal first P1 B=O A=S C= D= E=", "the piles are given in the order A to E"),
])
def test_text_that_is_no_decision_says_what_would_be(text, message):
    with pytest.raises(InvalidMove, match=message):
        ENGINE.parse(position(START), 0, text)


def test_a_card_is_its_gems_in_the_order_circle_square_diamond_cross():
    assert read_card("xo") == read_card("OX") == 9
    with pytest.raises(ValueError, match="is not a card"):
        read_card("OO")


def test_a_wrong_step_says_what_the_step_is():
    placing = play(position(START), "take X A")
    with pytest.raises(IllegalMove, match=r"first place the cards you took \(A \(X\), B"):
        ENGINE.parse(placing, 0, "destroy P2 1")
    with pytest.raises(IllegalMove, match="your turn starts by taking"):
        ENGINE.parse(position(START), 0, "hoard A")
    with pytest.raises(IllegalMove, match="you took no card from pile D this turn"):
        ENGINE.parse(placing, 0, "place D -> 1")


def test_every_message_offers_decisions_that_work():
    with pytest.raises(IllegalMove) as refused:
        ENGINE.parse(position(START), 0, "take S B")
    offered = str(refused.value).split("for example: ")[1].rstrip(".").split(", ")
    for text in offered:
        ENGINE.parse(position(START), 0, text)


def test_the_deal_is_written_pile_by_pile_bottom_card_first():
    deal = OnixText("deal", first=1, piles=((1, 9), (2,), (), (4, 8, 12), (8,)))
    text = format_decision(deal)
    assert text == "deal first P2 A=O,OX B=S C=- D=D,X,DX E=X"
    assert read_decision(text) == deal
    assert read_decision("Deal first=p2 a=o,ox b=s c= d=d,x,dx e=x") == deal

WORDS = st.sampled_from(["take", "place", "draw", "hoard", "steal", "destroy", "deal",
                         "first", "new", "->", ">", "to", "#", ",", "p0", "p2", "p9",
                         "a", "c", "d", "e", "f", "o", "x", "ox", "oo", "cross", "0", "3",
                         "5", "99", "²", "٣", "a=o,s", "b=", "e=-", "c=q"])


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.lists(WORDS, max_size=8).map(" ".join), st.text(max_size=20)))
def test_any_text_is_a_decision_or_a_reason(text):
    state = play(position(START), "take X A")
    for seat, where in ((0, position(START)), (0, state), (1, state),
                        (CHANCE, ENGINE.start({}, 2))):
        try:
            decision = ENGINE.parse(where, seat, text)
        except MoveError as error:
            assert str(error)
        else:
            assert ENGINE.parse(where, seat, ENGINE.notation(where, seat, decision)) == decision
