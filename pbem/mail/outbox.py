"""The outbox: mail is queued in the same transaction as the move, delivered after.

`queue` writes a message into the outbox table; it becomes visible to the deliverer only
when the transaction that played the move commits, so a crash never sends news of a move
that was not stored, nor loses the news of one that was. `deliver_due` hands due messages
to the relay (`PBEM_SMTP_RELAY`) or, without one, to a local maildir, and on failure
retries later with a growing pause. Each message is claimed before it is sent, so two
deliverers (two `pbem worker`s on one PostgreSQL database) never send the same message;
a claim lasts two minutes, after which a deliverer that died mid-batch is taken over.
"""

from __future__ import annotations

import datetime as dt
import email.policy
import logging
import mailbox
import smtplib
from email.message import Message
from email.parser import BytesHeaderParser

from pbem.config import Config, host_port
from pbem.logs import about_mail
from pbem.store import Game, Outbox
from pbem.store.database import is_postgres
from pbem.store.models import utcnow

log = logging.getLogger(__name__)

CLAIM = dt.timedelta(minutes=2)  # longer than one SMTP conversation may take
BATCH = 10  # claimed at a time: all sent well within CLAIM, even through a slow relay
FIRST_RETRY, LAST_RETRY = 30, 3600  # seconds: 30 s, 1 min, 2 min, … at most an hour


def queue(message: Message, recipient: str, game: Game | None = None) -> Outbox:
    """Keep the message as it goes on the wire (CRLF line ends, as SMTP wants them)."""
    wire = message.as_bytes(policy=email.policy.SMTP)  # folds only headers that need it
    return Outbox.create(game=game, recipient=recipient, message=wire)


def retry_pause(attempts: int) -> dt.timedelta:
    return dt.timedelta(seconds=min(FIRST_RETRY * 2 ** (attempts - 1), LAST_RETRY))


def deliver_due(config: Config, now: dt.datetime | None = None, limit: int = 200) -> int:
    """Send what is due; returns how many were sent. Safe to run in several processes:
    each claims a few messages at a time and sends only what it claimed."""
    clock = (lambda: now) if now is not None else utcnow  # tests pass a later `now`
    sent = handled = 0
    with Transport(config) as transport:
        while handled < limit:
            claimed = _claim(clock(), min(BATCH, limit - handled))
            if not claimed:
                break
            handled += len(claimed)
            sent += sum(_send(transport, outbox_id, clock()) for outbox_id in claimed)
    return sent


def _claim(now: dt.datetime, size: int) -> list[int]:
    """Mark up to `size` due messages as ours until `now + CLAIM`; their ids, oldest first.

    One statement, so the claim is atomic. On PostgreSQL the rows are picked with
    FOR UPDATE SKIP LOCKED: a second deliverer skips the rows this one is claiming and
    takes the next ones instead of waiting, and a row another one claimed meanwhile is
    checked again under its lock and left out. SQLite runs one writer at a time.
    """
    free = Outbox.claimed_until.is_null() | (Outbox.claimed_until < now)
    due = (Outbox.select(Outbox.id)
           .where(Outbox.sent.is_null() & (Outbox.next_attempt <= now) & free)
           .order_by(Outbox.id).limit(size))
    if is_postgres():
        due = due.for_update(skip_locked=True)
    claimed = (Outbox.update(claimed_until=now + CLAIM)
               .where(Outbox.id.in_(due) & Outbox.sent.is_null() & free)
               .returning(Outbox.id).execute())
    return sorted(row.id for row in claimed)


def _send(transport: "Transport", outbox_id: int, now: dt.datetime) -> int:
    """Send one claimed message and record how it went; 1 if it was sent."""
    mail = Outbox.get_by_id(outbox_id)
    message = bytes(mail.message)
    with about_mail(_message_id(message), mail.game_id):
        try:
            transport.send(mail.recipient, message)
        except (OSError, smtplib.SMTPException) as error:
            attempts = mail.attempts + 1
            pause = retry_pause(attempts)
            Outbox.update(attempts=attempts, claimed_until=None, last_error=str(error)[:500],
                          next_attempt=now + pause).where(Outbox.id == mail.id).execute()
            log.warning("delivery to %s failed (attempt %d, next in %d s): %s",
                        mail.recipient, attempts, pause.total_seconds(), error)
            return 0
        Outbox.update(sent=utcnow(), attempts=mail.attempts + 1, claimed_until=None,
                      last_error="").where(Outbox.id == mail.id).execute()
        log.info("sent to %s", mail.recipient)
        return 1


def _message_id(message: bytes) -> str:
    headers = BytesHeaderParser(policy=email.policy.compat32).parsebytes(message)
    return str(headers.get("Message-ID", "")).strip()


class Transport:
    """Where mail goes: one SMTP connection to the relay for a whole batch (opened at the
    first message, reopened after a failure), or the local maildir."""

    def __init__(self, config: Config):
        self.config = config
        self.smtp: smtplib.SMTP | None = None

    def send(self, recipient: str, message: bytes) -> None:
        if not self.config.smtp_relay:
            mailbox.Maildir(self.config.maildir, create=True).add(message)
            return
        try:
            if self.smtp is None:
                host, port = host_port(self.config.smtp_relay, 25)
                self.smtp = smtplib.SMTP(host, port, timeout=30)
            self.smtp.sendmail(self.config.address, [recipient], message)
        except (OSError, smtplib.SMTPException):
            self.close()
            raise

    def close(self) -> None:
        if self.smtp is not None:
            try:
                self.smtp.quit()
            except (OSError, smtplib.SMTPException):
                pass
            self.smtp = None

    def __enter__(self) -> "Transport":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def pending() -> int:
    return Outbox.select().where(Outbox.sent.is_null()).count()
