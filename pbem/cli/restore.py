"""`pbem restore FILE`: the command; pbem.operator.restore does the work and says what it does.

Light to import, as `pbem --help` loads every command's parser: the store, the policy
and the mail are imported when the command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pbem.terminal import say

if TYPE_CHECKING:
    from pbem.operator.restore import Restored


def add_commands(commands) -> None:
    restore = commands.add_parser(
        "restore", help="put a backup back (every pbem process stopped): the mail then "
        "waiting is held, deadlines move on by the time lost, players are told",
        description="Make FILE (a `pbem backup` of this database: a SQLite .db or a "
        "PostgreSQL .dump) the database. Mail waiting in it is held until you release it "
        "(`pbem outbox --held`), every running game's deadlines move on by the time "
        "between the backup and now, and every player of a running game is mailed the "
        "game as it now stands and what to send again. Stop pbem-worker and pbem-web "
        "first; start them after.")
    restore.add_argument("file", metavar="FILE", help="the backup to restore")
    restore.set_defaults(run=_restore)


def _restore(args) -> int:
    from pbem.operator.backup import BackupError
    from pbem.config import Config, missing_secret_key
    from pbem.operator.restore import RestoreError, restore
    from pbem.store.database import NoStore
    config = Config.from_environment(make_secret=False)
    if not config.secret_key:  # its mails carry signed reply addresses
        raise NoStore(missing_secret_key())
    try:
        done = restore(config, Path(args.file))
    except (RestoreError, BackupError) as error:
        say(f"pbem restore: {error}", file=sys.stderr)
        return 1
    for line in report(Path(args.file), done):
        say(line)
    return 0


def report(file: Path, done: Restored) -> list[str]:
    """What the operator reads: what was restored, held, moved and told, what next."""
    from pbem.bookkeeping import controls
    how = ("" if done.known else " (the newest time it shows: it was made by a pbem "
           "that did not record its backups)")
    lost = controls.words(done.lost.total_seconds())
    lines = [f"restored {file}: the server went back to {controls.when(done.taken)}"
             f"{how}, {lost} ago"]
    lines += [f"migrated: {name}" for name in done.migrated]
    if done.held:
        lines.append(f"held: {done.held} mail(s) that waited at the backup and may have "
                     f"gone out since: `pbem outbox --held` lists them with their "
                     f"Message-ID; look each up in the MTA's log (grep the Message-ID in "
                     f"/var/log/mail.log), then `pbem outbox retry ID` (it did not go) or "
                     f"`pbem outbox drop ID` (it did); `--all-held` for all")
    else:
        lines.append("held: no mail waited at the backup")
    lines.append(f"deadlines: moved on by {lost} in {done.games} running game(s)")
    lines.append(f"told: {done.told} player(s) of running games, by mail; it goes out "
                 f"when the worker starts (systemctl start 'pbem-worker*' pbem-web)")
    return lines
