"""How the server is doing, for an operator: `pbem status` prints it, `/healthz` serves it.

The facts that tell a stuck server from a quiet one: does the database answer, how much
mail waits to go out and since when (a relay that refuses everything shows as a growing
age), how many are being retried, how many games run, when mail last came in.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass

from peewee import DatabaseError, InterfaceError, fn

from pbem.config import Config
from pbem.mail import refusals
from pbem.store import Game, Inbound, Outbox, open_database
from pbem.store.models import utcnow


GIVEN_UP_DAYS = 7  # mail given up on shows in the status this long


@dataclass
class Status:
    database_ok: bool
    database_error: str = ""
    outbox_backlog: int | None = None  # mails not yet delivered
    outbox_retrying: int | None = None  # ... of which at least one attempt failed
    oldest_undelivered_seconds: int | None = None  # age of the oldest; None: none waits
    running_games: int | None = None
    last_inbound_seconds: int | None = None  # since the last mail came in; None: never
    outbox_given_up: int | None = None  # refused for good (5xx) in the last GIVEN_UP_DAYS
    refusals_last_day: dict | None = None  # mail in refused by the sender checks, by reason

    def as_json(self) -> dict:
        return asdict(self)


def check() -> Status:
    """Ask the open database; a database that does not answer is a Status, not an error."""
    try:
        now = utcnow()
        waiting = Outbox.select().where(Outbox.sent.is_null() & Outbox.failed.is_null())
        given_up = Outbox.select().where(
            Outbox.failed >= now - dt.timedelta(days=GIVEN_UP_DAYS)).count()
        oldest = waiting.select(fn.MIN(Outbox.created)).scalar()
        last_in = Inbound.select(fn.MAX(Inbound.received)).scalar()
        return Status(
            database_ok=True,
            outbox_backlog=waiting.count(),
            outbox_retrying=waiting.where(Outbox.attempts > 0).count(),
            oldest_undelivered_seconds=_age(now, oldest),
            running_games=Game.select().where(Game.status == "running").count(),
            last_inbound_seconds=_age(now, last_in),
            outbox_given_up=given_up,
            refusals_last_day=refusals.recent(),
        )
    except (DatabaseError, InterfaceError) as error:  # peewee wraps the driver's errors
        return Status(database_ok=False, database_error=_first_line(error))


def _age(now: dt.datetime, then) -> int | None:
    if then is None:
        return None
    if isinstance(then, str):  # SQLite hands MIN()/MAX() of a date back as text
        then = dt.datetime.fromisoformat(then)
    return max(0, int((now - then).total_seconds()))


def _first_line(error: Exception) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:300]


def describe(status: Status) -> list[str]:
    """The status as lines for a terminal."""
    if not status.database_ok:
        return [f"database:     NOT REACHABLE: {status.database_error}"]
    oldest = status.oldest_undelivered_seconds
    last_in = status.last_inbound_seconds
    return [
        "database:     ok",
        f"outbox:       {status.outbox_backlog} waiting"
        + (f", {status.outbox_retrying} being retried" if status.outbox_retrying else ""),
        f"oldest mail:  {'none waiting' if oldest is None else _duration(oldest) + ' old'}",
        *_transport_lines(status),
        f"games:        {status.running_games} running",
        f"last mail in: {'never' if last_in is None else _duration(last_in) + ' ago'}",
    ]


def _transport_lines(status: Status) -> list[str]:
    """Mail refused on the way out and on the way in, when there is any."""
    lines = []
    if status.outbox_given_up:
        lines.append(f"given up:     {status.outbox_given_up} mail(s) in {GIVEN_UP_DAYS} days "
                     f"(refused for good, or undelivered for 5 days): see last_error in "
                     f"the outbox")
    if status.refusals_last_day:
        counts = ", ".join(f"{reason} {n}" for reason, n in status.refusals_last_day.items())
        lines.append(f"refused in:   {counts} (last 24 h; README: PBEM_AUTHSERV_ID)")
    return lines


def _duration(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    if seconds < 86400:
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"
    return f"{seconds // 86400} d {seconds % 86400 // 3600} h"


def print_status(config: Config, out=print) -> int:
    """`pbem status`: exit 0 when the database answers, 1 when it does not."""
    try:
        open_database(config.database_url, migrate=False)  # look, change nothing
        status = check()
    except (DatabaseError, InterfaceError, ValueError) as error:
        status = Status(database_ok=False, database_error=_first_line(error))
    out(f"pbem for {config.address}, database {without_password(config.database_url)}")
    for line in describe(status):
        out(line)
    return 0 if status.database_ok else 1


def without_password(url: str) -> str:
    """postgresql://user:secret@host/db -> postgresql://user:***@host/db"""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    return f"{scheme}{sep}{credentials.split(':', 1)[0]}:***@{host}"
