"""The card-game bots play out with the heuristic habit and the family of styles: Gem
Forge's playouts (pbem.bots.search) are the game of the styles they seat, and the habit's choice is tried first in the
bot's tree; Onix's (pbem.bots.onix_search) are the habit's next round, and only the
habit's best options are compared. Small fixed budgets: these tests say what the bot
does, bench/bots.py measures how well it plays.
"""

import random

import pytest

from pbem import bots
from pbem.bots import heuristic, onix_search, search, styles
from pbem.engines.base import CHANCE
from pbem.engines.gemforge.engine import GemForge

from onix_position import ENGINE as ONIX, position as onix_position
from test_bots_heuristic import ONIX_TABLE

GEMFORGE = GemForge()


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_the_onix_bot_completes_the_collection_that_lacks_one_gem(seed):
    # P1's Collection 1 lacks only the cross on top of A: taken (take X A), or drawn
    # after taking the two circles of B and C (take O B, draw A -> 1), which the search
    # finds slightly better (two more cards towards the next Collection).
    state = onix_position(ONIX_TABLE)
    while state.turn == 0 and state.phase != "over":
        decision = bots.decide(ONIX, state, 0, "hard", seed=seed, iterations=60,
                               time_limit=None)
        state = ONIX.apply(state, 0, decision)
    assert len(state.hoards[0]) == 4 and 1 not in dict(state.collections[0])


def habit_game(engine, state, rng, seated=None):
    """Every state of the habit's game at every seat through the engine (or each seat's
    style of `seated`, pbem.bots.styles), drawing from `rng` as a playout does (a draw
    before each decision, whether to depart from the habit); a game the habit alone drags
    past the playouts' cap (Gem Forge's can go round in circles) stops there."""
    states = [state]
    for _ in range(search.PLAYOUT_CAP):
        if not engine.to_act(state):
            break
        seat = min(engine.to_act(state))
        if seat == CHANCE:
            decision = engine.deal(state, rng)
        elif seated:
            decision = styles.play(engine, state, seat, rng, seated[seat], 0.0)
        else:
            rng.random()
            decision = heuristic.decision(engine, state, seat, rng)
        state = engine.apply(state, seat, decision)
        states.append(state)
    return states


@pytest.mark.parametrize("seated", [("habit", "habit", "habit"),
                                    ("habit", "miner", "drawer")])
def test_a_gem_forge_playout_is_the_game_of_the_styles_it_seats(monkeypatch, seated):
    engine = GEMFORGE
    state = engine.start({}, 3, seed="habit")
    rng = random.Random(0)
    while CHANCE in engine.to_act(state):
        state = engine.apply(state, CHANCE, engine.deal(state, rng))
    monkeypatch.setattr(search, "HABIT_EPSILON", 0.0)  # no random decision
    monkeypatch.setattr(styles, "sample", lambda engine, players, seat, rng: seated)
    for k in range(3):
        world = engine.determinize(state, 0, random.Random(k))
        reward, cost = search.playout(engine, world, 0, random.Random(k))
        end = habit_game(engine, world, random.Random(k), seated)[-1]
        outcome = engine.outcome(end)
        expected = (1 / 3 if outcome is None else
                    search.ranked_reward(float(outcome.shares[0]), list(end.points), 0))
        assert reward == expected and cost > 0


def test_an_onix_playout_is_the_habits_next_round(monkeypatch):
    # Onix deals nothing after the start (a sampled world fixes the piles' order), so
    # the playout and the habit's game through the engine are the same game.
    engine, state = ONIX, onix_position(ONIX_TABLE.replace("A=[", "A=[O S D X O S D X ")
                                         .replace("B=[", "B=[S D X O S D X O ")
                                         .replace("C=[", "C=[D X O S D X O S ")
                                         .replace("D=[", "D=[X O S D X O S D ")
                                         .replace("E=[", "E=[O D S X O D S X "))
    monkeypatch.setattr(onix_search, "EPSILON", 0.0)
    for k in range(3):
        world = engine.determinize(state, 0, random.Random(k))
        after, plies = onix_search.play_round(engine, world, 0, random.Random(k))
        game = habit_game(engine, world, random.Random(k))
        # P1 is two players' seat 0: its turn, P2's, its next; then P2 is to play.
        passes = [i for i in range(1, len(game))
                  if game[i - 1].turn == 0 and game[i].turn == 1]
        assert after == game[passes[1]] and plies == passes[1]
