"""IMAP polling: pbem reads its mail from a mailbox on a real Dovecot
(tests/dovecot_server.py).

Mail is put into pbem's mailbox the way a provider's MX does it, over LMTP; one poll
hands it to the pipeline, which plays the move, and then removes it from the mailbox.
A second poll finds nothing to do; mail pbem cannot use is not fetched again and again.
"""

import shutil
import smtplib
from dataclasses import replace

import pytest

from dovecot_server import PASSWORD, Dovecot
from loopback_services import scratch_directory
from pbem.intake.imap import poll_mailbox
from pbem.policy.delivery import deliver_due
from pbem.scheduler import IMAP_JOB, Scheduler
from pbem.store import Inbound, Move

MAILBOX = "pbem@pbem.test"


@pytest.fixture
def dovecot():
    root = scratch_directory("pbem-imap-")
    server = Dovecot(root / "dovecot", [MAILBOX])
    try:
        yield server.start()
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def imap_config(mail_server, dovecot):
    return replace(mail_server, imap_host="127.0.0.1", imap_port=dovecot.imap_port,
                   imap_ssl=False, imap_user=MAILBOX, imap_password=PASSWORD)


def arrive(dovecot: Dovecot, raw: bytes, recipient: str) -> None:
    """What the provider's MX does with mail for pbem: into the mailbox, over LMTP."""
    with smtplib.LMTP("127.0.0.1", dovecot.lmtp_port) as lmtp:
        lmtp.sendmail("someone@example.org", [recipient], raw)


def mailbox(dovecot: Dovecot) -> dict:
    """uid -> flags of every message still in pbem's INBOX."""
    with dovecot.imap(MAILBOX) as client:
        client.select_folder("INBOX", readonly=True)
        uids = client.search(["ALL"])
        return {uid: set(flags) for uid, flags in client.get_flags(uids).items()} if uids else {}


def test_a_polled_move_is_played_once_and_leaves_the_mailbox(onyx, imap_config, dovecot):
    game_id, alice, bob = onyx
    first = alice.last
    move = alice.compose("F6\n\nOn Monday, pbem wrote:\n> It is your turn (move #1).",
                         to=first["Reply-To"], subject="Re: " + first["Subject"])
    move["In-Reply-To"] = first["Message-ID"]
    arrive(dovecot, bytes(move), first["Reply-To"])
    assert len(mailbox(dovecot)) == 1

    poll = poll_mailbox(imap_config)
    assert (poll.taken, poll.kept, poll.deferred) == (1, 0, False)
    assert [m.text for m in Move.select().where(Move.game == game_id)] == ["F6"]
    assert mailbox(dovecot) == {}
    deliver_due(imap_config)
    assert "#1 alice: F6" in bob.last.get_body(("plain",)).get_content()

    again = poll_mailbox(imap_config)
    assert (again.taken, again.kept) == (0, 0)
    assert Move.select().where(Move.game == game_id).count() == 1


def test_the_same_mail_polled_twice_is_played_once(onyx, imap_config, dovecot):
    """A crash between storing a mail and removing it from the mailbox: the next poll
    fetches it again, and the pipeline knows its Message-ID."""
    game_id, alice, bob = onyx
    first = alice.last
    move = alice.compose("F6", to=first["Reply-To"], subject="Re: " + first["Subject"])
    arrive(dovecot, bytes(move), first["Reply-To"])
    arrive(dovecot, bytes(move), first["Reply-To"])
    assert poll_mailbox(imap_config).taken == 2
    assert [m.text for m in Move.select().where(Move.game == game_id)] == ["F6"]
    assert Inbound.get(Inbound.message_id == move["Message-ID"]).outcome.startswith("done")


def test_malformed_mail_is_handled_and_not_fetched_again(onyx, imap_config, dovecot):
    game_id, alice, bob = onyx
    garbage = (b"From: \xff\xfe<<<@@\r\nTo: pbem+1-1-zzzzzzzzzzzzzzzz@pbem.test\r\n"
               b"Content-Type: multipart/mixed; boundary=\"never-closed\"\r\n"
               b"Content-Transfer-Encoding: base64\r\n\r\n--never-closed\r\n"
               b"Content-Type: text/plain; charset=no-such-charset\r\n\r\n\x00\x01=?=\r\n")
    arrive(dovecot, garbage, MAILBOX)
    first = poll_mailbox(imap_config)
    assert (first.taken, first.kept, first.deferred) == (1, 0, False)
    assert mailbox(dovecot) == {}  # kept in the database, with what was done with it:
    assert Inbound.get().outcome.startswith("ignored: reply token not valid")

    second = poll_mailbox(imap_config)
    assert (second.taken, second.kept) == (0, 0)
    assert Move.select().where(Move.game == game_id).count() == 0


def test_the_scheduler_polls_only_when_a_mailbox_is_configured(config, imap_config):
    assert Scheduler(imap_config).scheduler.get_job(IMAP_JOB) is not None
    assert Scheduler(config).scheduler.get_job(IMAP_JOB) is None
