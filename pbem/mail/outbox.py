"""The outbox: mail is queued in the same transaction as the move, delivered after.

`queue` writes a message into the outbox table; it becomes visible to the deliverer only
when the transaction that played the move commits, so a crash never sends news of a move
that was not stored, nor loses the news of one that was. `deliver_due` hands due messages
to the relay (`PBEM_SMTP_RELAY`) or, without one, to a local maildir, and on failure
retries later with a growing pause. Each message is claimed before it is sent, so two
deliverers never send the same message.
"""

from __future__ import annotations

import datetime as dt
import email.policy
import mailbox
import smtplib
from email.message import Message

from pbem.config import Config, host_port
from pbem.store import Game, Outbox
from pbem.store.models import utcnow

CLAIM = dt.timedelta(minutes=2)  # longer than one SMTP conversation may take
FIRST_RETRY, LAST_RETRY = 30, 3600  # seconds: 30 s, 1 min, 2 min, … at most an hour


def queue(message: Message, recipient: str, game: Game | None = None) -> Outbox:
    """Keep the message as it goes on the wire (CRLF line ends, as SMTP wants them)."""
    wire = message.as_bytes(policy=email.policy.SMTP)  # folds only headers that need it
    return Outbox.create(game=game, recipient=recipient, message=wire)


def retry_pause(attempts: int) -> dt.timedelta:
    return dt.timedelta(seconds=min(FIRST_RETRY * 2 ** (attempts - 1), LAST_RETRY))


def deliver_due(config: Config, now: dt.datetime | None = None, limit: int = 200) -> int:
    """Send what is due; returns how many were sent. Safe to run in several processes."""
    now = now or utcnow()
    due = (Outbox.select(Outbox.id).where(Outbox.sent.is_null() & (Outbox.next_attempt <= now))
           .order_by(Outbox.id).limit(limit))
    sent = 0
    with Transport(config) as transport:
        for row in list(due):
            if not _claim(row.id, now):
                continue  # another deliverer has it
            mail = Outbox.get_by_id(row.id)
            try:
                transport.send(mail.recipient, bytes(mail.message))
            except (OSError, smtplib.SMTPException) as error:
                attempts = mail.attempts + 1
                Outbox.update(attempts=attempts, claimed_until=None,
                              last_error=str(error)[:500],
                              next_attempt=now + retry_pause(attempts)
                              ).where(Outbox.id == mail.id).execute()
            else:
                Outbox.update(sent=utcnow(), attempts=mail.attempts + 1, claimed_until=None,
                              last_error="").where(Outbox.id == mail.id).execute()
                sent += 1
    return sent


def _claim(outbox_id: int, now: dt.datetime) -> bool:
    """Atomically mark a message as ours for a while; False if someone else has it."""
    claimed = (Outbox.update(claimed_until=now + CLAIM)
               .where((Outbox.id == outbox_id) & Outbox.sent.is_null()
                      & (Outbox.claimed_until.is_null() | (Outbox.claimed_until < now)))
               .execute())
    return claimed == 1


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
