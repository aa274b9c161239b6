"""After a restore, every player of every running game hears that the server went back.

`pbem restore` (pbem.operator.restore) puts a backup back: what reached the server after the
backup was taken, moves and mail, is gone, and so are the answers it sent. A player
whose move came after the backup would otherwise hear nothing, and find their opponent's
next reply refused as "not your turn" while their own clock ran. So each seat of each
running game gets one game mail (pbem.policy.conversation.tell, as a reminder is sent):
its own view of the game as it now stands, the news since its cursor in the restored
database, the clock with the deadlines moved on, what the game waits for, and above them
which time the server went back to and what to send again. A bot's seat, a banned or
bouncing address gets nothing, as with every mail (pbem.policy.letters.reachable).
"""

from __future__ import annotations

import datetime as dt

from pbem.play import Table
from pbem.policy import conversation
from pbem.policy.letters import reachable
from pbem.store import Game
from pbem.bookkeeping import controls


def tell_players(config, went_back_to: dt.datetime, moved_on: dt.timedelta) -> int:
    """One mail to each seat of each running game; how many were queued."""
    told = 0
    for game in Game.select(Game.id).where(Game.status == "running").order_by(Game.id):
        table = Table.load(game.id)
        for seat in table.seats:
            if not reachable(seat.player.email):
                continue
            conversation.tell(config, table, seat.number,
                              [words(table, seat.number, went_back_to, moved_on)])
            told += 1
    return told


def words(table: Table, seat: int, went_back_to: dt.datetime, moved_on: dt.timedelta) -> str:
    """What happened and what to do, for one seat: nothing here is secret (whether the
    game waits for the seat is the seat's own business, and its mail says it anyway)."""
    when = controls.when(went_back_to)
    said = (f"The server had to go back to its backup of {when}: whatever reached it "
            f"after that time (moves, comments, commands) and every answer it sent since "
            f"are lost. Game #{table.game.id} is below as it now stands.")
    if seat in table.to_act:
        said += (" It waits for you: if you sent your move after that time, send it "
                 "again now.")
    else:
        said += (" If you sent a move or a command to this game after that time, it was "
                 "not kept: send it again when the game asks for it.")
    if moved_on >= dt.timedelta(minutes=1):
        said += (f" No one loses time for it: every deadline in the game moved on by "
                 f"{controls.words(moved_on.total_seconds())}.")
    return said
