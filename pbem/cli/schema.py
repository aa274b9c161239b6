"""`pbem migrate`: the schema brought up to date once, or taken back, by the operator.

    pbem migrate                     apply the migrations the database lacks (what every
                                     `pbem worker` does at start; an empty database gets
                                     them all), and say where it is
    pbem migrate --back-to N         undo, newest first, every migration after N (the
                                     plan only: nothing changes without --yes)
    pbem migrate --back-to N --yes   ... and do it

A rolling upgrade migrates once with the new pbem, then restarts each process as the new
version (deploy/README.md, "Upgrades"); a process of the old version refuses to start on
the newer schema (pbem.store.database.SchemaTooNew). To go back, the new pbem, which has
the newer migrations' `down`, takes the schema back to the old version's newest
migration (CHANGELOG.md names it for each version); then the old pbem starts again.
Every undo drops what its migration added, rows with it: back up first.
"""

from __future__ import annotations

import sys

from pbem.terminal import say


def add_commands(commands) -> None:
    migrate = commands.add_parser("migrate", help="bring the database's schema up to date "
                                  "(as a worker's start does), or --back-to N to undo the "
                                  "migrations after N")
    migrate.add_argument("--back-to", metavar="N", help="undo every migration after "
                         "number N (e.g. 18 for 0018_speed_fewer_indexes), newest first")
    migrate.add_argument("--yes", action="store_true", help="with --back-to: do it (without "
                         "it, only the plan is shown)")
    migrate.set_defaults(run=_migrate)


def _migrate(args) -> int:
    from pbem.config import Config
    from pbem.store.database import (NoStore, SchemaTooNew, connect, missing_sqlite_file,
                                     open_database, unknown_migrations)
    config = Config.from_environment(make_secret=False)
    # NoStore and SchemaTooNew are said by pbem.cli (exit 1 and 78). Migrate makes no
    # SQLite file (the wrong directory would get one), but fills a database that is there
    # and empty (`pbem status`: "EMPTY … `pbem migrate` creates them").
    missing = missing_sqlite_file(config.database_url)
    if missing:
        raise NoStore(missing)
    db = open_database(config.database_url, migrate=False)
    connect(db)
    if unknown_migrations(db):  # a newer pbem's schema: only it may take it back
        db.close()
        raise SchemaTooNew(unknown_migrations(db))
    try:
        if args.back_to is None:
            return _up(db)
        return _back_to(db, args.back_to, args.yes)
    finally:
        db.close()


def _up(db) -> int:
    from pbem.store.database import applied_migrations, migrate_schema
    done = migrate_schema(db)
    for name in done:
        say(f"applied {name}")
    applied = applied_migrations(db)
    say(f"schema: up to date at {applied[-1]} ({len(applied)} migrations)"
          + ("" if done else "; nothing to do"))
    return 0


def _back_to(db, wanted: str, yes: bool) -> int:
    from pbem.store.database import applied_migrations, migrating_alone, runner
    applied = applied_migrations(db)
    keep = _migration(wanted, applied)
    if keep is None:
        say(f"pbem migrate: --back-to {wanted}: no applied migration has that number; "
              f"applied: {', '.join(applied)}", file=sys.stderr)
        return 2
    undo = [name for name in reversed(applied) if _number(name) > _number(keep)]
    if not undo:
        say(f"nothing to undo: the schema is at {keep}")
        return 0
    if not yes:
        say(f"would undo, newest first: {', '.join(undo)}; the schema would then be at "
              f"{keep}.")
        say("Each undo drops what its migration added (tables, columns, indexes), with "
              "their rows. Stop every pbem process and back up first (pbem backup), then "
              "run this again with --yes.")
        return 1
    with migrating_alone(db):
        done = runner(db).down(target=undo[-1])
    for name in done:
        say(f"undone {name}")
    say(f"schema: at {keep}; start the pbem whose newest migration that is "
          f"(CHANGELOG.md names each version's)")
    return 0


def _migration(wanted: str, applied: list[str]) -> str | None:
    """'18', '0018' or '0018_speed_fewer_indexes' -> that applied migration's name."""
    text = wanted.strip()
    for name in applied:
        if text == name or (text.isdigit() and int(text) == _number(name)):
            return name
    return None


def _number(name: str) -> int:
    digits = name.split("_", 1)[0]
    return int(digits) if digits.isdigit() else -1
