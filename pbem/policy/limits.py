"""Limits on the mail pbem writes to addresses that never confirmed: no mail cannon.

pbem writes to such addresses in a few cases only: a confirmation request (a first mail
from an address), an invitation to a game or a tournament (a player names the address)
and a second address's confirmation (`address add`). Each could turn pbem into a tool
for mailing third parties, so all are limited (pbem.policy.invitations asks here):

    invitations   per inviter and per day, and in total per day, to addresses that have
                  not confirmed (PBEM_INVITATIONS_PER_DAY, PBEM_INVITATIONS_TOTAL_PER_DAY);
                  at most one waiting invitation per (inviter, address)
    all such mail at most PBEM_UNCONFIRMED_MAIL_PER_HOUR an hour in all; when the cap is
                  reached the operator is told (a warning in the log; `pbem status`
                  shows the count) and the rest waits for the next hour

The limits on answers that could feed a loop with a robot (error replies, echoes) are
mail in's (pbem.intake.loops). Every count reads an index (outbox.created,
outbox.recipient, game.created), so a limit costs a mail about what reading one row does.
"""

from __future__ import annotations

import datetime as dt
import logging

from pbem.config import Config
from pbem.store import Address, Game, Outbox, Player, Seat
from pbem.store.models import Entrant, Tournament, utcnow

log = logging.getLogger(__name__)

HOUR, DAY = dt.timedelta(hours=1), dt.timedelta(days=1)
CAP_REACHED = "ignored: the hourly cap on mail to unconfirmed addresses is reached"
CAP_WORDS = ("pbem has sent as much mail to new addresses within the hour as it may; try "
             "again in an hour.")


# -- mail to addresses that never confirmed ------------------------------------------------

def unconfirmed_mail_last_hour(now: dt.datetime | None = None) -> int:
    """Mails queued within the hour to addresses that have not confirmed (yet): neither
    a confirmed player's address nor a second address a player confirmed."""
    since = (now or utcnow()) - HOUR
    confirmed = Player.select(Player.email).where(Player.confirmed)
    second = Address.select(Address.email).where(Address.confirmed)
    return Outbox.select().where((Outbox.created >= since) & Outbox.recipient.not_in(confirmed)
                                 & Outbox.recipient.not_in(second)).count()


def unconfirmed_cap_reached(config: Config, more: int = 1) -> bool:
    """Whether `more` mails to unconfirmed addresses would pass the hourly cap; the
    operator is warned when they would."""
    sent = unconfirmed_mail_last_hour()
    if sent + more <= config.unconfirmed_per_hour:
        return False
    log.warning("hourly cap on mail to unconfirmed addresses reached: %d sent within the "
                "hour, %d more held back (PBEM_UNCONFIRMED_MAIL_PER_HOUR=%d)", sent, more,
                config.unconfirmed_per_hour)
    return True


def invitation_refusal(config: Config, inviter: Player, addresses: list[str]) -> str | None:
    """Why `inviter` may not invite `addresses` now, for them to read; None if they may."""
    waiting = (Seat.select(Player.email, Game.id).join(Player).switch(Seat).join(Game)
               .where((Game.creator == inviter) & (Game.status == "inviting")
                      & Seat.answer.is_null() & Player.email.in_(addresses)).tuples().first())
    if waiting:
        return (f"you invited {waiting[0]} to game #{waiting[1]} already, and they have not "
                f"answered yet; one invitation at a time (decline that game to invite "
                f"them again).")
    confirmed = set(Player.select(Player.email).where(Player.email.in_(addresses)
                                                      & Player.confirmed).scalars())
    new = [address for address in addresses if address not in confirmed]
    if not new:
        return None
    mine = _invited_today(Game.creator == inviter)
    if mine + len(new) > config.invitations_per_day:
        return (f"you have invited {mine} addresses that never wrote to pbem within a day, "
                f"and may invite {config.invitations_per_day} a day; {', '.join(new)} would "
                f"be more. Try again tomorrow, or ask them to write to pbem first.")
    if _invited_today() + len(new) > config.invitations_total_per_day:
        return ("pbem has sent as many invitations to new addresses today as it may; "
                "try again tomorrow, or ask them to write to pbem first.")
    if unconfirmed_cap_reached(config, len(new)):
        return CAP_WORDS
    return None


def _invited_today(*conditions) -> int:
    """Seats in games created within a day whose player never confirmed (the creator's
    own seat is confirmed: they wrote the `new`)."""
    query = (Seat.select().join(Game).switch(Seat).join(Player)
             .where((Game.created >= utcnow() - DAY) & ~Player.confirmed
                    & Game.creator.is_null(False) & (Seat.player != Game.creator), *conditions))
    return query.count()


def tournament_invitation_refusal(config: Config, organiser: Player,
                                  addresses: list[str]) -> str | None:
    """A game's limits on inviting new addresses, with this organiser's tournament
    invitations of the day counted too."""
    refusal = invitation_refusal(config, organiser, addresses)
    if refusal:
        return refusal
    confirmed = set(Player.select(Player.email).where(Player.email.in_(addresses)
                                                      & Player.confirmed).scalars())
    new = [a for a in addresses if a not in confirmed]
    today = (Entrant.select().join(Tournament).switch(Entrant).join(Player)
             .where((Tournament.organiser == organiser) & ~Player.confirmed
                    & (Tournament.created >= utcnow() - DAY)).count())
    if new and today + len(new) > config.invitations_per_day:
        return (f"you have invited {today} addresses that never wrote to pbem to tournaments "
                f"within a day, and may invite {config.invitations_per_day} a day; "
                f"{', '.join(new)} would be more. Ask them to write to pbem first.")
    return None
