"""When a player's mail bounces for good, the game's other players may be told.

A player whose address the relay refuses (5xx: no such mailbox, mailbox full for good)
no longer hears of the game, and their opponents wait for a move that cannot come.
They are told, so they can reach the player another way — but only where the notice
tells them nothing they may not know:

- only for a game mail (the outbox row names the game) to a player seated in it;
- only while the game runs and waits, for everyone to see, for that player
  (`shown_to_act` of the public view): a mail that went out because of something
  secret (a Gem Forge reaction window asks seats in secret, RULINGS G39) must not become
  visible through the bounce of it;
- without the address and without the relay's words (players do not see each other's
  addresses; the relay's answer often quotes it);
- at most once a day per game and player (pbem.policy.notices).

The operator hears of every bounce in the log and in `pbem status` (pbem.mail.outbox).
"""

from __future__ import annotations

import datetime as dt

from pbem.config import Config
from pbem.play import Table, display_name
from pbem.policy import letters
from pbem.policy.notices import once_a_day
from pbem.store import Game, Outbox


def tell_of_bounce(config: Config, mail: Outbox, now: dt.datetime) -> int:
    """Tell the others, where safe; returns how many were told."""
    if mail.game_id is None or not Game.select().where(Game.id == mail.game_id).exists():
        return 0
    table = Table.load(mail.game_id, lock=False)
    seat = table.seat_of(mail.recipient)
    if seat is None or not _publicly_waiting_for(table, seat):
        return 0
    bouncing = table.seats[seat].player
    if not once_a_day(f"bounce:game:{table.game.id}:player:{bouncing.id}", now):
        return 0
    name = display_name(bouncing.name)
    others = {s.player.email: s.player for s in table.seats if s.player_id != bouncing.id}
    for player in others.values():
        letters.note(config, player,
                    f"[pbem] game #{table.game.id}: mail to {name} bounces", [
                        f"pbem's mail to {name} in game #{table.game.id} was refused by "
                        f"their mail server, so {name} may not know that the game waits "
                        f"for them.",
                        "If you can reach them another way, let them know; nothing else "
                        "changes (the game's time control runs as before).",
                    ])
    return len(others)


def _publicly_waiting_for(table: Table, seat: int) -> bool:
    if table.game.status != "running":
        return False
    shown = table.engine.shown_to_act(table.state, None)
    return shown is not None and seat in shown
