"""The scheduler (APScheduler 3): the jobs that run by themselves inside `pbem serve`.

Deliver the outbox, every 30 seconds for retries, and at once whenever new mail was
queued (`kick_delivery`), so players never wait long for an answer. Every few minutes,
and at start (a day missed while the server was down is caught up), queue the daily
digests that are due (pbem.policy.digest); every hour, expire old confirmation requests and
prune the raw mail and delivered outbox rows past their retention (pbem.intake.retention); with
PBEM_IMAP_HOST, poll the mailbox every PBEM_IMAP_INTERVAL seconds (pbem.intake.imap); every
minute, send the reminders and act on the timeouts and vacations' ends that are due
(pbem.timekeeping.deadlines); every 5 seconds, and at once after mail came in
(`kick_after_mail`), move for the bots the games wait for (pbem.bot_turns; they think
in a child process at the lowest priority, pbem.bot_search); every
minute, start the tournaments' rounds that are due and expire old open challenges
(pbem.competition); every 15 seconds, write this worker's tick and whether its listeners
take mail (pbem.store.workers: `/metrics` and `pbem status` show a worker that stopped
ticking). Each job claims its rows, so two schedulers on one database do no harm.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading

from apscheduler.schedulers.background import BackgroundScheduler

from pbem.bot_search import Searcher
from pbem.commands.server_moves import move_bots, run_due
from pbem.competition.jobs import run_competition
from pbem.config import Config
from pbem.intake.confirmations import expire_confirmations
from pbem.intake.imap import imap_configured, poll_mailbox
from pbem.intake.retention import prune
from pbem.policy.delivery import deliver_due
from pbem.policy.digest import send_digests
from pbem.store import workers

log = logging.getLogger(__name__)
DELIVERY_JOB = "deliver-outbox"
DIGEST_JOB, CONFIRM_JOB = "daily-digests", "expire-confirmations"
IMAP_JOB = "poll-imap"
PRUNE_JOB = "prune-mail"
DEADLINE_JOB = "deadlines"
BOT_JOB = "bot-moves"
COMPETITION_JOB = "competition"
HEARTBEAT_JOB = "heartbeat"
HEARTBEAT_SECONDS = 15  # a silence of minutes is a worker that stopped (deploy/prometheus/)
#: What each job does, as APScheduler's own log lines name it ('Execution of job
#: "delivering the outbox" skipped: ...') and as a failure is logged ("... failed"):
#: never the callable's name (`Again.__call__`, a bound method).
JOB_NAMES = {
    DELIVERY_JOB: "delivering the outbox",
    DIGEST_JOB: "sending the daily digests",
    CONFIRM_JOB: "expiring confirmation requests",
    PRUNE_JOB: "pruning old mail",
    DEADLINE_JOB: "acting on due deadlines",
    BOT_JOB: "moving for the bots",
    COMPETITION_JOB: "starting tournament rounds and expiring challenges",
    IMAP_JOB: "polling the IMAP mailbox",
    HEARTBEAT_JOB: "recording this worker's tick",
}


class Again:
    """A job that a kick runs now: a kick while it runs cannot start a second run
    (max_instances=1: APScheduler skips it), so the running one goes round once more
    rather than leave the kick's work to the next tick."""

    def __init__(self, scheduler: BackgroundScheduler, job_id: str, work):
        self.scheduler, self.job_id, self.work = scheduler, job_id, work
        self.lock = threading.Lock()
        self.running = self.again = False

    def __call__(self) -> None:
        while True:
            with self.lock:
                self.running, self.again = True, False
            self.work()
            with self.lock:
                if not self.again:
                    self.running = False
                    return

    def kick(self) -> None:
        with self.lock:
            if self.running:
                self.again = True
                return
        try:
            self.scheduler.modify_job(self.job_id, next_run_time=dt.datetime.now(dt.timezone.utc))
        except Exception:  # scheduler shutting down: the next start does the work
            log.debug("could not kick %s", self.job_id, exc_info=True)


class Scheduler:
    def __init__(self, config: Config, listening=lambda: (0, 0)):
        """`listening()`: (listeners run, listeners taking mail), for the heartbeat."""
        self.config, self.listening = config, listening
        self.scheduler = BackgroundScheduler(timezone=dt.timezone.utc)
        now = dt.datetime.now(dt.timezone.utc)
        self.delivery = Again(self.scheduler, DELIVERY_JOB, self.deliver_once)
        self.bot_moves = Again(self.scheduler, BOT_JOB, self.bots)
        # Bots think in a child process at the lowest priority (pbem.bot_search), so
        # their search never competes with players' mail and pages.
        self.searcher = Searcher()

        def every(work, job_id, at_start=True, **interval):
            self.scheduler.add_job(work, "interval", id=job_id, name=JOB_NAMES[job_id],
                                   coalesce=True, max_instances=1, **interval,
                                   **({"next_run_time": now} if at_start else {}))
        every(self.delivery, DELIVERY_JOB, seconds=30)
        # Polled rather than a cron job at the digest hour: the job itself knows which
        # day is due, so a restart or a failed run is made up at the next tick.
        every(self.digests, DIGEST_JOB, minutes=10)
        every(self.expire, CONFIRM_JOB, at_start=False, hours=1)
        every(self.prune, PRUNE_JOB, at_start=False, hours=1)
        # Reminders, timeouts and vacations' ends: due rows of the clock table, claimed
        # one by one (pbem.timekeeping.deadlines); at start too, to catch up after a stop.
        every(self.deadlines, DEADLINE_JOB, minutes=1)
        # Bots' moves: searched outside any player's transaction, each claimed seat by
        # seat (pbem.bot_turns); kicked after every mail in, so a bot answers at once.
        every(self.bot_moves, BOT_JOB, seconds=5)
        every(self.competition, COMPETITION_JOB, minutes=1)  # rounds due, seeks expired
        if imap_configured(config):  # mail in from a mailbox, for a server without an MX
            every(self.poll_imap, IMAP_JOB, seconds=config.imap_interval)
        # This worker's liveness for the operator (pbem.store.workers): the first tick is
        # written by start(), the job writes the next ones.
        every(self.heartbeat, HEARTBEAT_JOB, at_start=False, seconds=HEARTBEAT_SECONDS)

    def _run(self, job_id: str, work, then=None) -> None:
        """One run of a job: `then()` if it did something; a failure is logged by the
        job's name, and the next run tries again (every job's work is claimed rows or a
        retry-safe read)."""
        try:
            if work() and then is not None:
                then()
        except Exception:
            log.exception("%s failed", JOB_NAMES[job_id])

    def digests(self) -> None:
        self._run(DIGEST_JOB, lambda: send_digests(self.config),
                  self.kick_delivery)

    def poll_imap(self) -> None:
        self._run(IMAP_JOB, lambda: poll_mailbox(self.config).taken,
                  self.kick_after_mail)

    def expire(self) -> None:
        self._run(CONFIRM_JOB,
                  lambda: expire_confirmations(keep_days=self.config.keep_unanswered_days))

    def prune(self) -> None:
        def pruning():
            emptied, deleted = prune(self.config)
            if emptied or deleted:
                log.info("pruned the raw bytes of %d inbound mails and %d delivered mails",
                         emptied, deleted)
        self._run(PRUNE_JOB, pruning)

    def deadlines(self) -> None:
        self._run(DEADLINE_JOB, lambda: run_due(self.config, searcher=self.searcher),
                  self.kick_delivery)

    def bots(self) -> None:
        self._run(BOT_JOB, lambda: move_bots(self.config, searcher=self.searcher),
                  self.kick_delivery)

    def competition(self) -> None:
        self._run(COMPETITION_JOB, lambda: run_competition(self.config),
                  self.kick_delivery)

    def heartbeat(self, started: bool = False) -> None:
        def ticking():
            workers.tick(self.config.worker, *self.listening(), started=started)
        self._run(HEARTBEAT_JOB, ticking)

    def deliver_once(self) -> None:
        self._run(DELIVERY_JOB, lambda: deliver_due(self.config))

    def deliver(self) -> None:
        self.delivery()

    def kick_bots(self) -> None:
        """Move for the bots now rather than at the next tick (a player just moved)."""
        self.bot_moves.kick()

    def kick_after_mail(self) -> None:
        """A mail came in: its answer goes out, and any bot it made wait moves."""
        self.kick_delivery()
        self.kick_bots()

    def kick_delivery(self) -> None:
        """Deliver now rather than at the next tick (a player is waiting for the answer)."""
        self.delivery.kick()

    def start(self) -> None:
        self.heartbeat(started=True)
        self.scheduler.start()

    def stop(self) -> None:
        """Let a running job finish; then this worker is no longer expected to tick."""
        self.scheduler.shutdown(wait=True)
        self.searcher.close()
        self._run(HEARTBEAT_JOB, lambda: workers.stopped(self.config.worker))
