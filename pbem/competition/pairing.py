"""Pairings, pure: who plays whom in each round of a tournament, and in which seat.

Players are any hashable ids; a pairing is a tuple of them in seat order (the first
seat moves first: Black in Onyx). Nothing here reads the store or the clock, so the
tests give literal tournaments and read literal rounds.

- `round_robin`: everyone meets everyone once (twice with `double`, the seats swapped
  in the second half), by the circle method; with an odd number, one rests each round
  (a bye, `None` as the partner).
- `swiss`: the next round of a Swiss tournament: players ordered by score, then
  rating; a maximum-weight matching over every pair that has not met (the blossom
  algorithm, as Swiss pairing programs use), weighted so that the fewest pairs of
  unequal scores win, then the smallest score differences, then colours (nobody's
  firsts and seconds more than one apart where the scores allow it), then each score
  group's upper half against its lower half (the Dutch system's way); the seats go to
  whoever has had the first seat less often; with an odd number, the lowest placed
  player who has not had a bye rests (one bye each at most while others have had none).
- `tables`: a round of a game for more than two, players seated by score in tables of
  the size asked (as even as possible, never under the game's minimum), the seats turned
  so that each player's first seats even out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable, Sequence

import networkx as nx

Player = Hashable


@dataclass(frozen=True)
class Round:
    """One round: the games (players in seat order) and who rests (a bye)."""
    games: tuple[tuple[Player, ...], ...]
    byes: tuple[Player, ...] = ()


class NoPairing(ValueError):
    """No round can be paired without someone meeting an opponent again."""


# -- round-robin ------------------------------------------------------------------------

def round_robin(players: Sequence[Player], double: bool = False) -> list[Round]:
    """Every round of a round-robin among `players` (in their seeding order). Each player
    has the first seat in half their games (or one more or less); with `double`, a second
    cycle repeats the first with the seats swapped."""
    field_ = list(players) + ([None] if len(players) % 2 else [])
    count = len(field_)
    if count < 2:
        raise ValueError("a round-robin needs two players at least")
    rounds, balance = [], {p: 0 for p in players}
    circle = field_[1:]
    for number in range(count - 1):
        line = [field_[0]] + circle
        games, byes = [], []
        for board in range(count // 2):
            a, b = line[board], line[count - 1 - board]
            if a is None or b is None:
                byes.append(b if a is None else a)
                continue
            # The first seat to whoever has had it less; even, by board and round, so
            # the fixed player alternates and the others spread out.
            if balance[a] > balance[b] or (balance[a] == balance[b] and (board + number) % 2):
                a, b = b, a
            balance[a], balance[b] = balance[a] + 1, balance[b] - 1
            games.append((a, b))
        rounds.append(Round(tuple(games), tuple(byes)))
        circle = circle[-1:] + circle[:-1]
    if double:
        rounds += [Round(tuple((b, a) for a, b in r.games), r.byes) for r in rounds]
    return rounds


# -- Swiss --------------------------------------------------------------------------------

@dataclass
class Entrant:
    """What the Swiss pairing knows of a player: score, rating, whom they have met, their
    seats so far (+1 first, -1 second) and whether they have had a bye."""
    player: Player
    score: float = 0.0
    rating: float = 0.0
    met: set = field(default_factory=set)
    seats: list[int] = field(default_factory=list)
    byes: int = 0

    @property
    def balance(self) -> int:
        """Firsts minus seconds."""
        return sum(self.seats)


def swiss(entrants: Sequence[Entrant]) -> Round:
    """The next round. Raises NoPairing when every pairing repeats a game."""
    ranked = sorted(entrants, key=lambda e: (-e.score, -e.rating, str(e.player)))
    for resting in _bye_candidates(ranked):
        field_ = [e for e in ranked if e is not resting]
        pairs = _matched(field_)
        if pairs is not None:
            games = tuple(_seated(a, b) for a, b in pairs)
            return Round(games, (resting.player,) if resting is not None else ())
    raise NoPairing("every possible pairing repeats a game already played")


def _bye_candidates(ranked: list[Entrant]):
    """Who may rest: nobody with an even number; else from the lowest placed up, those
    with the fewest byes first."""
    if len(ranked) % 2 == 0:
        return [None]
    fewest = min(e.byes for e in ranked)
    return ([e for e in reversed(ranked) if e.byes == fewest]
            + [e for e in reversed(ranked) if e.byes != fewest])


def _matched(field_: list[Entrant]) -> list[tuple[Entrant, Entrant]] | None:
    """Everyone paired with someone they have not met, or None where that cannot be: a
    maximum-weight matching (Edmonds' blossom algorithm, networkx) over every pair that
    has not met, whose weights make the whole round's costs compare in this order:

    1. fewer pairs of unequal scores (floats);
    2. then a smaller sum of the score differences;
    3. then fewer pairs whose colours cannot both stay within one of even;
    4. then the Dutch system's order in a score group (1 v 4, 2 v 5, 3 v 6 of six).

    Each level's weight is larger than the most every lower level can add up to over a
    round, so no amount of a lower level ever buys a worse higher one; with every weight
    positive and the matching of maximum cardinality, a round with a pair left over is
    never taken for a complete one."""
    count = len(field_)
    if count == 0:
        return []
    rank = {id(e): i for i, e in enumerate(field_)}
    groups: dict[float, list[int]] = {}
    for i, entrant in enumerate(field_):
        groups.setdefault(entrant.score, []).append(i)
    place = {i: (group.index(i), len(group)) for group in groups.values() for i in group}
    pairs = count // 2 + 1
    widest = max(_halves(e.score) for e in field_) - min(_halves(e.score) for e in field_)
    order_unit = 3 * count + 1  # a pair's order cost is under 3 * count
    colour_unit = pairs * order_unit
    difference_unit = pairs * colour_unit + colour_unit
    float_unit = pairs * (widest + 1) * difference_unit + difference_unit
    top = pairs * float_unit + float_unit

    def order(upper: int, lower: int) -> int:
        """How far a pair is from the Dutch system's: in a score group, the upper half's
        n-th against the lower half's n-th; a float, from the bottom of the group above
        (twice as bad to float a higher one) to the top of the group below."""
        (up, size), (down, _) = place[upper], place[lower]
        if field_[upper].score == field_[lower].score:
            return abs(down - up - max(size // 2, 1))
        return 2 * (size - 1 - up) + down

    def cost(a: Entrant, b: Entrant) -> int:
        difference = abs(_halves(a.score) - _halves(b.score))
        return ((difference > 0) * float_unit + difference * difference_unit
                + (not _colours_fit(a, b)) * colour_unit
                + order(*sorted((rank[id(a)], rank[id(b)]))))

    graph = nx.Graph()
    graph.add_nodes_from(range(count))
    for i, a in enumerate(field_):
        for j in range(i + 1, count):
            b = field_[j]
            if b.player not in a.met and a.player not in b.met:
                graph.add_edge(i, j, weight=top - cost(a, b))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) < count:
        return None
    return sorted(((field_[min(i, j)], field_[max(i, j)]) for i, j in matching),
                  key=lambda pair: rank[id(pair[0])])


def _halves(score: float) -> int:
    """A score in half points, a whole number (scores are wins and draws)."""
    return round(score * 2)


def _colours_fit(a: Entrant, b: Entrant) -> bool:
    """Whether seating these two keeps both within one of even: the one with the lower
    balance takes the first seat, so they fit unless both lean the same way."""
    low, high = sorted((a.balance, b.balance))
    return low <= 0 <= high


def _seated(a: Entrant, b: Entrant) -> tuple[Player, Player]:
    """(first seat, second seat): the lower balance first; then whoever sat second last;
    then the higher placed (a)."""
    if a.balance != b.balance:
        return (a.player, b.player) if a.balance < b.balance else (b.player, a.player)
    last_a, last_b = (a.seats[-1] if a.seats else 0), (b.seats[-1] if b.seats else 0)
    if last_a != last_b:
        return (a.player, b.player) if last_a < last_b else (b.player, a.player)
    return a.player, b.player


# -- tables of more than two ----------------------------------------------------------

def table_sizes(count: int, size: int, smallest: int = 2) -> list[int]:
    """How `count` players sit at tables of `size`: as few tables as hold them, sizes as
    even as possible (the larger first). Refuses a count that leaves a table under
    `smallest`."""
    if count < smallest:
        raise ValueError(f"{count} players cannot fill a table of {smallest}")
    tables = -(-count // size)
    base, extra = divmod(count, tables)
    sizes = [base + 1] * extra + [base] * (tables - extra)
    if sizes[-1] < smallest:
        raise ValueError(f"{count} players at tables of {size} leave a table of "
                         f"{sizes[-1]}, under the game's {smallest}")
    return sizes


def tables(entrants: Sequence[Entrant], size: int, smallest: int = 2) -> Round:
    """A round of tables: by score then rating, the first `size` at table 1 and so on;
    at each table the seats go to whoever has sat first least (then the lower placed)."""
    ranked = sorted(entrants, key=lambda e: (-e.score, -e.rating, str(e.player)))
    games, start = [], 0
    for seats in table_sizes(len(ranked), size, smallest):
        table = ranked[start:start + seats]
        start += seats
        order = sorted(range(len(table)),
                       key=lambda i: (sum(s > 0 for s in table[i].seats), -i))
        games.append(tuple(table[i].player for i in order))
    return Round(tuple(games))
