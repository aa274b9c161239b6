"""Gem Forge as players meet it: what each view, diagram and mail line may show (G9),
the notation they type, and `pbem selfplay gemforge` exercising every card."""

import json
import random
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings, strategies as st

from pbem.cli import main
from pbem.engines.base import CHANCE, IllegalMove, InvalidMove, MoveError
from pbem.engines.gemforge.state import CARD_NAMES
from pbem.engines.game import Game, selfplay

from test_gemforge import GF, MARKET, P1, P2, P3, position

SECRET = """
    P1: RG / swap-ornaments three-cards / 4 / T01 T18=R. T34
    P2: Y / set-two / 2 / T02 T19 T35
    P3: L / / 7 / T03 T22 T36
    deck take-from-cart take-from-ornament
""" + MARKET


def test_g9_a_seat_sees_its_own_cards_and_never_anothers_or_the_decks():
    state = position(SECRET)
    assert GF.view(state, P1)["hand"] == ["swap-ornaments", "three-cards"]
    for viewer in (None, P2, P3):
        view = GF.view(state, viewer)
        shown = json.dumps(view) + GF.text_diagram(view) + GF.svg_diagram(view)
        for secret in ("swap-ornaments", "three-cards", "take-from-cart",
                       "take-from-ornament"):
            assert secret not in shown, (viewer, secret)
        assert view["hand_sizes"] == [2, 1, 0] and view["action_deck"] == 2


def test_g9_everyone_sees_carts_ornaments_points_the_mine_and_the_market():
    text = GF.text_diagram(GF.view(position(SECRET), None))
    for public in ("RGYLR GYLRG YL", "T18 ring RR [R.] 2+1vp blue", "P3: 7 points", "1. T10",
                   "cart [R G .]"):
        assert public in text, public


def test_after_the_game_every_view_shows_everything():
    game = selfplay(GF, {}, 3, "4")
    view = GF.view(game.state, None)
    assert view["phase"] == "over" and len(view["hands"]) == 3 and "deck" in view
    assert "wins with" in GF.text_diagram(view)


def test_diagrams_fit_a_mail_and_parse_as_svg_all_through_a_game():
    game = Game(GF, {}, ["a", "b", "c", "d"], seed="diagram")
    rng = random.Random(3)
    while game.to_act:
        for viewer in (None, *range(4)):
            view = GF.view(game.state, viewer)
            assert max(map(len, GF.text_diagram(view).splitlines())) <= 72
        ET.fromstring(GF.svg_diagram(GF.view(game.state, 0), caption="a game"))
        seat = rng.choice(sorted(game.to_act))
        decision = GF.random_decision(game.state, seat, rng)
        game.play(seat, GF.notation(game.state, seat, decision))


def words_drawn(svg: str) -> list[str]:
    return sorted(word for text in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")
                  for word in (text.text or "").split())


def test_the_narrow_diagram_draws_the_wide_ones_words_within_a_phones_width():
    """The layout for phones (#35 item 8): the same words as the wide one (your cards
    wrapped over lines), every gem and tile inside its 300 units, so that at 360 px its
    12-unit text is drawn 14 px high (tests/test_web_phone_browser.py measures it, and
    that no text runs past the edge)."""
    from pbem.engines.gemforge.render import sheet
    game = Game(GF, {}, ["a", "b", "c", "d"], seed="narrow")
    rng = random.Random(5)
    while game.to_act:
        for viewer in (None, *range(4)):
            view = GF.view(game.state, viewer)
            narrow = GF.narrow_svg_diagram(view, caption="after ply 9")
            assert words_drawn(narrow) == words_drawn(GF.svg_diagram(view, caption="after ply 9"))
            drawing = sheet(view, 360, "after ply 9", narrow=True)
            assert drawing.svg() == narrow and drawing.view_width == 300
            for _, key, (x0, _, x1, y1) in drawing.pieces():  # texts: the browser test's
                assert key[0] == "text" or (0 <= x0 and x1 <= 300
                                            and y1 <= drawing.view_height), key
        seat = rng.choice(sorted(game.to_act))
        decision = GF.random_decision(game.state, seat, rng)
        game.play(seat, GF.notation(game.state, seat, decision))


def test_keep_choices_are_private_until_revealed():
    game = Game(GF, {}, ["ann", "ben"], seed="keep")
    ann = GF.view(game.state, 0)
    assert len(ann["dealt"]) == 5 and "dealt" not in GF.view(game.state, None)
    ben = json.dumps(GF.view(game.state, 1))
    assert not [t["tile"] for t in ann["dealt"] if f'"{t["tile"]}"' in ben]


# -- notation --------------------------------------------------------------------------

@pytest.mark.parametrize("typed, canonical", [
    ("Take", "take"),
    ("set red t18", "set R T18"),
    ("SET r T18", "set R T18"),
    ("discard green", "discard G"),
    ("swap-ornaments T34 T12 set G", "play swap-ornaments T34 T12 set G"),
    ("play swap_ornaments t34 t10", "play swap-ornaments T34 T10"),
    ("play threecards", "play three-cards"),
])
def test_typed_moves_read_as_their_canonical_text(typed, canonical):
    state = position(SECRET)
    assert GF.notation(state, P1, GF.parse(state, P1, typed)) == canonical


def test_window_answers_and_seat_names():
    state = position("""
        P1: R / discard-gems / 0 / T01 T18 T02
        P2: GY / cancel / 0 / T03 T22 T35
    """ + MARKET)
    decision = GF.parse(state, P1, "play discard-gems seat2 yellow, green")
    assert GF.notation(state, P1, decision) == "play discard-gems P2 Y G"
    state = GF.apply(state, P1, decision)
    assert GF.to_act(state) == {P2}
    assert GF.parse(state, P2, "cancel") == ("play", "cancel", ())
    assert "P1 played discard-gems P2 Y G. Reply pass, or play cancel" in GF.prompt(state, P2)


@pytest.mark.parametrize("typed, error, words", [
    ("fly away", InvalidMove, "starts with one of"),
    ("take", IllegalMove, "your cart holds 3 gems and is full"),
    ("set Y T18", IllegalMove, "Possible set moves: set R T01, set R T18"),
    ("play mine 2", IllegalMove, "you hold no mine"),
    ("", InvalidMove, "empty"),
])
def test_errors_say_what_was_read_and_what_would_work(typed, error, words):
    state = position("""
        P1: RGR / / 0 / T01 T18 T02
        P2: GY / / 0 / T03 T22 T35
    """ + MARKET)
    with pytest.raises(error, match=words):
        GF.parse(state, P1, typed)


def test_the_dealer_writes_public_mine_and_first_player_but_not_the_shuffles():
    game = Game(GF, {}, ["ann", "ben"], seed="d")
    start = GF.start({}, 2)
    first = GF.deal(start, random.Random(1))
    assert GF.visible_notation(start, CHANCE, first, 0) == GF.notation(start, CHANCE, first)
    state = game.state
    assert [p.text.split()[0] for p in game.plies] == ["first", "mine", "cards", "tiles"]
    with pytest.raises(MoveError):
        GF.parse(state, CHANCE, "cards mine")


def test_prompts_say_what_to_type():
    state = position(SECRET)
    assert GF.prompt(state, P1).startswith("Your turn, action 1 of 2")
    assert "pref" in GF.prompt(state, P2)


# -- self-play ---------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_selfplay_cli_writes_a_record_that_checks(players, tmp_path, capsys):
    assert main(["selfplay", "gemforge", "--players", str(players), "--seed", "5"]) == 0
    path = tmp_path / "game.txt"
    path.write_text(capsys.readouterr().out)
    assert main(["record", "check", str(path)]) == 0
    assert '[Game "Gem Forge"]' in path.read_text()


def test_selfplay_plays_every_card_type_over_a_few_seeds():
    played, cancelled = set(), 0
    for players in (2, 3, 4):
        for seed in ("1", "2"):
            game = selfplay(GF, {}, players, seed)
            replayed = Game(GF, {}, game.players)  # dealt from the record, not the seed
            events = {}
            for ply in game.plies:
                replayed.play(ply.seat, ply.text)
                events.update(replayed.state.news)
            played |= {text.split()[2] for text in events.values() if " plays " in text}
            cancelled += sum("is cancelled" in text for text in events.values())
    assert played == set(CARD_NAMES) and cancelled


ALPHABET = "RGYLrgylTtPp0123456789 -_,:;*=playcashkeepmineoftrz٣Ｆ\n"


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET, max_size=30), st.sampled_from([P1, P2, CHANCE]),
       st.sampled_from(["turn", "window", "dealer"]))
def test_any_text_is_a_decision_or_a_reason(text, seat, when):
    """At a turn, in a window (P2 is asked) and when the dealer is due."""
    state = {"turn": position(SECRET),
             "window": GF.apply(position(SECRET + "\nprefs P2 cancel ask"), P1,
                                ("play", "three-cards", ())),
             "dealer": GF.start({}, 2)}[when]
    try:
        decision = GF.parse(state, seat, text)
    except MoveError as error:
        assert str(error)
    else:
        if seat != CHANCE:
            assert decision in GF.legal(state, seat)
