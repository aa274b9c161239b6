"""Delivery reports that come back to a mail's own return path (VERP).

Each mail we send leaves with an envelope sender of its own, `pbem-bounce+b-<key>-<mac>@`
(pbem.vocabulary.tokens.return_path; the key is the mail's random one). A relay that accepted
it and failed to deliver it later sends its report there (RFC 3464, or one of the many
older formats), so the report names, by its address alone, the very mail that bounced.

A report is believed only as far as it is proof (pbem.intake.failures reads it):

- it counts only when its return path is one we signed and names a mail still kept;
- only when the recipient it says failed is that mail's recipient (a report about
  another address proves nothing about this one);
- only when it says the mailbox failed for good (5.1.1 no such user, 5.2.1 disabled,
  …: pbem.policy.bounces.scores.counts). A refusal of the message itself (5.7.1, its content)
  is noted on the mail for the operator (`pbem outbox --sent`, the log) and counts
  nothing; a delay warning changes nothing;
- once for the mail it is about, however often it comes (pbem.policy.bounces.mails).

A report is never answered: its sender is a machine.
"""

from __future__ import annotations

import logging

from pbem.intake.failures import Failure, permanent_failures
from pbem.intake.prescan import structure_refusal
from pbem.vocabulary.tokens import ReturnPath, is_return_path, read_return_path
from pbem.policy.bounces.scores import counts
from pbem.policy.bounces.mails import bounced
from pbem.store import Outbox
from pbem.store.models import utcnow

log = logging.getLogger(__name__)


def report_route(config, recipients: list[str]) -> tuple[bool, ReturnPath | None]:
    """(whether the mail is addressed to our return paths, the mail a genuine one names
    or None)."""
    ours = [a for a in recipients if is_return_path(a, config.domain)]
    for address in ours:
        path = read_return_path(config.secret_key, address, config.domain)
        if path is not None:
            return True, path
    return bool(ours), None


def reported_mail(path: ReturnPath) -> Outbox | None:
    """The mail a return path names: by its key; by its id only a mail queued before the
    keys, which has none (a later mail given the same id has a key, and is not it)."""
    if path.key is not None:
        return Outbox.get_or_none(Outbox.return_key == path.key)
    return Outbox.get_or_none((Outbox.id == path.outbox) & Outbox.return_key.is_null())


def take_report(config, mail, now=None) -> str | None:
    """Count the bounce a report to one of our return paths proves; the mail's outcome,
    or None for mail that is not addressed to a return path."""
    ours, path = report_route(config, mail.recipients)
    if not ours:
        return None
    if path is None:
        return "ignored: delivery report to a return path we did not sign"
    sent = reported_mail(path)
    if sent is None:
        return "ignored: delivery report for a mail that is no longer kept"
    if mail.size > config.max_message_bytes or structure_refusal(mail.raw):
        return f"ignored: delivery report for mail {sent.id} too large or malformed to read"
    failures = permanent_failures(mail.raw)
    if not failures:  # a delay warning: the relay is still trying
        log.info("a delivery report for mail %d to %s shows no permanent failure (a delay "
                 "warning?); nothing counted", sent.id, sent.recipient)
        return f"ignored: delivery report for mail {sent.id} shows no permanent failure"
    failure = next((f for f in failures if sent.recipient and sent.recipient.lower()
                    in f.recipients), None)
    if failure is None:
        return (f"ignored: delivery report for mail {sent.id} says another recipient failed, "
                f"not the mail's")
    if not counts(failure.status):
        return _not_counted(sent, failure)
    told = bounced(config, sent, now or utcnow(), f"delivery report: {failure.words}")
    if told is None:
        return f"ignored: delivery report for mail {sent.id}, whose bounce is counted already"
    log.warning("mail %d to %s bounced after delivery: %s", sent.id, sent.recipient,
                failure.words)
    return f"bounce: mail {sent.id} to {sent.recipient}" + (f", told {told}" if told else "")


def _not_counted(sent: Outbox, failure: Failure) -> str:
    """A permanent failure that is not the mailbox's (a refusal of the message, its
    content, a policy): the operator reads it with the mail; the address keeps its score."""
    status = failure.status or "no status code"
    note = f"delivery report ({status}, not counted): {failure.words}"[:500]
    Outbox.update(last_error=note).where(Outbox.id == sent.id).execute()
    log.warning("mail %d to %s was refused after delivery (%s), not a failure of the "
                "mailbox, so not counted: %s", sent.id, sent.recipient, status, failure.words)
    return (f"bounce: mail {sent.id} to {sent.recipient} refused with {status}: not a "
            f"failure of the mailbox, not counted")
