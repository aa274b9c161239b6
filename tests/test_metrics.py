"""`GET /metrics` for Prometheus: every number is counted from the database at the scrape,
so any web process reports the same, and a mail counts whichever process took it in
(here a `pbem ingest` subprocess, as Postfix's pipe runs it).
"""

import datetime as dt
import os
import subprocess
import sys

from prometheus_client.parser import text_string_to_metric_families

from pbem.admin import ban, start_game
from pbem.engines import ENGINES
from pbem.play import Table
from pbem.store import Outbox, transaction
from pbem.store.models import Clock, utcnow
from pbem.web import create_app


def scrape(config) -> dict[tuple, float]:
    response = create_app(config).test_client().get("/metrics")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, *sorted(sample.labels.items()))] = sample.value
    return samples


def test_mails_in_refusals_moves_and_the_outbox(onyx, mail_server, players):
    game_id, alice, bob = onyx
    alice.reply("F6")
    bob.reply("G5")
    mallory, = players("mallory")
    mallory.reply("E5", to=alice.inbox[0])  # someone else's reply address
    ban(mallory.address)
    mallory.write("games")
    alice.write("hello", Auto_Submitted="auto-replied")
    metrics = scrape(mail_server)
    assert metrics[("pbem_database_up",)] == 1
    assert metrics[("pbem_mails_in_total", ("outcome", "done"))] == 2
    assert metrics[("pbem_mails_in_total", ("outcome", "ignored"))] == 3
    assert metrics[("pbem_refusals_total", ("reason", "wrong_sender"))] == 1
    assert metrics[("pbem_refusals_total", ("reason", "banned"))] == 1
    assert metrics[("pbem_refusals_total", ("reason", "robot"))] == 1
    assert metrics[("pbem_moves_total", ("game", "onyx"))] == 2
    assert metrics[("pbem_games", ("status", "running"))] == 1
    assert metrics[("pbem_outbox_backlog",)] == 0  # the listener delivers at once
    assert metrics[("pbem_scheduler_lag_seconds", ("job", "outbox"))] == 0
    assert ("pbem_last_inbound_seconds",) in metrics


ROBOT_MAIL = b"""\
From: Mailer-Daemon <mailer-daemon@example.org>
To: pbem@pbem.test
Subject: Undelivered Mail Returned to Sender
Message-ID: <bounce.1@example.org>
Auto-Submitted: auto-replied

This is the mail system.
"""


def test_mail_another_process_took_in_is_counted(config, tmp_path):
    env = {**os.environ, "PBEM_DATABASE_URL": config.database_url, "PBEM_DOMAIN": "pbem.test",
           "PBEM_SECRET_KEY": config.secret_key, "PBEM_MAILDIR": str(tmp_path / "out")}
    done = subprocess.run([sys.executable, "-m", "pbem", "ingest"], input=ROBOT_MAIL, env=env,
                          cwd=tmp_path, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    metrics = scrape(config)
    assert metrics[("pbem_mails_in_total", ("outcome", "ignored"))] == 1
    assert metrics[("pbem_refusals_total", ("reason", "robot"))] == 1


def test_scrapes_agree_and_the_backlog_and_lag_come_from_the_rows(config):
    game_id = start_game(config, ENGINES["onyx"], {"time": "3d"},
                         ["alice@example.org", "bob@example.org"])
    hour_ago = utcnow() - dt.timedelta(hours=1)
    with transaction():
        Outbox.update(created=hour_ago, next_attempt=hour_ago).execute()
        Clock.update(due=hour_ago).where(Clock.game == game_id).execute()
    first, second = scrape(config), scrape(config)
    assert first == second
    assert first[("pbem_outbox_backlog",)] == 2  # the two starting mails, never delivered
    assert 3600 <= first[("pbem_outbox_oldest_seconds",)] < 3700
    assert 3600 <= first[("pbem_scheduler_lag_seconds", ("job", "outbox"))] < 3700
    assert 3600 <= first[("pbem_scheduler_lag_seconds", ("job", "deadlines"))] < 3700
    assert ("pbem_last_inbound_seconds",) not in first  # no mail ever came in
    with transaction():
        Table.load(game_id).play(0, "F6")
    assert scrape(config)[("pbem_moves_total", ("game", "onyx"))] == 1


def test_a_database_that_does_not_answer_is_database_up_0(tmp_path):
    from pbem.config import Config
    from pbem.store import open_database
    from pbem.store.models import database
    url = f"sqlite:///{tmp_path / 'missing' / 'pbem.db'}"
    open_database(url, migrate=False)
    try:
        metrics = scrape(Config(database_url=url))
    finally:
        database.initialize(None)
    from pbem import build
    assert metrics == {("pbem_database_up",): 0,  # and which pbem says so
                       ("pbem_build_info", ("commit", build.info()["commit"]),
                        ("version", build.version())): 1}
