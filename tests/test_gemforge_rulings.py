"""Gem Forge: the bugs and rulings of issue 16 (G23–G26, G25a, G4a), and what a player
reads when a decision is refused, on literal positions with the text a player types."""

import pytest

from pbem.engines.base import CHANCE, IllegalMove
from pbem.engines.game import Game
from pbem.engines.gemforge.moves import to_shuffle

from test_gemforge import GF, MARKET, P1, P2, P3, play, position


# -- G23, G26: a card joins the discard once it has resolved ------------------------------

def test_g23_g26_three_cards_is_not_reshuffled_into_the_deck_it_draws_from():
    state = position("""
        P1: RG / three-cards / 0 / T01 T18 T34
        P2: Y / / 0 / T02 T19 T35
        deck mine
        discard cancel copy-take
    """ + MARKET)
    state = play(state, "play three-cards")
    assert state.hands[P1] == ("mine",)  # the deck ran out after one card
    assert GF.to_act(state) == {CHANCE}
    assert sorted(to_shuffle(state, "cards")) == ["cancel", "copy-take"]
    with pytest.raises(Exception, match="exactly these 2 cards"):
        GF.parse(state, CHANCE, "cards three-cards cancel copy-take")
    state = GF.apply(state, CHANCE, GF.parse(state, CHANCE, "cards copy-take cancel"))
    assert sorted(state.hands[P1]) == ["cancel", "copy-take", "mine"]
    assert state.discard == ("three-cards",) and state.deck == ()


def test_g23_g26_a_bonus_draw_reshuffles_without_the_card_that_gave_the_point():
    state = position("""
        P1: RG / discard-gems / 0 / T01 T18 T34
        P2: Y / / 4 / T02 T19 T35
        deck
        discard cancel
    """ + MARKET)
    state = play(state, "play discard-gems P2 Y")  # P2 reaches 5: P1 behind it draws
    assert state.points[P2] == 5 and GF.to_act(state) == {CHANCE}
    assert to_shuffle(state, "cards") == ("cancel",)
    state = GF.apply(state, CHANCE, GF.parse(state, CHANCE, "cards cancel"))
    assert state.hands[P1] == ("cancel",) and state.discard == ("discard-gems",)


# -- G24: a card that changes nothing cannot be played -------------------------------------

def test_g24_mine_that_only_turns_the_mine_round_is_refused():
    state = position("""
        P1: R / mine / 0 / T01 T18 T34
        P2: Y / / 0 / T02 T19 T35
        mine YY
    """ + MARKET)
    mines = [d[2] for d in GF.legal(state, P1) if d[:2] == ("play", "mine")]
    assert mines == [(2, "Y")]
    with pytest.raises(IllegalMove, match=r"it would change nothing: the mine's first 1 gem "
                                          r"\(Y\) would go back behind the rest and the mine "
                                          r"stays YY \(G24\)"):
        GF.parse(state, P1, "play mine 1")


def test_g24_mine_with_a_full_cart_that_gives_back_the_same_order_is_refused():
    state = position("""
        P1: RGY / mine / 0 / T01 T18 T34
        P2: Y / / 0 / T02 T19 T35
        mine RGRG
    """ + MARKET)
    with pytest.raises(IllegalMove, match="the mine stays RGRG"):
        GF.parse(state, P1, "play mine 2")
    state = play(state, "play mine 1")  # R goes behind GRG: the order changes
    assert state.mine == "GRGR"


# -- G25a: several seats over the hand limit are asked together ----------------------------

def test_g25a_every_seat_over_the_limit_is_asked_at_once_and_in_secret():
    state = position("""
        P1: G / / 3 / T18=RR T19 T01
        P2: Y / mine mine cancel cancel / 0 / T02 T23 T35
        P3: L / copy-set copy-set mine set-two / 0 / T03 T24 T36
        deck copy-take three-cards
    """ + MARKET)
    state = play(state, "cash T18")  # 3 + 2 = 5: P2 and P3 draw a bonus card each
    assert GF.to_act(state) == {P2, P3}
    assert GF.view(state, None)["waiting"] == {"seats": [P2, P3], "for": "limit"}
    assert GF.default_decision(state, P2) == ("drop", ("copy-take",))
    assert GF.default_decision(state, P3) == ("drop", ("three-cards",))
    assert GF.visible_notation(state, P3, ("drop", ("mine",)), P2) is None
    state = play(state, "P3: drop mine")
    assert GF.to_act(state) == {P2} and len(state.hands[P3]) == 4
    assert not [d for d in GF.legal(state, P3) if d[0] == "drop"]
    state = play(state, "P2: drop cancel")
    assert GF.to_act(state) == {P1}  # now the replacement for T18
    assert "take a market tile" in GF.prompt(state, P1).lower()


# -- G4a and the order of what a player writes ---------------------------------------------

def test_keep_accepts_the_tiles_in_any_order_and_is_final():
    game = Game(GF, {}, ["ann", "ben"], seed="s")
    dealt = game.state.dealt[0]
    text = game.play(0, f"keep {dealt[4]} {dealt[0]} {dealt[2]}")
    assert text == f"keep {dealt[0]} {dealt[2]} {dealt[4]}"
    assert [d for d in GF.legal(game.state, 0) if d[0] != "pref"] == []
    assert 0 not in game.to_act
    with pytest.raises(IllegalMove, match="a keep is final"):
        GF.parse(game.state, 0, f"keep {' '.join(dealt[:3])}")
    assert "waiting for the others" in GF.prompt(game.state, 0)


def test_keep_names_a_wrong_count_or_an_unknown_tile_as_such():
    game = Game(GF, {}, ["ann", "ben"], seed="s")
    dealt, theirs = game.state.dealt
    with pytest.raises(IllegalMove, match=r"you keep 3 of your 5 tiles and named 2"):
        GF.parse(game.state, 0, f"keep {dealt[0]} {dealt[1]}")
    with pytest.raises(IllegalMove, match=r"T99 is no tile \(yours: "):
        GF.parse(game.state, 0, f"keep {dealt[0]} {dealt[1]} T99")
    with pytest.raises(IllegalMove, match=f"{theirs[0]} is not one of your dealt tiles"):
        GF.parse(game.state, 0, f"keep {dealt[0]} {dealt[1]} {theirs[0]}")


def test_g4a_discard_gems_keeps_the_order_written_and_mine_names_only_what_is_kept():
    state = position("""
        P1: YL / discard-gems mine / 0 / T01 T18 T34
        P2: G / / 0 / T02 T19 T35
        mine RGY
        prefs P2 cancel pass
    """ + MARKET)
    ly = GF.parse(state, P1, "play discard-gems P1 L Y")
    assert ly != GF.parse(state, P1, "play discard-gems P1 Y L")
    assert play(state, "play discard-gems P1 L Y").mine == "RGYLY"
    assert GF.parse(state, P1, "play mine 3 keep Y") == ("play", "mine", (3, "Y"))
    assert play(state, "play mine 3 keep Y").mine == "RG"  # R then G, as taken
    assert GF.parse(state, P1, "play mine 3 keep Y") == ("play", "mine", (3, "Y"))


def test_set_two_has_one_decision_for_the_two_sets_in_either_order():
    state = position("""
        P1: RGY / set-two / 0 / T01 T18 T02
        P2: Y / / 0 / T03 T19 T35
    """ + MARKET)
    plays = [d[2] for d in GF.legal(state, P1) if d[:2] == ("play", "set-two")]
    meanings = [frozenset(zip(a[::2], a[1::2])) for a in plays]
    assert len(meanings) == len(set(meanings))
    assert GF.parse(state, P1, "play set-two G T01 R T18") == \
        GF.parse(state, P1, "play set-two R T18 G T01") == ("play", "set-two",
                                                             ("R", "T18", "G", "T01"))


# -- refusals say which condition failed ----------------------------------------------------

def test_mine_keep_says_how_many_the_cart_has_room_for():
    state = position("""
        P1: RG / mine / 0 / T01 T18 T34
        P2: G / / 0 / T02 T19 T35
        mine YLRG
    """ + MARKET)
    with pytest.raises(IllegalMove, match="you may keep at most 1: your cart has room for 1"):
        GF.parse(state, P1, "play mine 3 keep Y L R")
    with pytest.raises(IllegalMove, match="the mine's first 2 gems are YL: no red gem"):
        GF.parse(state, P1, "play mine 2 keep R")


def test_take_from_cart_says_how_many_the_cart_has_room_for():
    state = position("""
        P1: RG / take-from-cart / 0 / T01 T18 T34
        P2: YL / / 0 / T02 T19 T35
    """ + MARKET)
    with pytest.raises(IllegalMove, match="you may take at most 1: your cart has room for 1"):
        GF.parse(state, P1, "play take-from-cart P2 Y L")
    assert GF.parse(state, P1, "play take-from-cart P2 L") == \
        ("play", "take-from-cart", (P2, "L"))


def test_take_from_cart_takes_its_gems_in_any_order():
    state = position("""
        P1: R / take-from-cart / 0 / T01 T18 T34
        P2: YL / / 0 / T02 T19 T35
    """ + MARKET)
    assert GF.parse(state, P1, "play take-from-cart P2 L Y") == \
        GF.parse(state, P1, "play take-from-cart P2 Y L")


def test_a_set_names_the_slot_it_lacks_and_end_the_actions_left():
    state = position("""
        P1: RG / / 0 / T01=R. T18 T34
        P2: G / / 0 / T02 T19 T35
    """ + MARKET)
    with pytest.raises(IllegalMove, match=r"T01 has no empty red slot \(its slots RG, set R.\)"):
        GF.parse(state, P1, "set R T01")
    with pytest.raises(IllegalMove, match="you have 2 actions left: a turn is two actions"):
        GF.parse(state, P1, "end")
    with pytest.raises(IllegalMove, match="there is no passing on your own turn"):
        GF.parse(state, P1, "pass")


def test_a_full_stop_after_a_move_is_ignored():
    state = position("""
        P1: RG / discard-gems / 0 / T01 T18 T34
        P2: Y / cancel / 0 / T02 T19 T35
    """ + MARKET)
    state = play(state, "play discard-gems P2 Y.")
    assert GF.parse(state, P2, "Pass.") == ("pass",)
    assert GF.parse(state, P2, "pass!") == ("pass",)


# -- what apply did by itself is in the view -----------------------------------------------

def test_a_lone_brown_tile_cashed_and_an_ended_turn_are_shown_as_automatic():
    state = position("""
        P1: G / / 0 / T01=R. T18=RR T02
        P2: Y / / 0 / T03 T23 T35
    """ + MARKET)
    state = play(state, "set G T01", "draw", "cash T18")
    assert GF.automatic(state) == [] and GF.view(state, P2)["automatic"] == []
    state = play(state, "pick 1")
    assert GF.automatic(state) == [(P1, "cash T01")]
    assert GF.view(state, None)["automatic"] == [{"seat": P1, "text": "cash T01"}]
    state = play(state, "pick 1")
    assert GF.automatic(state) == [(P1, "end")] and state.active == P2


def test_a_seat_may_be_named_by_its_players_name():
    state = position("""
        P1: R / take-from-cart discard-gems / 0 / T01 T18 T34
        P2: YL / / 0 / T02 T19 T35
    """ + MARKET)
    names = ["ann", "bob"]
    assert GF.parse(state, P1, "play take-from-cart bob Y", names=names) == \
        ("play", "take-from-cart", (P2, "Y"))
    assert GF.parse(state, P1, "discard-gems Ann R", names=names) == \
        ("play", "discard-gems", (P1, "R"))
    with pytest.raises(Exception, match="'b' could be bob or bonnie"):
        GF.parse(state, P1, "play take-from-cart b Y", names=["ann", "bob", "bonnie"])
