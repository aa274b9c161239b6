"""When a player's mail bounces for good: the address's score, and the game's others.

A mail bounces for good when its recipient's mailbox fails for good (no such mailbox,
disabled, full: pbem.policy.bounces.scores.counts): our relay refuses it so (a 5xx;
pbem.mail.outbox gives it up and hands it to `gave_up`) or a delivery report says so
later at the mail's own return path (a relay that accepted it first:
pbem.intake.reports). Either way `bounced` counts it against the address, once for the
mail however often it is reported (pbem.policy.bounces.scores: past a threshold no more mail
goes to it), and tells the game's other players, where that is safe. A refusal of the
message or of us (5.7.x: its content, a relay's policy) is given up and shown to the
operator, and neither counted nor told: its cause is not the player's mailbox, and the
content may be an opponent's doing. A mail that waited five days is told, not counted.

A player whose mail bounces no longer hears of the game, and their opponents wait for a move that cannot come.
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
from pbem.policy.bounces import scores
from pbem.policy.notices import once_a_day
from pbem.store import Game, Outbox


def gave_up(config: Config, mail: Outbox, now: dt.datetime, why: str, status: str) -> int:
    """The deliverer gave up on one of our mails (pbem.mail.outbox): refused for good
    with `status`, or ("") still undelivered after days. Returns how many were told."""
    if not status:  # our queue's timeout: perhaps our relay's fault, not counted
        return tell_of_bounce(config, mail, now)
    if not scores.counts(status):  # the message or we were refused: the log says it
        return 0
    return bounced(config, mail, now, why) or 0


def bounced(config: Config, mail: Outbox, now: dt.datetime, why: str) -> int | None:
    """The mailbox one of our mails went to failed for good: counted against the address,
    once for this mail, and the game's other players told where safe. How many were
    told; None when this mail's bounce was counted already (a report sent again)."""
    first = (Outbox.update(bounced=now)
             .where((Outbox.id == mail.id) & Outbox.bounced.is_null()).execute())
    if not first:
        return None
    scores.count(config, mail.recipient, why, now)
    return tell_of_bounce(config, mail, now)


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
