"""Pairings, pure: who plays whom in each round of a tournament, and in which seat.

Players are any hashable ids; a pairing is a tuple of them in seat order (the first
seat moves first: Black in Onyx). Nothing here reads the store or the clock, so the
tests give literal tournaments and read literal rounds.

- `round_robin`: everyone meets everyone once (twice with `double`, the seats swapped
  in the second half), by the circle method; with an odd number, one rests each round
  (a bye, `None` as the partner).
- `swiss`: the next round of a Swiss tournament: players ordered by score, then
  rating; each score group's upper half paired with its lower half (the Dutch system's
  way), never two who have met, the seats given
  to whoever has had the first seat less often, so nobody's firsts and seconds differ by
  more than one while any pairing allows it; with an odd number, the lowest placed player
  who has not had a bye rests (one bye each at most while others have had none).
- `tables`: a round of a game for more than two, players seated by score in tables of
  the size asked (as even as possible, never under the game's minimum), the seats turned
  so that each player's first seats even out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable, Sequence

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
    for strict in (True, False):  # colours within one if it can be; else any pairing
        for resting in _bye_candidates(ranked):
            field_ = [e for e in ranked if e is not resting]
            pairs = _pair(field_, strict)
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


def _pair(field_: list[Entrant], strict: bool) -> list[tuple[Entrant, Entrant]] | None:
    """The top player with the first opponent in `_candidates` they may meet, then the
    rest the same way; backs up when the rest cannot be paired."""
    if not field_:
        return []
    top, rest = field_[0], field_[1:]
    for other in _candidates(top, rest):
        if other.player in top.met or (strict and not _colours_fit(top, other)):
            continue
        later = _pair([e for e in rest if e is not other], strict)
        if later is not None:
            return [(top, other)] + later
    return None


def _candidates(top: Entrant, rest: list[Entrant]) -> list[Entrant]:
    """Whom the top player should meet, best first, as the Dutch system pairs a score
    group: its upper half against its lower half (1 v 4, 2 v 5, 3 v 6 of six), then the
    others of the group upwards, then the groups below in order (the odd one floats)."""
    group = [e for e in rest if e.score == top.score]
    below = [e for e in rest if e.score != top.score]
    half = (len(group) + 1) // 2  # the top player is one of the group's upper half
    return group[half - 1:] + group[:half - 1][::-1] + below


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
