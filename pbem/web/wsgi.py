"""The web app for a WSGI server: `gunicorn -w 4 'pbem.web.wsgi:app'` in production.

Built from the PBEM_* environment like every other command. The schema is brought up to
date once at import (PostgreSQL serialises concurrent upgrades), and the connection is
closed straight after, so nothing open is inherited across gunicorn's fork (with or
without --preload). A request connects at its first query (peewee's autoconnect) and
closes at its end: a worker holds no connection while idle, and a database restart
costs one request at most. Mail in and the scheduler run elsewhere, in `pbem worker`.
"""

from __future__ import annotations

import sys

from flask import Flask

from pbem.config import Config, SettingsError
from pbem.logs import install_logging
from pbem.store import database, open_database
from pbem.store.database import DatabaseRefused, DatabaseUnreachable, SchemaTooNew
from pbem.web import create_app


def create_wsgi_app(config: Config) -> Flask:
    install_logging(config)
    open_database(config.database_url).close()
    app = create_app(config)

    @app.teardown_request
    def disconnect(error) -> None:
        # peewee connected at the request's first query (if it made one); a page that
        # cannot reach the database fails alone, and /healthz answers 503.
        if not database.is_closed():
            database.close()

    return app


def _config() -> Config:
    """The settings; a bad one stops gunicorn with its name and no traceback (exit 78,
    which the unit's RestartPreventExitStatus= does not restart for)."""
    try:
        return Config.from_environment()
    except SettingsError as error:
        print("pbem: the settings cannot be used:\n  " + "\n  ".join(error.problems),
              file=sys.stderr)
        raise SystemExit(78) from None


def _app() -> Flask:
    """The app; a database migrated by a newer pbem stops gunicorn as it stops every
    other process (exit 78, named versions), rather than serve its pages with old code."""
    try:
        return create_wsgi_app(_config())
    except (SchemaTooNew, DatabaseRefused) as error:
        print(f"pbem web: {error}", file=sys.stderr)
        raise SystemExit(78) from None
    except DatabaseUnreachable as error:  # gunicorn stops; the unit starts it again
        print(f"pbem web: {error}", file=sys.stderr)
        raise SystemExit(1) from None


app = _app()
