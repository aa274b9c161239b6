"""The `pbem` command: check and show game records, self-play, and (later) the server.

    pbem record check FILE...            exit 0 when every record is legal and true
    pbem record show FILE [--game N] [--ply N [--variation V/M]] [--json]
    pbem selfplay GAME [--players N] [--seed S] [--option K=V]...
    pbem games                           the games and their options
    pbem serve                           web, mail in and scheduler in one process
    pbem worker                          mail in and scheduler, no web (production)
    pbem status                          database, outbox backlog; exit 1 when unreachable
    pbem new GAME --player EMAIL... [--option K=V]...   start a game at once; prints its id
                                         (a player may be a bot: bot:easy|normal|hard)
    pbem arena GAME --players bot:hard,heuristic [--games N] [--seats N] [--fill WHO]
                                         win shares of bots, heuristic and random players
    pbem ingest < MESSAGE                one mail from an MTA pipe (exit 75: try later)
    pbem deliver                         send every mail waiting now (the relay was mended)
    pbem outbox [list|retry|drop|bounces|clear] ...   the mail waiting, given up, bouncing
    pbem export ID [--format record|sgf|svg|html] [--output FILE]   a game, as the web has it
    pbem export --all [--game GAME] --output FILE.zip   every finished game's record
    pbem admin cancel|adjudicate|ban|unban|bans|merge|forget ...   the operator's tools
    pbem backup DIRECTORY|FILE [--keep N]   a consistent copy of the database, while it runs
    pbem restore FILE                    a backup put back: waiting mail held, deadlines moved
                                         on, the players of running games told
    pbem ratings rebuild|show GAME       the ratings again from the archive; a game's leaders
    pbem migrate [--back-to N [--yes]]   the schema up to date once (a rolling upgrade), or back
    pbem --version

The server commands read their settings from PBEM_* environment variables (README.md), or
with `--env-file FILE` from an environment file read literally, as systemd reads it.
Settings are checked before anything starts: a bad one is named, with what it must be,
and the command exits 78 (EX_CONFIG; `pbem ingest` exits 75 so the MTA keeps the mail),
as every command does on a database whose schema a newer pbem migrated.
"""

from __future__ import annotations

import argparse
import os
import sys

# Each group of commands is a module beside this one, light to import: `pbem --help`
# loads every parser, and the store, the mail and the web are imported when a command runs.
from pbem import build
from pbem.cli import (admin, export, games, outbox, processes, ratings, records, restore,
                      schema, upkeep)
from pbem.cli.processes import EX_TEMPFAIL
from pbem.config import SettingsError, read_env_file, unknown_settings
from pbem.store.database import (DatabaseRefused, DatabaseUnreachable, NoStore,  # light
                                 SchemaTooNew)
from pbem.terminal import say  # light: notation only

EX_CONFIG = 78  # sysexits.h: a configuration error (systemd: do not restart for it)
EX_SIGPIPE = 128 + 13  # what a shell reports for a writer whose reader went away

#: The commands, in the order `pbem --help` lists them.
COMMANDS = (records.add_commands, processes.add_commands, upkeep.add_status,
            games.add_commands, processes.add_ingest, export.add_commands, upkeep.add_backup,
            admin.add_commands, ratings.add_commands, outbox.add_commands,
            restore.add_commands, schema.add_commands)


def main(argv: list[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, not at exit: a closed pipe is caught below
        return code
    except BrokenPipeError:
        # `pbem games | head`: the reader has all it wanted. Point stdout at /dev/null so
        # the interpreter's final flush does not complain, and stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EX_SIGPIPE


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        if args.env_file:
            os.environ.update(read_env_file(args.env_file))  # the file wins, as in systemd
        for warning in unknown_settings(os.environ):
            say(f"pbem: {warning}", file=sys.stderr)
        return args.run(args)
    except SchemaTooNew as error:  # a newer pbem migrated it: this one must not run on it
        say(f"pbem {_name(args)}: {error}", file=sys.stderr)
        return _refused(args)
    except DatabaseRefused as error:  # the URL's password, role or database: a setting
        say(f"pbem {_name(args)}: {error}", file=sys.stderr)
        return _refused(args)
    except DatabaseUnreachable as error:  # the server may come back: restart, retry
        say(f"pbem {_name(args)}: {error}", file=sys.stderr)
        return EX_TEMPFAIL if _from_mta(args) else 1
    except NoStore as error:  # only serve and worker make a store: nothing was created
        if _from_mta(args):
            say(f"pbem ingest: try again later: {error}", file=sys.stderr)
            return EX_TEMPFAIL  # the MTA keeps the mail until the settings are mended
        say(f"pbem {_name(args)}: {error}", file=sys.stderr)
        return 1
    except SettingsError as error:
        say("pbem: the settings cannot be used:", file=sys.stderr)
        for problem in error.problems:
            say(f"  {problem}", file=sys.stderr)
        return _refused(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pbem", description="Play-by-email game server "
                                     "and notation tools.")
    parser.add_argument("--version", action="version", version=f"pbem {build.describe()}")
    parser.add_argument("--env-file", metavar="FILE",
                        help="read PBEM_* settings from this file, KEY=value a line, "
                        "literally (no shell expansion), as systemd's EnvironmentFile= does; "
                        "the file's settings win over the same ones in the environment "
                        "(PBEM_DATABASE_URL=X pbem --env-file F uses F's database, as the "
                        "services do): for another database, copy the file and change it")
    commands = parser.add_subparsers(title="commands")
    for add in COMMANDS:
        add(commands)
    return parser


def _name(args) -> str:
    """The command as the operator typed it, for a refusal: `admin ban`, `new`."""
    return getattr(args, "command_name", None) or args.run.__name__.lstrip("_")


def _from_mta(args) -> bool:
    """`pbem ingest`: an MTA's pipe, which must hear "try again" to keep the mail."""
    return getattr(args, "from_mta", False)


def _refused(args) -> int:
    """A setting or a schema we cannot use: the MTA tries again; an operator is told 78."""
    return EX_TEMPFAIL if _from_mta(args) else EX_CONFIG


if __name__ == "__main__":
    sys.exit(main())
