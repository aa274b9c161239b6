"""Bots against each other (and against random play): win shares with confidence intervals.

Pure engines, no store: `pbem arena` and bench/bots.py call it. Each game seats the
contestants in turn (game k rotates the list by k), so every contestant plays every seat
and colour equally often; the dealer's randomness and the bots' come from the game's
seed, so a run can be repeated. A contestant is `bot:LEVEL` (or `bot`), `heuristic`
(a card game's plain habit, pbem.bots.heuristic: the opponent a bot must beat),
`style:NAME` (one of the game's family of styles, pbem.bots.styles), `mixed` (the seats
it holds take the family's styles in turn, a different mix each game) or `random` (the
engine's `random_decision`).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from pbem.bots import bot_level, decide, heuristic, styles
from pbem.bots.search import canonical, decision_named
from pbem.engines.base import CHANCE, Decision, Engine, State

RANDOM = "random"
HEURISTIC = "heuristic"
MIXED = "mixed"
STYLE = "style:"
Z95 = 1.96
#: A game longer than this many decisions scores every seat its fair share. Gem Forge's
#: rules allow a game without end, and tables of its habit did go round in circles (each
#: drawing a card and dropping one, none taking the mine's front gem that none could use)
#: until the habit took that gem with a full hand; none is known to now.
GAME_CAP = 5000


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
    """`bot:LEVEL`, `bot`, `heuristic`, `style:NAME`, `mixed` or `random`, canonical;
    raises ValueError with the choices."""
    name = name.strip().lower()
    if name in (RANDOM, HEURISTIC, MIXED) or (name.startswith(STYLE)
                                              and name[len(STYLE):] in styles.NAMES):
        return name
    level = bot_level(name) if not name.startswith(STYLE) else None
    if level is None:
        raise ValueError(f"{name!r} is not a contestant: write bot:easy, bot:normal, "
                         f"bot:hard, heuristic or random, style:NAME (NAME one of "
                         f"{', '.join(styles.NAMES)}) or mixed.")
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
        if ply >= GAME_CAP:  # a table of habits going round in circles: nobody wins
            return [1.0 / len(seats)] * len(seats)
        seat = min(acting)
        if seat == CHANCE:
            decision = engine.deal(state, rng)
        elif seats[seat] == RANDOM:
            decision = engine.random_decision(state, seat, rng)
        elif seats[seat] == HEURISTIC:
            decision = heuristic.decision(engine, state, seat, rng)
        elif seats[seat].startswith(STYLE):
            decision = style_decision(engine, state, seat, seats[seat][len(STYLE):], rng)
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
    for name in lineup:
        if name == MIXED or name.startswith(STYLE):
            family = styles.family(engine)
            if name != MIXED and name[len(STYLE):] not in family:
                raise ValueError(f"{engine.title}'s styles are {', '.join(family)}.")
    standings = {name: Standing(name) for name in lineup}
    for k in range(first, first + games):
        seats = lineup[k % players:] + lineup[:k % players]
        shares = play_game(engine, options, mixed(engine, seats, k), f"{seed}/{k}",
                           standings)
        for name in dict.fromkeys(lineup):
            held = [s for s, who in enumerate(seats) if who == name]
            standings[name].shares.append(sum(shares[s] for s in held) / len(held))
        if report is not None:
            report(k + 1 - first, standings)
    return standings


def mixed(engine: Engine, seats: list[str], k: int) -> list[str]:
    """The seats of game `k` with each `mixed` seat given a style: the family from style
    k on, a step apart that grows every round of the family, so the games of a run meet
    every pair of styles. A bot's standings stay its own; the mixed seats' are summed
    under `mixed`."""
    if MIXED not in seats:
        return seats
    family = styles.family(engine)
    n = len(family)
    step = 1 + (k // n) % (n - 1)
    found, at = [], k
    for name in seats:
        if name == MIXED:
            found.append(STYLE + family[at % n])
            at += step
        else:
            found.append(name)
    return found


def summary(standings: dict[str, Standing], players: int) -> list[str]:
    """A line per contestant: mean share, its 95% interval, the fair share, timing."""
    lines = []
    width = max((len(name) for name in standings), default=0)
    for standing in standings.values():
        low, high = standing.interval()
        timing = (f"; {len(standing.seconds)} decisions, p50 "
                  f"{standing.percentile(0.5) * 1000:.0f} ms, p99 "
                  f"{standing.percentile(0.99) * 1000:.0f} ms") if standing.seconds else ""
        lines.append(f"{standing.name:>{width}}: {standing.mean:6.1%} of the wins "
                     f"(95% CI {low:.1%}–{high:.1%}, fair share {1 / players:.1%}) over "
                     f"{len(standing.shares)} games{timing}")
    return lines


def style_decision(engine: Engine, state: State, seat: int, name: str,
                   rng: random.Random) -> Decision:
    """The decision of style `name` for `seat` in the real `state`, from its own view."""
    if seat == CHANCE:
        return engine.deal(state, rng)
    view = canonical(engine, state, seat)
    chosen = styles.play(engine, view, seat, rng, name, 0.0)
    return decision_named(engine, state, seat, engine.notation(view, seat, chosen))
