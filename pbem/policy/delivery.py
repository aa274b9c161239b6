"""The outbox delivered, with the policy's say on mail given up for good: whether the
address's bounce counts, and whether the game's other players are told
(pbem.policy.bounces.mails). Mail out (pbem.mail.outbox) delivers and records; it is handed
this decision rather than making it, so that who hears of what is decided in one room.
"""

from __future__ import annotations

import datetime as dt

from pbem.config import Config
from pbem.mail import outbox
from pbem.policy.bounces.mails import gave_up


def deliver_due(config: Config, now: dt.datetime | None = None, limit: int = 200) -> int:
    """Send what is due (pbem.mail.outbox.deliver_due); returns how many were sent."""
    return outbox.deliver_due(config, now, limit, gave_up=gave_up)
