"""SMTP's enhanced status codes (RFC 3463): read from a relay's answer or a delivery
report, and which of them say that a mailbox is gone.

A refusal's three-digit reply says little (`550` is "mailbox unavailable" and "message
refused as spam" alike); its status code, `class.subject.detail`, says what failed:
subject 1 the address, 2 the mailbox, 7 security or policy (a relay that will not relay
for us, a message refused for its content). Only the first two are the recipient's
mailbox; of them, the codes about the sender (5.1.7, 5.1.8) and the vague "other"
codes (5.1.0, 5.2.0) say nothing certain about it, nor does 5.2.3 (this message was too
long) or 5.2.4 (a list's expansion failed).
"""

from __future__ import annotations

import re

STATUS = re.compile(r"(?<![\d.])([245])\.(\d{1,3})\.(\d{1,3})(?![\d.])")

#: A permanent failure of the recipient's mailbox: no such user (5.1.1), no such domain
#: (5.1.2), a malformed address (5.1.3), an ambiguous one (5.1.4), moved (5.1.6), a
#: domain that takes no mail (5.1.10); disabled (5.2.1), full (5.2.2).
MAILBOX_GONE = frozenset({"5.1.1", "5.1.2", "5.1.3", "5.1.4", "5.1.6", "5.1.10",
                          "5.2.1", "5.2.2"})


def status_in(text: str) -> str:
    """The first status code in `text` ('5.1.1'), or '' when it has none."""
    return _written(STATUS.search(text or ""))


def reply_status(code: int, text: str) -> str:
    """The status of an SMTP reply: the code its text begins with (RFC 2034), when it
    agrees with the reply's class; otherwise the reply code itself ('550'). Only at the
    start: the rest is free text, and may quote what we sent."""
    status = _written(STATUS.match(text.lstrip()))
    return status if status[:1] == str(code)[:1] else str(code)


def _written(match: re.Match | None) -> str:
    if match is None:
        return ""
    return ".".join(str(int(part)) for part in match.groups())  # 5.01.001 is 5.1.1


def mailbox_gone(status: str) -> bool:
    """Whether the status says the recipient's mailbox failed for good."""
    return status in MAILBOX_GONE
