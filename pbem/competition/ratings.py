"""Rating updates, pure: one finished game's players and shares in, their new ratings out.

Why openskill (the Weng-Lin Bayesian model, Plackett-Luce variant) rather than Glicko-2:
pbem's games are played by 2 to 10 players (Onyx by 2, 6 nimmt! Baron Oxx by up to 10)
and end in shared wins (a resignation among three leaves two sharing it). Glicko-2 rates
two-player results only; a many-player game would have to be cut into invented pairwise
"games", which weighs a ten-player game as 45 results. Plackett-Luce rates the whole
finishing order at once, ties included, and keeps each rating's uncertainty (sigma) as
Glicko does, so a player's page can show "27.1 ± 4.3". The library is maintained, pure
Python and deterministic: the same games in the same order give the same numbers to the
last bit, which is what `pbem ratings rebuild` relies on.

A game's result is the share of the win each seat got (pbem.play: 1 and 0, 1/2 and 1/2,
…): seats with a larger share rank before seats with a smaller one, equal shares tie.
The numbers shown are openskill's own scale (a newcomer is 25 ± 8.3); the leaders are
ordered by the cautious estimate mu − 3·sigma, so a lucky first game does not top the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from openskill.models import PlackettLuce

MODEL = PlackettLuce()  # mu 25, sigma 25/3: openskill's defaults
START_MU, START_SIGMA = MODEL.mu, MODEL.sigma


@dataclass(frozen=True)
class Rating:
    """A player's rating in one game: the estimate, its uncertainty, games counted."""
    mu: float = START_MU
    sigma: float = START_SIGMA
    games: int = 0

    @property
    def cautious(self) -> float:
        """What the leaders are ordered by: the player is at least this strong, very
        probably (mu − 3 sigma)."""
        return self.mu - 3 * self.sigma

    def __str__(self) -> str:
        return f"{self.mu:.1f} ± {self.sigma:.1f}"


def ranks(shares: Sequence[Fraction]) -> list[int]:
    """Finishing places from shares of the win: the largest share is place 1, equal shares
    share a place. [1, 0] → [1, 2]; [1/2, 1/2, 0] → [1, 1, 2]; [0, 1, 0] → [2, 1, 2]."""
    distinct = sorted({Fraction(share) for share in shares}, reverse=True)
    return [distinct.index(Fraction(share)) + 1 for share in shares]


def rate(before: Sequence[Rating], shares: Sequence[Fraction]) -> list[Rating]:
    """Every seat's rating after a game it played with the others, by seat: `before` the
    ratings as the game ended, `shares` each seat's share of the win."""
    if len(before) != len(shares) or len(before) < 2:
        raise ValueError(f"a rated game has 2 or more seats and a share for each, not "
                         f"{len(before)} ratings and {len(shares)} shares")
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=ranks(shares))
    return [Rating(team[0].mu, team[0].sigma, r.games + 1) for team, r in zip(after, before)]


def by_player(players: Sequence[object], shares: Sequence[Fraction]
              ) -> tuple[list[object], list[Fraction]]:
    """One entry per player, in seat order: a player who held several seats (two seats of
    `bot:easy`) is rated once, by the best share any of them got. None if fewer than two
    players remain (a bot against itself tells nothing)."""
    best: dict[object, Fraction] = {}
    for player, share in zip(players, shares):
        best[player] = max(best.get(player, Fraction(0)), Fraction(share))
    return list(best), list(best.values())


def replay(games: Sequence[tuple[Sequence[object], Sequence[Fraction]]]
           ) -> dict[object, Rating]:
    """The ratings after `games` in order, each (players by seat, shares by seat), from
    nothing: what a rebuild computes."""
    table: dict[object, Rating] = {}
    for players, shares in games:
        players, shares = by_player(players, shares)
        if len(players) < 2:
            continue
        after = rate([table.get(p, Rating()) for p in players], shares)
        table.update(zip(players, after))
    return table
