"""Gem Forge rules, ruling by ruling (RULINGS.md G1–G26), on literal positions: the
components and setup, the actions, cashing, victory points and cards in general. The
cards themselves, reactions and deadlines are in test_gemforge_cards.py."""

from collections import Counter

import pytest

from pbem.engines import get_engine
from pbem.engines.base import CHANCE, IllegalMove
from pbem.engines.gemforge.state import DECK, PREFS, SETUP, WINDOWS, GemState, tiles
from pbem.engines.game import Game

GF = get_engine("gemforge")
P1, P2, P3, P4 = range(4)


def position(text: str) -> GemState:
    """A literal position in the middle of a game. One line per seat, fields split by '/':

        P1: RG / mine cancel / 3 / T18=R. T05 T07     cart, cards, points, ornaments
        mine RGYLRG          the mine, front first
        active P2 1          whose turn, and actions used (default P1 0)
        market T10 T11 T12 T13
        prefs P2 cancel ask
        deck / discard / tiles / tile_discard ...   (defaults: the rest, in data order)
    """
    seats, fields = [], {"mine": "RGYL" * 3, "active": "P1 0", "prefs": []}
    for line in text.strip().splitlines():
        key, _, rest = line.strip().partition(" ")
        if key.endswith(":"):
            cart, cards, points, row = (part.strip() for part in rest.split("/"))
            seats.append((cart, tuple(cards.split()), int(points),
                          tuple(map(_ornament, row.split()))))
        elif key == "prefs":
            fields["prefs"].append(rest.split())
        else:
            fields[key] = rest.strip()
    n = len(seats)
    market = tuple(fields.get("market", "").split())
    used = Counter(card for seat in seats for card in seat[1])
    rest = list(DECK)
    for card in used.elements():
        rest.remove(card)
    held = {t for seat in seats for t, _ in seat[3]} | set(market)
    prefs = [list(v[0] for v in PREFS.values()) for _ in range(n)]
    for seat, window, value in fields["prefs"]:
        prefs[int(seat[1:]) - 1][WINDOWS.index(window)] = value
    active, actions = fields["active"].split()
    return GemState(
        players=n, setup=len(SETUP), active=int(active[1:]) - 1, actions=int(actions),
        mine=fields["mine"], carts=tuple(s[0] for s in seats),
        hands=tuple(s[1] for s in seats),
        deck=tuple(fields["deck"].split()) if "deck" in fields else tuple(rest),
        discard=tuple(fields.get("discard", "").split()),
        ornaments=tuple(s[3] for s in seats), market=market,
        tiles=(tuple(fields["tiles"].split()) if "tiles" in fields
               else tuple(t for t in tiles() if t not in held)),
        tile_discard=tuple(fields.get("tile_discard", "").split()),
        points=tuple(s[2] for s in seats), prefs=tuple(map(tuple, prefs)))


def _ornament(text: str) -> tuple:
    """T18=R. is ring T18 holding a red gem in its first slot; T18 alone is empty."""
    tile, _, gems = text.partition("=")
    return (tile, gems or "." * len(tiles()[tile].slots))


def play(state, *moves):
    """Play move texts; 'P2: pass' names the seat, otherwise the one seat to act plays."""
    for text in moves:
        label, sep, move = text.partition(":")
        if sep:
            seat = int(label.strip()[1:]) - 1
        else:
            (seat,) = GF.to_act(state)
            move = text
        state, _ = GF.play(state, seat, move.strip())
    return state


def cart(state, seat):
    return state.carts[seat]


def held(state, seat):
    return {t: gems for t, gems in state.ornaments[seat]}


def news(state):
    return [text for _, text in state.news]


MARKET = "market T10 T11 T12 T13"
TWO = """
    P1: RG / / 0 / T01 T18 T34
    P2: Y / / 0 / T02 T19 T35
"""


# -- G1–G8: components and setup ---------------------------------------------------------

def test_g1_the_tile_table_is_the_assumed_data_file():
    table = tiles()
    assert len(table) == 36
    assert Counter(t.background for t in table.values()) == {"brown": 17, "light blue": 19}
    assert all(t.light for t in table.values() if t.rainbow)


def test_g2_the_action_deck_holds_34_cards_of_11_types():
    assert len(DECK) == 34 and len(set(DECK)) == 11
    assert Counter(DECK)["mine"] == 6 and Counter(DECK)["cancel"] == 4


def test_g3_two_to_four_players():
    assert (GF.min_players, GF.max_players) == (2, 4)


def test_g4_g6_g7_g8_the_setup_is_dealt_by_four_dealer_moves():
    game = Game(GF, {}, ["ann", "ben", "cat"], seed="s")
    dealer = [ply.text.split()[0] for ply in game.plies if ply.seat == CHANCE]
    assert dealer == ["first", "mine", "cards", "tiles"]
    state = game.state
    first = state.first
    mine_order = game.plies[1].text.split()[1]
    assert [state.carts[(first + k) % 3] for k in range(3)] == list(mine_order[:3])
    assert state.mine == mine_order[3:]
    assert [len(h) for h in state.hands] == [1, 1, 1] and len(state.deck) == 31
    assert all(len(d) == 5 for d in state.dealt)
    assert game.to_act == {0, 1, 2} and state.market == ()


def test_g8_the_tiles_kept_are_revealed_together_and_the_market_opens_after():
    game = Game(GF, {}, ["ann", "ben"], seed="s")
    dealt = game.state.dealt
    game.play(0, "keep " + " ".join(dealt[0][2:]))
    assert GF.view(game.state, 1)["ornaments"] == [[], []] and game.to_act == {1}
    assert GF.visible_notation(game.state, 1, ("keep", dealt[1][:3]), 0) is None
    game.play(1, GF.notation(game.state, 1, GF.default_decision(game.state, 1)))
    state = game.state
    assert [o[0] for o in state.ornaments[0]] == list(dealt[0][2:])
    assert [o[0] for o in state.ornaments[1]] == list(dealt[1][:3])
    assert len(state.market) == 4 and len(state.tile_discard) == 4
    assert game.to_act == {state.first}


# -- G10–G13: the actions ---------------------------------------------------------------

def test_g11_take_moves_the_front_gem_to_the_cart_and_a_full_cart_cannot_take():
    state = position(TWO + "mine YLR\n" + MARKET)
    state = play(state, "take")
    assert cart(state, P1) == "RGY" and state.mine == "LR"
    assert ("take",) not in GF.legal(state, P1)
    with pytest.raises(IllegalMove, match="your cart holds 3 gems and is full"):
        GF.parse(state, P1, "take")


def test_g5_an_empty_mine_cannot_be_taken_from():
    state = position(TWO + "mine \n" + MARKET)
    assert ("take",) not in GF.legal(state, P1)


def test_g10_two_actions_then_the_turn_passes():
    state = play(position(TWO + MARKET), "discard G", "draw")
    assert state.active == P2 and state.actions == 0 and state.mine.endswith("G")
    assert len(state.hands[P1]) == 1


def test_g12_fixed_slots_take_their_colour_and_rainbow_tiles_one_colour():
    state = position("""
        P1: RRG / / 0 / T01 T18 T34=R.
        P2: Y / / 0 / T02 T19 T35
    """ + MARKET)
    sets = {(g, t) for kind, *rest in GF.legal(state, P1) if kind == "set" for g, t in [rest]}
    assert sets == {("R", "T01"), ("G", "T01"), ("R", "T18"), ("R", "T34")}
    state = play(state, "set R T34")
    assert held(state, P1)["T34"] == "RR"


def test_g12_a_rainbow_tile_emptied_by_a_card_takes_any_colour_again():
    state = position("""
        P1: Y / take-from-ornament / 0 / T01 T18 T03
        P2: G / / 0 / T02 T19 T35=R..
    """ + MARKET)
    state = play(state, "play take-from-ornament T35 R", "draw")
    assert held(state, P2)["T35"] == "..." and state.points[P2] == 1
    assert ("set", "G", "T35") in GF.legal(state, P2)


def test_g13_a_complete_ornament_takes_no_gem_and_cannot_be_robbed():
    state = position("""
        P1: R / take-from-ornament / 0 / T01 T18 T03
        P2: G / / 0 / T02 T19=RR T35=R..
    """ + MARKET)
    plays = [d for d in GF.legal(state, P1) if d[:2] == ("play", "take-from-ornament")]
    targets = {d[2][0] for d in plays}
    assert targets == {"T35"}


# -- G14–G19: cashing and replacing ------------------------------------------------------

def test_g16_a_set_scores_its_points_plus_its_bonuses():
    state = position("""
        P1: G / / 0 / T18=RR T19=RR T01
        P2: Y / / 0 / T02 T23 T35
    """ + MARKET)
    assert ("cash", ("T18", "T19")) in GF.legal(state, P1)
    state = play(state, "cash T18 T19")
    assert state.points[P1] == 5 and state.mine.endswith("RRRR")
    state = play(state, "pick 2")
    assert GF.to_act(state) == {P1}
    state = play(state, "refresh 1")
    assert [o[0] for o in state.ornaments[P1]] == ["T01", "T11", "T04"]
    assert state.market == ("T05", "T03", "T12", "T13")
    assert state.tile_discard == ("T18", "T19", "T10")


def test_g16_a_single_light_blue_tile_scores_its_points_only():
    state = play(position("""
        P1: G / / 0 / T18=RR T19 T01
        P2: Y / / 0 / T02 T23 T35
    """ + MARKET), "cash T18")
    assert state.points[P1] == 2


def test_g41_a_mail_used_up_after_two_actions_ends_the_turn_though_a_set_could_be_cashed():
    ready = """
        P1: G / / 0 / T18=RR T19 T01
        P2: Y / / 0 / T02 T23 T35
    """ + MARKET
    assert GF.mail_done(position(ready + "\nactive P1 2"), P1) == ("end",)
    assert GF.mail_done(position(ready + "\nactive P1 1"), P1) is None
    assert GF.mail_done(position(ready + "\nactive P1 2"), 1) is None


def test_g14_cashing_is_only_on_ones_own_turn_and_is_not_an_action():
    state = position("""
        P1: G / / 0 / T22 T19 T01
        P2: Y / / 0 / T18=RR T23 T35
    """ + MARKET)
    assert not [d for d in GF.legal(state, P2) if d[0] == "cash"]
    state = play(state, "draw", "draw", "P2: cash T18", "pick 1")
    assert state.points[P2] == 2 and state.actions == 0 and state.active == P2


def test_g15_a_brown_tile_must_be_cashed_before_the_turn_ends():
    state = position("""
        P1: G / / 0 / T01=R. T18=RR T02
        P2: Y / / 0 / T03 T23 T35
    """ + MARKET)
    state = play(state, "set G T01", "draw")
    legal = GF.legal(state, P1)
    assert ("end",) not in legal and ("cash", ("T01",)) in legal
    state = play(state, "cash T18", "pick 1")
    # only the brown tile is left to cash: the engine cashes it and asks for its replacement
    assert state.points[P1] == 4 and GF.to_act(state) == {P1}
    state = play(state, "pick 1")
    assert state.active == P2


def test_g15_a_brown_tile_completed_on_another_turn_is_cashed_on_the_owners_turn():
    state = position("""
        P1: R / / 0 / T03 T18 T02
        P2: G / copy-set / 0 / T01=R. T23 T35
        prefs P2 copy-set auto
    """ + MARKET)
    state = play(state, "set R T18")
    assert held(state, P2)["T01"] == "RG"
    assert not [d for d in GF.legal(state, P2) if d[0] == "cash"]
    state = play(state, "draw")
    assert state.active == P2 and ("cash", ("T01",)) in GF.legal(state, P2)
    state = play(state, "draw", "draw")  # the engine cashes the only brown tile left
    assert state.points[P2] == 2 and GF.default_decision(state, P2) == ("pick", 0)


def test_g19_a_reshuffled_tile_deck_leaves_out_the_tile_just_cashed():
    state = position("""
        P1: G / / 0 / T18=RR T19 T01
        P2: Y / / 0 / T02 T23 T35
        tiles
        tile_discard T30 T31
    """ + MARKET)
    state = play(state, "cash T18", "pick 1")
    assert GF.to_act(state) == {CHANCE} and state.market[0] is None
    with pytest.raises(Exception, match="exactly these 2"):
        GF.parse(state, CHANCE, "tiles T31 T30 T18")
    state = GF.apply(state, CHANCE, GF.parse(state, CHANCE, "tiles T31 T30"))
    assert state.market[0] == "T31" and state.tiles == ("T30",)
    assert state.tile_discard == ("T18",) and GF.to_act(state) == {P1}


# -- G20–G22: victory points --------------------------------------------------------------

THREE = """
    P1: G / / 3 / T18=RR T19 T01
    P2: Y / / 0 / T02 T23 T35
    P3: L / / 5 / T03 T22 T36
"""


def test_g20_crossing_5_gives_everyone_behind_it_a_card():
    state = play(position(THREE + MARKET), "cash T18")
    assert state.points == (5, 0, 5)
    assert [len(h) for h in state.hands] == [0, 1, 0]


def test_g20_several_thresholds_hand_out_one_card_each_lowest_first():
    state = position(THREE.replace("/ 3 /", "/ 4 /").replace("T19 T01", "T21=RRRR T01")
                     + MARKET + "\ndeck mine cancel copy-take")
    state = play(state, "cash T21")  # 4 -> 9: crosses 5 only
    assert [len(h) for h in state.hands] == [0, 1, 0]
    state = position(THREE.replace("/ 3 /", "/ 4 /").replace("T18=RR T19", "T18=RR T21=RRRR")
                     + MARKET + "\ndeck mine cancel copy-take")
    state = play(state, "cash T18 T21")  # 2 + 5 + bonuses 1 + 2 = 10: 4 -> 14
    assert state.points[P1] == 14
    # 5: only P2 is behind; 10: P2, then P3 (clockwise from the active player)
    assert state.hands == ((), ("mine", "cancel"), ("copy-take",))


def test_g21_g22_a_gift_can_win_the_game_at_once():
    state = position("""
        P1: RG / discard-gems / 0 / T01 T18 T02
        P2: Y / / 19 / T03 T23 T35
    """ + MARKET)
    state = play(state, "play discard-gems P2 Y")
    assert GF.outcome(state).winners == {P2} and GF.to_act(state) == frozenset()
    assert GF.result_token(state) == "0-1"


def test_g21_the_game_ends_the_moment_20_is_reached():
    state = play(position("""
        P1: G / / 18 / T18=RR T19 T01
        P2: Y / / 0 / T02 T23 T35
    """ + MARKET), "cash T18")
    assert GF.outcome(state).winners == {P1} and state.pending == ()


# -- G23–G26: cards in general ------------------------------------------------------------

def test_g24_a_card_that_would_change_nothing_cannot_be_played():
    state = position("""
        P1: R / swap-gems / 0 / T01 T18 T02
        P2: R / / 0 / T03 T23 T35
    """ + MARKET)
    assert not [d for d in GF.legal(state, P1) if d[0] == "play"]
    with pytest.raises(IllegalMove):
        GF.parse(state, P1, "play swap-gems R P2 R")


def test_g25_the_hand_limit_waits_for_a_player_off_turn_and_defaults_to_the_new_card():
    state = position("""
        P1: G / / 3 / T18=RR T19 T01
        P2: Y / mine mine cancel cancel / 0 / T02 T23 T35
        deck copy-set
    """ + MARKET)
    state = play(state, "cash T18")
    assert GF.to_act(state) == {P2}
    assert GF.default_decision(state, P2) == ("drop", ("copy-set",))
    assert GF.visible_notation(state, P2, ("drop", ("mine",)), P1) is None
    state = play(state, "drop mine")
    assert sorted(state.hands[P2]) == ["cancel", "cancel", "copy-set", "mine"]
    assert GF.to_act(state) == {P1}  # now the replacement


def test_g26_an_empty_action_deck_is_reshuffled_by_the_dealer():
    state = position(TWO + MARKET + "\ndeck\ndiscard mine cancel")
    state = play(state, "draw")
    assert GF.to_act(state) == {CHANCE}
    state = GF.apply(state, CHANCE, GF.parse(state, CHANCE, "cards cancel mine"))
    assert state.hands[P1] == ("cancel",) and state.deck == ("mine",) and state.discard == ()
