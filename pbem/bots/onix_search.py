"""Onix's search: the step's few most promising options, compared in the same sampled
worlds over the next round, and the round's end judged by a learned evaluation.

A six-player Onix decision offers up to a hundred options (a steal: every opponent's
Collections, each card to any of the bot's own), and a full playout of a six-player game
costs ~20 ms, so the tree of pbem.bots.search spent its ~80 playouts trying each option
once and kept the luckiest. Here instead:

- only the `WIDTH` options the heuristic habit values most (`heuristic.onix_value`) are
  compared: the habit is a good judge of what a turn is worth now, and a bad one of
  what it leaves to the others, which the comparison is for;
- every option is played out in each sampled world with the same randomness (common
  random numbers, pbem.bots.paired, as 6 nimmt!'s cards): the luck of the deal and of
  the others' play falls alike on every option, and what differs is the option's doing;
- a playout ends after the bot's turn, one turn of each other seat and the bot's next
  turn (or at the end of the game), and is scored by the expected final Hoards of each
  seat (pbem.bots.onix_evaluation, fitted on self-play of the habit): a short playout
  is ~4× cheaper and far less noisy than one to the end;
- in each sampled world every other seat plays a style drawn from Onix's family
  (pbem.bots.styles), the bot's seat the habit.

The reward is the bot's expected Hoard against the best other seat's and the others'
mean, half each, and, for a game that ended in the playout, its share of the win.
"""

from __future__ import annotations

import random

from pbem.bots import heuristic, paired, styles
from pbem.bots.onix_evaluation import expected_hoards
from pbem.engines.base import Decision, Engine, State

#: How many of the habit's best options are compared.
WIDTH = 5
#: What a ply of the playout costs (µs): so much, and so much more a player (the habit
#: weighs every take against every opponent's Collections).
PLY_COST = (75, 20)
#: How often a seat of the playouts departs from the habit at random.
EPSILON = 0.1
#: What winning a game that ends in the playout is worth, in Hoard cards.
WIN = 2.0


def choose(engine: Engine, world: State, seat: int, options: dict[str, Decision],
           rng: random.Random, budget: float, cap: float | None,
           iterations: int | None) -> str:
    """The text of the best of `options` (texts to decisions of `world`, the bot's
    canonical view) for `seat`, within `budget` µs of simulated play, `iterations`
    sampled worlds, or the CPU `cap`."""
    compared = sorted(options, key=lambda key: -heuristic.onix_value(
        engine, world, options[key]))[:WIDTH]
    ply_cost = PLY_COST[0] + PLY_COST[1] * world.players

    def sample():
        world_sample = engine.determinize(world, seat, rng)
        seated = styles.sample(engine, world.players, seat, rng)
        return (world_sample, seated), rng.getrandbits(64)

    def play(sample, key, seed):
        sample_world, seated = sample
        after = engine.apply(sample_world, seat, options[key])
        value, plies = playout(engine, after, seat, random.Random(seed), seated)
        return value, (plies + 1) * ply_cost
    return paired.compare(compared, sample, play, budget, cap, iterations)


def playout(engine: Engine, state: State, seat: int, rng: random.Random,
            seated: tuple[str, ...] | None = None) -> tuple[float, int]:
    """Play the round out (`play_round`): what its end is worth to `seat`, and the plies
    played."""
    state, plies = play_round(engine, state, seat, rng, seated)
    return worth(engine, state, seat), plies


def play_round(engine: Engine, state: State, seat: int, rng: random.Random,
               seated: tuple[str, ...] | None = None) -> tuple[State, int]:
    """Each seat its style of `seated` (pbem.bots.styles; the habit at every seat
    without it), a random decision now and then, until the bot's next turn is over (the
    turn has gone round once and one seat more) or the game ends; the state then, and
    the plies played."""
    seated = seated or (styles.HABIT,) * state.players
    turns, turn, plies = 0, state.turn, 0
    while True:
        acting = engine.to_act(state)
        if not acting:
            break
        if state.turn != turn:
            turns, turn = turns + 1, state.turn
            if turns > state.players:
                break
        mover = min(acting)
        state = engine.apply(state, mover,
                             styles.play(engine, state, mover, rng, seated[mover], EPSILON))
        plies += 1
    return state, plies


def worth(engine: Engine, state: State, seat: int) -> float:
    """The bot's expected Hoard against the best other's and the others' mean; for an
    ended game, with its share of the win."""
    outcome = engine.outcome(state)
    hoards = expected_hoards(state)
    mine = hoards[seat]
    others = hoards[:seat] + hoards[seat + 1:]
    value = 0.5 * (mine - max(others)) + 0.5 * (mine - sum(others) / len(others))
    if outcome is not None:
        value += WIN * float(outcome.shares[seat])
    return value
