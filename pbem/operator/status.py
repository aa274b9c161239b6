"""How the server is doing, for an operator: `pbem status` prints it, `/healthz` serves it.

The facts that tell a stuck server from a quiet one: does the database answer, how much
mail waits to go out and since when (a relay that refuses everything shows as a growing
age), how many are being retried, how many games run, when mail last came in, how much
of our mail bounces, when the last backup was made. A database with no pbem tables in it
is said to be empty (`pbem migrate` fills it), not unreachable.

`pbem status` only looks: a SQLite file is opened read-only and only if it exists, the
schema is not migrated, and no secret key file is made, so a status run in the wrong
directory or without the settings says what is missing instead of creating it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import quote

from peewee import DatabaseError, InterfaceError, SqliteDatabase, fn

from pbem import build
from pbem.config import Config, secret_path
from pbem.intake import refusals
from pbem.store import Game, Inbound, Outbox, backups, open_database, workers
from pbem.store.database import (applied_migrations, known_migrations,  # noqa: F401
                                 missing_sqlite_file, sqlite_path,
                                 without_password)  # (status.without_password: the worker's)
from pbem.store.models import Bounce, database, utcnow

GIVEN_UP_DAYS = 7  # mail given up on shows in the status this long
WORKERS_MIGRATION = "0038_counters_workers"  # the table of workers' ticks
BACKUPS_MIGRATION = "0042_restores"  # the table of backups, outbox.held
BOUNCES_MIGRATION = "0025_bounces"  # the table of addresses that bounce
EMPTY = ("EMPTY: it holds no pbem tables. `pbem migrate` creates them (so does the first "
         "start of `pbem worker`)")
SILENT = 120  # seconds without a tick: a worker that stopped (heartbeat every 15 s)


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
    unconfirmed_mail_last_hour: int | None = None  # mail to never-confirmed addresses
    unconfirmed_capped_last_day: int | None = None  # mails unanswered for the hourly cap
    schema: str | None = None  # the database's newest migration (None: none applied)
    schema_known: str | None = None  # this code's newest migration
    schema_waiting: list | None = None  # migrations this code has that are not applied yet
    schema_unknown: list | None = None  # migrations applied that this code does not know
    schema_ok: bool | None = None  # False: the schema is newer than this code (restart it
    #                                with the pbem that migrated it; deploy/README.md)
    workers: list | None = None  # each worker's name, last tick (seconds ago), listeners
    empty: bool = False  # the database answers, and holds no pbem tables
    outbox_held: int | None = None  # held by `pbem restore` until the operator releases it
    bounced_last_day: int | None = None  # addresses with a hard bounce in the last day
    addresses_bouncing: int | None = None  # ... past the threshold: mailed nothing
    last_backup_seconds: int | None = None  # since the newest whole backup; None: none

    def as_json(self) -> dict:
        return {**asdict(self), **build.info()}  # which pbem answered: version, commit


def check() -> Status:
    """Ask the open database; a database that does not answer is a Status, not an error."""
    try:
        if not database.obj.table_exists("pbem_schema"):
            return Status(database_ok=False, database_error=EMPTY, empty=True)
        now = utcnow()
        schema = _schema()
        recent = BACKUPS_MIGRATION not in schema["schema_waiting"]  # outbox.held, backup
        unsent = Outbox.select().where(Outbox.sent.is_null() & Outbox.failed.is_null())
        waiting = unsent.where(Outbox.held.is_null()) if recent else unsent
        given_up = Outbox.select().where(
            Outbox.failed >= now - dt.timedelta(days=GIVEN_UP_DAYS)).count()
        oldest = waiting.select(fn.MIN(Outbox.created)).scalar()
        last_in = Inbound.select(fn.MAX(Inbound.received)).scalar()
        return Status(
            database_ok=True,
            outbox_backlog=waiting.count(),
            outbox_retrying=waiting.where(Outbox.attempts > 0).count(),
            oldest_undelivered_seconds=seconds_since(now, oldest),
            running_games=Game.select().where(Game.status == "running").count(),
            last_inbound_seconds=seconds_since(now, last_in),
            outbox_given_up=given_up,
            refusals_last_day=refusals.recent(),
            **_unconfirmed(now),
            **schema,
            workers=_workers(now) if WORKERS_MIGRATION not in schema["schema_waiting"]
            else None,  # an older schema, not migrated yet: no table of them
            outbox_held=unsent.where(Outbox.held.is_null(False)).count() if recent else 0,
            **(_bounces(now) if BOUNCES_MIGRATION not in schema["schema_waiting"] else {}),
            last_backup_seconds=seconds_since(now, backups.last_finished()) if recent
            else None,
        )
    except (DatabaseError, InterfaceError) as error:  # peewee wraps the driver's errors
        return Status(database_ok=False, database_error=_first_line(error))


def _schema() -> dict:
    """This code's migrations against the database's (pbem.store.database)."""
    known = known_migrations()
    applied = applied_migrations(database.obj)
    unknown = [name for name in applied if name not in set(known)]
    return {"schema": applied[-1] if applied else None,
            "schema_known": known[-1] if known else None,
            "schema_waiting": [name for name in known if name not in set(applied)],
            "schema_unknown": unknown, "schema_ok": not unknown}


def _workers(now: dt.datetime) -> list[dict]:
    """The workers that tick (pbem.store.workers), for a person: how long since each."""
    return [{"name": row.name, "process": row.process,
             "last_tick_seconds": seconds_since(now, row.last_tick),
             "listeners": row.listeners, "listening": row.listening}
            for row in workers.workers()]


def _bounces(now: dt.datetime) -> dict[str, int]:
    """Addresses our mail bounced from in the last day, and those mailed nothing now."""
    return {"bounced_last_day": Bounce.select().where(
                Bounce.last >= now - dt.timedelta(days=1)).count(),
            "addresses_bouncing": Bounce.select().where(Bounce.bouncing.is_null(False)).count()}


def _unconfirmed(now: dt.datetime) -> dict[str, int]:
    """Mail to addresses that never confirmed (pbem.policy.limits): the cannon's gauge."""
    from pbem.policy.limits import CAP_REACHED, unconfirmed_mail_last_hour
    capped = Inbound.select().where((Inbound.received >= now - dt.timedelta(days=1))
                                    & (Inbound.outcome == CAP_REACHED)).count()
    return {"unconfirmed_mail_last_hour": unconfirmed_mail_last_hour(now),
            "unconfirmed_capped_last_day": capped}


def seconds_since(now: dt.datetime, then) -> int | None:
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
    if status.empty:
        return [f"database:     {EMPTY}"]
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
        _bounce_line(status),
        f"games:        {status.running_games} running",
        f"last mail in: {'never' if last_in is None else _duration(last_in) + ' ago'}",
        *_worker_lines(status),
        _backup_line(status),
        f"unconfirmed:  {status.unconfirmed_mail_last_hour} mails to new addresses in the "
        f"last hour"
        + (f"; {status.unconfirmed_capped_last_day} held back by the hourly cap in the last "
           f"day (PBEM_UNCONFIRMED_MAIL_PER_HOUR)" if status.unconfirmed_capped_last_day
           else ""),
    ]


def old_workers_seen(status: Status) -> bool:
    """No worker ticks, yet mail came in within SILENT: a listener of a pbem older than
    the table of ticks (0038) takes mail on this schema (mid-upgrade). Mail going out
    proves nothing: `pbem new` and `pbem deliver` send it too."""
    ago = status.last_inbound_seconds
    return status.workers == [] and ago is not None and ago <= SILENT


def _worker_lines(status: Status) -> list[str]:
    """One line a worker: its last tick, its listeners; a silent one says so."""
    workers_seen = status.workers
    if workers_seen is None:
        return []
    if old_workers_seen(status):
        return [f"workers:      NONE of this version ticks, yet mail came in "
                f"{_duration(status.last_inbound_seconds)} ago: workers of an older pbem "
                f"(which do not tick) still run;\n              restart each as this "
                f"version (deploy/README.md, \"Upgrades\", step 4)"]
    if not workers_seen:
        return ["workers:      NONE ticks: no `pbem worker` or `pbem serve` runs the "
                "scheduler"]
    lines = []
    for worker in workers_seen:
        ago = worker["last_tick_seconds"]
        state = (f"SILENT for {_duration(ago)} (killed, or hung?)" if ago > SILENT
                 else f"ticked {_duration(ago)} ago")
        if worker["listeners"]:
            state += f", {worker['listening']} of {worker['listeners']} listener(s) taking mail"
        lines.append(f"worker:       {worker['name']} ({worker['process']}): {state}")
    return lines


def _transport_lines(status: Status) -> list[str]:
    """Mail refused on the way out and on the way in, when there is any."""
    lines = []
    if status.outbox_given_up:
        lines.append(f"given up:     {status.outbox_given_up} mail(s) in {GIVEN_UP_DAYS} days "
                     f"(refused for good, or undelivered for 5 days): see last_error in "
                     f"the outbox")
    if status.outbox_held:
        lines.append(f"held:         {status.outbox_held} mail(s) held by `pbem restore`: "
                     f"`pbem outbox --held`, then retry or drop each")
    if status.refusals_last_day:
        counts = ", ".join(f"{reason} {n}" for reason, n in status.refusals_last_day.items())
        lines.append(f"refused in:   {counts} (last 24 h; README: PBEM_AUTHSERV_ID)")
    return lines


def _bounce_line(status: Status) -> str:
    """How much of our mail bounces (pbem.policy.bounces.scores): its rise is the alert's."""
    line = (f"bounces:      {status.bounced_last_day} address(es) bounced in the last day"
            if status.bounced_last_day else "bounces:      none in the last day")
    if status.addresses_bouncing:
        line += (f"; {status.addresses_bouncing} marked bouncing, mailed nothing "
                 f"(`pbem outbox bounces`)")
    return line


def _backup_line(status: Status) -> str:
    if status.last_backup_seconds is None:
        return ("backup:       none recorded (`pbem backup`; deploy/README.md, \"Backups\")")
    return f"backup:       the last whole one {_duration(status.last_backup_seconds)} ago"


def _duration(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    if seconds < 86400:
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"
    return f"{seconds // 86400} d {seconds % 86400 // 3600} h"


def print_status(config: Config, out=print, workdir: str | Path = ".") -> int:
    """`pbem status`: exit 0 when the database answers, 1 when it does not (or is not
    there). Creates nothing: see the module's docstring."""
    out(f"pbem for {config.address}, database {without_password(config.database_url)}")
    out(f"version:      pbem {build.describe()}")
    missing = missing_sqlite_file(config.database_url)
    if missing:
        out(f"database:     MISSING: {missing}")
        out(_secret_line(config, workdir))
        return 1
    status = _look(config.database_url)
    for line in describe(status):
        out(line)
    if status.database_ok:
        out(_schema_line(status))
    out(_secret_line(config, workdir))
    return 0 if status.database_ok and status.schema_ok and not old_workers_seen(status) \
        else 1


def _look(url: str) -> Status:
    try:
        if url.startswith("sqlite:"):  # read-only: never a file, a schema or a WAL switch
            # An SQLite URI: the path quoted, so a space, '?' or '#' in it stays the path
            path = Path(sqlite_path(url)).resolve()
            database.initialize(SqliteDatabase(f"file:{quote(str(path))}?mode=ro",
                                               uri=True, pragmas={"busy_timeout": 10_000}))
        else:
            open_database(url, migrate=False)  # binds only: check() reads the schema
        return check()
    except (DatabaseError, InterfaceError, ValueError) as error:
        return Status(database_ok=False, database_error=_first_line(error))


def _schema_line(status: Status) -> str:
    if status.schema_unknown:
        return (f"schema:       NEWER THAN THIS PBEM: the database has "
                f"{', '.join(status.schema_unknown)}, which pbem {build.describe()} does not "
                f"know (its newest is {status.schema_known}).\n              Every pbem "
                f"process of this version refuses to start on it (exit 78): install the pbem "
                f"that migrated it, or see deploy/README.md, \"Upgrades\"")
    if not status.schema_waiting:
        return f"schema:       up to date at {status.schema} ({len(known_migrations())} " \
               f"migrations)"
    return (f"schema:       {len(status.schema_waiting)} migration(s) not applied yet "
            f"({', '.join(status.schema_waiting)}): `pbem migrate` applies them, as does the "
            f"next start of pbem worker")


def _secret_line(config: Config, workdir: str | Path) -> str:
    path = secret_path(workdir).resolve()
    if config.secret_key:
        try:
            from_file = path.read_text().strip() == config.secret_key
        except OSError:
            from_file = False
        return f"secret key:   from {path}" if from_file else "secret key:   from PBEM_SECRET_KEY"
    return (f"secret key:   NONE: PBEM_SECRET_KEY is not set and there is no {path}\n"
            f"              (nothing was created; the first `pbem worker` or `pbem serve` "
            f"makes the file)")
