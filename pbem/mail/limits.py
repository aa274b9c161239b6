"""Limits on what hostile mail can make pbem send: no mail cannon, no loops.

pbem writes to addresses that never confirmed in three cases only: a confirmation
request (a first mail from an address), an invitation (a player names the address) and
a second address's confirmation (`address add`). Each could turn pbem into a tool for
mailing third parties, so all are limited:

    invitations   per inviter and per day, and in total per day, to addresses that have
                  not confirmed (PBEM_INVITATIONS_PER_DAY, PBEM_INVITATIONS_TOTAL_PER_DAY);
                  at most one waiting invitation per (inviter, address)
    all such mail at most PBEM_UNCONFIRMED_MAIL_PER_HOUR an hour in all; when the cap is
                  reached the operator is told (a warning in the log; `pbem status`
                  shows the count) and the rest waits for the next hour
    forged mail   with PBEM_AUTHSERV_ID set, a mail whose DMARC or SPF failed at our MTA
                  gets no confirmation request (its From is probably someone else's)

And answers to players are limited where a robot could be on the other end:

    error replies at most PBEM_ERROR_REPLIES_PER_HOUR an hour to one address: a vacation
                  responder that marks nothing gets a few, then silence for the hour
    echoes        a mail that repeats, word for word, our last mail to its sender (an
                  autoresponder quoting us) is not answered

Every count reads an index (outbox.created, outbox.recipient, game.created,
inbound.sender), so a limit costs a mail about what reading one row does.
"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import logging
import re

from peewee import fn

from pbem.config import Config
from pbem.mail.authentication import our_header
from pbem.mail.inbound import written_text
from pbem.store import Address, Game, Inbound, Outbox, Player, Seat
from pbem.store.models import utcnow
from pbem.store.prepared import Prepared

log = logging.getLogger(__name__)

HOUR, DAY = dt.timedelta(hours=1), dt.timedelta(days=1)
ERROR_ANSWERED = "answered: error"  # the outcome of a mail whose answer said only what failed
CAP_REACHED = "ignored: the hourly cap on mail to unconfirmed addresses is reached"
ECHO_MIN = 40  # characters: a shorter mail of ours (none is) is not worth comparing


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
        return ("pbem has sent as much mail to new addresses within the hour as it may; "
                "try again in an hour.")
    return None


def _invited_today(*conditions) -> int:
    """Seats in games created within a day whose player never confirmed (the creator's
    own seat is confirmed: they wrote the `new`)."""
    query = (Seat.select().join(Game).switch(Seat).join(Player)
             .where((Game.created >= utcnow() - DAY) & ~Player.confirmed
                    & Game.creator.is_null(False) & (Seat.player != Game.creator), *conditions))
    return query.count()


def authentication_failure(message, authserv_id: str) -> str | None:
    """With PBEM_AUTHSERV_ID set: 'DMARC fail' or 'SPF fail' when our MTA found so (a
    confirmation request would go to someone who never wrote); None otherwise."""
    if not authserv_id:
        return None
    header = our_header(message, authserv_id)
    if header is None or isinstance(header, str):
        return None  # the DMARC step decides about mail that did not come through the MTA
    for result in header.results:
        method, verdict = str(result.method).lower(), str(result.result or "").lower()
        if method in ("dmarc", "spf") and verdict == "fail":
            return f"{method.upper()} fail"
    return None


# -- answers that could feed a loop ------------------------------------------------------

_ERROR_ANSWERED_SINCE = Prepared(lambda address, since: Inbound.select(fn.COUNT(Inbound.id))
                                 .where((Inbound.sender == address) & (Inbound.received >= since)
                                        & Inbound.outcome.startswith(ERROR_ANSWERED)))


def error_replies_last_hour(address: str, now: dt.datetime | None = None) -> int:
    """Mails from `address` within the hour that were answered only with what failed."""
    since = (now or utcnow()) - HOUR
    return _ERROR_ANSWERED_SINCE.scalar(address, since)


def repeats_our_last_mail(address: str, text: str) -> bool:
    """Whether `text` (what the sender wrote) holds, word for word, the whole text of our
    last mail to them: an autoresponder sending us back what we sent.

    A text shorter than ECHO_MIN cannot hold a mail of ours that is worth comparing, so
    a move ("#12 F6") is let through without reading and parsing our last mail (which
    cost more than the rest of the move)."""
    theirs = _words(text)
    if len(theirs) < ECHO_MIN:
        return False
    last = (Outbox.select(Outbox.message).where(Outbox.recipient == address)
            .order_by(Outbox.id.desc()).first())
    if last is None:
        return False
    ours = _words(written_text(_plain_text(bytes(last.message))))  # read as theirs is
    return len(ours) >= ECHO_MIN and ours in theirs


def _plain_text(raw: bytes) -> str:
    """The text part of a mail we wrote (pbem.mail.compose: text and HTML)."""
    try:
        part = email.message_from_bytes(raw, policy=email.policy.default).get_body(("plain",))
        return part.get_content() if part is not None else ""
    except Exception:  # our own mail; but an old row of another version must not stop intake
        return ""


def _words(text: str) -> str:
    return " ".join(re.findall(r"\S+", text))
