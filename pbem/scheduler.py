"""The scheduler (APScheduler 3): the jobs that run by themselves inside `pbem serve`.

Deliver the outbox, every 30 seconds for retries, and at once whenever new mail was
queued (`kick_delivery`), so players never wait long for an answer. Every few minutes,
and at start (a day missed while the server was down is caught up), queue the daily
digests that are due (pbem.digest); every hour, expire old confirmation requests and
prune the raw mail and delivered outbox rows past their retention (pbem.mail.retention); with
PBEM_IMAP_HOST, poll the mailbox every PBEM_IMAP_INTERVAL seconds (pbem.mail.imap); every
minute, send the reminders and act on the timeouts and vacations' ends that are due
(pbem.timekeeping.deadlines); every 5 seconds, and at once after mail came in
(`kick_after_mail`), move for the bots the games wait for (pbem.bot_turns). Each job
claims its rows, so two schedulers on one database do no harm.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading

from apscheduler.schedulers.background import BackgroundScheduler

from pbem.bot_turns import move_bots
from pbem.config import Config
from pbem.digest import send_digests
from pbem.mail.confirmations import expire_confirmations
from pbem.mail.imap import imap_configured, poll_mailbox
from pbem.mail.outbox import deliver_due
from pbem.mail.retention import prune
from pbem.timekeeping.deadlines import run_due

log = logging.getLogger(__name__)
DELIVERY_JOB = "deliver-outbox"
DIGEST_JOB, CONFIRM_JOB = "daily-digests", "expire-confirmations"
IMAP_JOB = "poll-imap"
PRUNE_JOB = "prune-mail"
DEADLINE_JOB = "deadlines"
BOT_JOB = "bot-moves"


class Scheduler:
    def __init__(self, config: Config):
        self.config = config
        self.scheduler = BackgroundScheduler(timezone=dt.timezone.utc)
        self.delivery_lock = threading.Lock()
        self.delivering = self.deliver_again = False
        self.scheduler.add_job(self.deliver, "interval", seconds=30, id=DELIVERY_JOB,
                               coalesce=True, max_instances=1,
                               next_run_time=dt.datetime.now(dt.timezone.utc))
        # Polled rather than a cron job at the digest hour: the job itself knows which
        # day is due, so a restart or a failed run is made up at the next tick.
        self.scheduler.add_job(self.digests, "interval", minutes=10, id=DIGEST_JOB,
                               coalesce=True, max_instances=1,
                               next_run_time=dt.datetime.now(dt.timezone.utc))
        self.scheduler.add_job(self.expire, "interval", hours=1, id=CONFIRM_JOB,
                               coalesce=True, max_instances=1)
        self.scheduler.add_job(self.prune, "interval", hours=1, id=PRUNE_JOB,
                               coalesce=True, max_instances=1)
        # Reminders, timeouts and vacations' ends: due rows of the clock table, claimed
        # one by one (pbem.timekeeping.deadlines); at start too, to catch up after a stop.
        self.scheduler.add_job(self.deadlines, "interval", minutes=1, id=DEADLINE_JOB,
                               coalesce=True, max_instances=1,
                               next_run_time=dt.datetime.now(dt.timezone.utc))
        # Bots' moves: searched outside any player's transaction, each claimed seat by
        # seat (pbem.bot_turns); kicked after every mail in, so a bot answers at once.
        self.scheduler.add_job(self.bots, "interval", seconds=5, id=BOT_JOB,
                               coalesce=True, max_instances=1,
                               next_run_time=dt.datetime.now(dt.timezone.utc))
        if imap_configured(config):  # mail in from a mailbox, for a server without an MX
            self.scheduler.add_job(self.poll_imap, "interval", seconds=config.imap_interval,
                                   id=IMAP_JOB, coalesce=True, max_instances=1,
                                   next_run_time=dt.datetime.now(dt.timezone.utc))

    def digests(self) -> None:
        try:
            if send_digests(self.config):
                self.kick_delivery()
        except Exception:  # the claims were rolled back; the next run tries again
            log.exception("sending the daily digests failed")

    def poll_imap(self) -> None:
        try:
            if poll_mailbox(self.config).taken:
                self.kick_after_mail()
        except Exception:  # mailbox unreachable: unseen mail stays there for the next poll
            log.exception("polling the IMAP mailbox failed")

    def expire(self) -> None:
        try:
            expire_confirmations(keep_days=self.config.keep_unanswered_days)
        except Exception:  # the next run tries again
            log.exception("expiring confirmation requests failed")

    def prune(self) -> None:
        try:
            emptied, deleted = prune(self.config)
            if emptied or deleted:
                log.info("pruned the raw bytes of %d inbound mails and %d delivered mails",
                         emptied, deleted)
        except Exception:  # the next run tries again; nothing is lost by waiting
            log.exception("pruning old mail failed")

    def deadlines(self) -> None:
        try:
            if run_due(self.config):
                self.kick_delivery()
        except Exception:  # unclaimed rows stay due; the next run tries again
            log.exception("acting on due deadlines failed")

    def bots(self) -> None:
        try:
            if move_bots(self.config):
                self.kick_delivery()
        except Exception:  # the claims run out; the next run tries again
            log.exception("moving for the bots failed")

    def kick_bots(self) -> None:
        """Move for the bots now rather than at the next tick (a player just moved)."""
        try:
            self.scheduler.modify_job(BOT_JOB, next_run_time=dt.datetime.now(dt.timezone.utc))
        except Exception:  # scheduler shutting down: the next start moves for them
            log.debug("could not kick the bot job", exc_info=True)

    def kick_after_mail(self) -> None:
        """A mail came in: its answer goes out, and any bot it made wait moves."""
        self.kick_delivery()
        self.kick_bots()

    def deliver(self) -> None:
        # A kick while a delivery runs cannot start a second one (max_instances=1:
        # APScheduler skips it), so the running one goes round again for that mail
        # rather than leave it to the next tick, 30 s later.
        while True:
            with self.delivery_lock:
                self.delivering, self.deliver_again = True, False
            try:
                deliver_due(self.config)
            except Exception:  # the next run tries again; the mail stays in the outbox
                log.exception("delivering the outbox failed")
            with self.delivery_lock:
                if not self.deliver_again:
                    self.delivering = False
                    return

    def kick_delivery(self) -> None:
        """Deliver now rather than at the next tick (a player is waiting for the answer)."""
        with self.delivery_lock:
            if self.delivering:
                self.deliver_again = True
                return
        try:
            self.scheduler.modify_job(DELIVERY_JOB, next_run_time=dt.datetime.now(dt.timezone.utc))
        except Exception:  # scheduler shutting down: the mail waits in the outbox
            log.debug("could not kick the delivery job", exc_info=True)

    def start(self) -> None:
        self.scheduler.start()

    def stop(self) -> None:
        self.scheduler.shutdown(wait=True)
