"""`remind`: the position of every game waiting on a player, mailed to them again.

A player who has lost track (a filtered mail, a busy week, the daily digest) writes
`remind` and gets, for each running game that waits for them, the same game mail a move
would have sent: their own view only, whose turn, what to type, and the reply address
with their token. `waiting_games` is also what the daily digest (pbem.policy.digest) lists.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pbem.config import Config
from pbem.play import Table
from pbem.store import Game, Player, Seat
from pbem.bookkeeping.ledger import waiting_on

REMINDER = "You asked for a reminder: this game is waiting for you."


@dataclass
class WaitingGame:
    """A game waiting for the player: the game, their seat, since when (if its clock
    knows; games from before clocks were kept learn it at their next move)."""
    table: Table
    seat: int
    since: dt.datetime | None


def waiting_games(player: Player) -> list[WaitingGame]:
    """Every running game that waits for `player`, the longest waiting first.

    Whether a game waits for them is the engine's `to_act` (the one truth about turns);
    the clocks' ledger says since when. Only the player's own seat is looked at, so this
    tells them nothing about another seat (a reaction window's seats are private to
    each). Games are read, not locked: nothing here changes them, and a reader that
    locked several games could deadlock against a player's move in one of them.
    """
    seats = (Seat.select(Seat.number, Seat.game).join(Game)
             .where((Seat.player == player) & (Game.status == "running")).order_by(Game.id))
    found = []
    for seat in seats:
        table = Table.load(seat.game_id, lock=False)
        if seat.number in table.to_act:
            since = next((w.since for w in waiting_on(table.game.id) if w.seat == seat.number),
                         None)
            found.append(WaitingGame(table, seat.number, since))
    return sorted(found, key=lambda w: (w.since is None, w.since or dt.datetime.min,
                                        w.table.game.id))


def remind(config: Config, player: Player, here: Table | None = None) -> list[str]:
    """Mail `player` every game that waits for them; what to tell them, or [] when no
    game waits. `here` is the game whose reply carried the command: its position is in
    the answer already, so it is not mailed twice."""
    waiting = waiting_games(player)
    if not waiting:
        return []
    mailed = [w for w in waiting if here is None or w.table.game.id != here.game.id]
    for wait in mailed:
        from pbem.policy import conversation
        table = Table.load(wait.table.game.id)  # the game's lock: the seat's cursor moves
        conversation.tell(config, table, wait.seat, [REMINDER])
    listed = ", ".join(f"#{w.table.game.id} {w.table.engine.title}"
                       + ("" if w in mailed else " (this game)") for w in waiting)
    answer = f"Waiting for you: {listed}."
    if mailed:
        answer += (" One mail per game brings its position again: reply to that mail "
                   "with your move.")
    return [answer]
