"""When mail out goes wrong for real, through SMTP on loopback: a relay that refuses a
recipient for good (5xx), mail that waited for days, and a deliverer killed (SIGKILL)
while the relay held its message. (A relay that refuses us, 5.7.x, is given up and
mended with `pbem outbox retry`: test_bounces_counted.py.)
"""

import asyncio
import datetime as dt
import os
import re
import signal
import subprocess
import sys
import threading
from dataclasses import replace
from email.message import EmailMessage

import pytest

from databases import only_on
from mailtest import Sink, body, poll
from pbem.mail.outbox import ASSUMED_SENT, queue
from pbem.policy.delivery import deliver_due
from pbem.operator.status import check, describe
from pbem.store import Move, Outbox
from pbem.store.models import utcnow

UNKNOWN_USER = "550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown"


class RefusingSink(Sink):
    """The relay, refusing the recipients in `refuse` with the reply given there."""

    def __init__(self):
        super().__init__()
        self.refuse: dict[str, str] = {}
        self.tried: list[str] = []

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        self.tried.append(address)
        if address in self.refuse:
            return self.refuse[address]
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"


@pytest.fixture
def sink():
    """tests/conftest.py's relay, able to refuse (the `onyx` fixture relays through it)."""
    sink = RefusingSink().start()
    yield sink
    sink.stop()


def test_a_permanent_refusal_is_given_up_and_the_opponent_told(onyx, sink, mail_server,
                                                                caplog):
    game_id, alice, bob = onyx
    sink.refuse["bob@example.org"] = UNKNOWN_USER
    alice.reply("F6")  # now bob is to move; the news to bob bounces
    (bounced,) = Outbox.select().where(Outbox.recipient == "bob@example.org",
                                       Outbox.failed.is_null(False))
    assert UNKNOWN_USER in bounced.last_error and bounced.sent is None
    assert "gave up on mail to bob@example.org" in caplog.text

    tries = sink.tried.count("bob@example.org")
    assert deliver_due(mail_server, now=utcnow() + dt.timedelta(hours=3)) == 0
    assert sink.tried.count("bob@example.org") == tries  # never tried again

    (notice,) = [m for m in alice.inbox if "bounces" in m["Subject"]]
    assert notice["Subject"] == f"[pbem] game #{game_id}: mail to bob bounces"
    assert "may not know that the game waits for them" in body(notice)
    assert "bob@example.org" not in body(notice) and "550" not in body(notice)

    status = check()
    assert (status.outbox_backlog, status.outbox_given_up) == (0, 1)
    assert ("given up:     1 mail(s) in 7 days (refused for good, or undelivered for 5 days)"
            in "\n".join(describe(status)))


def test_a_bounce_while_the_game_waits_for_someone_else_tells_nobody(onyx, sink, mail_server):
    """Only a wait everyone can see makes the bounce news: the others learn nothing of
    when pbem mailed the player otherwise."""
    game_id, alice, bob = onyx
    alice.reply("F6")
    bob.reply("G5")  # now alice is to move
    sink.refuse["bob@example.org"] = UNKNOWN_USER
    alice.reply("say nice move", to=alice.last)  # the comment to bob bounces
    assert [m.text for m in Move.select().where(Move.game == game_id)][-1] == "G5"
    assert Outbox.select().where(Outbox.failed.is_null(False)).count() == 1
    assert not [m for m in alice.inbox if "bounces" in m["Subject"]]


def test_mail_undelivered_for_five_days_is_given_up(config, sink):
    config = replace(config, smtp_relay=sink.address)
    sink.refuse["carol@example.net"] = "451 4.3.0 try again later"
    row = queue(a_message("<old@pbem.test>"), "carol@example.net")
    Outbox.update(created=utcnow() - dt.timedelta(days=6)).where(Outbox.id == row.id).execute()
    assert deliver_due(config) == 0
    row = Outbox.get_by_id(row.id)
    assert row.failed is not None and "still not delivered after 5 days" in row.last_error
    assert deliver_due(config, now=utcnow() + dt.timedelta(hours=2)) == 0
    assert sink.tried == ["carol@example.net"]


def a_message(message_id: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "pbem@pbem.test"
    message["To"] = "carol@example.net"
    message["Subject"] = "[pbem] a note"
    message["Message-ID"] = message_id
    message.set_content("Hello.\n")
    return message


# -- a deliverer killed mid-send ----------------------------------------------------------

class HoldingRelay(Sink):
    """A relay that, having read a whole message, holds its answer until `release`."""

    def __init__(self):
        super().__init__()
        self.arrived, self.release = threading.Event(), threading.Event()

    async def handle_DATA(self, server, session, envelope):
        status = await super().handle_DATA(server, session, envelope)  # it has the mail now
        if not self.release.is_set():
            self.arrived.set()
            await asyncio.get_running_loop().run_in_executor(None, self.release.wait, 60)
        return status


DELIVERER = """\
from pbem.config import Config
from pbem.policy.delivery import deliver_due
from pbem.store import open_database
config = Config.from_environment()
open_database(config.database_url)
deliver_due(config)
"""


def test_after_a_kill_mid_send_nothing_goes_twice_and_the_rest_goes_at_once(config, tmp_path):
    relay = HoldingRelay().start()
    config = replace(config, smtp_relay=relay.address)
    try:
        first = queue(a_message("<first@pbem.test>"), "carol@example.net")
        second = queue(a_message("<second@pbem.test>"), "carol@example.net")
        env = {"PATH": os.environ.get("PATH", ""), "PBEM_DATABASE_URL": config.database_url,
               "PBEM_DOMAIN": "pbem.test", "PBEM_SECRET_KEY": config.secret_key,
               "PBEM_SMTP_RELAY": relay.address}
        deliverer = subprocess.Popen([sys.executable, "-c", DELIVERER], env=env, cwd=tmp_path,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            assert relay.arrived.wait(60), deliverer.stderr.read1().decode()
            poll(lambda: Outbox.get_by_id(first.id).handed_over, "the hand-over mark")
        finally:
            deliverer.send_signal(signal.SIGKILL)  # between the relay's taking it and 250
            deliverer.wait(timeout=60)
        relay.release.set()
        # Both rows are still claimed by the dead process: the next run, right now, takes
        # them over; the first counts as sent (the relay has it), the second goes out.
        assert deliver_due(config) == 1
        ids = [m["Message-ID"] for _, m in relay.messages]
        assert ids == ["<first@pbem.test>", "<second@pbem.test>"]
        assert Outbox.get_by_id(first.id).last_error == ASSUMED_SENT
        assert Outbox.get_by_id(second.id).sent is not None
        assert deliver_due(config, now=utcnow() + dt.timedelta(minutes=5)) == 0
        assert len(relay.messages) == 2
    finally:
        relay.release.set()
        relay.stop()


def test_a_stale_claim_of_a_live_deliverer_is_left_alone(config):
    """Claims of a process that still runs (here: this one) wait for it."""
    from pbem.mail.outbox import _claim, resume_after_crash
    queue(a_message("<busy@pbem.test>"), "carol@example.net")
    now = utcnow()
    assert len(_claim(now, 10)) == 1
    resume_after_crash(now)
    assert _claim(now, 10) == []


@only_on("sqlite")  # its query planner's words; PostgreSQL's plan depends on statistics
def test_the_deliverer_status_and_pruning_read_the_waiting_mail_not_all_kept(config, sink):
    """Every statement that delivers, counts or prunes the outbox reads through an index
    of the rows it is about (0018): the unsent, or the sent and the failed by date; none
    scans every mail kept, and none uses an index of all of them."""
    from pbem.intake.retention import prune
    from pbem.store import database
    message = EmailMessage()
    message["To"] = "bob@example.org"
    message.set_content("hi")
    queue(message, "bob@example.org")
    statements: list[str] = []
    database.obj.connection().set_trace_callback(statements.append)
    try:
        deliver_due(replace(config, smtp_relay=sink.address))
        check()
        prune(config)
    finally:
        database.obj.connection().set_trace_callback(None)
    plans = {}
    for sql in statements:
        if "outbox" in sql and sql.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE")):
            plan = [row[3] for row in database.obj.execute_sql("EXPLAIN QUERY PLAN " + sql)]
            plans[sql] = plan
    assert len(plans) >= 5  # the claim, the sent mark, release, status counts, pruning
    for sql, plan in plans.items():
        aliases = {"outbox"} | set(re.findall(r'"outbox" AS "(\w+)"', sql))
        outbox = [step for step in plan
                  if (found := re.match(r"(SCAN|SEARCH) (\w+)", step)) and found[2] in aliases]
        assert outbox and all(
            "PRIMARY KEY" in step or re.search(r"INDEX outbox_unsent\b", step)
            # by date: pruning's, and an hour's or a week's mail for `pbem status`
            or re.search(r"INDEX outbox_(sent|failed|created) \(\w+[<>]\?\)", step)
            for step in outbox), (sql, plan)
