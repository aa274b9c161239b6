"""Standings, pure: the table of a tournament from its results, with tie-breaks.

A result is one game's players in seat order and each one's share of the win (1 and 0,
1/2 and 1/2; at a table of more, the winner's 1 or a shared win's parts), as pbem.play
keeps them. A bye scores 1 point; a forfeit win (the opponent withdrew before the game
was made) scores 1 and is not a game played.

Tie-breaks, as tournament directors use them:
- Buchholz: the sum of the points of every opponent met (at a table of more, every
  other player at it). A bye or a forfeit brings none.
- Sonneborn-Berger: the sum, over the games, of the player's share times each
  opponent's points: a win over a strong player counts more than one over a weak one.
- Then the number of wins, then the name, so the order is always the same.

Round-robin tables order by points, Sonneborn-Berger, then Buchholz; Swiss tables by
points, Buchholz, then Sonneborn-Berger.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Hashable, Sequence

Player = Hashable


@dataclass(frozen=True)
class Result:
    """One finished game of the tournament (or a forfeit: `played` False)."""
    players: tuple[Player, ...]
    shares: tuple[Fraction, ...]
    played: bool = True


@dataclass(frozen=True)
class Standing:
    place: int
    player: Player
    points: Fraction
    buchholz: Fraction
    sonneborn_berger: Fraction
    wins: int
    played: int
    withdrawn: bool = False


def points(players: Sequence[Player], results: Sequence[Result],
           byes: Sequence[Player] = ()) -> dict[Player, Fraction]:
    """Each player's points: shares of the wins, plus 1 for each bye."""
    total = {p: Fraction(0) for p in players}
    for result in results:
        for player, share in zip(result.players, result.shares):
            total[player] = total.get(player, Fraction(0)) + Fraction(share)
    for player in byes:
        total[player] = total.get(player, Fraction(0)) + 1
    return total


def standings(players: Sequence[Player], results: Sequence[Result],
              byes: Sequence[Player] = (), swiss: bool = True,
              withdrawn: Sequence[Player] = (), names: dict | None = None) -> list[Standing]:
    """The table, best first; equal on every count, players share a place."""
    names = names or {}
    score = points(players, results, byes)
    buchholz = {p: Fraction(0) for p in score}
    berger = {p: Fraction(0) for p in score}
    wins = {p: 0 for p in score}
    played = {p: 0 for p in score}
    for result in results:
        for player, share in zip(result.players, result.shares):
            wins[player] += share > 0 and share == max(result.shares)
            if not result.played:
                continue
            played[player] += 1
            for other in result.players:
                if other != player:
                    buchholz[player] += score[other]
                    berger[player] += Fraction(share) * score[other]
    first, second = (buchholz, berger) if swiss else (berger, buchholz)

    def key(p):
        return (-score[p], -first[p], -second[p], -wins[p], str(names.get(p, p)))
    ordered = sorted(score, key=key)
    table, place = [], 0
    for index, player in enumerate(ordered):
        if index == 0 or key(player)[:4] != key(ordered[index - 1])[:4]:
            place = index + 1
        table.append(Standing(place, player, score[player], buchholz[player], berger[player],
                              wins[player], played[player], player in withdrawn))
    return table


def number(value: Fraction) -> str:
    """Points as a director writes them: 3, 2½, ½, 4⅓ (a three-way shared win)."""
    whole, part = divmod(Fraction(value), 1)
    glyph = {Fraction(1, 2): "½", Fraction(1, 3): "⅓", Fraction(2, 3): "⅔",
             Fraction(1, 4): "¼", Fraction(3, 4): "¾"}.get(part)
    if part == 0:
        return str(whole)
    if glyph:
        return f"{whole if whole else ''}{glyph}"
    return f"{float(value):.2f}"


def table_text(rows: Sequence[Standing], names: dict, swiss: bool = True) -> str:
    """The standings as a fixed-width table for a mail."""
    shown = {r.player: str(names.get(r.player, r.player)) + (" (withdrew)" if r.withdrawn
                                                              else "") for r in rows}
    width = max([len(name) for name in shown.values()] + [6])
    heads = ("Buchholz", "S-B") if swiss else ("S-B", "Buchholz")
    lines = [f"{'#':>3}  {'Player':<{width}}  {'Points':>6}  {heads[0]:>8}  {heads[1]:>8}  "
             f"{'Games':>5}"]
    for r in rows:
        first, second = ((r.buchholz, r.sonneborn_berger) if swiss
                         else (r.sonneborn_berger, r.buchholz))
        lines.append(f"{r.place:>3}  {shown[r.player]:<{width}}  {number(r.points):>6}  "
                     f"{number(first):>8}  {number(second):>8}  {r.played:>5}")
    return "\n".join(lines)
