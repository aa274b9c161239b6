"""`pbem backup`: a consistent copy of the database, taken while pbem keeps running.

SQLite: the online backup API (`sqlite3.Connection.backup`), which copies page by page
and starts again from the changed pages when a writer commits meanwhile, so the copy is
one committed state, never a torn file as `cp` of a live WAL database can be. The copy
is checked (`PRAGMA integrity_check`) before it takes its final name. PostgreSQL:
`pg_dump --format=custom`, one consistent snapshot, restored with `pg_restore`.

A target directory gets a dated file (`pbem-20261201-031500.db` or `.dump`), and
`keep=N` then removes all but the N newest of those; any other file there is left alone.
A backup is written under a temporary name and renamed when complete, so a crash or a
full disk never leaves a half backup that looks whole. Each backup is recorded in the
database it copies (pbem.store.backups): the copy holds when it was taken, which `pbem
restore` reads, and the live database when the last whole one was made, which the
metrics show.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
import secrets
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from peewee import DatabaseError, InterfaceError

from pbem.store import backups
from pbem.store.database import (DatabaseRefused, DatabaseUnreachable, NoStore,
                                 SchemaTooNew, open_existing, sqlite_path)
from pbem.store.models import database

log = logging.getLogger(__name__)
BACKUP_NAME = re.compile(r"pbem-\d{8}-\d{6}\.(db|dump)$")


class BackupError(Exception):
    """A backup that could not be made; the message says what to change."""


def backup(url: str, target: str | Path, keep: int | None = None,
           now: dt.datetime | None = None) -> Path:
    """Back the database at `url` up into `target` (a directory or a file); the path."""
    if keep is not None and keep < 1:
        raise BackupError(f"--keep {keep}: keep at least 1 backup")
    sqlite = url.startswith("sqlite:///")
    if not sqlite and not url.startswith(("postgres://", "postgresql://")):
        raise BackupError(f"cannot back up {url.split(':', 1)[0]!r} databases: "
                          f"PBEM_DATABASE_URL names sqlite:/// or postgresql://")
    target = Path(target)
    into_directory = target.is_dir()
    if keep is not None and not into_directory:
        raise BackupError(f"--keep {keep} prunes the dated backups in a directory, but "
                          f"{target} is a file name: give a directory, or no --keep")
    if into_directory:
        stamp = (now or dt.datetime.now(dt.timezone.utc)).strftime("%Y%m%d-%H%M%S")
        target = target / f"pbem-{stamp}.{'db' if sqlite else 'dump'}"
    elif not target.parent.is_dir():
        raise BackupError(f"{target.parent} is not a directory (make it first, writable "
                          f"by the pbem user)")
    # Its own temporary name: two backups at once (cron and a hand) never share one
    partial = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.partial")
    started = _begin(url)
    try:
        if sqlite:
            copy_sqlite(Path(sqlite_path(url)), partial)
        else:
            _pg_dump(url, partial)
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    try:
        backups.end(started, str(target))
    except (DatabaseError, InterfaceError) as error:
        log.warning("the backup %s is whole, but not recorded as such: %s", target, error)
    if into_directory and keep:
        _prune(target.parent, keep)
    return target


def _begin(url: str) -> int | None:
    """Record the backup's start in the database, committed before the copy begins;
    None when it cannot be recorded (a schema before 0042, the store not there): the
    backup is still made, and pbem_last_backup_timestamp_seconds does not know of it."""
    try:
        if database.obj is None:  # `pbem backup` on its own; tests open the store first
            open_existing(url, migrate=False)
        return backups.begin()
    except (NoStore, SchemaTooNew, DatabaseRefused, DatabaseUnreachable,
            DatabaseError, InterfaceError) as error:  # the copy matters more than its record
        log.warning("the backup is not recorded in the database: %s", error)
    return None


def copy_sqlite(source: Path, partial: Path) -> None:
    """`source`'s committed state written into `partial` (made, or replaced whole in one
    step through SQLite's own locks: `pbem restore` puts a database back so), checked."""
    if not source.is_file():
        raise BackupError(f"there is no database file {source.resolve()}: is this pbem's "
                          f"directory, with its settings (--env-file)?")
    try:
        reader = sqlite3.connect(f"file:{quote(str(source.resolve()))}?mode=ro", uri=True,
                                 timeout=30)
        copy = sqlite3.connect(partial)
        try:
            reader.backup(copy)  # all pages in one step: one committed state
            verdict = copy.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            copy.close()
            reader.close()
    except sqlite3.Error as error:
        raise BackupError(f"SQLite could not copy {source}: {error}") from None
    if verdict != "ok":
        raise BackupError(f"the copy of {source} fails SQLite's integrity check: {verdict}")


def libpq(url: str) -> tuple[str, dict[str, str]]:
    """The URL for PostgreSQL's programs without its password, and their environment
    with it (PGPASSWORD, decoded): never on a command line, where `ps` shows it."""
    parts = urlsplit(url)
    env = dict(os.environ)
    netloc = parts.netloc
    if parts.password is not None:
        env["PGPASSWORD"] = unquote(parts.password)
        netloc = netloc.replace(f":{parts.password}@", "@", 1)
    return urlunsplit(("postgresql", netloc, parts.path, parts.query, "")), env


def _pg_dump(url: str, partial: Path) -> None:
    dsn, env = libpq(url)
    try:
        done = subprocess.run(["pg_dump", "--format=custom", "--file", str(partial),
                               "--dbname", dsn], env=env, capture_output=True, text=True)
    except FileNotFoundError:
        raise BackupError("pg_dump is not installed (Debian: apt install postgresql-client, "
                          "the same major version as the server or newer)") from None
    if done.returncode != 0:
        raise BackupError(f"pg_dump failed: {done.stderr.strip()[:500]}")


def _prune(directory: Path, keep: int) -> None:
    backups = sorted(p for p in directory.iterdir() if BACKUP_NAME.match(p.name))
    for old in backups[:-keep]:  # the names sort by time
        old.unlink()
