"""`GET /metrics` for Prometheus: every number is counted from the database at the scrape,
so any web process reports the same, and a mail counts whichever process took it in
(here a `pbem ingest` subprocess, as Postfix's pipe runs it).
"""

import datetime as dt
import os
import subprocess
import sys

from prometheus_client.parser import text_string_to_metric_families

from pbem.operator.admin import ban, start_game
from pbem.engines import ENGINES
from pbem.play import Table
from pbem.store import Move, Outbox, transaction
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
    assert metrics[("pbem_scheduler_lag_seconds", ("queue", "outbox"))] == 0
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
    assert 3600 <= first[("pbem_scheduler_lag_seconds", ("queue", "outbox"))] < 3700
    assert 3600 <= first[("pbem_scheduler_lag_seconds", ("queue", "deadlines"))] < 3700
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


# -- counters only rise (#30 item 6): each counts events, not rows in a state -------------

def test_a_held_mail_that_is_confirmed_leaves_the_held_count_as_it_was(mail_server, players):
    (dave,) = players("dave")
    dave.write("games")  # a new address: held until dave confirms it
    (ask,) = dave.unread()
    before = scrape(mail_server)
    assert before[("pbem_mails_in_total", ("outcome", "held"))] == 1
    assert before[("pbem_mails_held",)] == 1
    assert ("pbem_mails_in_total", ("outcome", "done")) not in before
    dave.reply("yes, it is me", to=ask)
    after = scrape(mail_server)
    assert after[("pbem_mails_in_total", ("outcome", "held"))] == 1  # never falls
    # the answer, and the held mail carried out: each outcome a mail reached, counted
    assert after[("pbem_mails_in_total", ("outcome", "done"))] == 2
    assert after[("pbem_mails_held",)] == 0  # how many wait now: a gauge


def test_mail_given_up_stays_counted_after_cleanup_deletes_it_and_a_retry(config, tmp_path):
    from pbem.intake.retention import prune
    from pbem.mail.outbox import give_up
    from argparse import Namespace
    from pbem.cli.outbox import retry
    start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    first, second = Outbox.select().order_by(Outbox.id)
    give_up(config, first, utcnow(), "550 5.1.1 no such user", status="5.1.1")
    assert scrape(config)[("pbem_outbox_given_up_total",)] == 1
    give_up(config, second, utcnow(), "550 5.1.1 no such user", status="5.1.1")
    retry(Namespace(ids=[second.id], address=None, all_failed=False))  # `pbem outbox retry`
    assert Outbox.get_by_id(second.id).failed is None
    assert scrape(config)[("pbem_outbox_given_up_total",)] == 2
    later = utcnow() + dt.timedelta(days=config.keep_sent_days + 1)
    assert prune(config, now=later) == (0, 1)  # cleanup deletes the old given-up row
    assert not Outbox.select().where(Outbox.id == first.id).exists()
    metrics = scrape(config)
    assert metrics[("pbem_outbox_given_up_total",)] == 2
    assert metrics[("pbem_outbox_delivered_total",)] == 0


def test_a_move_taken_back_stays_counted(config):
    game_id = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    with transaction():
        Table.load(game_id).play(0, "F6")
    with transaction():
        Table.load(game_id).take_back(1)
    assert not Move.select().where(Move.game == game_id).exists()
    assert scrape(config)[("pbem_moves_total", ("game", "onyx"))] == 1


def test_the_hourly_roll_up_changes_no_count(config, onyx, mail_server):
    from pbem.intake.retention import prune
    from pbem.store.models import CounterEvent, CounterTotal
    game_id, alice, bob = onyx
    alice.reply("F6")
    alice.write("hello", Auto_Submitted="auto-replied")
    before = {name: value for name, value in scrape(mail_server).items()
              if name[0].endswith("_total")}
    assert CounterEvent.select().exists()
    prune(mail_server)
    assert not CounterEvent.select().exists() and CounterTotal.select().exists()
    prune(mail_server)  # nothing left to roll up: nothing counted twice
    after = {name: value for name, value in scrape(mail_server).items()
             if name[0].endswith("_total")}
    assert after == before
    assert after[("pbem_mails_in_total", ("outcome", "done"))] == 1
    assert after[("pbem_refusals_total", ("reason", "robot"))] == 1
    assert after[("pbem_outbox_delivered_total",)] == 3  # 2 at the start, 1 news to bob


# -- each worker's liveness ----------------------------------------------------------------

def test_each_worker_shows_its_last_tick_and_listeners_until_it_stops(config):
    import asyncio
    from dataclasses import replace
    from mailtest import free_port
    from pbem.operator.status import check, describe
    from pbem.store.models import Worker
    from pbem.worker import MailWorker
    worker = MailWorker(replace(config, smtp_listen=f"127.0.0.1:{free_port()}",
                                worker_name="mx-1"))
    worker.start()  # its first tick is written before start() returns
    try:
        metrics = scrape(config)
        tick = metrics[("pbem_worker_last_tick_timestamp_seconds", ("worker", "mx-1"))]
        assert abs(tick - utcnow().replace(tzinfo=dt.timezone.utc).timestamp()) < 3600
        assert metrics[("pbem_worker_listeners", ("worker", "mx-1"))] == 1
        assert metrics[("pbem_worker_listening", ("worker", "mx-1"))] == 1
        # its listener stops taking connections (the socket closed under it)
        listener = worker.listeners[0]

        async def close():
            listener.server.close()
            await listener.server.wait_closed()
        asyncio.run_coroutine_threadsafe(close(), listener.loop).result(timeout=60)
        worker.scheduler.heartbeat()  # the job's next tick, run now
        assert scrape(config)[("pbem_worker_listening", ("worker", "mx-1"))] == 0
        assert any("mx-1 (" in line and "0 of 1 listener(s) taking mail" in line
                   for line in describe(check()))
        # killed, it would tick no more: pbem status calls it silent
        Worker.update(last_tick=utcnow() - dt.timedelta(hours=1)).execute()
        assert any(line.startswith("worker:       mx-1 (") and "SILENT for 1 h 0 min" in line
                   for line in describe(check()))
    finally:
        worker.stop()
    # stopped on purpose: no longer expected to tick
    assert not any(name[0].startswith("pbem_worker_") for name in scrape(config))
    assert "workers:      NONE ticks: no `pbem worker` or `pbem serve` runs the scheduler" \
        in describe(check())


def test_two_roll_ups_at_once_count_each_event_once(config):
    """Two workers' hourly jobs roll up at the same moment, while mail is counted: each
    event lands in the totals once (PostgreSQL: each skips the rows the other locked;
    SQLite: one writer at a time)."""
    from databases import at_once
    from pbem.store import counters
    from pbem.store.models import CounterEvent
    with transaction():
        for number in range(300):
            counters.count("mails_in", ("done", "ignored", "held")[number % 3])

    def count_more():
        for _ in range(20):
            with transaction():
                counters.count("mails_in", "done")
    moved = at_once(counters.roll_up, counters.roll_up, count_more)
    assert moved[0] + moved[1] <= 320
    counters.roll_up()
    assert not CounterEvent.select().exists()
    assert counters.totals("mails_in") == {"done": 120, "held": 100, "ignored": 100}
