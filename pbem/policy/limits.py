"""Limits on the mail pbem writes to addresses that never confirmed: no mail cannon.

pbem writes to such addresses in a few cases only: a confirmation request (a first mail
from an address), an invitation to a game or a tournament (a player names the address)
and a second address's confirmation (`address add`). Each could turn pbem into a tool
for mailing third parties, so all are limited (pbem.policy.invitations asks here):

    invitations   per inviter and per day, and in total per day, to addresses that have
                  not confirmed (PBEM_INVITATIONS_PER_DAY, PBEM_INVITATIONS_TOTAL_PER_DAY);
                  at most one waiting invitation per (inviter, address). Every kind counts
                  alike (a game's, a tournament's, a seek's, a second address's request),
                  from one table (`invitation`): no kind of invitation escapes the limits
    all such mail at most PBEM_UNCONFIRMED_MAIL_PER_HOUR an hour in all; when the cap is
                  reached the operator is told (a warning in the log; `pbem status`
                  shows the count) and the rest waits for the next hour

The limits on answers that could feed a loop with a robot (error replies, echoes) are
mail in's (pbem.intake.loops). Every count reads an index (outbox.created,
outbox.recipient, invitation by inviter and date), so a limit costs a mail about what
reading one row does.
"""

from __future__ import annotations

import datetime as dt
import logging

from pbem.config import Config
from pbem.store import Address, Game, Outbox, Player, Request, Seat
from pbem.store.models import Invitation, utcnow
from pbem.store.competition_models import Entrant, Tournament

log = logging.getLogger(__name__)

HOUR, DAY = dt.timedelta(hours=1), dt.timedelta(days=1)
ERASED = ""  # the recipient of a sent mail's copy once `pbem admin forget` erased it
ADDRESS_KIND = "address"  # a second address's request (pbem.policy.invitations.ADDRESS)
CAP_REACHED = "ignored: the hourly cap on mail to unconfirmed addresses is reached"
CAP_WORDS = ("pbem has sent as much mail to new addresses within the hour as it may; try "
             "again in an hour.")


# -- mail to addresses that never confirmed ------------------------------------------------

def unconfirmed_mail_last_hour(now: dt.datetime | None = None) -> int:
    """Mails queued within the hour to addresses that have not confirmed (yet): neither
    a confirmed player's address nor a second address a player confirmed. A copy whose
    recipient `pbem admin forget` erased (ERASED) is nobody's now, and was counted (or
    not) when it was queued: forgetting a player does not make it mail to a stranger."""
    since = (now or utcnow()) - HOUR
    confirmed = Player.select(Player.email).where(Player.confirmed)
    second = Address.select(Address.email).where(Address.confirmed)
    return Outbox.select().where((Outbox.created >= since) & (Outbox.recipient != ERASED)
                                 & Outbox.recipient.not_in(confirmed)
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


def unconfirmed(addresses: list[str]) -> list[str]:
    """Those of `addresses` that never confirmed: neither a confirmed player's address
    nor a second address a player confirmed (in the order given)."""
    known = set(Player.select(Player.email).where(Player.email.in_(addresses)
                                                  & Player.confirmed).scalars())
    known |= set(Address.select(Address.email).where(Address.email.in_(addresses)
                                                     & Address.confirmed).scalars())
    return [address for address in addresses if address not in known]


def invitation_refusal(config: Config, inviter: Player, addresses: list[str],
                       count: bool = True) -> str | None:
    """Why `inviter` may not have pbem write to `addresses` now, for them to read; None
    if they may. Whatever the invitation (a game's, a tournament's, a seek's, a second
    address's), the addresses that never confirmed count alike: one waiting invitation
    per (inviter, address), PBEM_INVITATIONS_PER_DAY a day from one inviter,
    PBEM_INVITATIONS_TOTAL_PER_DAY from all, within the hourly cap. With `count` False
    only the waiting invitation is looked at (a mail that adds none: the same request)."""
    new = unconfirmed(list(dict.fromkeys(addresses)))
    if not new:
        return None
    waiting = _waiting(inviter, new)
    if waiting is not None:
        return (f"{_what(waiting)} already, and "
                f"{'it has' if waiting.kind == ADDRESS_KIND else 'they have'} not answered "
                f"yet; one invitation at a time to an address that never wrote to pbem.")
    if not count:
        return None
    mine = _invited_today(Invitation.inviter == inviter)
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
    """Invitations to addresses that had not confirmed, of every kind, within a day."""
    return (Invitation.select().where(Invitation.created >= utcnow() - DAY, *conditions)
            .count())


def _waiting(inviter: Player, addresses: list[str]) -> Invitation | None:
    """The inviter's invitation to one of `addresses` that still waits for its answer.
    A row is marked waiting when written; whether it still is, its game, tournament or
    request says (answered, cancelled, expired, forgotten: all end it), looked at here."""
    rows = Invitation.select().where((Invitation.inviter == inviter) & Invitation.waiting
                                     & Invitation.address.in_(addresses))
    for row in rows.order_by(Invitation.id):
        if _still_waiting(row):
            return row
        Invitation.update(waiting=False).where(Invitation.id == row.id).execute()
    return None


def _still_waiting(row: Invitation) -> bool:
    if row.kind == "game":
        return (Seat.select().join(Game).switch(Seat).join(Player)
                .where((Seat.game == row.subject) & (Player.email == row.address)
                       & Seat.answer.is_null() & (Game.status == "inviting")).exists())
    if row.kind == "tournament":
        return (Entrant.select().join(Tournament).switch(Entrant).join(Player)
                .where((Entrant.tournament == row.subject) & (Player.email == row.address)
                       & Entrant.answer.is_null() & (Tournament.status == "inviting"))
                .exists())
    if row.kind == ADDRESS_KIND:
        return (Request.select().where((Request.id == row.subject) & Request.open).exists()
                and Address.select().where((Address.email == row.address)
                                           & (Address.player == row.inviter_id)
                                           & ~Address.confirmed).exists())
    return False  # a seek's game starts at once: nothing waits


def _what(row: Invitation) -> str:
    if row.kind == ADDRESS_KIND:
        return f"you asked {row.address} to confirm that it is your address"
    return f"you invited {row.address} to {row.kind} #{row.subject}"


def record_invitation(inviter: Player, address: str, kind: str, subject: int) -> None:
    """An invitation is on its way to `address`: counted if the address never confirmed."""
    if unconfirmed([address]):
        Invitation.create(inviter=inviter, address=address, kind=kind, subject=subject,
                          waiting=kind != "seek")
