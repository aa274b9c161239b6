"""6 nimmt! Baron Oxx: N13a (a standing preference answers the waiting question), Variant
2's examples, defaults and take lists (N14, N20), one round numbering, two names for
points, and what a placement did by itself — literal positions, the text a player types."""

import pytest

from pbem.engines.baronoxx.cards import penalty
from pbem.engines.base import IllegalMove
from pbem.engines.game import Game, selfplay

from test_baronoxx import ENDS, OXX, asked, play, position, round_of, rows

# 9 (YK) fits row 1 (17 YYY) and row 2 (30 KKK): its player is asked; 60 (K) then fits
# only the black row.
ASKED = f"{ENDS}\nhands: 1=[9 1] 2=[60 2]\ndecks: 1=4 2=4"


def test_n13a_a_standing_pref_from_the_seat_asked_places_the_card_at_once():
    state = round_of(position(ASKED), "play 9", "play 60")
    assert asked(state) == 1
    state = play(state, 1, "pref row 2 low")
    assert rows(state)[1] == [30, 9, 60]  # placed, and the placement went on
    assert OXX.automatic(state) == [(0, "row 2"), (1, "row 2")]
    assert OXX.view(state, 0)["preference"] == "row 2 low"  # and kept for later cards


def test_n13a_a_pref_that_does_not_decide_is_kept_and_the_question_still_waits():
    state = round_of(position(ASKED), "play 9", "play 60")
    for text in ("pref none", "pref row 3 4", "pref take 5"):
        after = play(state, 1, text)
        assert asked(after) == 1 and rows(after) == rows(state)
        assert OXX.automatic(after) == []
    assert OXX.view(play(state, 1, "pref row 3 4"), 0)["preference"] == "row 3 4"
    assert rows(play(play(state, 1, "pref row 3 4"), 1, "row 1"))[0] == [17, 9]


def test_variant_2_examples_and_defaults_use_high_and_no_take_list():
    base, second = position(ASKED), position(ASKED, variant="2")
    assert "play 9 row 2 3 take 5 low" in OXX.prompt(base, 0)
    assert "play 9 row 2 3 high." in OXX.prompt(second, 0)
    assert "take" not in OXX.prompt(second, 0)
    placing = round_of(second, "play 9", "play 60")
    assert "pref row 1 high" in OXX.prompt(placing, 1)
    assert "pref row 1 low" in OXX.prompt(round_of(base, "play 9", "play 60"), 1)


def test_variant_2_refuses_a_take_list_and_says_why():
    state = position(ASKED, variant="2")
    with pytest.raises(IllegalMove, match=r"In Variant 2 a card that fits no row goes under "
                                          r"your deck .* a take list never applies: leave it "
                                          r"out, e.g. play 9 row 2 high"):
        OXX.parse(state, 0, "play 9 row 2 take 5 high")
    with pytest.raises(IllegalMove, match="e.g. pref row 1 high"):
        OXX.parse(state, 0, "pref take 5")
    assert ("play", 9, ((), (4,), "")) not in OXX.legal(state, 0)
    assert ("play", 9, ((), (4,), "")) in OXX.legal(position(ASKED), 0)
    assert OXX.parse(position(ASKED), 0, "play 9 take 5") == ("play", 9, ((), (4,), ""))


def test_the_view_numbers_rounds_as_the_diagram_does():
    game = Game(OXX, {}, ["ann", "ben"], seed="r")
    view = OXX.view(game.state, 0)
    assert view["phase"] == "choose" and view["round"] == 1
    assert "round 1" in OXX.text_diagram(view)
    for seat in (0, 1):
        game.play(seat, OXX.notation(game.state, seat, OXX.default_decision(game.state, seat)))
    while OXX.view(game.state, None)["phase"] == "place":
        (seat,) = game.to_act
        game.play(seat, OXX.notation(game.state, seat, OXX.default_decision(game.state, seat)))
    view = OXX.view(game.state, 0)
    assert view["round"] == 2 and view["revealed_in"] == 1
    text = OXX.text_diagram(view)
    assert "round 2" in text and "Round 1 revealed" in text and "Round 2: waiting" in text


def test_variant_2_bullheads_during_play_and_the_net_score_at_the_end_have_two_names():
    running = position(ASKED + "\npiles: 1=[17]", variant="2")
    view = OXX.view(running, None)
    assert view["bullheads"] == [3, 0] and view["score"] is None and "points" not in view
    game = selfplay(OXX, {"variant": "2"}, 3, "7")
    view = OXX.view(game.state, None)
    assert view["phase"] == "over"
    held = [penalty(h + b) for h, b in zip(game.state.hands, game.state.bottoms)]
    assert view["score"] == [p - h for p, h in zip(view["bullheads"], held)]
    assert view["score"] == list(game.state.results[-1])


def test_a_full_stop_after_a_card_is_ignored():
    assert OXX.parse(position(ASKED), 0, "play 9.") == ("play", 9, ((), (), ""))
