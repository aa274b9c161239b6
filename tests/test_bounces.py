"""Bounces that come back later, and the operator's outbox (issue #30).

Mail out through a relay that accepts first and fails later: each mail leaves with a
return path of its own, the delivery report comes back to it through the real listener,
and is read with flufl.bounce — the standard format (RFC 3464) and the older ones still
found in the wild. A hard bounce counts against the address; past the threshold no mail
goes to it until its player writes again or the operator clears it. A report pbem did
not sign changes nothing. `pbem outbox` lists, retries and drops mail in a real store.
"""

import email
from dataclasses import replace

import pytest

from bouncemail import (DSN, EXIM, QMAIL, EnvelopeSink, last_return_path, outcome_of, report,
                        run_pbem)
from databases import first_start
from mailtest import body
from pbem.vocabulary.tokens import read_return_path, return_path
from pbem.store import Inbound, Outbox, Request
from pbem.store.models import Bounce, utcnow


@pytest.fixture
def sink():
    sink = EnvelopeSink().start()
    yield sink
    sink.stop()


def test_every_mail_leaves_with_a_return_path_of_its_own(onyx, sink, mail_server):
    game_id, alice, bob = onyx
    alice.reply("F6")
    paths = [sender for sender, _ in sink.senders]
    assert len(set(paths)) == len(paths) >= 3  # two start mails, the move's news
    for sender, rcpts in sink.senders:
        assert sender.startswith("pbem-bounce+b-") and sender.endswith("@pbem.test")
        path = read_return_path(mail_server.secret_key, sender, mail_server.domain)
        assert Outbox.get(Outbox.return_key == path.key).recipient == rcpts[0]


@pytest.mark.parametrize("template", [DSN, EXIM, QMAIL], ids=["rfc3464", "exim", "qmail"])
def test_a_report_that_comes_back_later_counts_and_tells_the_opponent(
        onyx, sink, mail_server, template):
    game_id, alice, bob = onyx
    alice.reply("F6")  # bob is to move; his mail is accepted by the relay, bounces later
    report(mail_server, template, last_return_path(sink, "bob@example.org"))
    outcome = outcome_of(1)
    assert outcome.startswith("bounce: mail ") and "to bob@example.org" in outcome
    row = Bounce.get(Bounce.address == "bob@example.org")
    assert (row.score, row.bouncing) == (1, None)  # one day: counted, still mailed
    (notice,) = [m for m in alice.inbox if "bounces" in m["Subject"]]
    assert notice["Subject"] == f"[pbem] game #{game_id}: mail to bob bounces"
    assert "bob@example.org" not in body(notice)
    assert not [rcpts for _, rcpts in sink.senders if rcpts == [""]]  # nobody answered


def test_a_delay_warning_and_forged_reports_change_nothing(onyx, sink, mail_server):
    game_id, alice, bob = onyx
    alice.reply("F6")
    genuine = last_return_path(sink, "bob@example.org")
    before = len(sink.messages)
    report(mail_server, DSN, genuine, 1, action="delayed", status="4.4.1")
    assert outcome_of(1).endswith("shows no permanent failure")
    forged = genuine[:-len("@pbem.test") - 3] + "aaa@pbem.test"  # the signature altered
    report(mail_server, DSN, forged, 2)
    assert outcome_of(2) == "ignored: delivery report to a return path we did not sign"
    guessed = return_path("not our secret", "a" * 24, "pbem.test")
    report(mail_server, DSN, guessed, 3)
    assert outcome_of(3) == "ignored: delivery report to a return path we did not sign"
    report(mail_server, DSN, "pbem-bounce@pbem.test", 4)
    assert outcome_of(4) == "ignored: delivery report to a return path we did not sign"
    assert Bounce.select().count() == 0
    assert len(sink.messages) == before  # no answer, no notice to anyone


def test_past_the_threshold_no_mail_goes_until_the_player_writes_again(
        onyx, sink, mail_server, frozen_time):
    game_id, alice, bob = onyx
    alice.reply("F6")
    for day in range(1, 4):  # one hard bounce a day counts; two on one day count once
        for number in (day * 10, day * 10 + 1):  # two mails to bob (a mail counts once)
            alice.reply(f"say note {number}", to=alice.inbox[0])
            report(mail_server, DSN, last_return_path(sink, "bob@example.org"), number)
        if day < 3:
            assert Bounce.get(Bounce.address == "bob@example.org").score == day
            frozen_time.move(days=1)
    row = Bounce.get(Bounce.address == "bob@example.org")
    assert row.score == 3 and row.bouncing is not None  # PBEM_BOUNCE_THRESHOLD=3
    to_bob = Outbox.select().where(Outbox.recipient == "bob@example.org").count()
    game_mail = [m for m in alice.inbox if "bounces" not in m["Subject"]][-1]
    alice.reply("say are you there?", to=game_mail)  # would mail bob (normal setting)
    assert Outbox.select().where(Outbox.recipient == "bob@example.org").count() == to_bob
    bob.reply("G5", to=bob.inbox[-1])  # mail from bob: his address works after all
    assert not Bounce.select().where(Bounce.address == "bob@example.org").exists()
    alice.reply("H4", to=[m for m in alice.inbox if "bounces" not in m["Subject"]][-1])
    assert Outbox.select().where(Outbox.recipient == "bob@example.org").count() > to_bob
    news = body(bob.last)
    assert "alice says: are you there?" in news  # the news waited at his cursor


def test_a_refusal_at_our_relay_counts_as_a_bounce_too(config, sink):
    from pbem.mail.outbox import queue
    from pbem.policy.delivery import deliver_due

    class Refusing(EnvelopeSink):
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            return "550 5.1.1 <carol@example.net>: User unknown"

    relay = Refusing().start()
    try:
        message = "From: pbem@pbem.test\nTo: carol@example.net\nSubject: x\n\nhello\n"
        queue(email.message_from_string(message), "carol@example.net")
        deliver_due(replace(config, smtp_relay=relay.address))
    finally:
        relay.stop()
    row = Bounce.get(Bounce.address == "carol@example.net")
    assert row.score == 1 and "User unknown" in row.reason


def test_a_confirmation_request_that_bounced_no_longer_blocks_the_next(config, sink):
    from mailtest import Player as Person
    from mailtest import free_port
    from pbem.intake.listener import start_listener
    from pbem.policy.delivery import deliver_due

    class Refusing(EnvelopeSink):
        refuse = True

        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if Refusing.refuse:
                return "550 5.1.1 Relay access denied"
            envelope.rcpt_tos.append(address)
            return "250 OK"

    relay = Refusing().start()
    live = replace(config, smtp_relay=relay.address, smtp_listen=f"127.0.0.1:{free_port()}")
    listener = start_listener(live, live.smtp_listen, after_receive=lambda: deliver_due(live))
    try:
        dan = Person("dan@example.org", relay, int(live.smtp_listen.rsplit(":", 1)[1]),
                     live.domain)
        dan.write("help")
        assert Outbox.get(Outbox.recipient == "dan@example.org").failed is not None
        Refusing.refuse = False  # the relay is mended
        dan.write("games")
        assert Request.select().where((Request.kind == "confirm") & Request.open).count() == 1
        assert len(relay.to("dan@example.org")) == 1  # asked again, at once
        held = list(Inbound.select().order_by(Inbound.id))
        assert held[0].outcome == "expired: its confirmation request could not be delivered"
        assert held[1].outcome == "held: confirmation asked for"
    finally:
        listener.stop()
        relay.stop()


# -- pbem outbox, against a real store ------------------------------------------------

def test_pbem_outbox_lists_retries_drops_and_clears(tmp_path):
    env = {"PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'pbem.db'}", "PBEM_SECRET_KEY": "k",
           "PBEM_SMTP_RELAY": "127.0.0.1:9"}  # nobody listens: every mail waits
    first_start(tmp_path)  # the store, as the worker's first start leaves it
    started = run_pbem("new", "onyx", "--player", "a@example.org", "--player",
                       "b@example.org", cwd=tmp_path, env=env)
    assert started.returncode == 0, started.stderr
    from pbem.store import open_database
    database = open_database(env["PBEM_DATABASE_URL"])
    try:
        first, second = [row.id for row in Outbox.select().order_by(Outbox.id)]
        Outbox.update(failed=utcnow(), last_error="550 5.7.1 Relay access denied").where(
            Outbox.id == first).execute()
        Bounce.create(address="b@example.org", score=3, last=utcnow(), bouncing=utcnow(),
                      reason="delivery report: b@example.org failed")
    finally:
        database.close()

    listed = run_pbem("outbox", cwd=tmp_path, env=env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 2
    assert "a@example.org  game #1  1 attempt  GIVEN UP" in lines[0]  # `new` tried once
    assert lines[0].endswith("550 5.7.1 Relay access denied")
    assert "b@example.org  game #1  0 attempts  waiting, next try" in lines[1]
    assert lines[1].endswith("Connection refused")  # held with the first: relay unreachable
    failed = run_pbem("outbox", "--failed", cwd=tmp_path, env=env).stdout.splitlines()
    assert [line.split()[0] for line in failed] == [str(first)]
    mine = run_pbem("outbox", "--address", "B@example.org", cwd=tmp_path, env=env).stdout
    assert mine.split()[0] == str(second)
    assert run_pbem("outbox", "--older-than", "1d", cwd=tmp_path, env=env).stdout == \
        "no mail matches\n"
    wrong = run_pbem("outbox", "--older-than", "soon", cwd=tmp_path, env=env)
    assert wrong.returncode == 2 and "is not a time" in wrong.stderr

    bounces = run_pbem("outbox", "bounces", cwd=tmp_path, env=env).stdout
    assert bounces.startswith("b@example.org  3 days of hard bounces")
    assert "BOUNCING since" in bounces

    retried = run_pbem("outbox", "retry", "--all-failed", cwd=tmp_path, env=env).stdout
    assert retried.startswith("1 mail back in the queue")
    assert "GIVEN UP" not in run_pbem("outbox", cwd=tmp_path, env=env).stdout
    retried = run_pbem("outbox", "retry", "--address", "b@example.org", cwd=tmp_path,
                       env=env).stdout
    assert "b@example.org is no longer marked bouncing" in retried
    assert run_pbem("outbox", "bounces", cwd=tmp_path, env=env).stdout == "no address bounces\n"
    assert run_pbem("outbox", "clear", "b@example.org", cwd=tmp_path, env=env).stdout == \
        "b@example.org had no bounce counted; nothing to clear\n"

    dropped = run_pbem("outbox", "drop", str(first), cwd=tmp_path, env=env).stdout
    assert dropped == "1 mail dropped\n"
    assert run_pbem("outbox", cwd=tmp_path, env=env).stdout.split()[0] == str(second)


def test_pbem_outbox_makes_no_store_where_there_is_none(tmp_path):
    done = run_pbem("outbox", cwd=tmp_path, env={"PBEM_SECRET_KEY": "k"})
    assert done.returncode == 1 and "there is no database file" in done.stderr
    assert list(tmp_path.iterdir()) == []
