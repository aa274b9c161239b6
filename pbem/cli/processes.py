"""`pbem serve`, `pbem worker` and `pbem ingest`: the server's processes, and one mail
handed over by an MTA's pipe.

The server commands import the server (peewee, aiosmtpd, Flask) only when run, so the
record tools start quickly and work without a database.
"""

from __future__ import annotations

import sys

from pbem.config import existing_store_config
from pbem.terminal import say

EX_TEMPFAIL = 75  # sysexits.h: the MTA keeps the mail and tries again


def add_commands(commands) -> None:
    serve = commands.add_parser("serve", help="run the server: web, mail in, scheduler")
    serve.set_defaults(run=_serve)

    worker = commands.add_parser("worker", help="run mail in and the scheduler, without the "
                                 "web (which runs under gunicorn: pbem.web.wsgi:app)")
    worker.set_defaults(run=_worker)


def add_ingest(commands) -> None:
    ingest = commands.add_parser("ingest", help="take one mail on standard input (MTA pipe)")
    # from_mta: any refusal is EX_TEMPFAIL, so the MTA keeps the mail (pbem.cli.main)
    ingest.set_defaults(run=_ingest, from_mta=True)


def _serve(args) -> int:
    from pbem.config import Config
    from pbem.server import serve
    serve(Config.from_environment())
    return 0


def _worker(args) -> int:
    from pbem.config import Config
    from pbem.worker import work
    config = Config.from_environment()  # a bad setting: named by main, exit 78
    try:
        work(config)
    except (ValueError, OSError) as error:  # a setting we cannot use, a port taken
        say(f"pbem worker: {error}", file=sys.stderr)
        return 1
    return 0


def _ingest(args) -> int:
    from peewee import OperationalError

    from pbem.operator.admin import ingest
    from pbem.intake.pipeline import TemporaryFailure
    raw = sys.stdin.buffer.read()
    try:
        outcome = ingest(existing_store_config(), raw)
    except (TemporaryFailure, OperationalError) as error:
        say(f"pbem ingest: try again later: {error}", file=sys.stderr)
        return EX_TEMPFAIL
    say(outcome)
    return 0
