"""`pbem restore FILE`: put a backup back, and let nobody pay for the time it lost.

    pbem restore /var/backups/pbem/pbem-20261201-031500.db     (or a PostgreSQL .dump)
                                       (pbem.cli.restore; deploy/README.md, "Backups")

Run it as the pbem user, with every pbem process stopped (it refuses while a worker
ticks). It does the whole job, in this order:

1. The backup becomes the database. SQLite: the file is copied beside the database,
   checked, migrated and amended (2-4 below), then written over the database in one step
   through SQLite's own locks (the online backup API), so the database is either the
   old one or the restored one, never half. PostgreSQL: `pg_restore` writes the dump as
   SQL, which `psql` runs in one transaction after dropping the tables there: pbem's own
   role does it all, reading a file the pbem user can read (the postgres user need not
   reach /var/backups/pbem), and a dump that fails to read leaves the database as it
   was. A backup made by an older pbem is migrated; one made by a newer pbem is refused.
2. The mail that was waiting in the outbox at the backup may have gone out between the
   backup and the restore: each is held (`pbem outbox --held`), not sent, until the
   operator has looked it up in the MTA's log and released it (`pbem outbox retry`) or
   dropped it. One mail twice is worse than one the operator sends by hand.
3. Every running clock moves on by the time between the backup and now: no seat loses
   time it could not use (pbem.bookkeeping.ledger.move_on).
4. Every player of every running game gets a game mail (pbem.policy.restored): which
   time the server went back to, their own view of the game as it now stands, and what
   to send again. It goes when the worker starts.

When the backup was taken is read from the restored database: `pbem backup` writes its
row before the copy starts (pbem.store.backups), so a renamed file or one whose date
changed on the way still says it. A backup made before that knows only its newest
activity (a worker's tick, mail, a move), which is never later than the backup.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sqlite3
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pbem.operator.backup import copy_sqlite, libpq
from pbem.config import Config
from pbem.mail import outbox
from pbem.policy import restored
from pbem.operator.status import SILENT
from pbem.store import backups, open_database, transaction, workers
from pbem.store.database import (NoStore, SchemaTooNew, known_migrations, migrate_schema,
                                 open_existing, sqlite_path)
from pbem.store.models import database, utcnow
from pbem.bookkeeping import ledger

SQLITE_MAGIC, DUMP_MAGIC = b"SQLite format 3\x00", b"PGDMP"
TIMEOUT = 3600  # seconds for pg_restore and psql: a large database, a slow disk

#: Run by psql before the dump's own SQL, in the same transaction: the tables there go,
#: whatever their migrations (a newer schema's tables would otherwise stay beside the
#: restored ones), with the sequences of their ids.
DROP_TABLES = """DO $$ DECLARE name text; BEGIN
  FOR name IN SELECT quote_ident(tablename) FROM pg_tables
              WHERE schemaname = current_schema() LOOP
    EXECUTE 'DROP TABLE IF EXISTS ' || name || ' CASCADE';
  END LOOP;
  FOR name IN SELECT quote_ident(sequencename) FROM pg_sequences
              WHERE schemaname = current_schema() LOOP
    EXECUTE 'DROP SEQUENCE IF EXISTS ' || name || ' CASCADE';
  END LOOP;
END $$;"""


class RestoreError(Exception):
    """A restore refused or failed; the message says why and what to do. The database
    is as it was, unless the message says otherwise."""


@dataclass
class Restored:
    taken: dt.datetime  # when the backup was taken: the server went back to it
    known: bool  # recorded by `pbem backup`; False: the backup's newest activity
    lost: dt.timedelta  # between the backup and the restore
    migrated: list[str]  # migrations applied to an older backup
    held: int  # mails held
    games: int  # running games whose clocks moved on
    told: int  # mails queued to players


def restore(config: Config, file: Path, now: dt.datetime | None = None) -> Restored:
    """Make `file` the database at config.database_url, then hold, move on and tell."""
    now = now or utcnow()
    url = config.database_url
    sqlite = url.startswith("sqlite:///")
    _check_file(file, sqlite)
    _refuse_running_workers(url, now)
    database.close()
    if sqlite:
        return _sqlite(config, file, now)
    return _postgres(config, file, now)


def _check_file(file: Path, sqlite: bool) -> None:
    try:
        with open(file, "rb") as backup:
            start = backup.read(16)
    except OSError as error:
        raise RestoreError(f"cannot read {file}: {error.strerror} (run it as the pbem "
                           f"user, who owns the backups)") from None
    if start.startswith(SQLITE_MAGIC if sqlite else DUMP_MAGIC):
        return
    if start.startswith(DUMP_MAGIC if sqlite else SQLITE_MAGIC):
        raise RestoreError(f"{file} is a {'PostgreSQL dump' if sqlite else 'SQLite file'}, "
                           f"but PBEM_DATABASE_URL names "
                           f"{'SQLite' if sqlite else 'PostgreSQL'}: check --env-file")
    raise RestoreError(f"{file} is not a backup pbem made (neither a SQLite file nor a "
                       f"pg_dump --format=custom archive)")


def _refuse_running_workers(url: str, now: dt.datetime) -> None:
    """A worker that runs would deliver the mail that is to be held, and act on the
    deadlines that are to move, in the moment between the restore and the rest."""
    try:
        open_existing(url, migrate=False)
    except (NoStore, SchemaTooNew):
        return  # nothing there yet, or a newer pbem's: a restore replaces it whole
    try:
        if not database.obj.table_exists("worker"):
            return
        ticking = [w for w in workers.workers()
                   if (now - w.last_tick).total_seconds() <= SILENT]
    finally:
        database.close()
    if ticking:
        names = ", ".join(f"{w.name} ({w.process})" for w in ticking)
        raise RestoreError(f"pbem is running: worker {names} ticked within "
                           f"{SILENT} s. Stop every pbem process first (systemctl stop "
                           f"'pbem-worker*' pbem-web), then restore; nothing was changed")


def _sqlite(config: Config, file: Path, now: dt.datetime) -> Restored:
    """Copy, check, migrate and amend beside the database, then put it in one step."""
    live = Path(sqlite_path(config.database_url)).resolve()
    if not live.parent.is_dir():
        raise RestoreError(f"{live.parent} is not a directory (the database's, as "
                           f"PBEM_DATABASE_URL says)")
    work = live.with_name(f".{live.name}.restore-{os.getpid()}")
    try:
        shutil.copyfile(file, work)
        _check_integrity(work, file)
        db = open_database(f"sqlite:///{work}", migrate=False)
        try:
            migrated = _migrate(db, file)
            done = amend(config, now, migrated)
        finally:
            db.close()
        copy_sqlite(work, live)
    finally:
        for path in (work, Path(f"{work}-wal"), Path(f"{work}-shm")):
            path.unlink(missing_ok=True)
    open_database(config.database_url, migrate=False)
    return done


def _check_integrity(path: Path, file: Path) -> None:
    try:
        with sqlite3.connect(path) as check:
            verdict = check.execute("PRAGMA integrity_check").fetchone()[0]
    except sqlite3.Error as error:
        raise RestoreError(f"{file} cannot be read as SQLite: {error}") from None
    if verdict != "ok":
        raise RestoreError(f"{file} fails SQLite's integrity check: {verdict}")


def _postgres(config: Config, file: Path, now: dt.datetime) -> Restored:
    """pg_restore's SQL through psql, in one transaction, as pbem's own role."""
    dsn, env = libpq(config.database_url)
    _refuse_newer_dump(file, env)
    with tempfile.TemporaryFile() as said_restore, tempfile.TemporaryFile() as said_load:
        loader = _start(["psql", "--no-psqlrc", "--quiet", "--single-transaction",
                         "--set=ON_ERROR_STOP=1", "--command", DROP_TABLES, "--file=-",
                         "--dbname", dsn], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                        stderr=said_load, env=env)
        try:
            reader = _start(["pg_restore", "--no-owner", "--no-privileges", "--file=-",
                             str(file)], stdout=subprocess.PIPE, stderr=said_restore, env=env)
        except RestoreError:
            loader.kill()  # its input never began: nothing to commit
            loader.wait()
            raise
        try:
            shutil.copyfileobj(reader.stdout, loader.stdin)
        except BrokenPipeError:  # psql stopped at an error: its words say which
            pass
        if reader.wait(timeout=TIMEOUT) != 0:
            loader.kill()  # before its input ends: no COMMIT, the database is as it was
            loader.wait()
            raise RestoreError(f"pg_restore could not read {file}: {_said(said_restore)}; "
                               f"the database is as it was")
        try:
            loader.stdin.close()
        except BrokenPipeError:
            pass
        if loader.wait(timeout=TIMEOUT) != 0:
            raise RestoreError(f"psql refused the restore: {_said(said_load)}; the "
                               f"database is as it was")
    db = open_database(config.database_url, migrate=False)
    try:
        migrated = _migrate(db, file)
    except RestoreError as error:
        raise RestoreError(f"{error}; the backup IS restored: restore another") from None
    try:
        return amend(config, now, migrated)
    except Exception as error:
        raise RestoreError(f"the backup is restored, but holding its mail, moving the "
                           f"deadlines or telling the players failed ({error}): start no "
                           f"pbem process; mend it and run pbem restore again") from error


def _start(command: list[str], **streams) -> subprocess.Popen:
    try:
        return subprocess.Popen(command, **streams)
    except FileNotFoundError:
        raise RestoreError(f"{command[0]} is not installed (Debian: apt install "
                           f"postgresql-client, of the server's major version); nothing "
                           f"was changed") from None


def _said(stream) -> str:
    stream.seek(0)
    return " ".join(stream.read().decode("utf-8", "replace").split())[-500:] or "no reason"


def _refuse_newer_dump(file: Path, env: dict) -> None:
    """Read the dump's own list of migrations: a backup a newer pbem made would restore
    a schema this one cannot run (checked before anything is dropped)."""
    reader = _start(["pg_restore", "--data-only", "--table=pbem_schema", "--file=-",
                     str(file)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                    env=env)
    out, err = reader.communicate(timeout=TIMEOUT)
    done = subprocess.CompletedProcess(reader.args, reader.returncode, out, err)
    if done.returncode != 0:
        raise RestoreError(f"pg_restore could not read {file}: "
                           f"{' '.join(done.stderr.split())[:500]}; nothing was changed")
    lines = done.stdout.split("COPY ", 1)[-1].split("\n\\.", 1)[0].splitlines()[1:]
    applied = {line.split("\t")[1] for line in lines if line.count("\t") >= 1}
    unknown = sorted(applied - set(known_migrations()))
    if unknown:
        raise RestoreError(f"{file} was made by a newer pbem (its schema has "
                           f"{', '.join(unknown)}): restore it with that pbem; nothing "
                           f"was changed")


def _migrate(db, file: Path) -> list[str]:
    try:
        return migrate_schema(db)
    except SchemaTooNew as error:
        raise RestoreError(f"{file} was made by a newer pbem (its schema has "
                           f"{', '.join(error.unknown)}): restore it with that pbem; "
                           f"nothing was changed") from None


def amend(config: Config, now: dt.datetime, migrated: list[str] | None = None) -> Restored:
    """In the restored database, in one transaction: the waiting mail held, the clocks
    moved on by the time lost, the players told."""
    with transaction():
        taken, known = backups.taken(), True
        if taken is None:
            taken, known = backups.newest_activity() or now, False
        lost = max(now - taken, dt.timedelta(0))
        backups.restored()
        held = outbox.hold_waiting(now)
        games = ledger.move_on(lost)
        told = restored.tell_players(config, taken, lost)
    return Restored(taken, known, lost, migrated or [], held, len(games), told)
