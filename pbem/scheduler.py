"""The scheduler (APScheduler 3): the jobs that run by themselves inside `pbem serve`.

For now one job: deliver the outbox, every 30 seconds for retries, and at once whenever
new mail was queued (`kick_delivery`), so players never wait long for an answer.
"""

from __future__ import annotations

import datetime as dt
import logging

from apscheduler.schedulers.background import BackgroundScheduler

from pbem.config import Config
from pbem.mail.outbox import deliver_due

log = logging.getLogger(__name__)
DELIVERY_JOB = "deliver-outbox"


class Scheduler:
    def __init__(self, config: Config):
        self.config = config
        self.scheduler = BackgroundScheduler(timezone=dt.timezone.utc)
        self.scheduler.add_job(self.deliver, "interval", seconds=30, id=DELIVERY_JOB,
                               coalesce=True, max_instances=1,
                               next_run_time=dt.datetime.now(dt.timezone.utc))

    def deliver(self) -> None:
        try:
            deliver_due(self.config)
        except Exception:  # the next run tries again; the mail stays in the outbox
            log.exception("delivering the outbox failed")

    def kick_delivery(self) -> None:
        """Deliver now rather than at the next tick (a player is waiting for the answer)."""
        try:
            self.scheduler.modify_job(DELIVERY_JOB, next_run_time=dt.datetime.now(dt.timezone.utc))
        except Exception:  # scheduler shutting down: the mail waits in the outbox
            log.debug("could not kick the delivery job", exc_info=True)

    def start(self) -> None:
        self.scheduler.start()

    def stop(self) -> None:
        self.scheduler.shutdown(wait=True)
