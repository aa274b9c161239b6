"""Onix: X13a (placements made automatically keep the player's word), players named by
name (X24's `STEAL bob 2 -> NEW`), echoes outside `legal`, and what apply did by itself."""

import pytest

from pbem.engines.base import IllegalMove, InvalidMove

from onix_position import ENGINE, play, position

# Both cards of the circle chain A-B show a circle, as every Collection of P1 does: they
# can only start new Collections, so the server places them at once: A's 5, B's 6.
CIRCLES = ("piles: A=[S O] B=[X OX] C=[D] D=[S] E=[X]\n"
           "P1: 1=[O S] 2=[O D] 3=[O X] 4=[O]\nP2: 1=[S]")
NAMES = ["ann", "bob"]


def collections(state, seat):
    return {n: " ".join(map("OSDX".__getitem__, [c.bit_length() - 1 for c in cards]))
            for n, cards in state.collections[seat]}


def test_x13a_cards_that_can_only_start_new_collections_are_placed_clockwise_at_once():
    after = play(position(CIRCLES), "take O A")
    assert after.phase == "effect" and after.retrieved == ()
    assert {n: len(cards) for n, cards in after.collections[0]}[5] == 1
    assert ENGINE.automatic(after) == [(0, "place A -> new"), (0, "place B -> new")]
    assert ENGINE.view(after, None)["automatic"] == [
        {"seat": 0, "text": "place A -> new"}, {"seat": 0, "text": "place B -> new"}]


def test_x13a_repeats_in_the_order_done_pass_silently_and_the_draw_means_what_was_written():
    after = play(position(CIRCLES), "take O A", "place A -> new", "place B -> new",
                 "draw C -> 5")
    assert after.collections[0][4] == (5, (1, 4))  # A's circle, then the drawn diamond


def test_x13a_a_repeat_in_another_order_is_refused_with_the_number_each_card_got():
    after = play(position(CIRCLES), "take O A")
    with pytest.raises(IllegalMove, match=r"placed at once, in the chain's clockwise order: "
                                          r"the card from A became Collection 5 and the "
                                          r"card from B became Collection 6\. 'place B -> "
                                          r"new' says otherwise"):
        ENGINE.parse(after, 0, "place B -> new")


def test_x13a_a_repeat_with_another_number_is_refused_and_the_right_number_passes():
    after = play(position(CIRCLES), "take O A")
    with pytest.raises(IllegalMove, match=r"the card from A became Collection 5 and the card "
                                          r"from B became Collection 6.*write place B -> 6"):
        ENGINE.parse(after, 0, "place B -> 5")
    same = play(after, "place B -> 6", "place A 5")
    assert ENGINE.view(same, None)["collections"] == ENGINE.view(after, None)["collections"]
    with pytest.raises(IllegalMove, match="the card from pile A is placed already, as "
                                          "Collection 5"):
        ENGINE.parse(same, 0, "place a new")


def test_x24_echoes_are_not_legal_decisions():
    after = play(position(CIRCLES), "take O A")
    legal = ENGINE.legal(after, 0)
    assert legal and all(d.verb == "draw" for d in legal)
    assert ENGINE.legal(after, 1) == []


def test_a_player_is_named_by_name_or_an_unambiguous_prefix():
    state = play(position("piles: A=[O D] B=[X] C=[S] D=[O] E=[X]\n"
                          "P1: 1=[O] 2=[S] 3=[X]\nP2: 1=[O] 2=[S D]"), "take D A",
                 "place A -> new")
    for text in ("steal bob 2 -> new", "steal b 2 new", "STEAL Bob 2 -> NEW", "steal P2 2 new"):
        decision = ENGINE.parse(state, 0, text, names=NAMES)
        assert ENGINE.notation(state, 0, decision) == "steal P2 2 -> new"
    prompt = ENGINE.prompt(state, 0, names=NAMES)
    assert "steal bob " in prompt and "P2" not in prompt
    example = prompt.split("for example ")[1].split(",")[0].rstrip(".")
    assert ENGINE.parse(state, 0, example, names=NAMES) in ENGINE.legal(state, 0)
    with pytest.raises(InvalidMove, match="'bo' could be bob or bonnie"):
        ENGINE.parse(state, 0, "steal bo 2", names=["ann", "bob", "bonnie"])
    assert ENGINE.parse(state, 0, "steal bob 2 -> new", names=["ann", "bob", "bobby"]).seat == 1


def test_destroy_names_the_victim_by_name():
    state = play(position("piles: A=[O X] B=[O] C=[S] D=[O] E=[S]\n"
                          "P1: 1=[O] 2=[S]\nP2: 1=[O] 2=[S D] 3=[D]"), "take X A",
                 "place A -> 1")
    assert ENGINE.notation(state, 0, ENGINE.parse(state, 0, "destroy bob 3", names=NAMES)) \
        == "destroy P2 3"
    with pytest.raises(IllegalMove, match="you destroy an opponent's card, never your own"):
        ENGINE.parse(state, 0, "destroy ann 1", names=NAMES)


def test_a_full_stop_after_a_decision_is_ignored():
    state = position(CIRCLES)
    assert ENGINE.notation(state, 0, ENGINE.parse(state, 0, "take O A.")) == "take O A"
