"""Confirmation requests expire: a first mail from a new address waits a week for its
sender to answer our request to confirm, then it is dropped.

Without this a request stayed open for ever, and because an address gets only one open
request at a time (so a forger cannot make us mail someone again and again), a sender
whose request was lost could never be asked again. Once expired, the held mail is marked
so in its `outcome` and never runs; the sender's next mail gets a fresh request. Its raw
bytes are then kept as long as any mail nobody acted on (pbem.intake.retention).
"""

from __future__ import annotations

import datetime as dt

from pbem import clock
from pbem.config import Config
from pbem.store import Inbound, Request, transaction

CONFIRM_DAYS = 7
HELD = "held: confirmation asked for"  # the pipeline's outcome for the mail it holds


def expire_confirmations(now: dt.datetime | None = None, days: int = CONFIRM_DAYS,
                         keep_days: int = Config.keep_unanswered_days) -> int:
    """Close the confirmation requests older than `days`; returns how many were closed.
    Safe in several schedulers: a request is closed only while it is still open. The held
    mails' raw bytes are kept `keep_days` from their arrival."""
    cutoff = (now or clock.now()) - dt.timedelta(days=days)
    with transaction():
        stale = list(Request.select(Request.id, Request.inbound)
                     .where((Request.kind == "confirm") & Request.open
                            & (Request.created < cutoff)))
        if not stale:
            return 0
        closed = (Request.update(open=False)
                  .where(Request.id.in_([r.id for r in stale]) & Request.open).execute())
        held = [r.inbound_id for r in stale if r.inbound_id is not None]
        for row in Inbound.select(Inbound.id, Inbound.received).where(
                Inbound.id.in_(held) & (Inbound.outcome == HELD)):
            Inbound.update(outcome=f"expired: not confirmed within {days} days",
                           kept_until=row.received + dt.timedelta(days=keep_days)).where(
                Inbound.id == row.id).execute()
    return closed
