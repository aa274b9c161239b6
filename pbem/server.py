"""`pbem serve`: the whole server in one process — web, mail in, scheduler — on loopback.

The defaults run on a fresh machine: the web app on 127.0.0.1:8000 (waitress), the SMTP
listener on 127.0.0.1:2525, SQLite in `pbem.db`, and outgoing mail in the maildir `mail/`
unless `PBEM_SMTP_RELAY` names a relay.
"""

from __future__ import annotations

import signal
import threading

from waitress import create_server

from pbem.config import Config, host_port
from pbem.mail.listener import start_listener
from pbem.scheduler import Scheduler
from pbem.store import open_database
from pbem.web import create_app


def serve(config: Config, out=print) -> None:
    open_database(config.database_url)
    scheduler = Scheduler(config)
    listeners = []
    if config.smtp_listen:
        listeners.append(start_listener(config, config.smtp_listen,
                                        after_receive=scheduler.kick_delivery))
    if config.lmtp_listen:
        listeners.append(start_listener(config, config.lmtp_listen, lmtp=True,
                                        after_receive=scheduler.kick_delivery))
    scheduler.start()
    host, port = host_port(config.http, 8000)
    web = create_server(create_app(config), host=host, port=port)
    out(f"pbem is running for {config.address}")
    out(f"  web archive:  http://{host}:{port}/")
    if config.smtp_listen:
        out(f"  mail in:      SMTP on {config.smtp_listen}")
    if config.lmtp_listen:
        out(f"  mail in:      LMTP on {config.lmtp_listen}")
    out(f"  mail out:     {'relay ' + config.smtp_relay if config.smtp_relay else 'the maildir ' + config.maildir + '/ (no PBEM_SMTP_RELAY set)'}")
    out(f"  database:     {config.database_url}")
    out(f"Start a game: send `new onyx with friend@example.org` to {config.address},")
    out("  or run `pbem new onyx --player you@example.org --player friend@example.org`.")
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop: as Ctrl-C
    try:
        web.run()
    except KeyboardInterrupt:
        pass
    finally:
        web.close()
        for listener in listeners:
            listener.stop()
        scheduler.stop()


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt
