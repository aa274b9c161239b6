"""How long mail is kept: raw inbound mail by who sent it, delivered mail for a while.

Every inbound mail is stored raw before anything acts on it (so a crash loses nothing),
but a mail nobody acted on need not be kept long, and one from an anonymous flood must
not fill the disk. When the pipeline writes a mail's outcome it also writes until when
its raw bytes are kept (`Inbound.kept_until`):

    carried out (done, answered, run after confirmation), or failed on a bug
                    PBEM_KEEP_PLAYER_MAIL_DAYS (365): a player's mail is their record
    anything else (ignored: robots, strangers, forged or unknown tokens; refused: too
    large or malformed; expired confirmations)
                    PBEM_KEEP_UNANSWERED_DAYS (7)
    held for a confirmation
                    not decided: the held mail runs once its sender confirms

The scheduler's prune job (hourly) empties the raw bytes of the mails past their date;
the row stays, small, with its Message-ID (a late redelivery is still a duplicate) and
outcome. It also deletes outbox rows delivered more than PBEM_KEEP_SENT_MAIL_DAYS (30)
ago. Both statements read an index range of the rows due and nothing else, so pruning
costs what there is to prune, and a move's cost does not change (its mail's outcome was
written anyway; this adds one column to that write).
"""

from __future__ import annotations

import datetime as dt

from pbem.config import Config
from pbem.intake import refusals
from pbem.intake.outcomes import count_uncounted
from pbem.store import Inbound, Outbox, counters, transaction, workers
from pbem.store.models import utcnow

KEPT_LONG = ("done", "answered", "failed")  # outcomes of mail from players (or bugs)
UNDECIDED = ("held", "received")


def kept_until(config: Config, received: dt.datetime, outcome: str) -> dt.datetime | None:
    """Until when the raw mail with this outcome is kept; None: not decided yet."""
    word = outcome.split(":", 1)[0].strip()
    if word in UNDECIDED:
        return None
    # A mail too broken to read has no known sender: a stranger's, kept briefly.
    unreadable = outcome.startswith("failed: unreadable")
    days = (config.keep_player_days if word in KEPT_LONG and not unreadable
            else config.keep_unanswered_days)
    return received + dt.timedelta(days=days)


def prune(config: Config, now: dt.datetime | None = None) -> tuple[int, int]:
    """Empty the raw bytes of inbound mail past its date, delete outbox rows delivered
    or given up on long ago and refusal counts past theirs; returns (inbound mails
    emptied, outbox rows deleted). Then the metrics' events of the last hour are rolled
    up into their totals, and workers silent for days are forgotten (pbem.store)."""
    now = now or utcnow()
    with transaction():
        emptied = (Inbound.update(raw=b"", kept_until=None)
                   .where(Inbound.kept_until < now).execute())
        cutoff = now - dt.timedelta(days=config.keep_sent_days)
        deleted = (Outbox.delete().where((Outbox.sent < cutoff) | (Outbox.failed < cutoff))
                   .execute())  # delivered, or given up on, long ago: the counts stay
        refusals.prune(now)
        workers.forget_silent(now)
    count_uncounted()  # what processes of an older pbem did mid-upgrade (migration 0040)
    counters.roll_up()
    return emptied, deleted
