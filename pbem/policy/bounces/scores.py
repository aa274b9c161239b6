"""Which addresses our mail bounces from, and which no mail goes to any more.

Every hard bounce is counted here, whichever way it is learnt: the relay refused the
mail for good (5xx at our relay: pbem.mail.outbox gives it up) or a delivery report came
back later to the mail's own return path (pbem.intake.reports; a mail a relay accepted
first). A hard bounce is a permanent failure of the mailbox (`counts`: no such user,
disabled, full; pbem.vocabulary.statuses): a refusal of the message for its content, or of us
by a relay's policy (5.7.x), says nothing of the address, and whoever can get a mail
refused (a `say` quoting a spam test string) must not be able to stop a player's mail
with it; those are the operator's to read, and count nothing. Each mail counts once
(pbem.policy.bounces.mails), however often a report about it comes back. As Mailman and
Discourse do, an address gets a score rather than a verdict from one report: one point a
day with a hard bounce (a burst of mails bouncing on one day is one event, not ten),
forgotten after a month without one; at PBEM_BOUNCE_THRESHOLD
points the address is marked bouncing, and from then on the policy mails it nothing
(`may_mail`) — not even game mail, whose news then waits at the seat's cursor — until
its player writes again (`wrote_again`: mail from the address is proof it works) or the
operator clears it (`pbem outbox clear ADDRESS`).
"""

from __future__ import annotations

import datetime as dt
import logging

from peewee import SQL

from pbem.config import Config
from pbem.vocabulary.statuses import mailbox_gone
from pbem.store.counters import count as count_event
from pbem.store.models import Bounce, utcnow
from pbem.store.prepared import Prepared

log = logging.getLogger(__name__)

FORGOTTEN_AFTER = dt.timedelta(days=30)  # a month without a hard bounce starts afresh

_FORGET = Prepared(lambda address: Bounce.delete().where(Bounce.address == address))
_BOUNCING = Prepared(lambda address: marked(address).limit(1))


def kept(address):
    """The query of `address`'s row, counted or marked (what `wrote_again` deletes; not
    run: a part of pbem.intake.pipeline's ban check); `address` lower-case."""
    return Bounce.select(SQL("2")).where(Bounce.address == address)


def marked(address):
    """The query of `address`'s row if it is marked bouncing (not run: a part of
    others, as pbem.policy.letters.reachable's); `address` lower-case."""
    return Bounce.select(SQL("1")).where((Bounce.address == address)
                                         & Bounce.bouncing.is_null(False))


def may_mail(address: str) -> bool:
    """Whether mail may go to `address` (it is not marked bouncing). One indexed read."""
    return _BOUNCING.scalar(address.lower()) is None


def counts(status: str) -> bool:
    """Whether a permanent failure with this status code counts against its address: only
    a failure of the mailbox does (see the module)."""
    return mailbox_gone(status)


def count(config: Config, address: str, reason: str, now: dt.datetime | None = None) -> bool:
    """Count a hard bounce from `address`; True when this one marks it bouncing."""
    now = now or utcnow()
    address = address.lower()
    row = Bounce.get_or_none(Bounce.address == address)
    if row is None:
        row = Bounce(address=address, score=0, last=now)
    elif now - row.last > FORGOTTEN_AFTER:
        row.score = 0
    if row.score == 0 or row.last.date() != now.date():  # one point a day at most
        row.score += 1
        row.last = now
    row.reason = reason[:500]
    count_event("bounces")  # every hard bounce, for pbem_bounces_total (an alert on its rise)
    newly = row.bouncing is None and row.score >= config.bounce_threshold
    if newly:
        row.bouncing = now
        log.warning("mail to %s bounces (%d days of hard bounces): no more mail goes to it "
                    "until it writes again or `pbem outbox clear` (%s)", address, row.score,
                    reason)
    row.save()
    return newly


def wrote_again(address: str) -> bool:
    """Mail came from `address`: it works again, and its score starts afresh. (One
    indexed DELETE a player's mail, of nothing but for an address that bounced.)"""
    return bool(_FORGET.execute(address.lower()))


def clear(address: str) -> bool:
    """The operator says mail to `address` works again (`pbem outbox clear`)."""
    return wrote_again(address)


def listed() -> list[Bounce]:
    """Every address with a bounce counted, the bouncing ones first."""
    return list(Bounce.select().order_by(Bounce.bouncing.is_null(), Bounce.last.desc()))
