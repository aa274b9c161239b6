"""6 nimmt! Baron Oxx's search: every card (or row) played out in the same sampled worlds
(pbem.bots.paired), on the fast copy of the table (pbem.bots.oxx_playout).

A bot's decision in 6 nimmt! is one card before the others' cards are known, so there is
no tree of its own decisions to grow: each sampled world is played out once per option
with the same randomness after it, and the option with the best total is chosen. Each
world seats every other seat with a style of the family (pbem.bots.styles), drawn anew
per world; a seat that already chose in secret chose as its style would.

`sampled_world` and `value` are the two steps, apart so that the bench
(bench/oxx_choices.py) values cards exactly as the bots do.
"""

from __future__ import annotations

import random

from pbem.bots import oxx_playout, paired, styles
from pbem.bots.styles_oxx import FAMILY
from pbem.engines.base import Decision, Engine, State

#: What a playout's decision and a sampled world count in the budget (µs as they cost on
#: 2026-12-05; bench/bots.py shows whether a level stays inside its cap). A decision
#: cost 10 µs until the table kept each row's most bullheads of a colour (2a45bba), and
#: was still counted so after it, so that the lines of the bench went on measuring the
#: same decisions; a hard decision then spent ~0.55 s of its level's 1.2 s, and at ten
#: players against counters it chose no better than the habit (bench/README, "6 nimmt!
#: at 10 players, one style at a time").
DECISION_COST, WORLD_COST = 5, 120
#: How often a seat of the playouts departs from its style at random.
EPSILON = 0.1


def sampled_world(engine: Engine, world: State, seat: int, rng: random.Random,
                  names: tuple[str, ...] | None = None) -> tuple[State, tuple]:
    """A world `seat` cannot tell from `world`, and the style seated at each seat: those
    of `names`, else drawn from the family (the habit at `seat`)."""
    names = names or styles.sample(engine, world.players, seat, rng)
    seated = tuple(FAMILY[name] for name in names)
    styled = oxx_playout.as_habit(engine.determinize(world, seat, rng), seat, rng,
                                  EPSILON, seated)
    return styled, seated


def value(engine: Engine, sampled: State, seated: tuple, seat: int, decision: Decision,
          seed: int) -> tuple[float, int]:
    """What `decision` is worth to `seat` in a sampled world played out to the end of the
    game with randomness `seed` (oxx_playout.reward), and the playout's decisions."""
    after = engine.apply(sampled, seat, decision)
    points, decisions = oxx_playout.playout(after, seat, random.Random(seed), EPSILON,
                                            seated)
    return oxx_playout.reward(points, seat), decisions


def choose(engine: Engine, world: State, seat: int, options: dict[str, Decision],
           rng: random.Random, budget: float, cap: float | None,
           iterations: int | None) -> str:
    """The key of `options` with the best total over the worlds the budget (µs of
    estimated work) or `iterations` allow, within the CPU `cap`."""
    def sample():
        return sampled_world(engine, world, seat, rng), rng.getrandbits(64)

    def play(sample, key, seed):
        reward, decisions = value(engine, *sample, seat, options[key], seed)
        return reward, WORLD_COST + decisions * DECISION_COST
    return paired.compare(list(options), sample, play, budget, cap, iterations)
