"""The outbox: mail is queued in the same transaction as the move, delivered after.

`queue` writes a message into the outbox table; it becomes visible to the deliverer only
when the transaction that played the move commits, so a crash never sends news of a move
that was not stored, nor loses the news of one that was. `deliver_due` hands due messages
to the relay (`PBEM_SMTP_RELAY`, pbem.mail.relay) or, without one, to a local maildir,
and on failure retries later with a growing pause. Each message is claimed before it is
sent, so two deliverers (two `pbem worker`s on one PostgreSQL database) never send the
same message; a claim lasts two minutes, after which a deliverer that died mid-batch is
taken over — at once, when it ran on this machine and its process is gone.

A message is marked `handed_over` once all of it is written to the relay, before the
relay's answer is read. A deliverer killed in between (kill -9, power loss) leaves the
relay holding the message: it is then counted as sent, not sent a second time with the
same Message-ID. A permanent refusal (5xx) is not retried: the message is marked
`failed`, the operator reads it in the log and `pbem status`, and the deliverer hands
it, with the refusal's status code, to what the policy gave it (`gave_up`,
pbem.policy.delivery), which decides whether it counts against the address and who
hears of it. So is a message still not delivered after GIVE_UP_AFTER (without a status).
Each message leaves with its own return path (pbem.vocabulary.tokens.return_path), made of
its random key. When the relay cannot be reached or refuses
the login, a run stops at the first message: every other one waits for the next run.
A message `held` (by `pbem restore`: it may have gone out before the database went back
in time) is not sent until the operator releases it (`pbem outbox retry`).
"""

from __future__ import annotations

import datetime as dt
import email.policy
import logging
import mailbox
import re
import smtplib
import socket
from email._policybase import Compat32
from email.message import Message
from email.parser import BytesHeaderParser
from typing import Callable

from pbem.config import Config
from pbem.logs import about_mail
from pbem.mail.relay import Refused, Relay, RelayUnavailable
from pbem.vocabulary.tokens import return_path
from pbem.store import Game, Outbox, transaction
from pbem.store.claims import claimer, gone
from pbem.store.counters import count
from pbem.store.database import is_postgres
from pbem.store.models import new_return_key, utcnow
from pbem.store.prepared import Creates

log = logging.getLogger(__name__)

CLAIM = dt.timedelta(minutes=2)  # longer than one SMTP conversation may take
BATCH = 10  # claimed at a time: all sent well within CLAIM, even through a slow relay
FIRST_RETRY, LAST_RETRY = 30, 3600  # seconds: 30 s, 1 min, 2 min, … at most an hour
GIVE_UP_AFTER = dt.timedelta(days=5)  # as an MTA's queue lifetime (Postfix: 5 days)
ASSUMED_SENT = "the deliverer stopped after handing it to the relay; assumed delivered"


SMTP = email.policy.SMTP


class _Wire(Compat32):
    """`email.policy.SMTP`'s bytes, at a quarter of its cost: the classic generator for
    the body, and for a header what SMTP writes. SMTP copies a header verbatim when it
    fits on one line (its `refold_source="long"` rule) and only then needs its header
    registry; here a short printable ASCII header is copied the same way without it, and
    any other is handed to SMTP itself. tests/test_outbox_wire.py compares the two."""

    def fold_binary(self, name: str, value) -> bytes:
        if (isinstance(value, str) and value.isascii() and value.isprintable()
                and len(name) + 2 + len(value) <= SMTP.max_line_length):
            return f"{name}: {value}\r\n".encode("ascii")
        return SMTP.fold_binary(name, value)


WIRE = _Wire(linesep="\r\n")


class Prewritten(Message):
    """A part whose body may be given as it goes on the wire beside its payload: the same
    text with CRLF line ends, ASCII (a picture's base64, joined from its bands': a mail's
    70 KB of it is not searched and copied again for its line ends). Setting the payload
    otherwise forgets it."""

    wire_body: bytes | None = None

    def set_written(self, payload: str, wire: bytes) -> None:
        """`payload` (LF line ends), and `wire`: payload.replace("\n", "\r\n"), ASCII."""
        super().set_payload(payload)
        self.wire_body = wire

    def set_payload(self, payload, charset=None) -> None:
        super().set_payload(payload, charset)
        self.wire_body = None


def wire_bytes(message: Message) -> bytes:
    """The message as it goes on the wire (CRLF line ends, as SMTP wants them), folding
    only the headers that need it: byte for byte `message.as_bytes(policy=SMTP)`."""
    written: list[bytes] = []
    if _write_plainly(message, written):
        return b"".join(written)
    return message.as_bytes(policy=WIRE)


_LINE_END = re.compile(r"\r\n|\r|\n")  # the generator's own (email.generator.NLCRE)


def _write_plainly(part: Message, written: list[bytes]) -> bool:
    """What the generator writes for the messages compose.build makes (parts whose
    bodies are ASCII text already encoded, in multiparts with a boundary and nothing
    before or after the parts), written a body at a time rather than a line at a time
    (a 26×26 game's mail has three hundred lines). False for anything else: the
    generator writes it."""
    if part.preamble is not None or part.epilogue is not None:
        return False
    for name, value in part.raw_items():
        written.append(WIRE.fold_binary(name, value))
    written.append(b"\r\n")
    payload = part._payload
    if part.is_multipart():
        boundary = part.get_boundary()
        if boundary is None or not boundary.isascii():
            return False
        line = boundary.encode("ascii")
        for number, inner in enumerate(payload):
            written.append((b"\r\n--" if number else b"--") + line + b"\r\n")
            if not _write_plainly(inner, written):
                return False
        written.append(b"\r\n--" + line + b"--\r\n")
        return True
    if not isinstance(payload, str):
        return False
    if isinstance(part, Prewritten) and part.wire_body is not None:
        written.append(part.wire_body)  # the payload's bytes with CRLF, made beforehand
        return True
    if not payload.isascii():
        return False
    if "\r" in payload:
        payload = _LINE_END.sub("\n", payload)
    written.append(payload.replace("\n", "\r\n").encode("ascii"))
    return True


def queue(message: Message, recipient: str, game: Game | None = None) -> Outbox:
    """Keep the message as it goes on the wire (`wire_bytes`)."""
    return _OUTBOX(game=game, recipient=recipient, message=wire_bytes(message))


_OUTBOX = Creates(Outbox)  # Outbox.create, its INSERT written once (pbem.store.prepared)


def retry_pause(attempts: int) -> dt.timedelta:
    return dt.timedelta(seconds=min(FIRST_RETRY * 2 ** (attempts - 1), LAST_RETRY))


# Who else hears of a mail given up (config, the row, now, why, the status code of the
# relay's refusal, pbem.vocabulary.statuses, or "" for mail that waited too long): how many
# were told.
GaveUp = Callable[[Config, Outbox, dt.datetime, str, str], int]


def deliver_due(config: Config, now: dt.datetime | None = None, limit: int = 200,
                gave_up: GaveUp | None = None) -> int:
    """Send what is due; returns how many were sent. Safe to run in several processes:
    each claims a few messages at a time and sends only what it claimed. `gave_up` is
    called, in the transaction that records it, for each message given up for good."""
    clock = (lambda: now) if now is not None else utcnow  # tests pass a later `now`
    resume_after_crash(clock())
    sent = handled = 0
    with Transport(config, gave_up) as transport:
        while handled < limit:
            claimed = _claim(clock(), min(BATCH, limit - handled))
            if not claimed:
                break
            handled += len(claimed)
            for number, outbox_id in enumerate(claimed):
                try:
                    sent += _send(config, transport, outbox_id, clock())
                except RelayUnavailable as error:  # nothing can go out now
                    log.error("no mail can go out: %s", error)
                    _release(claimed[number + 1:])
                    _hold_everything(config, outbox_id, clock(), error, gave_up)
                    return sent
    return sent


def _hold_everything(config: Config, outbox_id: int, now: dt.datetime,
                     error: RelayUnavailable, gave_up: GaveUp | None = None) -> None:
    """The relay is out of reach: the message tried waits as any retry does, and every
    other one waits as long (unattempted, its error noted), so that when the relay is back
    they all go out in the order they were queued."""
    until = _retry(config, Outbox.get_by_id(outbox_id), now, error, gave_up)
    if until is not None:
        Outbox.update(next_attempt=until, last_error=str(error)[:500]).where(
            Outbox.sent.is_null() & Outbox.failed.is_null() & Outbox.handed_over.is_null()
            & (Outbox.next_attempt < until) & Outbox.claimed_until.is_null()).execute()


def _claim(now: dt.datetime, size: int) -> list[int]:
    """Mark up to `size` due messages as ours until `now + CLAIM`; their ids, oldest first.

    One statement, so the claim is atomic. On PostgreSQL the rows are picked with
    FOR UPDATE SKIP LOCKED: a second deliverer skips the rows this one is claiming and
    takes the next ones instead of waiting, and a row another one claimed meanwhile is
    checked again under its lock and left out. SQLite runs one writer at a time.
    """
    free = Outbox.claimed_until.is_null() | (Outbox.claimed_until < now)
    waiting = (Outbox.sent.is_null() & Outbox.failed.is_null() & Outbox.handed_over.is_null()
               & Outbox.held.is_null())  # held by `pbem restore`: the operator decides
    due = (Outbox.select(Outbox.id)
           .where(waiting & (Outbox.next_attempt <= now) & free)
           .order_by(Outbox.id).limit(size))
    if is_postgres():
        due = due.for_update(skip_locked=True)
    claimed = (Outbox.update(claimed_until=now + CLAIM, claimed_by=claimer())
               .where(Outbox.id.in_(due) & waiting & free)
               .returning(Outbox.id).execute())
    return sorted(row.id for row in claimed)


def _release(outbox_ids: list[int]) -> None:
    if outbox_ids:
        Outbox.update(claimed_until=None).where(Outbox.id.in_(outbox_ids)
                                                & Outbox.sent.is_null()).execute()


def resume_after_crash(now: dt.datetime) -> None:
    """Take over after a deliverer that died: its claims on this machine end at once
    (its process is gone), and what it had handed to the relay counts as sent."""
    dead = _dead_claimers(now)
    if dead:
        Outbox.update(claimed_until=None).where(
            Outbox.sent.is_null() & Outbox.claimed_by.in_(dead)).execute()
    orphaned = (Outbox.sent.is_null() & Outbox.handed_over.is_null(False)
                & (Outbox.claimed_until.is_null() | (Outbox.claimed_until < now)))
    for row in Outbox.select(Outbox.id, Outbox.recipient).where(orphaned):
        log.warning("outbox %d to %s: %s", row.id, row.recipient, ASSUMED_SENT)
    with transaction():
        taken = (Outbox.update(sent=Outbox.handed_over, claimed_until=None,
                               last_error=ASSUMED_SENT).where(orphaned).execute())
        if taken:
            count("outbox_delivered", amount=taken)


def _dead_claimers(now: dt.datetime) -> list[str]:
    """Claimers on this machine whose process no longer runs (pbem.store.claims)."""
    host = socket.gethostname() + ":"
    names = (Outbox.select(Outbox.claimed_by).distinct()
             .where(Outbox.sent.is_null() & (Outbox.claimed_until >= now)
                    & Outbox.claimed_by.startswith(host)))
    return [row.claimed_by for row in names if gone(row.claimed_by)]


def _send(config: Config, transport: "Transport", outbox_id: int, now: dt.datetime) -> int:
    """Send one claimed message and record how it went; 1 if it was sent."""
    mail = Outbox.get_by_id(outbox_id)
    message = bytes(mail.message)
    handed: list[bool] = []

    def handed_over() -> None:
        Outbox.update(handed_over=utcnow()).where(Outbox.id == mail.id).execute()
        handed.append(True)

    with about_mail(message_id(message), mail.game_id):
        try:
            transport.send(mail.recipient, message, handed_over,
                           return_path(config.secret_key, _return_key(mail), config.domain))
        except RelayUnavailable:  # not about this message: deliver_due holds them all
            raise
        except Refused as error:
            if error.permanent:
                give_up(config, mail, now, str(error), transport.gave_up, error.status)
            else:
                _retry(config, mail, now, error, transport.gave_up)
            return 0
        except (OSError, smtplib.SMTPException) as error:
            if not handed:
                _retry(config, mail, now, error, transport.gave_up)
                return 0
            # The whole message was written; whether the relay kept it is unknown. As
            # after a crash: a relay that lost it is rarer than one that kept it.
            log.warning("delivery to %s: connection lost before the relay's answer (%s); "
                        "assumed delivered", mail.recipient, error)
            _mark_sent(mail, ASSUMED_SENT)
            return 1
        _mark_sent(mail)
        log.info("sent to %s", mail.recipient)
        return 1


def _return_key(mail: Outbox) -> str:
    """The mail's return-path key; one made now for mail queued before there were keys
    (a key, once sent, is never changed: a report may come back to it)."""
    if mail.return_key is None:
        key = new_return_key()
        Outbox.update(return_key=key).where((Outbox.id == mail.id)
                                            & Outbox.return_key.is_null()).execute()
        mail.return_key = Outbox.select(Outbox.return_key).where(
            Outbox.id == mail.id).scalar()
    return mail.return_key


def _mark_sent(mail: Outbox, note: str = "") -> None:
    with transaction():  # sent, and counted for the operator's metrics, together
        Outbox.update(sent=utcnow(), attempts=mail.attempts + 1, claimed_until=None,
                      last_error=note).where(Outbox.id == mail.id).execute()
        count("outbox_delivered")


def _retry(config: Config, mail: Outbox, now: dt.datetime, error: Exception,
           gave_up: GaveUp | None = None) -> dt.datetime | None:
    """Try again later (returns when), or give up on a message that waited too long."""
    if now - mail.created > GIVE_UP_AFTER:
        give_up(config, mail, now, f"still not delivered after {GIVE_UP_AFTER.days} days: "
                                   f"{error}", gave_up)
        return None
    attempts = mail.attempts + 1
    pause = retry_pause(attempts)
    Outbox.update(attempts=attempts, claimed_until=None, handed_over=None,
                  last_error=str(error)[:500], next_attempt=now + pause
                  ).where(Outbox.id == mail.id).execute()
    log.warning("delivery to %s failed (attempt %d, next in %d s): %s",
                mail.recipient, attempts, pause.total_seconds(), error)
    return now + pause


def give_up(config: Config, mail: Outbox, now: dt.datetime, why: str,
            gave_up: GaveUp | None = None, status: str = "") -> None:
    """Never again: record it, tell the operator (log, `pbem status`), and whoever the
    policy says should hear of it (`gave_up`: the game's other players, where that
    tells them nothing secret). `status`: the relay's refusal's code, "" for mail that
    waited too long."""
    with transaction():
        Outbox.update(failed=now, attempts=mail.attempts + 1, claimed_until=None,
                      handed_over=None, last_error=why[:500]).where(Outbox.id == mail.id
                                                                    ).execute()
        count("outbox_given_up")  # for good: cleanup deletes the row, not the count
        told = gave_up(config, mail, now, why, status) if gave_up is not None else 0
    log.error("gave up on mail to %s: %s%s", mail.recipient, why,
              f" (told {told} other player(s) of the game)" if told else "")


def message_id(message: bytes) -> str:
    headers = BytesHeaderParser(policy=email.policy.compat32).parsebytes(message)
    return str(headers.get("Message-ID", "")).strip()


class Transport:
    """Where mail goes: the relay (one connection for a whole batch, opened at the first
    message, reopened after a failure), or the local maildir."""

    def __init__(self, config: Config, gave_up: GaveUp | None = None):
        self.config, self.gave_up = config, gave_up
        self.relay = Relay(config) if config.smtp_relay else None

    def send(self, recipient: str, message: bytes,
             handed_over: Callable[[], None] = lambda: None, sender: str = "") -> None:
        """`sender`: the envelope's return path (the mail's own, for its bounces)."""
        if self.relay is None:
            mailbox.Maildir(self.config.maildir, create=True).add(message)
            return
        self.relay.send(sender or self.config.address, recipient, message, handed_over)

    def close(self) -> None:
        if self.relay is not None:
            self.relay.close()

    def __enter__(self) -> "Transport":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def due_now(now: dt.datetime) -> int:
    """Every mail waiting for its next try (not given up, not being sent by a deliverer
    now) made due at `now`: the operator mended the relay (`pbem deliver`); how many."""
    return (Outbox.update(next_attempt=now)
            .where(Outbox.sent.is_null() & Outbox.failed.is_null() & Outbox.held.is_null()
                   & Outbox.handed_over.is_null() & (Outbox.next_attempt > now)
                   & (Outbox.claimed_until.is_null() | (Outbox.claimed_until < now)))
            .execute())


def pending() -> int:
    return Outbox.select().where(Outbox.sent.is_null() & Outbox.failed.is_null()
                                 & Outbox.held.is_null()).count()


def hold_waiting(now: dt.datetime) -> int:
    """Every mail waiting (not sent, not given up, not handed to the relay) held until
    the operator says: a restore's, which may have gone out after the backup. How many."""
    return (Outbox.update(held=now, claimed_until=None)
            .where(Outbox.sent.is_null() & Outbox.failed.is_null()
                   & Outbox.handed_over.is_null() & Outbox.held.is_null()).execute())
