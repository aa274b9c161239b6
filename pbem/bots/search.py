"""Information-set Monte-Carlo search for the card games (Onix, Baron Oxx, Gem Forge).

Each iteration samples a world the bot cannot tell from the real one,
`engine.determinize(state, seat, rng)`, walks a tree of the bot's own decisions there (a
turn of several decisions is a path in the tree), then plays the game out and backs up
what it was worth to the bot: half its share of the win (`outcome`), half the share of
the others it beat (`ranked_reward`). In the playout the bot's seat plays the heuristic
habit (pbem.bots.heuristic) and every other seat a style drawn for that world from the
game's family (pbem.bots.styles: the habit, or a rule that punishes another assumption),
each with a random decision now and then, through the engine's own rules (the dealer's
`deal`): random players take rows and gems no person would, so random playouts rank the
bot's moves by a game nobody plays, and one habit at every seat by a game against
players who all think alike. The habit's choice is also
tried first in the tree (progressive bias). Children are keyed by the canonical notation
of a decision and selected by UCB among those available in the sampled world
(Cowling, Powley & Whitehouse 2012, single-observer ISMCTS). The others' decisions are
left to the playout: they are hidden from the bot anyway, or made at the same time.

Two games compare a few options in the same sampled worlds instead (pbem.bots.paired):
6 nimmt! (pbem.bots.oxx_search), whose decision is one card before the others' are
known, on a fast copy of the table (pbem.bots.oxx_playout); and Onix
(pbem.bots.onix_search), the habit's few best options over the next round, judged by a
learned evaluation: a six-player Onix step offers up to a hundred options, more than a
tree's playouts could tell apart. Every loop stops within the level's CPU cap
(pbem.bots.cpu_cap). Games without a habit (none of the card games) play out at random.

The search never reads the state it is given except through `determinize` from its own
seat: the state is first made canonical (`canonical`), so the bot's decision is the same
for a state and for any determinization of it from the bot's seat.
"""

from __future__ import annotations

import math
import random

from pbem.bots import heuristic, onix_search, oxx_playout, oxx_search, styles
from pbem.bots.cpu_cap import CpuCap
from pbem.engines.base import CHANCE, Decision, Engine, State

#: Per level: the CPU seconds a decision is meant to take, and a cap (time.process_time)
#: that it normally stays well inside. The budget itself is counted in work done (plies
#: simulated, all iterations together, so a long game gets fewer, longer playouts), so
#: the same seed gives the same decision on a busy machine and an idle one.
BUDGETS = {"easy": (0.08, 0.5), "normal": (0.4, 1.2), "hard": (1.2, 2.0)}
#: What a simulated ply costs, in µs on one core (bench/engines.py measures playouts;
#: bench/bots.py shows whether a level stays inside its cap).
PLY_COST = {"baronoxx": 50, "gemforge": 55}
#: The games whose tree playouts follow the heuristic habit through the engine, and what
#: a ply of it costs (µs): so much, and so much more a player. (Onix's search plays the
#: habit too, in pbem.bots.onix_search.)
HABIT_PLY_COST = {"gemforge": (20, 3)}
HABIT_EPSILON = 0.1
#: The progressive bias towards the habit's choice in the tree: worth this many won
#: playouts, spread over the choice's visits.
BIAS = 3.0
EXPLORATION = 0.7
#: A playout longer than this (a game that drags on) scores every seat its fair share.
PLAYOUT_CAP = 3000


class SortedDealer(random.Random):
    """A 'random' source that deals in sorted order and always takes the first option,
    so `determinize` with it gives the one world a seat's information allows that does
    not depend on how the hidden cards happen to lie."""

    def __init__(self) -> None:
        super().__init__(0)

    def shuffle(self, x, random=None) -> None:
        try:
            x.sort()
        except TypeError:
            x.sort(key=repr)

    def random(self) -> float:
        return 0.0

    def getrandbits(self, k: int) -> int:
        return 0

    def choice(self, seq):
        return seq[0]

    def randrange(self, start, stop=None, step=1):
        return 0 if stop is None else start

    def randint(self, a, b):
        return a

    def sample(self, population, k, *, counts=None):
        items = list(population)
        self.shuffle(items)
        return items[:k]


def canonical(engine: Engine, state: State, seat: int) -> State:
    """The state with everything hidden from `seat` laid out in a fixed order."""
    return engine.determinize(state, seat, SortedDealer())


def candidates(engine: Engine, state: State, seat: int) -> list[Decision]:
    """The decisions worth searching: those the engine offers that move the game on.

    Standing answers (Gem Forge's and Baron Oxx's preferences) and Onix's repeats of an
    automatic decision change nothing now; a Baron Oxx card is played without a standing
    preference, so the bot is asked where it goes when that matters."""
    found = [d for d in engine.offered(state, seat) if not _standing(d)]
    if found:
        return found
    fallback = engine.default_decision(state, seat)
    return [fallback] if fallback is not None else engine.offered(state, seat)[:1]


def _standing(decision) -> bool:
    return isinstance(decision, tuple) and bool(decision) and decision[0] in ("pref",
                                                                            "repeat")


class Node:
    """One of the bot's information sets: its children by decision text."""

    __slots__ = ("visits", "reward", "available", "children")

    def __init__(self) -> None:
        self.visits = 0
        self.reward = 0.0
        self.available = 0
        self.children: dict[str, Node] = {}

    def pick(self, keys: list[str], rng: random.Random, favoured: str | None = None) -> str:
        """UCB among `keys`, untried ones first; the heuristic's choice `favoured` is
        tried first and has a bonus that fades with its visits (progressive bias)."""
        untried = [k for k in keys if k not in self.children]
        if untried:
            if favoured in untried:
                return favoured
            return untried[rng.randrange(len(untried))]
        best, best_key = -1.0, keys[0]
        for key in keys:
            child = self.children[key]
            score = (child.reward / child.visits
                     + EXPLORATION * math.sqrt(math.log(max(child.available, 1))
                                               / child.visits))
            if key == favoured:
                score += BIAS / (child.visits + 1)
            if score > best:
                best, best_key = score, key
        return best_key


def choose(engine: Engine, state: State, seat: int, level: str, rng: random.Random, *,
           iterations: int | None = None, time_limit: float | None = -1.0) -> Decision:
    """The decision ISMCTS finds for `seat`: `iterations` (default: as many as the
    level's ply budget allows) and a CPU cap `time_limit` (-1: the level's)."""
    seconds, cap = BUDGETS[level]
    budget = seconds * 1e6
    cap = cap if time_limit == -1.0 else time_limit
    world = canonical(engine, state, seat)
    options = {engine.notation(world, seat, d): d for d in candidates(engine, world, seat)}
    if len(options) == 1:
        return decision_named(engine, state, seat, next(iter(options)))
    if engine.id == "baronoxx" and oxx_playout.fits(world):
        key = oxx_search.choose(engine, world, seat, options, rng, budget, cap, iterations)
        return decision_named(engine, state, seat, key)
    if engine.id == "onix":
        key = onix_search.choose(engine, world, seat, options, rng, budget, cap, iterations)
        return decision_named(engine, state, seat, key)
    root = Node()
    clock = CpuCap(cap)
    done = spent = 0
    while (done < iterations) if iterations is not None else (spent < budget):
        if not clock.allows_another():
            break
        spent += _iterate(engine, engine.determinize(world, seat, rng), seat, root, rng)
        done += 1
        if iterations is None and not done % 32 and _settled(root, (budget - spent)
                                                             / (spent / done)):
            break
    key = max(options, key=lambda k: (root.children[k].visits, root.children[k].reward)
              if k in root.children else (-1, 0.0))
    return decision_named(engine, state, seat, key)


def _settled(root: Node, remaining: float) -> bool:
    """Whether the most visited decision stays so with `remaining` more iterations (a
    fifth more, for playouts that cost more than the average so far): the search's
    answer is then known, and the rest of its budget would only confirm it."""
    visits = sorted((child.visits for child in root.children.values()), reverse=True)
    return len(visits) > 1 and visits[0] - visits[1] > 1.2 * remaining


def decision_named(engine: Engine, state: State, seat: int, text: str) -> Decision:
    """The decision of the real state that the chosen text names."""
    for decision in candidates(engine, state, seat):
        if engine.notation(state, seat, decision) == text:
            return decision
    return engine.parse(state, seat, text)


def _iterate(engine: Engine, world: State, seat: int, root: Node,
             rng: random.Random) -> int:
    """One iteration; returns what it cost, in µs of one core."""
    path, node, plies = [root], root, 0
    while node is not None:
        acting = engine.to_act(world)
        if not acting:
            break
        if acting == {CHANCE}:
            world = engine.apply(world, CHANCE, engine.deal(world, rng))
            plies += 1
            continue
        if seat not in acting:
            break
        moves = {engine.notation(world, seat, d): d
                 for d in candidates(engine, world, seat)}
        keys = list(moves)
        for key in keys:
            if key in node.children:
                node.children[key].available += 1
        favoured = None
        if engine.id in HABIT_PLY_COST:  # costs about a ply
            favoured = engine.notation(world, seat,
                                       heuristic.decision(engine, world, seat, rng))
            plies += 1
        key = node.pick(keys, rng, favoured)
        if key not in node.children:
            child = node.children[key] = Node()
            child.available = 1
            world = engine.apply(world, seat, moves[key])
            path.append(child)
            break
        node = node.children[key]
        path.append(node)
        world = engine.apply(world, seat, moves[key])
        plies += 1
    reward, cost = playout(engine, world, seat, rng)
    for visited in path:
        visited.visits += 1
        visited.reward += reward
    return cost + (plies + 1) * PLY_COST.get(engine.id, 100)


def playout(engine: Engine, world: State, seat: int,
            rng: random.Random) -> tuple[float, float]:
    """Play on to the end: the bot's share of the win, and what it cost (µs). In Gem
    Forge the bot's seat plays the heuristic habit and every other seat a style of the
    family drawn for this playout (pbem.bots.styles), each with a random decision now
    and then (`HABIT_EPSILON`); other games random decisions."""
    habit = HABIT_PLY_COST.get(engine.id)
    seated = None
    if habit:
        habit = habit[0] + habit[1] * world.players
        seated = styles.sample(engine, world.players, seat, rng)
    plies = 0
    for plies in range(PLAYOUT_CAP):
        acting = engine.to_act(world)
        if not acting:
            break
        mover = min(acting)
        if mover == CHANCE:
            decision = engine.deal(world, rng)
        elif habit:
            decision = styles.play(engine, world, mover, rng, seated[mover],
                                   HABIT_EPSILON)
        else:
            decision = engine.random_decision(world, mover, rng)
        world = engine.apply(world, mover, decision)
    cost = plies * (habit or PLY_COST.get(engine.id, 100))
    outcome = engine.outcome(world)
    if outcome is None:
        return 1.0 / world.players, cost
    share = float(outcome.shares[seat])
    standing = final_standing(engine, world)
    if standing is None:
        return share, cost
    return ranked_reward(share, standing, seat), cost


def final_standing(engine: Engine, world: State) -> list | None:
    """Each seat's standing at the end of a game, greater better, as the engine ranks
    them: Gem Forge's points. None for a game without one here."""
    if engine.id == "gemforge":
        return list(world.points)
    return None


def ranked_reward(share: float, standing: list, seat: int) -> float:
    """Half the seat's share of the win, half the share of the others it beats (a tie,
    half), as 6 nimmt!'s playouts score (oxx_playout.reward): at four players a seat
    wins one playout in four, and the win alone tells a few hundred playouts' choices
    apart hardly better than by chance."""
    mine = standing[seat]
    beaten = sum(1.0 if mine > other else 0.5 if mine == other else 0.0 for other in standing)
    return 0.5 * share + 0.5 * (beaten - 0.5) / (len(standing) - 1)
