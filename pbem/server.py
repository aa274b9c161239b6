"""`pbem serve`: the whole server in one process — web, mail in, scheduler — on loopback.

In production the same parts run apart: `pbem worker` (pbem/worker.py) for mail in and
the scheduler, gunicorn with `pbem.web.wsgi:app` for the web.

The defaults run on a fresh machine: the web app on 127.0.0.1:8000 (waitress), the SMTP
listener on 127.0.0.1:2525, SQLite in `pbem.db`, and outgoing mail in the maildir `mail/`
unless `PBEM_SMTP_RELAY` names a relay. Without a relay, and with the web on loopback,
the web port also shows the local mailbox (`/mailbox`, pbem.web.mailbox): the kept mail
of every address, and a form to write to pbem through its own SMTP listener.
"""

from __future__ import annotations

import signal
import threading

from waitress import create_server

from pbem.config import Config, host_port
from pbem.logs import install_logging
from pbem.store import open_database
from pbem.web import create_app
from pbem.web.mailbox import available
from pbem.worker import MailWorker


def serve(config: Config, out=print) -> None:
    install_logging(config)
    open_database(config.database_url)
    worker = MailWorker(config)  # mail in and the scheduler, as `pbem worker` runs them
    worker.start()
    host, port = host_port(config.http, 8000)
    # waitress trusts no proxy by default, and then drops the headers by which a proxy
    # names whom it forwards (X-Forwarded-For, Forwarded, ...): behind nginx, a request
    # from the world would reach the app as a bare loopback one, which is the operator's
    # (pbem.web.operator_proof). Kept, they tell the app it was forwarded, and from where.
    web = create_server(create_app(config, after_move=worker.scheduler.kick_after_mail,
                                   with_mailbox=True),
                        host=host, port=port, clear_untrusted_proxy_headers=False)
    out(f"pbem is running for {config.address}")
    out(f"  web archive:  http://{host}:{port}/")
    for line in worker.describe():
        out(line)
    off = available(config)
    if off is None:
        out(f"  mailbox:      http://{host}:{port}/mailbox (every address's mail; write and "
            f"reply there; loopback only)")
        out(f"Start a game: open http://{host}:{port}/mailbox/write and send "
            f"`new onyx with friend@example.org` to {config.address},")
    else:
        out(f"  mailbox:      off ({off})")
        out(f"Start a game: send `new onyx with friend@example.org` to {config.address},")
    out("  or run `pbem new onyx --player you@example.org --player friend@example.org`.")
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop: as Ctrl-C
        # Ctrl-C itself, also when started with SIGINT ignored (a script's `pbem serve &`
        # without job control), as `pbem worker` does
        signal.signal(signal.SIGINT, _interrupt)
    try:
        web.run()
    except KeyboardInterrupt:
        pass
    finally:
        web.close()
        worker.stop()


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt
