"""What `pbem backup` records in the database it copies, and what the copy then knows.

A row of `backup` is written, and committed, just before the copy starts: pg_dump's
snapshot and SQLite's online backup both begin after that commit, so the copy holds its
own row, and its `started` is no later than the moment the copy shows. That is the time
`pbem restore` says the server went back to, and measures the time lost from: it is read
from the restored database itself, so it holds whatever the file is called or wherever
it was copied (a name or a file's date change on the way; a row in the data does not).
For a copy made before there was such a row, `newest_activity` gives the latest time
the copy shows anything happening (a worker's tick every 15 s, mail, moves): never
later than the copy, so the time lost is never counted short.

When the copy is whole, the live database's row gets `finished`: the metric
`pbem_last_backup_timestamp_seconds` and `pbem status` read the newest one, so a backup
that stopped running (a timer disabled, a full disk) shows as one that is too old.
"""

from __future__ import annotations

import datetime as dt

from peewee import fn

from pbem.store.database import transaction
from pbem.store.models import Backup, Inbound, Move, Outbox, Worker, database, utcnow


def recorded() -> bool:
    """Whether this database keeps backups (migration 0042; an older one does not)."""
    return database.obj is not None and database.obj.table_exists("backup")


def begin(now: dt.datetime | None = None) -> int | None:
    """A backup starts now: its row, committed before the copy begins; its id."""
    if not recorded():
        return None
    with transaction():
        return Backup.create(started=now or utcnow()).id


def end(backup_id: int | None, file: str, now: dt.datetime | None = None) -> None:
    """The copy is whole and has its name."""
    if backup_id is None:
        return
    with transaction():
        Backup.update(finished=now or utcnow(), file=file[:255]).where(
            Backup.id == backup_id).execute()


def last_finished() -> dt.datetime | None:
    """When the newest whole backup was made (None: never, or not recorded)."""
    if not recorded():
        return None
    return _as_time(Backup.select(fn.MAX(Backup.finished)).scalar())


def taken() -> dt.datetime | None:
    """In a restored database: when the backup it came from started (None: a copy made
    before backups were recorded)."""
    if not recorded():
        return None
    return _as_time(Backup.select(fn.MAX(Backup.started)).scalar())


def restored() -> None:
    """The backup just restored was whole: its row (the newest, unfinished in the copy)
    is finished as of its start, so the metric shows the backup the server stands on."""
    newest = Backup.select(fn.MAX(Backup.id)).scalar()
    if newest is not None:
        Backup.update(finished=Backup.started).where(
            (Backup.id == newest) & Backup.finished.is_null()).execute()


def newest_activity() -> dt.datetime | None:
    """The latest moment this database shows anything happening: a worker's tick, mail
    in or out, a move (for a copy with no backup row: a lower bound of its time)."""
    times = [Worker.select(fn.MAX(Worker.last_tick)).scalar(),
             Inbound.select(fn.MAX(Inbound.received)).scalar(),
             Outbox.select(fn.MAX(Outbox.created)).scalar(),
             Outbox.select(fn.MAX(Outbox.sent)).scalar(),
             Move.select(fn.MAX(Move.created)).scalar()]
    found = [_as_time(t) for t in times if t is not None]
    return max(found) if found else None


def _as_time(value) -> dt.datetime | None:
    if isinstance(value, str):  # SQLite hands MIN()/MAX() of a date back as text
        return dt.datetime.fromisoformat(value)
    return value
