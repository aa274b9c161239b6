"""Gem Forge's cards on literal positions (RULINGS.md G23–G43): the own-turn cards, the
reactions and their windows, declaring a card, and what the server plays at a deadline.

Positions and helpers are test_gemforge.py's.
"""

from pbem.engines import get_engine
from pbem.engines.base import CHANCE
from test_gemforge import GF, MARKET, P1, P2, P3, TWO, held, news, play, position


# -- G27–G33: own-turn cards ---------------------------------------------------------------

def test_g27_swap_ornaments_with_the_market_and_set_a_gem_for_free():
    state = position("""
        P1: RG / swap-ornaments / 0 / T01 T18=R. T02
        P2: Y / copy-set / 0 / T03 T23 T35
        prefs P2 copy-set ask
    """ + MARKET)
    state = play(state, "play swap-ornaments T02 T12 set G")
    assert held(state, P1) == {"T01": "..", "T18": "R.", "T12": "G.."}
    assert state.market == ("T10", "T11", "T02", "T13")
    assert GF.to_act(state) == {P1}  # the free set opens no copy-set window


def test_g27_swap_ornaments_takes_only_gem_free_ornaments():
    state = position("""
        P1: RG / swap-ornaments / 0 / T01 T18=R. T02
        P2: Y / / 0 / T03=R. T23 T35
    """ + MARKET)
    swaps = {d[2][:2] for d in GF.legal(state, P1) if d[:2] == ("play", "swap-ornaments")}
    assert ("T01", "T23") in swaps and ("T18", "T23") not in swaps
    assert ("T01", "T03") not in swaps
    state = play(state, "play swap-ornaments T01 T23")
    assert "T01" in held(state, P2) and "T23" in held(state, P1)


def test_g28_swap_gems_one_for_one_without_points():
    state = play(position("""
        P1: RG / swap-gems / 0 / T01 T18 T02
        P2: YL / / 0 / T03 T23 T35
    """ + MARKET), "play swap-gems R P2 L")
    assert state.carts[:2] == ("GL", "YR") and state.points == (0, 0)


def test_g30_three_cards_then_the_hand_limit():
    state = play(position("""
        P1: RG / three-cards mine cancel / 0 / T01 T18 T02
        P2: YL / / 0 / T03 T23 T35
        deck copy-take copy-set swap-gems
    """ + MARKET), "play three-cards")
    assert GF.to_act(state) == {P1} and len(state.hands[P1]) == 5
    assert GF.default_decision(state, P1) == ("drop", ("swap-gems",))


def test_g31_discarding_from_ones_own_cart_gives_no_point():
    state = position("""
        P1: RGY / discard-gems discard-gems / 0 / T01 T18 T02
        P2: YL / / 0 / T03 T23 T35
    """ + MARKET + "\nmine G")
    state = play(state, "play discard-gems P1 Y R")
    assert state.carts[P1] == "G" and state.mine == "GYR" and state.points == (0, 0)
    state = play(state, "play discard-gems P2 L")
    assert state.carts[P2] == "Y" and state.points == (0, 1) and state.mine.endswith("L")


def test_g32_mine_keeps_some_and_sends_at_least_one_back():
    state = position("""
        P1: R / mine mine / 0 / T01 T18 T02
        P2: YL / / 0 / T03 T23 T35
    """ + MARKET + "\nmine GYLRR")
    keeps = {d[2] for d in GF.legal(state, P1) if d[:2] == ("play", "mine")}
    assert (3, "GYL") not in keeps and (3, "GL") in keeps and (1, "") in keeps
    state = play(state, "play mine 3 keep G L")
    assert state.carts[P1] == "RGL" and state.mine == "RRY"
    state = play(state, "play mine 2")  # full cart: both go back
    assert state.mine == "YRR" and state.carts[P1] == "RGL"


def test_g33_take_from_a_cart_gives_one_point_once():
    state = play(position("""
        P1: R / take-from-cart / 0 / T01 T18 T02
        P2: YLY / / 0 / T03 T23 T35
    """ + MARKET), "play take-from-cart P2 Y Y")
    assert state.carts[:2] == ("RYY", "L") and state.points == (0, 1)


def test_g33_set_two_opens_no_copy_window():
    state = play(position("""
        P1: RGY / set-two / 0 / T01 T18 T02
        P2: G / copy-set / 0 / T03 T22 T35
        prefs P2 copy-set ask
    """ + MARKET), "play set-two R T18 G T01")
    assert held(state, P1) == {"T01": ".G", "T18": "R.", "T02": ".."}
    assert GF.to_act(state) == {P1}


# -- G34–G40: reactions and their windows --------------------------------------------------

WINDOW = """
    P1: R / mine cancel / 0 / T01 T18 T02
    P2: G / copy-take cancel / 0 / T03 T22 T35
    P3: Y / swap-gems / 0 / T04 T26 T36
"""


def test_g36_g37_a_take_asks_everyone_eligible_holders_or_not():
    state = position(WINDOW + MARKET + "\nprefs P2 copy-take ask\nprefs P3 copy-take ask")
    state = play(state, "take")
    assert GF.to_act(state) == {P2, P3}
    assert [d for d in GF.legal(state, P3) if d[0] != "pref"] == [("pass",)]  # holds none
    assert GF.view(state, P1)["asked"] is None and GF.view(state, P3)["asked"] == "copy-take"
    state = play(state, "P3: pass")
    assert GF.to_act(state) == {P2}
    state = play(state, "P2: play copy-take")
    assert state.carts[P2] == "GG" and GF.to_act(state) == {P1}


def test_g37_the_copy_window_skips_seats_that_could_not_react():
    state = position(WINDOW.replace("P2: G ", "P2: GYL ") + MARKET
                     + "\nprefs P2 copy-take ask\nprefs P3 copy-take ask")
    assert GF.to_act(play(state, "take")) == {P3}


def test_g38_copy_windows_pass_by_default_so_nobody_is_asked():
    state = play(position(WINDOW + MARKET), "take")
    assert GF.to_act(state) == {P1} and state.actions == 1


def test_g38_auto_plays_a_copy_take_for_its_holder_only():
    state = position(WINDOW + MARKET + "\nprefs P2 copy-take auto\nprefs P3 copy-take auto"
                     + "\nmine YLR")
    state = play(state, "take")
    assert state.carts == ("RY", "GL", "Y") and "copy-take" not in state.hands[P2]
    assert "P2 plays copy-take" in news(state)


def test_g40_copies_resolve_clockwise_so_later_takers_get_later_gems():
    state = position("""
        P1: R / / 0 / T01 T18 T02
        P2: G / copy-take / 0 / T03 T22 T35
        P3: Y / copy-take / 0 / T04 T26 T36
        prefs P2 copy-take ask
        prefs P3 copy-take ask
        mine RGL
    """ + MARKET)
    state = play(state, "take", "P3: play copy-take", "P2: play copy-take")
    assert state.carts == ("RR", "GG", "YL")


def test_g34_copy_set_sets_any_fitting_gem_and_a_brown_tile_waits_for_its_owner():
    state = position("""
        P1: R / / 0 / T01 T18 T02
        P2: GR / copy-set / 0 / T03=.L T22 T35
        prefs P2 copy-set ask
    """ + MARKET)
    state = play(state, "set R T18")
    assert ("play", "copy-set", ("R", "T03")) in GF.legal(state, P2)
    state = play(state, "P2: play copy-set R T03")
    assert held(state, P2)["T03"] == "RL" and GF.to_act(state) == {P1}


def test_g35_a_cancel_wastes_the_action_and_both_cards_are_discarded():
    state = position(WINDOW + MARKET + "\nprefs P2 cancel ask\nprefs P3 cancel ask")
    state = play(state, "play mine 1")
    assert GF.to_act(state) == {P2, P3}  # both hold a card; only P2 holds a cancel
    state = play(state, "P2: play cancel", "P3: pass")
    assert GF.to_act(state) == {P1}  # P1 may cancel the cancel
    state = play(state, "pass")
    assert state.mine == "RGYL" * 3 and state.actions == 1
    assert state.discard == ("mine", "cancel") and "P1's mine is cancelled" in news(state)


def test_g35_cancelling_the_cancel_lets_the_card_take_effect():
    state = position(WINDOW + MARKET + "\nprefs P2 cancel ask\nprefs P3 cancel pass")
    state = play(state, "play mine 1", "P2: play cancel", "P1: play cancel")
    assert GF.to_act(state) == {P2}  # whose cancel was cancelled
    state = play(state, "P2: pass")
    assert state.mine == "GYLRGYLRGYLR" and state.hands[P1] == () and state.hands[P2] == \
        ("copy-take",)
    assert state.discard == ("mine", "cancel", "cancel")


def test_g40_the_first_cancel_in_turn_order_is_played_and_the_others_keep_theirs():
    state = position("""
        P1: R / mine / 0 / T01 T18 T02
        P2: G / cancel / 0 / T03 T22 T35
        P3: Y / cancel / 0 / T04 T26 T36
        prefs P2 cancel ask
        prefs P3 cancel ask
    """ + MARKET)
    state = play(state, "play mine 1", "P3: play cancel", "P2: play cancel")
    assert state.hands[P2] == () and state.hands[P3] == ("cancel",)
    assert state.actions == 1 and GF.to_act(state) == {P1}


def test_g38_ask_if_targeted_asks_only_the_player_a_card_names():
    state = position("""
        P1: R / swap-gems swap-gems / 0 / T01 T18 T02
        P2: G / cancel / 0 / T03 T22 T35
        P3: Y / cancel / 0 / T04 T26 T36
    """ + MARKET)
    state = play(state, "play swap-gems R P3 Y")
    assert GF.to_act(state) == {P3}
    state = play(state, "P3: pass")
    assert state.carts == ("Y", "G", "R")


def test_g39_a_missing_answer_counts_as_a_pass_and_no_view_says_who_is_asked():
    state = position(WINDOW + MARKET + "\nprefs P2 cancel ask\nprefs P3 cancel ask")
    state = play(state, "play mine 1")
    assert GF.default_decision(state, P3) == ("pass",)
    assert GF.default_decision(state, P1) is None  # not asked
    for viewer in (None, P1):
        assert "asked" not in str(GF.view(state, viewer)).replace("'asked': None", "")
    assert GF.visible_notation(state, P2, ("play", "cancel", ()), P1) is None
    state = play(state, "P2: " + GF.notation(state, P2, GF.default_decision(state, P2)),
                 "P3: pass")
    assert state.carts[P1] == "R" and state.mine == "GYLRGYLRGYLR"


def test_g38_standing_answers_are_decisions_any_seat_may_send_any_time():
    state = position(WINDOW + MARKET)
    assert ("pref", "cancel", "ask") in GF.legal(state, P3) and P3 not in GF.to_act(state)
    state = play(state, "P3: pref cancel ask")
    assert state.prefs[P3] == ("ask", "pass", "pass")
    assert GF.visible_notation(state, P3, ("pref", "copy-take", "auto"), P1) is None
    assert not GF.reveals(state, P3, ("pref", "copy-take", "auto"))
    assert GF.view(state, P3)["prefs"]["cancel"] == "ask"
    assert GF.view(state, P1)["prefs"]["cancel"] == "ask-if-targeted"  # P1's own


def test_g43_a_gift_inside_a_chain_ends_the_game_at_once():
    state = position("""
        P1: RG / take-from-cart / 0 / T01 T18 T02
        P2: Y / cancel / 19 / T03 T22 T35
        P3: Y / copy-take / 0 / T04 T26 T36
    """ + MARKET)
    state = play(state, "play take-from-cart P2 Y", "P2: pass")
    assert GF.outcome(state).winners == {P2} and state.carts[P1] == "RGY"


# -- G23, G41, G42: declaring cards, and what the server plays at a deadline ----------------

def test_g23_a_card_is_shown_to_everyone_with_its_choices():
    state = position("""
        P1: R / mine / 0 / T01 T18 T02
        P2: G / / 0 / T03 T22 T35
    """ + MARKET)
    decision = GF.parse(state, P1, "mine 3 keep y")
    assert GF.visible_notation(state, P1, decision, P2) == "play mine 3 keep Y"
    assert "P1 plays mine 3 keep Y" in news(GF.apply(state, P1, decision))


def test_g10_there_is_no_passing_on_ones_turn():
    state = position(TWO + MARKET)
    assert ("pass",) not in GF.legal(state, P1) and ("end",) not in GF.legal(state, P1)


def test_g42_missing_actions_become_draws_then_the_brown_tile_then_end():
    state = position("""
        P1: G / / 0 / T01=R. T18=RR T02
        P2: Y / / 0 / T03 T23 T35
    """ + MARKET)
    assert GF.default_decision(state, P1) == ("draw",)
    assert GF.default_decision(state, P2) is None  # not P2's turn: nothing to default
    state = play(state, "set G T01", "draw")
    assert GF.default_decision(state, P1) == ("cash", ("T01",))
    state = play(state, "cash T01", "pick 1")
    assert GF.default_decision(state, P1) == ("end",)


def test_every_decisions_text_reads_back_as_itself_and_folds_to_its_kind_first():
    """`parse` compares a text only with the legal decisions of the kind it starts with:
    that is sound because every decision's canonical text folds to its kind first, and
    parses back to that very decision (random positions of 2 to 4 players)."""
    import random
    from pbem.engines.gemforge.moves import decision_text, words
    engine, rng = get_engine("gemforge"), random.Random("fold")
    checked = 0
    for game in range(6):
        state = engine.start({}, 2 + game % 3, seed=f"fold-{game}")
        for ply in range(120):
            waiting = sorted(engine.to_act(state))
            if not waiting:
                break
            if waiting == [CHANCE]:
                state = engine.apply(state, CHANCE, engine.deal(state, rng))
                continue
            seat = rng.choice([s for s in waiting if s != CHANCE])
            for decision in engine.legal(state, seat):
                assert words(decision_text(decision))[0] == decision[0], decision
                assert engine.parse(state, seat, decision_text(decision)) == decision
                checked += 1
            state = engine.apply(state, seat, engine.random_decision(state, seat, rng))
    assert checked > 3000
