"""6 nimmt! Baron Oxx beyond the rules: the dealer in a record, notation and its errors,
the decisions offered, views and diagrams, the command line, and bad input that must
never crash.

Positions are written as test_baronoxx.py explains, with its helpers.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings, strategies as st

from notation.baronoxx import NO_PREF
from notation.record import format_record, parse_record
from pbem.cli import main
from pbem.engines.base import CHANCE, IllegalMove, InvalidMove, MoveError
from pbem.engines.baronoxx.cards import CARDS
from pbem.engines.game import Game
from test_baronoxx import ENDS, OXX, play, position, round_of


# -- the dealer in a record ---------------------------------------------------------------

def test_a_transcribed_deal_is_checked_by_the_rules():
    game = Game(OXX, {}, ["ann", "ben"])
    for text in ("draw #1 1 2 3 4", "draw #2 5 6 7 8"):
        game.play(CHANCE, text)
    with pytest.raises(IllegalMove, match="not among the unseen"):
        game.play(CHANCE, "rows 1 20 30 40 50")
    with pytest.raises(IllegalMove, match="5 unseen cards"):
        game.play(CHANCE, "rows 10 20 30 40")
    game.play(CHANCE, "rows 10 20 30 40 50")
    assert OXX.to_act(game.state) == {0, 1}
    with pytest.raises(IllegalMove, match="nothing to deal"):
        game.play(CHANCE, "rows 11 21 31 41 51")


def test_a_draw_ends_with_the_public_cards_under_the_deck():
    state = round_of(position(f"{ENDS}\nhands: 1=[39] 2=[60]\ndecks: 1=2 2=2",
                              variant="2"), "play 39", "play 60")
    with pytest.raises(IllegalMove, match="under the deck: 39"):
        play(state, 0, "draw #1 1 2")
    state = play(state, 0, "draw #1 39 1 2")
    assert state.hands[0] == (1, 2, 39) and state.known[0] == (39,)


def test_notation_errors_say_what_would_work():
    state = position(f"{ENDS}\nhands: 1=[54 60] 2=[9 46]")
    with pytest.raises(IllegalMove, match="You have no 23: your hand is 54 60"):
        play(state, 1, "play 23")
    with pytest.raises(InvalidMove, match="no row 7"):
        play(state, 1, "play 54 row 7")
    with pytest.raises(InvalidMove, match="listed twice"):
        play(state, 1, "play 54 row 2 2")
    with pytest.raises(InvalidMove, match="not a Baron Oxx move"):
        play(state, 1, "hello")
    with pytest.raises(IllegalMove, match="dealer's move"):
        play(state, 1, "rows 1 2 3 4 5")
    assert OXX.parse(state, 0, "PLAY 54 take 5, 1 Row 2 LOW") == \
        ("play", 54, ((1,), (4, 0), "low"))
    assert OXX.notation(state, 0, ("play", 54, ((1,), (4, 0), "low"))) == \
        "play 54 row 2 take 5 1 low"


def test_legal_decisions_count_every_preference_and_check_membership():
    state = position(f"{ENDS}\nhands: 1=[54 60] 2=[9 46]")
    legal = OXX.legal(state, 0)
    assert len(legal) == 3 * 326 * 326 * 3  # two cards and pref, each with any preference
    assert legal[0] == ("play", 54, NO_PREF) and legal[-1][0] == "pref"
    assert ("play", 60, ((4, 3), (), "high")) in legal
    assert ("play", 60, ((4, 4), (), "high")) not in legal
    assert ("play", 9, NO_PREF) not in legal


def test_the_decisions_offered_are_each_card_once_and_the_standing_preference_once():
    """What a seat's page shows as buttons and a bot searches: not ~320,000 a card."""
    state = position(f"{ENDS}\nhands: 1=[54 60] 2=[9 46]")
    assert OXX.offered(state, 0) == [("play", 54, NO_PREF), ("play", 60, NO_PREF),
                                     ("pref", NO_PREF)]
    assert all(decision in OXX.legal(state, 0) for decision in OXX.offered(state, 0))


# -- views, diagrams and the command line --------------------------------------------------

def test_the_text_diagram_shows_rows_with_colours_and_fits_in_mail():
    state = position("""
        rows: 1=[17 87] 2=[104 12 51] 3=[47] 4=[7] 5=[105]
        hands: 1=[54 60] 2=[9 46]
        decks: 1=4 2=4
        piles: 2=[30]
    """)
    text = OXX.text_diagram(OXX.view(state, 0))
    assert "Row 1  17 YYY   87 YY" in text and "2 cards: Y5" in text
    assert "104 BYGRKW   12 BB   51 BBB" in text and "B6" in text
    assert "Your hand: 54 Y   60 K" in text
    assert max(len(line) for line in text.splitlines()) <= 72
    svg = OXX.svg_diagram(OXX.view(state, None), caption="Round 1")
    bullheads = sum(CARDS[c].penalty for row in state.rows for c in row)
    assert svg.startswith("<svg") and svg.count("<circle") == bullheads
    assert ">54<" not in svg


@pytest.mark.parametrize("players", range(2, 11))
@pytest.mark.parametrize("variant", ["base", "1", "2", "1+2"])
def test_selfplay_from_the_command_line_makes_a_checked_record(players, variant, tmp_path,
                                                              capsys):
    options = ["--option", f"variant={variant}"] + (["--option", "games=2"]
                                                   if players == 3 else [])
    assert main(["selfplay", "baronoxx", "--players", str(players), *options]) == 0
    record = capsys.readouterr().out
    path = tmp_path / "game.txt"
    path.write_text(record)
    assert main(["record", "check", str(path)]) == 0
    assert "ok" in capsys.readouterr().out
    assert format_record(parse_record(record)) == record


def test_every_view_of_a_running_game_hides_the_other_hands():
    game = Game(OXX, {"variant": "2"}, ["a", "b", "c"], seed="hidden")
    rng = random.Random(3)
    while OXX.to_act(game.state) and game.state.round < 6:
        seat = rng.choice(sorted(OXX.to_act(game.state)))
        game.play(seat, OXX.notation(game.state, seat,
                                     OXX.random_decision(game.state, seat, rng)))
        for viewer in range(3):
            view = OXX.view(game.state, viewer)
            assert view["hand"] == list(game.state.hands[viewer])
            shown = [line for line in OXX.text_diagram(view).splitlines()
                     if line.startswith(("Your hand:", "  "))]
            for other in set(range(3)) - {viewer}:
                hidden = set(game.state.hands[other]) - set(game.state.known[other])
                assert not hidden & set(map(int, re.findall(r"\b(\d+) [BYGRKW]",
                                                             " ".join(shown))))


# -- bad input never crashes -------------------------------------------------------------

WORDS = st.sampled_from(["play", "pref", "row", "rows", "take", "low", "high", "none",
                         "draw", "rows", "left", "#1", "#0", "#11", "0", "1", "5", "6",
                         "54", "60", "111", "99999", ",", "x", "²", "PLAY", "Row"])


@settings(max_examples=400, deadline=None)
@given(st.lists(WORDS, max_size=7).map(" ".join), st.sampled_from([0, 1, 2]))
def test_any_move_text_is_a_decision_or_a_reason(text, seat):
    asked = round_of(position(f"{ENDS}\nhands: 1=[9 1] 2=[60 2]\ndecks: 1=4 2=4"),
                     "play 9", "play 60")
    for state in (position(f"{ENDS}\nhands: 1=[54 60] 2=[9 46]\ndecks: 1=4 2=4"), asked,
                  Game(OXX, {}, ["a", "b"]).state):
        try:
            decision = OXX.parse(state, seat - 1 if seat else CHANCE, text)
        except MoveError as error:
            assert str(error)
        else:
            canonical = OXX.notation(state, seat - 1 if seat else CHANCE, decision)
            assert OXX.parse(state, seat - 1 if seat else CHANCE, canonical) == decision


def test_the_games_command_lists_the_options(capsys):
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "baronoxx: 6 nimmt! Baron Oxx, 2-10 players" in out
    assert "variant=base" in out and "games=1" in out
