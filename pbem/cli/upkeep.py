"""`pbem status` and `pbem backup`: how the server is, and a copy of its database."""

from __future__ import annotations

import sys

from pbem.terminal import say


def add_status(commands) -> None:
    status = commands.add_parser("status", help="is the database reachable, how much mail "
                                 "waits to go out (exit 1: the database does not answer)")
    status.set_defaults(run=_status)


def add_backup(commands) -> None:
    backup = commands.add_parser("backup", help="a consistent copy of the database while "
                                 "pbem runs (SQLite's online backup, or pg_dump)")
    backup.add_argument("target", metavar="DIRECTORY|FILE",
                        help="a directory (a dated file is made in it) or the file to write")
    backup.add_argument("--keep", type=int, metavar="N",
                        help="in a directory, keep only the N newest backups")
    backup.set_defaults(run=_backup)


def _status(args) -> int:
    from pbem.config import Config
    from pbem.operator.status import print_status
    return print_status(Config.from_environment(make_secret=False))  # status creates nothing


def _backup(args) -> int:
    from pbem.operator.backup import BackupError, backup
    from pbem.config import Config
    config = Config.from_environment(make_secret=False)
    try:
        done = backup(config.database_url, args.target, keep=args.keep)
    except BackupError as error:
        say(f"pbem backup: {error}", file=sys.stderr)
        return 1
    say(f"backed up to {done}")
    return 0
