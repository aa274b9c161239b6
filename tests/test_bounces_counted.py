"""Bounces are believed only as far as they prove a dead mailbox (#41 item 5), and a
relay that refuses us is given up and mended by the documented command (#41 item 7).

Everything through SMTP on loopback: the relay the outbox hands mail to (which refuses
what a test tells it to, and a message quoting GTUBE as a spam filter does), and the
server's own listener, which the literal delivery reports go through.
"""

import base64
import hashlib
import hmac
from dataclasses import replace

import pytest

from bouncemail import (DSN, EXIM, GTUBE, EnvelopeSink, last_return_path, outcome_of, report,
                        run_pbem)
from mailtest import body
from pbem.store import Outbox
from pbem.store.models import Bounce

BOB = "bob@example.org"
CONTENT_REFUSED = "554 5.7.1 Message content rejected, UBE, id=1234"


@pytest.fixture
def sink():
    sink = EnvelopeSink().start()
    yield sink
    sink.stop()


def told_of_bounces(person) -> list:
    return [m for m in person.inbox if "bounces" in m["Subject"]]


def test_a_content_refusal_at_the_relay_is_given_up_shown_and_not_counted(
        onyx, sink, mail_server, frozen_time):
    """The opponent quotes GTUBE with `say` on three days: the relay refuses each mail to
    bob with 554 5.7.1. Bob's mailbox is fine; he must go on getting the game's mail."""
    game_id, alice, bob = onyx
    alice.reply("F6")  # bob is to move, and alice's comments are mailed to him
    for day in range(3):
        alice.reply(f"say {GTUBE}", to=alice.inbox[0])
        frozen_time.move(days=1)
    refused = list(Outbox.select().where((Outbox.recipient == BOB)
                                         & Outbox.failed.is_null(False)))
    assert len(refused) == 3 and all("5.7.1" in row.last_error for row in refused)
    assert not Bounce.select().exists()  # nothing counted against anyone
    assert told_of_bounces(alice) == []  # and the sender of the spam learns nothing
    alice.reply("say are you there?", to=alice.inbox[0])
    assert "alice says: are you there?" in body(bob.last)


def test_a_content_refusal_reported_later_is_noted_and_not_counted(
        onyx, sink, mail_server, frozen_time):
    game_id, alice, bob = onyx
    alice.reply("F6")
    for day in range(1, 4):
        alice.reply(f"say note {day}", to=alice.inbox[0])
        report(mail_server, DSN, last_return_path(sink, BOB), day, status="5.7.1",
               diagnostic=CONTENT_REFUSED)
        assert outcome_of(day).endswith("refused with 5.7.1: not a failure of the mailbox, "
                                        "not counted")
        frozen_time.move(days=1)
    assert not Bounce.select().exists()
    assert told_of_bounces(alice) == []
    noted = Outbox.select().where(Outbox.recipient == BOB).order_by(Outbox.id.desc()).first()
    assert noted.last_error == f"delivery report (5.7.1, not counted): {CONTENT_REFUSED}"
    before = len(bob.inbox)
    alice.reply("say still there?", to=alice.inbox[0])
    assert len(bob.inbox) == before + 1  # still mailed


def test_one_report_counts_once_for_the_mail_it_is_about(onyx, sink, mail_server,
                                                         frozen_time):
    """A genuine report for one mail, sent five times on one day and again on days 2 and
    3 (each with a Message-ID of its own, so no duplicate check catches it)."""
    game_id, alice, bob = onyx
    alice.reply("F6")
    path = last_return_path(sink, BOB)
    numbers = [1, 2, 3, 4, 5]
    for number in numbers:
        report(mail_server, DSN, path, number)
    for number in (6, 7):
        frozen_time.move(days=1)
        report(mail_server, DSN, path, number)
        numbers.append(number)
    row = Bounce.get(Bounce.address == BOB)
    assert (row.score, row.bouncing) == (1, None)
    assert outcome_of(1).startswith("bounce: mail ")
    for number in numbers[1:]:
        assert outcome_of(number).endswith("whose bounce is counted already")
    assert len(told_of_bounces(alice)) == 1


@pytest.mark.parametrize("template", [DSN, EXIM], ids=["rfc3464", "exim"])
def test_a_report_counts_only_for_the_recipient_of_the_mail_its_return_path_names(
        onyx, sink, mail_server, template):
    game_id, alice, bob = onyx
    alice.reply("F6")
    report(mail_server, template, last_return_path(sink, BOB), 1,
           recipient="carol@example.net",
           diagnostic="550 5.1.1 <carol@example.net>: User unknown")
    assert outcome_of(1).endswith("says another recipient failed, not the mail's")
    assert not Bounce.select().exists()
    report(mail_server, template, last_return_path(sink, BOB), 2)  # bob's own: counts
    assert Bounce.get(Bounce.address == BOB).score == 1


def test_return_paths_carry_no_id_and_a_late_report_never_reaches_a_later_mail(
        mail_server, sink):
    """A player comparing two return paths learns nothing of the mail between; and a
    mail gone from the store (a restore to a backup older than it, or the newest row
    dropped) leaves its id to the next mail, but never its return path."""
    from pbem.mail.outbox import queue
    from pbem.policy.delivery import deliver_due
    first = queue(note("carol@example.net"), "carol@example.net")
    deliver_due(mail_server)
    carols = last_return_path(sink, "carol@example.net")
    assert f"+b-{first.id}-" not in carols
    Outbox.delete().where(Outbox.id == first.id).execute()  # the restore
    second = queue(note("dan@example.net"), "dan@example.net")
    deliver_due(mail_server)
    dans = last_return_path(sink, "dan@example.net")
    assert dans != carols and f"+b-{second.id}-" not in dans
    report(mail_server, DSN, carols, 1, recipient="carol@example.net",
           diagnostic="550 5.1.1 <carol@example.net>: User unknown")
    assert outcome_of(1) == "ignored: delivery report for a mail that is no longer kept"
    report(mail_server, DSN, carols, 2, recipient="dan@example.net",
           diagnostic="550 5.1.1 <dan@example.net>: User unknown")
    assert outcome_of(2) == "ignored: delivery report for a mail that is no longer kept"
    assert not Bounce.select().exists()


def test_a_return_path_from_before_the_keys_is_still_read_for_its_own_mail(
        mail_server, sink):
    """Mail sent before 0039 left with `b-<id>-<mac>`: a late report to it still counts
    for that mail (which has no key), and for no mail that has one."""
    from pbem.mail.outbox import queue
    from pbem.policy.delivery import deliver_due
    old = queue(note(BOB), BOB)
    newer = queue(note("carol@example.net"), "carol@example.net")
    deliver_due(mail_server)
    Outbox.update(return_key=None).where(Outbox.id == old.id).execute()  # as before 0039
    report(mail_server, DSN, id_return_path(newer.id), 1, recipient="carol@example.net",
           diagnostic="550 5.1.1 <carol@example.net>: User unknown")
    assert outcome_of(1) == "ignored: delivery report for a mail that is no longer kept"
    report(mail_server, DSN, id_return_path(old.id), 2)
    assert outcome_of(2) == f"bounce: mail {old.id} to {BOB}"
    assert [row.address for row in Bounce.select()] == [BOB]


def id_return_path(outbox_id: int) -> str:
    """A return path as pbem made them before 0039: the row's id, signed."""
    digest = hmac.new(b"test-secret-key", f"bounce/{outbox_id}".encode(), hashlib.sha256)
    mac = base64.b32encode(digest.digest()).decode().lower()[:16]
    return f"pbem-bounce+b-{outbox_id}-{mac}@pbem.test"


def note(recipient: str):
    from email.message import EmailMessage
    message = EmailMessage()
    message["From"] = "pbem@pbem.test"
    message["To"] = recipient
    message["Subject"] = "[pbem] a note"
    message.set_content("Hello.\n")
    return message


# -- a relay that refuses us (#41 item 7) ---------------------------------------------------

def test_a_relay_that_refuses_us_gives_the_mail_up_and_retry_mends_it(config, sink, tmp_path):
    """`554 5.7.1 Relay access denied` is the relay's misconfiguration, not the player's
    mailbox: the mail is given up at once (so the operator's alert on given-up mail
    fires), nothing is counted against the address, and once the relay is mended
    `pbem outbox retry --all-failed` (deploy/README.md) sends it."""
    from pbem.mail.outbox import queue
    from pbem.policy.delivery import deliver_due
    from pbem.store import counters
    config = replace(config, smtp_relay=sink.address)
    sink.refuse["carol@example.net"] = "554 5.7.1 <carol@example.net>: Relay access denied"
    row = queue(note("carol@example.net"), "carol@example.net")
    assert deliver_due(config) == 0
    row = Outbox.get_by_id(row.id)
    assert row.failed is not None and "Relay access denied" in row.last_error
    assert counters.totals("outbox_given_up") == {"": 1}  # pbem_outbox_given_up_total
    assert not Bounce.select().exists()
    del sink.refuse["carol@example.net"]  # the relay is mended
    env = {"PBEM_DATABASE_URL": config.database_url, "PBEM_SECRET_KEY": config.secret_key}
    retried = run_pbem("outbox", "retry", "--all-failed", cwd=tmp_path, env=env)
    assert retried.stdout.startswith("1 mail back in the queue"), retried.stderr
    assert deliver_due(config) == 1
    assert len(sink.to("carol@example.net")) == 1


# -- what the operator's terminal is shown (#41 item 7) ---------------------------------------

def test_the_outbox_commands_print_no_control_character_that_came_from_outside(
        onyx, sink, mail_server, tmp_path):
    """A report's Final-Recipient and words with ESC and BEL in them (a terminal would
    clear its screen, retitle its window), and rows an older pbem kept as they came."""
    game_id, alice, bob = onyx
    alice.reply("F6")
    env = {"PBEM_DATABASE_URL": mail_server.database_url, "PBEM_SECRET_KEY": "k"}

    def shown(*command) -> str:
        out = run_pbem(*command, cwd=tmp_path, env=env).stdout
        assert not any(c in out for c in "\x1b\x07\x9b"), (command, out)
        return out

    escaped = (DSN.replace("Original-Recipient: rfc822;{recipient}\n", "")
               .replace("Final-Recipient: rfc822; {recipient}",
                        "Final-Recipient: rfc822; {recipient}\x1b[2J\x07"))
    report(mail_server, escaped, last_return_path(sink, BOB), 1)
    shown("outbox", "bounces")
    report(mail_server, DSN, last_return_path(sink, BOB), 2,
           diagnostic="550 5.1.1 \x1b]0;owned\x07User unknown")
    assert "5.1.1 ]0;ownedUser unknown" in shown("outbox", "bounces")
    Bounce.update(reason="delivery report: \x1b[2Jbob@example.org\x07\x9b failed").execute()
    Outbox.update(failed=Outbox.created, last_error="550 5.1.1 \x1b[31mUser unknown\x07").where(
        Outbox.id == Outbox.select(Outbox.id).where(Outbox.recipient == BOB).limit(1)).execute()
    assert "delivery report: [2Jbob@example.org failed" in shown("outbox", "bounces")
    assert "550 5.1.1 [31mUser unknown" in shown("outbox", "--failed")
