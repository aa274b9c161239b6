"""Bots against each other (and against random play): win shares with confidence intervals.

Pure engines, no store: `pbem arena` and bench/bots.py call it. Each game seats the
contestants in turn (game k rotates the list by k), so every contestant plays every seat
and colour equally often; the dealer's randomness and the bots' come from the game's
seed, so a run can be repeated. A contestant is `bot:LEVEL` (or `bot`), `heuristic`
(a card game's plain habit, pbem.bots.heuristic: the opponent a bot must beat) or
`random` (the engine's `random_decision`).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from pbem.bots import bot_level, decide, heuristic
from pbem.engines.base import CHANCE, Engine

RANDOM = "random"
HEURISTIC = "heuristic"
Z95 = 1.96


@dataclass
class Standing:
    """One contestant's games: its shares of the win, and its CPU seconds per decision."""
    name: str
    shares: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return sum(self.shares) / len(self.shares) if self.shares else 0.0

    def interval(self) -> tuple[float, float]:
        """The 95% confidence interval of the mean share (Wilson's, for win/loss; a share
        of a tied win counts as that fraction of a win)."""
        n = len(self.shares)
        if not n:
            return 0.0, 1.0
        p, z = self.mean, Z95
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def percentile(self, q: float) -> float:
        if not self.seconds:
            return 0.0
        ordered = sorted(self.seconds)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def check_contestant(name: str) -> str:
    """`bot:LEVEL`, `bot`, `heuristic` or `random`, canonical; raises ValueError with the
    choices."""
    name = name.strip().lower()
    if name in (RANDOM, HEURISTIC):
        return name
    level = bot_level(name)
    if level is None:
        raise ValueError(f"{name!r} is not a contestant: write bot:easy, bot:normal, "
                         f"bot:hard, heuristic or random.")
    return f"bot:{level}"


def play_game(engine: Engine, options: dict, seats: list[str], seed: str,
              standings: dict[str, Standing] | None = None) -> list[float]:
    """One game with these contestants in seat order; each seat's share of the win."""
    rng = random.Random(f"arena/{seed}")
    state = engine.start(options, len(seats), seed=seed)
    ply = 0
    while True:
        acting = engine.to_act(state)
        if not acting:
            break
        seat = min(acting)
        if seat == CHANCE:
            decision = engine.deal(state, rng)
        elif seats[seat] == RANDOM:
            decision = engine.random_decision(state, seat, rng)
        elif seats[seat] == HEURISTIC:
            decision = heuristic.decision(engine, state, seat, rng)
        else:
            started = time.process_time()
            decision = decide(engine, state, seat, bot_level(seats[seat]), seed=seed,
                              ply=ply)
            if standings is not None:
                standings[seats[seat]].seconds.append(time.process_time() - started)
        state = engine.apply(state, seat, decision)
        ply += 1
    outcome = engine.outcome(state)
    return [float(share) for share in outcome.shares]


def arena(engine: Engine, contestants: list[str], games: int, options: dict | None = None,
          players: int | None = None, seed: str = "arena", fill: str = RANDOM,
          report=None, first: int = 0) -> dict[str, Standing]:
    """`games` games, numbered from `first` (game k has the seed `seed/k` and the
    seating rotated by k, so a run split into parts plays the games of the whole); seats
    beyond the contestants (`players`) go to `fill`. Returns each distinct contestant's
    standing (shares per seat it held, summed per game)."""
    options = options or {}
    players = players or max(len(contestants), engine.min_players)
    lineup = [check_contestant(c) for c in contestants]
    lineup += [check_contestant(fill)] * (players - len(lineup))
    if HEURISTIC in lineup and engine.id not in heuristic.GAMES:
        raise ValueError(f"{engine.title} has no heuristic player: it is for the card "
                         f"games.")
    standings = {name: Standing(name) for name in lineup}
    for k in range(first, first + games):
        seats = lineup[k % players:] + lineup[:k % players]
        shares = play_game(engine, options, seats, f"{seed}/{k}", standings)
        for name in dict.fromkeys(lineup):
            held = [s for s, who in enumerate(seats) if who == name]
            standings[name].shares.append(sum(shares[s] for s in held) / len(held))
        if report is not None:
            report(k + 1 - first, standings)
    return standings


def summary(standings: dict[str, Standing], players: int) -> list[str]:
    """A line per contestant: mean share, its 95% interval, the fair share, timing."""
    lines = []
    for standing in standings.values():
        low, high = standing.interval()
        timing = (f"; {len(standing.seconds)} decisions, p50 "
                  f"{standing.percentile(0.5) * 1000:.0f} ms, p99 "
                  f"{standing.percentile(0.99) * 1000:.0f} ms") if standing.seconds else ""
        lines.append(f"{standing.name:>10}: {standing.mean:6.1%} of the wins "
                     f"(95% CI {low:.1%}–{high:.1%}, fair share {1 / players:.1%}) over "
                     f"{len(standing.shares)} games{timing}")
    return lines
