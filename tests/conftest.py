"""Shared test setup: helpers importable by module name (and bench/, which is not
installed, as `bench`), and the server's fixtures.

`store` gives each test a fresh database: a SQLite file always, and PostgreSQL as well
when PBEM_TEST_DATABASE_URL names one (the test runs once on each). `mail_server` is the
real thing on loopback: the server's SMTP listener taking mail, and an SMTP sink
standing in for the relay that the outbox delivers to.
"""

import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # for `import bench`

from databases import DATABASES, POSTGRES, empty_postgres  # noqa: E402
from mailtest import Player, Sink, free_port  # noqa: E402

@pytest.fixture(params=DATABASES)
def store(request, tmp_path):
    """A fresh, migrated database; yields its URL."""
    from pbem.store import open_database
    from pbem.store.models import database
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'pbem.db'}"
    else:
        url = POSTGRES
        empty_postgres(url)
    db = open_database(url)
    yield url
    db.close()
    database.initialize(None)


@pytest.fixture
def config(store, tmp_path):
    from pbem.config import Config
    return Config(domain="pbem.test", secret_key="test-secret-key", database_url=store,
                  maildir=str(tmp_path / "maildir"), smtp_listen="", http="127.0.0.1:0",
                  rate_limit=100_000)  # test_mail_robustness tests the limit itself


@pytest.fixture
def sink():
    sink = Sink().start()
    yield sink
    sink.stop()


@pytest.fixture
def mail_server(config, sink):
    """The server's listener on loopback, relaying through the sink; yields its config."""
    from pbem.intake.listener import start_listener
    from pbem.policy.delivery import deliver_due
    config = replace(config, smtp_relay=sink.address,
                     smtp_listen=f"127.0.0.1:{free_port()}")
    listener = start_listener(config, config.smtp_listen,
                              after_receive=lambda: deliver_due(config))
    yield config
    listener.stop()


@pytest.fixture
def server_with(mail_server, sink):
    """A second listener of the same server with some settings changed:
    `config, person = server_with(rate_limit=3)`; `person('alice')` writes to it."""
    from pbem.intake.listener import start_listener
    from pbem.policy.delivery import deliver_due
    listeners = []

    def start(**changes):
        config = replace(mail_server, smtp_listen=f"127.0.0.1:{free_port()}", **changes)
        listeners.append(start_listener(config, config.smtp_listen,
                                        after_receive=lambda: deliver_due(config)))
        port = int(config.smtp_listen.rsplit(":", 1)[1])
        return config, lambda name: Player(f"{name}@example.org", sink, port, config.domain,
                                           secret=config.secret_key)
    yield start
    for listener in listeners:
        listener.stop()


@pytest.fixture
def players(mail_server, sink):
    """players('alice', 'bob') -> Player objects at example.org who send to the server."""
    port = int(mail_server.smtp_listen.rsplit(":", 1)[1])

    def make(*names):
        return [Player(f"{name}@example.org", sink, port, mail_server.domain,
                       secret=mail_server.secret_key) for name in names]
    return make


@pytest.fixture
def onyx(mail_server, players):
    """A running Onyx game between alice (Black) and bob (White), both mailed."""
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    alice, bob = players("alice", "bob")
    game_id = start_game(mail_server, ENGINES["onyx"], {}, [alice.address, bob.address])
    deliver_due(mail_server)
    return game_id, alice, bob


class FrozenTime:
    """The server's clock in a test: it stands still until the test moves it."""

    def __init__(self, start):
        self.now = start

    def __call__(self):
        return self.now

    def move(self, **delta):
        """frozen_time.move(days=1, hours=12); returns the new time."""
        import datetime as dt
        self.now += dt.timedelta(**delta)
        return self.now


@pytest.fixture
def frozen_time(monkeypatch):
    """`pbem.clock.now` fixed at Mon 30 Nov 2026 10:00 UTC, moved only by the test."""
    import datetime as dt
    from pbem import clock
    frozen = FrozenTime(dt.datetime(2026, 11, 30, 10, 0))
    monkeypatch.setattr(clock, "now", frozen)
    return frozen


@pytest.fixture
def onyx_3d(mail_server, players, frozen_time):
    """Onyx, 3 days per move, started Mon 30 Nov 2026 10:00 UTC; alice is to move."""
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    alice, bob = players("alice", "bob")
    game_id = start_game(mail_server, ENGINES["onyx"], {"time": "3d"},
                         [alice.address, bob.address])
    deliver_due(mail_server)
    return game_id, alice, bob
