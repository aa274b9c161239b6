"""`pbem worker`: mail in and the scheduler, without the web — the production split.

In production the web runs under gunicorn (`pbem.web.wsgi:app`) and one or more
workers take mail (the SMTP and LMTP listeners, as configured) and run every scheduler
job: outbox delivery and whatever else `pbem.scheduler.Scheduler` schedules. Several
workers may share one PostgreSQL database: every job claims its rows, so nothing is done
twice. `pbem serve` runs the same `MailWorker` beside the web in one process.
"""

from __future__ import annotations

import logging
import signal
import threading

from pbem import templating
from pbem.config import Config
from pbem.intake.listener import start_listener
from pbem.logs import install_logging
from pbem.scheduler import Scheduler
from pbem.operator.status import without_password
from pbem.store import open_database

log = logging.getLogger(__name__)


class MailWorker:
    """The listeners and the scheduler of one process; `start` and `stop` them together."""

    def __init__(self, config: Config):
        self.config = config
        self.listeners = []
        self.scheduler = Scheduler(config, listening=self.listening)
        self.scheduling = False

    def start(self) -> None:
        config = self.config
        # A listener that cannot bind (port taken) fails here, before anything runs.
        if config.smtp_listen:
            self.listeners.append(start_listener(config, config.smtp_listen,
                                                 after_receive=self.scheduler.kick_after_mail))
        if config.lmtp_listen:
            self.listeners.append(start_listener(config, config.lmtp_listen, lmtp=True,
                                                 after_receive=self.scheduler.kick_after_mail))
        self.scheduler.start()
        self.scheduling = True

    def listening(self) -> tuple[int, int]:
        """(listeners this worker runs, of which take connections now), for its tick."""
        configured = bool(self.config.smtp_listen) + bool(self.config.lmtp_listen)
        return configured, sum(1 for listener in self.listeners if _takes_mail(listener))

    def stop(self) -> None:
        """Stop taking mail first, then let a running job finish (its mail is claimed)."""
        for listener in self.listeners:
            listener.stop()
        self.listeners = []
        if self.scheduling:
            self.scheduler.stop()
            self.scheduling = False

    def describe(self) -> list[str]:
        """Where mail comes in and goes out, for the start-up banner."""
        config = self.config
        lines = []
        if config.smtp_listen:
            lines.append(f"  mail in:      SMTP on {config.smtp_listen}")
        if config.lmtp_listen:
            lines.append(f"  mail in:      LMTP on {config.lmtp_listen}")
        out = (f"relay {config.smtp_relay}" if config.smtp_relay else
               f"the maildir {config.maildir}/ (no PBEM_SMTP_RELAY set)")
        lines.append(f"  mail out:     {out}")
        lines.append(f"  database:     {without_password(config.database_url)}")
        return lines


def _takes_mail(listener) -> bool:
    """Whether an aiosmtpd listener's thread runs and its socket accepts connections."""
    thread, server = getattr(listener, "_thread", None), getattr(listener, "server", None)
    return bool(thread is not None and thread.is_alive() and server is not None
                and server.is_serving())


def work(config: Config, out=print) -> None:
    """Run the mail worker until SIGTERM (a service manager's stop) or Ctrl-C."""
    install_logging(config)
    templating.snapshot()  # its own version's mail, whatever is installed later
    open_database(config.database_url)
    worker = MailWorker(config)
    stopped = threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda signum, frame: stopped.set())
        signal.signal(signal.SIGINT, lambda signum, frame: stopped.set())
    try:
        worker.start()  # OSError when a port is taken: what did start is stopped below
        out(f"pbem worker is running for {config.address}")
        for line in worker.describe():
            out(line)
        while not stopped.wait(timeout=3600):  # a wait a signal handler can end
            pass
    finally:
        log.info("pbem worker stopping")
        worker.stop()
