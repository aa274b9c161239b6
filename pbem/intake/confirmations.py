"""Mail held for a confirmation: a first mail from a new address waits a week for its
sender to answer our request to confirm, then it is dropped.

Every mail from the address until it answers is held with the first (one request at a
time: a forger cannot make pbem write to an address again and again), and once it
answers all are carried out in the order they came (pbem.intake.pipeline), at most
HELD_MAX; the sender is told which were not.

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
from pbem.intake.outcomes import count_outcome
from pbem.policy import letters
from pbem.store import Inbound, Player, Request, transaction

CONFIRM_DAYS = 7
HELD = "held: confirmation asked for"  # the pipeline's outcome for the mail it holds
HELD_TOO = "held: a confirmation is already waiting for an answer"  # a later one
HELD_MAX = 20  # mails carried out after a confirmation; the rest are named to the sender


def dropped() -> str:
    """The outcome of a held mail past HELD_MAX."""
    return f"ignored: more than {HELD_MAX} mails held for a confirmation"


def held_mails(request: Request) -> list[Inbound]:
    """The mails held for `request`: the one that asked, and every later mail from its
    address held while it was open, in the order they came."""
    address = request.player.email
    return list(Inbound.select(Inbound.id, Inbound.received, Inbound.raw)
                .where(Inbound.outcome.startswith("held:")
                       & ((Inbound.id == request.inbound_id) | (Inbound.sender == address)))
                .order_by(Inbound.received, Inbound.id))


def tell_not_carried_out(config: Config, player: Player, rows: list[Inbound],
                         mails: list) -> bool:
    """The held mails past HELD_MAX, named to the sender: when and with what subject."""
    named = [f"- {row.received:%a %d %b %H:%M} UTC, \"{mail.subject or '(no subject)'}\""
             for row, mail in zip(rows, mails)]
    return letters.note(config, player, "[pbem] some of your mails were not carried out", [
        f"Thank you for confirming your address. pbem carried out the first {HELD_MAX} "
        f"mails you sent before confirming, in order, and answered each; these were not "
        f"carried out, nothing in them was done:",
        "\n".join(named),
        "Send again what you still want done.",
    ])


def expire_confirmations(now: dt.datetime | None = None, days: int = CONFIRM_DAYS,
                         keep_days: int = Config.keep_unanswered_days) -> int:
    """Close the confirmation requests older than `days`; returns how many were closed.
    Safe in several schedulers: a request is closed only while it is still open. The held
    mails' raw bytes are kept `keep_days` from their arrival."""
    cutoff = (now or clock.now()) - dt.timedelta(days=days)
    with transaction():
        stale = list(Request.select(Request.id, Request.inbound, Request.player)
                     .where((Request.kind == "confirm") & Request.open
                            & (Request.created < cutoff)))
        if not stale:
            return 0
        closed = (Request.update(open=False)
                  .where(Request.id.in_([r.id for r in stale]) & Request.open).execute())
        held = [row for request in stale for row in held_mails(request)]
        for row in held:
            Inbound.update(outcome=f"expired: not confirmed within {days} days",
                           kept_until=row.received + dt.timedelta(days=keep_days)).where(
                Inbound.id == row.id).execute()
            count_outcome("expired")  # for the operator's metrics (pbem.intake.outcomes)
    return closed
