"""Opening the store: SQLite (WAL) by default, PostgreSQL by URL; migrations on open.

`PBEM_DATABASE_URL` is `sqlite:///pbem.db` (a file in the working directory) unless it
names PostgreSQL (`postgresql://user:pass@host/db`). The schema is created and changed
only through the numbered migrations in `pbem/migrations/` (peewee's migration runner),
so an existing database is upgraded in place when a newer pbem opens it.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path

from peewee import (Database, InterfaceError, OperationalError, PostgresqlDatabase,
                    SqliteDatabase)
from playhouse.db_url import parse
from playhouse.migrations import Runner
from playhouse.shortcuts import ReconnectMixin

from pbem import build
from pbem.store.models import database
from pbem.store.tables import MODELS

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"

SQLITE_PRAGMAS = {
    "journal_mode": "wal",  # readers never wait for the writer
    "synchronous": "normal",  # with WAL: durable at each checkpoint, fast commits
    "foreign_keys": 1,
    "busy_timeout": 10_000,  # ms: several processes (serve, ingest) share the file
    # A savepoint (a mail's commands run in one) keeps the pages it changes in a
    # sub-journal; on a file, that went to disk past 64 KiB, which a 26×26 Onyx move
    # passes: a temporary file made, written and unlinked on every move, 14 writes.
    # pbem's temporary data is small (a move's pages, a sort of a page's rows).
    "temp_store": "memory",
}


def sqlite_path(url: str) -> str:
    """The file of a `sqlite:///PATH` URL: PATH as written, every character of it (no
    URL decoding, no options), so that `pbem status` and the server read the same file."""
    return url.split("sqlite:///", 1)[-1] if "sqlite:///" in url else ":memory:"


class NoStore(Exception):
    """There is no pbem store at the configured place: a command that is not `serve` or
    `worker` refuses rather than create a new, empty one (the wrong directory, or the
    settings not given)."""


def missing_sqlite_file(url: str) -> str:
    """Why a SQLite database is not there ('' when it is, or for PostgreSQL)."""
    if not url.startswith("sqlite:///"):
        return ""
    path = Path(sqlite_path(url)).resolve()
    if path.is_file():
        return ""
    return (f"there is no database file {path} (nothing was created).\n"
            f"              The first `pbem worker` or `pbem serve` creates it. If pbem runs "
            f"already, these are not its settings:\n              run "
            f"`pbem --env-file /etc/pbem/pbem.env status` in its directory (/var/lib/pbem)")


def open_existing(url: str, migrate: bool = True) -> Database:
    """`open_database` for every command but `serve` and `worker`: raises NoStore, having
    created nothing, when there is no SQLite file at `url` or the database (an empty
    PostgreSQL one) holds no pbem schema; SchemaTooNew, migrating or not, as it does."""
    missing = missing_sqlite_file(url)
    if missing:
        raise NoStore(missing)
    db = open_database(url, migrate=False)
    connect(db)
    if not db.table_exists("pbem_schema"):
        db.close()
        raise NoStore(f"the database {without_password(url)} holds no pbem tables (nothing "
                      f"was created). The first `pbem worker` or `pbem serve` creates them; "
                      f"if pbem runs already, these are not its settings")
    try:
        if migrate:
            migrate_schema(db)
        else:
            _refuse_newer(db)
    except SchemaTooNew:
        db.close()
        raise
    return db


def without_password(url: str) -> str:
    """postgresql://user:secret@host/db -> postgresql://user:***@host/db"""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    return f"{scheme}{sep}{credentials.split(':', 1)[0]}:***@{host}"


class SchemaTooNew(Exception):
    """The database has migrations this code does not have: a newer pbem migrated it.
    Every process refuses to start on it (exit 78), since old code on a newer schema
    writes what the new code no longer expects; `pbem status` and /healthz say so."""

    def __init__(self, unknown: list[str]):
        self.unknown = unknown
        known = known_migrations()
        newest = known[-1] if known else "none"
        super().__init__(
            f"the database's schema is newer than this pbem: it has "
            f"{'migration' if len(unknown) == 1 else 'migrations'} {', '.join(unknown)}, "
            f"which pbem {build.describe()} does not know (its newest is {newest}). Start "
            f"the pbem that migrated it, or a newer one; to go back to this one, run "
            f"`pbem migrate --back-to {_number(newest)}` with the newer pbem first, or "
            f"restore the backup taken before the upgrade (deploy/README.md, \"Upgrades\")")


def known_migrations() -> list[str]:
    """The migrations this code has, oldest first: '0026_conditional_moves', …"""
    return sorted(path.stem for path in MIGRATIONS.glob("[0-9]*.py"))


def applied_migrations(db: Database) -> list[str]:
    """The migrations recorded in the database, oldest first ([] for a new database)."""
    if not db.table_exists("pbem_schema"):
        return []
    return sorted(row[0] for row in db.execute_sql("SELECT name FROM pbem_schema"))


def unknown_migrations(db: Database) -> list[str]:
    """Applied migrations this code does not have: the schema is newer than the code."""
    known = set(known_migrations())
    return [name for name in applied_migrations(db) if name not in known]


def _number(name: str) -> int:
    digits = name.split("_", 1)[0]
    return int(digits) if digits.isdigit() else 0


def open_database(url: str, migrate: bool = True) -> Database:
    """Connect the models to the database at `url` and bring its schema up to date.
    Raises SchemaTooNew when the database has migrations this code does not know."""
    if url.startswith("sqlite:"):
        db = SqliteDatabase(sqlite_path(url), pragmas=SQLITE_PRAGMAS, check_same_thread=False)
    elif url.startswith(("postgres://", "postgresql://")):
        # %-encoded as deploy/README.md says (`@ : / % #` in a password), as `pbem backup`
        # and pg_dump read it: peewee passes it on as written unless told to decode it.
        db = ReconnectingPostgres(**parse(url, unquote_password=True, unquote_user=True))
    else:
        raise ValueError(f"PBEM_DATABASE_URL must start with sqlite:/// or postgresql://, "
                         f"not {url.split(':', 1)[0]!r}")
    database.initialize(db)
    if migrate:  # without: only bound, nothing asked yet (peewee connects at a query)
        connect(db)
        try:
            migrate_schema(db)
        except SchemaTooNew:
            db.close()
            raise
    return db


class DatabaseRefused(Exception):
    """PostgreSQL refused pbem's login (a wrong password, a role or database not there):
    PBEM_DATABASE_URL is a setting to mend, and a restart will not mend it (exit 78)."""


class DatabaseUnreachable(Exception):
    """The database server does not answer (stopped, not listening there yet): it may
    come back, so a service is restarted for it (exit 1; `pbem ingest` 75)."""


#: What PostgreSQL says when the URL's user, password or database is wrong (libpq puts
#: no SQLSTATE on a failed connection, so its words are all there is to tell by).
REFUSED_LOGIN = re.compile(r"password authentication failed|no pg_hba\.conf entry|"
                           r"role \S+ does not exist|database \S+ does not exist|"
                           r"no password supplied|password must be")


def connect(db: Database) -> None:
    """Connect now, so that a refused login or a server away is said in one line (the
    exceptions above) rather than as a traceback from the first query."""
    try:
        db.connect(reuse_if_open=True)
    except (OperationalError, InterfaceError) as error:
        said = " ".join(str(error).split())
        said = said.split("FATAL: ", 1)[-1]  # libpq: "connection to server at … failed: FATAL: …"
        if REFUSED_LOGIN.search(said):
            raise DatabaseRefused(
                f"PBEM_DATABASE_URL: PostgreSQL refused the login ({said}); mend the user, "
                f"password or database name (a password with @ : / % # is written "
                f"%-encoded: %40 %3A %2F %25 %23)") from None
        raise DatabaseUnreachable(f"the database does not answer ({said[:300]})") from None


def migrate_schema(db: Database) -> list[str]:
    """Apply the migrations the database lacks; the names applied. Raises SchemaTooNew,
    having changed nothing, when the database is newer than this code (checked under the
    migration lock, so a newer pbem migrating at this moment is seen)."""
    with migrating_alone(db):
        _refuse_newer(db)
        return runner(db).up()


def runner(db: Database) -> Runner:
    """peewee's migration runner over pbem/migrations/, its history in `pbem_schema`."""
    return Runner(db, directory=str(MIGRATIONS), table_name="pbem_schema")


def _refuse_newer(db: Database) -> None:
    unknown = unknown_migrations(db)
    if unknown:
        raise SchemaTooNew(unknown)


#: pg_advisory_lock's key for migrations (any constant bigint; b"pbem" in hex).
MIGRATION_LOCK = 0x7062656D


@contextmanager
def migrating_alone(db: Database):
    """Several processes start at once in production (workers, gunicorn's web workers):
    on PostgreSQL the others wait here while one upgrades the schema, then find nothing
    left to do, instead of racing to create the same tables."""
    if not isinstance(db, PostgresqlDatabase):
        yield
        return
    db.execute_sql("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
    try:
        yield
    finally:
        db.execute_sql("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))


class ReconnectingPostgres(ReconnectMixin, PostgresqlDatabase):
    """PostgreSQL only (a SQLite file has no connection to lose): each thread keeps its
    connection, so without this one server restart would break `pbem serve` until it is
    restarted too. A dropped connection is opened again at the next statement outside a
    transaction (a BEGIN counts); a transaction cut off fails, and its mail is retried."""
    reconnect_errors = (
        (OperationalError, "terminating connection"),  # the server is stopping
        (OperationalError, "the connection is closed"),  # psycopg 3, after that
        (OperationalError, "server closed the connection"),
        (OperationalError, "connection is lost"),
        (InterfaceError, "connection already closed"),
    )


@contextmanager
def transaction():
    """One write transaction. SQLite takes its write lock at the start (IMMEDIATE), so two
    processes never both read a game and then race to write it; PostgreSQL rows are
    locked where they are read (`for_update`)."""
    db = database.obj
    if isinstance(db, SqliteDatabase):
        with db.atomic("IMMEDIATE"):
            yield
    else:
        with db.atomic():
            yield


def is_postgres() -> bool:
    return isinstance(database.obj, PostgresqlDatabase)


__all__ = ["open_database", "open_existing", "NoStore", "SchemaTooNew", "DatabaseRefused",
           "DatabaseUnreachable", "connect", "known_migrations",
           "applied_migrations", "unknown_migrations", "missing_sqlite_file", "transaction",
           "is_postgres", "MODELS"]
