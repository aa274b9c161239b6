"""What a delivery report says failed for good: each recipient, its status code, and the
report's words for it.

A standard report (RFC 3464) says it in its message/delivery-status part, read here with
the email package: one block a recipient, `Action: failed` for a permanent failure,
`Status: 5.1.1`, `Final-Recipient:` (and `Original-Recipient:` where an alias was
followed). The older formats still sent (Exim's, qmail's, …) say it in prose, which
flufl.bounce's detectors (Mailman's) read for the addresses; the status code is then the
first one in the paragraph of the report that first names the address — before the copy
of our mail that such reports append, whose text a player may have written. A delay
warning (`Action: delayed`) is no failure.
"""

from __future__ import annotations

import email
import email.policy
import logging
import re
from dataclasses import dataclass
from email.message import Message

from flufl.bounce import all_failures

from notation.text import clean_text
from pbem.vocabulary.statuses import status_in

log = logging.getLogger(__name__)

WORDS = 300  # characters of a report's words kept for the operator


@dataclass(frozen=True)
class Failure:
    """One recipient a report says failed for good."""
    recipients: frozenset[str]  # the address that failed, and the one it was sent to
    status: str  # '5.1.1', or '' when the report gives none
    words: str  # the report's own words for it, one line without control characters


def permanent_failures(raw: bytes) -> list[Failure]:
    """Every recipient the report says failed for good; [] for a delay warning, a report
    of success, or one nothing can be read from."""
    message = email.message_from_bytes(raw, policy=email.policy.compat32)
    blocks = _status_blocks(message)
    if blocks is not None:
        return [failure for failure in map(_from_block, blocks) if failure is not None]
    try:
        temporary, permanent = all_failures(message)
    except Exception:  # a detector tripped on odd bytes: no verdict, so no failure
        log.warning("a delivery report could not be read", exc_info=True)
        return []
    text = _first_text(message)
    failures = []
    for address in sorted(a.decode("utf-8", "replace").lower() for a in permanent):
        paragraph = _paragraph_naming(text, address)
        failures.append(Failure(frozenset({address}), status_in(paragraph),
                                _one_line(paragraph or f"{address} failed")))
    return failures


def _status_blocks(message: Message) -> list[Message] | None:
    """The per-recipient blocks of the report's message/delivery-status parts; None for
    a report without one (an older format)."""
    found = None
    for part in message.walk():
        if part.get_content_type() == "message/delivery-status":
            payload = part.get_payload()
            if isinstance(payload, list):  # the first block is about the whole message
                found = (found or []) + payload[1:]
    return found


def _from_block(block: Message) -> Failure | None:
    if str(block.get("Action", "")).strip().lower() != "failed":
        return None
    recipients = frozenset(filter(None, (_address(block.get(name))
                                         for name in ("Final-Recipient", "Original-Recipient"))))
    status = status_in(str(block.get("Status", "")))
    diagnosis = str(block.get("Diagnostic-Code", "")).partition(";")[2] or status
    return Failure(recipients, status, _one_line(diagnosis))


def _address(field) -> str:
    """'rfc822; Bob@Example.org' -> 'bob@example.org'."""
    if field is None:
        return ""
    kind, _, address = str(field).partition(";")
    return address.strip().strip("<>").strip().lower() if address else kind.strip().lower()


def _first_text(message: Message) -> str:
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True) or b""
            return payload.decode(part.get_content_charset() or "utf-8", "replace")
    return ""


def _paragraph_naming(text: str, address: str) -> str:
    """The first paragraph (lines between blank ones) of `text` that names `address`."""
    for paragraph in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n")):
        if address in paragraph.lower():
            return paragraph
    return ""


def _one_line(text: str) -> str:
    return " ".join(clean_text(text).split())[:WORDS]
