"""Onix's and Gem Forge's bots play out with the heuristic habit (pbem.bots.search): a
playout is the habit's game, and the habit's choice is tried first in the bot's tree, so
the search starts where a careful player would. Small fixed budgets: these tests say
what the bot does, bench/bots.py measures how well it plays.
"""

import random

import pytest

from pbem import bots
from pbem.bots import heuristic, search
from pbem.engines.base import CHANCE

from onix_position import ENGINE as ONIX, position as onix_position
from test_bots_heuristic import ONIX_TABLE


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_the_onix_bot_takes_the_gem_that_completes_a_collection(seed):
    state = onix_position(ONIX_TABLE)  # P1's Collection 1 lacks only A's cross
    decision = bots.decide(ONIX, state, 0, "hard", seed=seed, iterations=60,
                           time_limit=None)
    assert ONIX.notation(state, 0, decision) == "take X A"


def habit_game(engine, state, rng):
    """The habit at every seat through the engine; a game the habit alone drags past
    the playouts' cap (Gem Forge's can go round in circles) is a fair share each."""
    for _ in range(search.PLAYOUT_CAP):
        if not engine.to_act(state):
            return engine.outcome(state).shares
        seat = min(engine.to_act(state))
        state = engine.apply(state, seat, engine.deal(state, rng) if seat == CHANCE
                             else heuristic.decision(engine, state, seat, rng))
    return [1.0 / state.players] * state.players


def test_a_playout_is_the_habits_game(monkeypatch):
    # Onix deals nothing after the start (a sampled world fixes the piles' order), so
    # the playout and the habit's game through the engine are the same game.
    engine, state = ONIX, onix_position(ONIX_TABLE)
    monkeypatch.setattr(search, "HABIT_EPSILON", 0.0)  # no random decision
    for k in range(3):
        world = engine.determinize(state, 0, random.Random(k))
        reward, cost = search.playout(engine, world, 0, random.Random(k))
        assert reward == habit_game(engine, world, random.Random(k))[0] and cost > 0
