"""Mail the sender checks refused, counted by reason, for the operator.

With PBEM_AUTHSERV_ID set, a missing or broken OpenDMARC set-up (no SPF result, another
authserv-id, forwarded mail without ARC) would otherwise drop real players' moves with
no answer and nothing an operator notices. So every such refusal is stored as a row of
the `refusal` table (so that several processes agree), and:

- `recent()` counts them by reason over the last day, for `pbem status` and `/healthz`;
- `totals()` counts them by reason since the start, for a metrics counter;
- `all_recent_refused()` says whether every one of the last RECENT mails was refused
  by the DMARC check, and `count()` logs a warning when it is: then it is the set-up,
  not the senders.

The reasons, each a fixed word (REASONS): what the check found, not what the mail said.
"""

from __future__ import annotations

import datetime as dt
import logging

from peewee import fn

from pbem import clock
from pbem.store import Inbound
from pbem.store.models import Refusal

log = logging.getLogger(__name__)

REASONS = {
    "no-verdict": "no Authentication-Results of our authserv-id (not through the MTA, or "
                  "OpenDMARC's AuthservID is not PBEM_AUTHSERV_ID)",
    "unreadable-verdict": "an Authentication-Results of our authserv-id that cannot be read",
    "dmarc-fail": "DMARC fail for the From domain (forged, or SPF/DKIM broken on the way)",
    "dmarc-other-domain": "DMARC pass, but for another domain than the From's",
    "wrong-sender": "a valid reply token from an address that is not the "
                              "seat's player's",
}
DMARC_REASONS = ("no-verdict", "unreadable-verdict", "dmarc-fail", "dmarc-other-domain")
RECENT = 10  # "all recent mail": the last this many mails that came in
KEEP = dt.timedelta(days=90)  # counts older than this are dropped


def count(reason: str, inbound_id: int | None) -> None:
    """Store one refusal (in the caller's transaction); warn when all recent mail is
    refused by the DMARC check."""
    now = clock.now()
    Refusal.create(reason=reason, inbound_id=inbound_id, at=now)
    if reason in DMARC_REASONS and all_recent_refused():
        log.warning("the last %d mails were all refused by the DMARC check (PBEM_AUTHSERV_ID);"
                    " is OpenDMARC running, with AuthservID equal to PBEM_AUTHSERV_ID and "
                    "SPF checked? Refusals by reason: %s", RECENT, recent())


def prune(now) -> int:
    """Drop counts older than KEEP (pbem.intake.retention's hourly job)."""
    return Refusal.delete().where(Refusal.at < now - KEEP).execute()


def all_recent_refused() -> bool:
    last = [row.id for row in Inbound.select(Inbound.id).order_by(Inbound.id.desc())
            .limit(RECENT)]
    if len(last) < RECENT:
        return False
    refused = (Refusal.select(fn.COUNT(fn.DISTINCT(Refusal.inbound_id)))
               .where(Refusal.inbound_id.in_(last) & Refusal.reason.in_(DMARC_REASONS))
               .scalar())
    return refused == RECENT


def recent(hours: int = 24) -> dict[str, int]:
    """Refusals by reason in the last `hours`; reasons with none are left out."""
    since = clock.now() - dt.timedelta(hours=hours)
    return _by_reason(Refusal.at >= since)


def totals() -> dict[str, int]:
    """Refusals by reason over the kept history (KEEP), for a metrics counter."""
    return _by_reason(True)


def _by_reason(where) -> dict[str, int]:
    rows = (Refusal.select(Refusal.reason, fn.COUNT(Refusal.id).alias("n"))
            .where(where).group_by(Refusal.reason).order_by(Refusal.reason))
    return {row.reason: row.n for row in rows}
