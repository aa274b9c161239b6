"""Delivery reports that come back to a mail's own return path (VERP).

Each mail we send leaves with an envelope sender of its own, `pbem-bounce+b-<outbox
id>-<mac>@` (pbem.mail.tokens.return_path). A relay that accepted it and failed to
deliver it later sends its report there (RFC 3464, or one of the many older formats), so
the report names, by its address alone, the very mail that bounced and so the address
it bounced from — the report's own words need not be trusted to say which.

Reports are read with flufl.bounce (Mailman's detectors: DSN and the formats found in
the wild over twenty years) rather than by hand: a report that says a recipient failed
for good counts as a hard bounce of that mail (pbem.policy.bounces); a delay warning, or
a report whose words show no permanent failure, changes nothing. A report to a return
path we did not sign (a forgery, or a guess) changes nothing either, and is never
answered: its sender is a machine.
"""

from __future__ import annotations

import email
import email.policy
import logging

from flufl.bounce import all_failures

from pbem.intake.prescan import structure_refusal
from pbem.mail.tokens import is_return_path, read_return_path
from pbem.policy.bounces import bounced
from pbem.store import Outbox
from pbem.store.models import utcnow

log = logging.getLogger(__name__)


def report_route(config, recipients: list[str]) -> tuple[bool, int | None]:
    """(whether the mail is addressed to our return paths, the outbox id a genuine one
    names or None)."""
    ours = [a for a in recipients if is_return_path(a, config.domain)]
    for address in ours:
        outbox_id = read_return_path(config.secret_key, address, config.domain)
        if outbox_id is not None:
            return True, outbox_id
    return bool(ours), None


def hard_failure(raw: bytes) -> str | None:
    """What a delivery report says failed for good, in words for the operator; None for
    a delay warning or a report that shows no permanent failure."""
    message = email.message_from_bytes(raw, policy=email.policy.compat32)
    try:
        temporary, permanent = all_failures(message)
    except Exception:  # a detector tripped on odd bytes: no verdict, so no bounce
        log.warning("a delivery report could not be read", exc_info=True)
        return None
    if not permanent:
        return None
    addresses = ", ".join(sorted(a.decode("utf-8", "replace") for a in permanent))
    return f"delivery report: {addresses} failed"


def take_report(config, mail, now=None) -> str | None:
    """Count the bounce a report to one of our return paths tells of; the mail's outcome,
    or None for mail that is not addressed to a return path. Only the mail the signed
    return path names can be counted, so a report can bounce nothing but the address that
    very mail went to."""
    ours, outbox_id = report_route(config, mail.recipients)
    if not ours:
        return None
    if outbox_id is None:
        return "ignored: delivery report to a return path we did not sign"
    sent = Outbox.get_or_none(Outbox.id == outbox_id)
    if sent is None:
        return f"ignored: delivery report for mail {outbox_id}, which is no longer kept"
    if mail.size > config.max_message_bytes or structure_refusal(mail.raw):
        return f"ignored: delivery report for mail {outbox_id} too large or malformed to read"
    failure = hard_failure(mail.raw)
    if failure is None:
        return f"ignored: delivery report for mail {outbox_id} shows no permanent failure"
    told = bounced(config, sent, now or utcnow(), failure)
    log.warning("mail %d to %s bounced after delivery: %s", sent.id, sent.recipient, failure)
    return f"bounce: mail {outbox_id} to {sent.recipient}" + (f", told {told}" if told else "")
