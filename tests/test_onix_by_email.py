"""Onix by email, ruling by ruling (RULINGS.md X24–X26), and the engine's promises: steps
with one legal option made by the engine, decisions sent again, a whole turn on one
line, what the server plays when a move is overdue, views, prompts and the options.
"""

import pytest

from notation.onix import read_decision
from pbem.engines.base import CHANCE, IllegalMove, InvalidMove
from pbem.engines.onix.engine import Onix

from onix_position import ENGINE, collections, play, position
from test_onix import ROUND


# -- by email ------------------------------------------------------------------------------


def seen(state):
    """What every player sees, less what the last decision did by itself."""
    return {k: v for k, v in ENGINE.view(state, None).items() if k != "automatic"}


def test_x24_a_step_with_one_legal_option_is_made_by_the_engine():
    state = position("piles: A=[D X] B=[S] C=[O] D=[O] E=[S]\n"
                     "P1: 1=[O X]\nP2: 1=[O]")
    after = play(state, "take X A")  # only new; then only destroy P2 1
    assert after.turn == 1 and after.phase == "take"
    assert [(text, auto) for _, text, auto in after.last_turn] == [
        ("take X A", False), ("place A -> new", True), ("destroy P2 1", True)]


def test_x24_cards_that_can_only_start_new_collections_are_placed_clockwise():
    state = position("piles: A=[D X] B=[X] C=[O] D=[O] E=[S]\n"
                     "P1: 1=[O X] next=6\nP2: 1=[O] 2=[S]")
    after = play(state, "take X A")
    assert collections(after, 0) == {1: "O X", 6: "X", 7: "X"}
    assert after.phase == "effect"


def test_x24_an_automatic_decision_sent_again_is_accepted_silently():
    state = position("piles: A=[D X] B=[S] C=[O] D=[O] E=[S]\n"
                     "P1: 1=[O X] next=6\nP2: 1=[O] 2=[S]")
    after = play(state, "take X A")
    assert ENGINE.to_act(after) == {0}
    for text in ("place A -> new", "place a 6", "A new"):
        repeat = ENGINE.parse(after, 0, text)
        assert ENGINE.notation(after, 0, repeat) == "place A -> new"
    again = play(after, "place A new", "destroy P2 2")
    assert again.autos == () and collections(again, 1) == {1: "O"}
    with pytest.raises(IllegalMove):
        play(again, "place A -> new", seat=0)  # only once


def test_x24_a_repeat_of_a_turn_ending_decision_is_accepted_from_the_next_players_turn():
    state = position("piles: A=[D X] B=[S] C=[O] D=[O] E=[S]\nP1: 1=[O X]\nP2: 1=[O]")
    after = play(state, "take X A")
    assert after.turn == 1
    same = play(after, "place A -> new", "destroy P2 1", seat=0)
    assert seen(same) == seen(after) and ENGINE.automatic(same) == []
    with pytest.raises(IllegalMove, match="made your forced steps itself: place A -> new, "
                                          "destroy P2 1"):
        ENGINE.parse(after, 0, "destroy P2 2")


def test_x25_a_whole_turn_may_be_written_on_one_line_separated_by_commas():
    parts = ENGINE.split_line("take X A, place A -> 1, place B -> 2,place C -> 3, destroy P2 1")
    assert parts == ["take X A", "place A -> 1", "place B -> 2", "place C -> 3",
                     "destroy P2 1"]
    after = play(position(ROUND), *parts)
    assert after.turn == 1
    deal = "deal first P1 A=O,S B=X C=D D=S E=O"
    assert ENGINE.split_line(deal) == [deal]


def test_x25_a_line_with_several_decisions_given_to_parse_says_how_to_write_them():
    with pytest.raises(InvalidMove, match="one decision at a time"):
        ENGINE.parse(position(ROUND), 0, "take X A, place A -> 1")


def test_x26_overdue_defaults_new_collections_first_pile_first_opponent_with_two_cards():
    state = play(position("piles: A=[D X] B=[X] C=[S] D=[O] E=[S]\n"
                          "P1: 1=[O]\nP2: 1=[O]\nP3: 2=[S] 4=[X O]"), "take X A")
    assert ENGINE.notation(state, 0, ENGINE.default_decision(state, 0)) == "place A -> new"
    state = play(state, "place A -> new", "place B -> new")
    assert ENGINE.notation(state, 0, ENGINE.default_decision(state, 0)) == "destroy P3 2"
    drawing = play(position("piles: A=[] B=[O O] C=[S] D=[O] E=[S]\nP1: 1=[O]\nP2: 1=[O]"),
                   "take O B", "place B -> new")
    assert ENGINE.notation(drawing, 0, ENGINE.default_decision(drawing, 0)) == "draw B -> new"
    assert ENGINE.default_decision(play(drawing, "draw B -> new"), 1) is None  # a take


# -- the engine's promises -----------------------------------------------------------------


def test_apply_leaves_its_input_alone_and_snapshots_round_trip():
    state = position(ROUND)
    before = ENGINE.to_json(state)
    after = play(state, "take X A")
    assert ENGINE.to_json(state) == before
    assert ENGINE.from_json(ENGINE.to_json(after)) == after


def test_reveals_only_when_a_pile_card_is_uncovered():
    state = position(ROUND)
    assert ENGINE.reveals(state, 0, ENGINE.parse(state, 0, "take X A"))
    taken = play(state, "take X A")
    assert not ENGINE.reveals(taken, 0, ENGINE.parse(taken, 0, "place A -> 1"))


def test_it_is_not_your_turn():
    with pytest.raises(IllegalMove, match="It is not your turn: the game waits for P1"):
        ENGINE.parse(position(ROUND), 1, "take X A")


def test_prompts_say_what_to_type():
    state = position(ROUND)
    assert "for example take O C, " in ENGINE.prompt(state, 0)
    assert ENGINE.prompt(state, 1).startswith("Nothing to decide now: P1")
    placing = play(state, "take X A")
    assert "A (X), B (X), C (OX)" in ENGINE.prompt(placing, 0)
    assert ENGINE.legal(state, 1) == []
    assert read_decision("take X A").verb == "take"


def test_options_and_player_counts():
    assert Onix().resolve_options({}) == {"advanced": "false"}
    assert Onix().resolve_options({"advanced": "TRUE"}) == {"advanced": "true"}
    assert (Onix.min_players, Onix.max_players) == (2, 6)


@pytest.mark.parametrize("players, options", [(2, {}), (4, {}), (6, {"advanced": "true"})])
def test_x11_every_target_offered_is_a_collection_that_takes_the_card_then_a_new_one(
        players, options):
    # The targets are worked out once per decision list (pbem.engines.onix.engine._targets);
    # here by the rule itself, X11, for every card a placement, draw or steal may move.
    import random

    from notation.onix import NEW, effect_of
    from pbem.engines.dealing import chance_rng
    from pbem.engines.onix.state import DRAW, EFFECT, PLACE, STEAL, fits, in_circle
    rng, engine = random.Random(players), ENGINE
    resolved, checked = engine.resolve_options(options), 0
    for _ in range(15):
        state, ply = engine.start(resolved, players), 0
        while to_act := engine.to_act(state):
            seat = min(to_act)
            if seat != CHANCE:
                own = state.collections[state.turn]

                def by_rule(card):
                    return [n for n, cards in own if fits(cards, card)] + [NEW]
                moved = []  # (card, what it is offered from) in the engine's order
                if state.phase == PLACE:
                    moved = [(card, ("place", pile)) for pile, card in state.retrieved]
                elif state.phase == EFFECT and effect_of(state.gem) in (DRAW, STEAL):
                    moved = ([(state.piles[p][-1], (DRAW, p)) for p in in_circle(state)]
                             if effect_of(state.gem) == DRAW else
                             [(cards[-1], (STEAL, s, n)) for s in range(players)
                              if s != state.turn for n, cards in state.collections[s]])
                # and what the engine asks before making a forced decision itself
                assert engine._more_than_one_choice(state) == (len(engine.choices(state)) > 1)
                offered = {}
                for decision in engine.choices(state):
                    source = ((decision.verb, decision.pile) if decision.verb in ("place", DRAW)
                              else (decision.verb, decision.seat, decision.collection))
                    offered.setdefault(source, []).append(decision.target)
                for card, source in moved:
                    if source in offered:
                        assert offered[source] == by_rule(card)
                        checked += 1
                decision = engine.random_decision(state, seat, rng)
            else:
                decision = engine.deal(state, chance_rng("x11", ply))
            state, ply = engine.apply(state, seat, decision), ply + 1
    assert checked > 100
