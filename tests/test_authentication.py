"""Sender authentication by the operator's MTA (PBEM_AUTHSERV_ID): literal mails with
the Authentication-Results header a Postfix with OpenDMARC would add, fed to the pipeline.

A move is played only when the topmost header of our MTA's authserv-id does not say
dmarc=fail; a header the sender wrote lower down, or one from another server, counts for
nothing. A refused mail is never answered, and its outcome is stored; the one mail it
may cause goes to the seat's registered address (tests/test_refusals.py says more).
"""

from dataclasses import replace

import pytest

from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.intake.pipeline import receive
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.store import Inbound, Move, Outbox

MTA = "mx.pbem.test"


@pytest.fixture
def checked(config):
    """The server behind an MTA whose authserv-id is mx.pbem.test, and a running game."""
    config = replace(config, authserv_id=MTA)
    game_id = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    to = reply_address(seat_token(config.secret_key, game_id, 0), config.domain)
    return config, to


def alice_plays_f6(to: str, headers: str, number: int = 1) -> bytes:
    """Alice's move as the MTA hands it on: `headers` on top, as the MTA prepends them."""
    return (f"{headers}"
            f"Received: from mail.example.org (mail.example.org [192.0.2.7])\r\n"
            f"\tby {MTA} (Postfix) with ESMTPS id 4Qx; Mon, 30 Nov 2026 10:00:00 +0000\r\n"
            f"From: Alice <alice@example.org>\r\n"
            f"To: {to}\r\n"
            f"Subject: Re: [pbem] Onyx\r\n"
            f"Message-ID: <dmarc-{number}@example.org>\r\n"
            f"Date: Mon, 30 Nov 2026 10:00:00 +0000\r\n"
            f"\r\n"
            f"F6\r\n").encode()


def notified(before_outbox: int) -> list[str]:
    """Whom the mails queued since `before_outbox` go to."""
    return [m.recipient for m in Outbox.select().where(Outbox.id > before_outbox)
            .order_by(Outbox.id)]


def played(before_outbox: int) -> tuple[list[str], int]:
    """The moves in the log, and how many mails were queued since `before_outbox`."""
    return [m.text for m in Move.select().where(Move.seat >= 0)], \
        Outbox.select().count() - before_outbox


def test_dmarc_pass_at_our_mta_plays_the_move(checked):
    config, to = checked
    outbox = Outbox.select().count()
    outcome = receive(config, alice_plays_f6(to, (
        f"Authentication-Results: {MTA};\r\n"
        f"\tdkim=pass (2048-bit key) header.d=example.org header.i=@example.org;\r\n"
        f"\tdmarc=pass (p=reject dis=none) header.from=example.org\r\n")))
    assert outcome == "done: 1 line(s)"
    moves, queued = played(outbox)
    assert moves == ["F6"] and queued > 0


def test_dmarc_fail_is_refused_unanswered_and_recorded(checked):
    config, to = checked
    outbox = Outbox.select().count()
    outcome = receive(config, alice_plays_f6(to, (
        f"Authentication-Results: {MTA}; dmarc=fail (p=reject dis=reject) "
        f"header.from=example.org\r\n")))
    assert outcome == f"ignored: DMARC fail for example.org at {MTA}"
    assert played(outbox)[0] == []
    assert notified(outbox) == ["alice@example.org"]  # the seat's address, not an answer
    assert Inbound.get(Inbound.message_id == "<dmarc-1@example.org>").outcome == outcome


def test_a_pass_forged_below_our_mtas_header_is_not_read(checked):
    config, to = checked
    outbox = Outbox.select().count()
    outcome = receive(config, alice_plays_f6(to, (
        f"Authentication-Results: {MTA}; spf=fail smtp.mailfrom=example.org;\r\n"
        f"\tdkim=none; dmarc=fail (p=reject dis=reject) header.from=example.org\r\n"
        f"Authentication-Results: {MTA}; dmarc=pass header.from=example.org\r\n")))
    assert outcome == f"ignored: DMARC fail for example.org at {MTA}"
    assert played(outbox)[0] == []
    assert notified(outbox) == ["alice@example.org"]  # the seat's address, not an answer


def test_a_header_from_another_server_does_not_count(checked):
    config, to = checked
    outbox = Outbox.select().count()
    outcome = receive(config, alice_plays_f6(to, (
        "Authentication-Results: mx.elsewhere.example; dmarc=pass header.from=example.org\r\n")))
    assert outcome == f"ignored: no Authentication-Results from {MTA} (not through the MTA)"
    assert played(outbox)[0] == []
    assert notified(outbox) == ["alice@example.org"]  # the seat's address, not an answer


def test_mail_without_the_header_did_not_come_through_the_mta(checked):
    config, to = checked
    outbox = Outbox.select().count()
    outcome = receive(config, alice_plays_f6(to, ""))
    assert outcome == f"ignored: no Authentication-Results from {MTA} (not through the MTA)"
    assert played(outbox)[0] == []
    assert notified(outbox) == ["alice@example.org"]  # the seat's address, not an answer


def test_a_domain_without_a_dmarc_policy_is_left_to_the_token_and_address(checked):
    config, to = checked
    outcome = receive(config, alice_plays_f6(to, (
        f"Authentication-Results: {MTA}; dkim=none; dmarc=none (p=none dis=none) "
        f"header.from=example.org\r\n")))
    assert outcome == "done: 1 line(s)"
    assert played(0)[0] == ["F6"]


def test_a_pass_for_another_domain_than_the_from_is_refused(checked):
    config, to = checked
    outcome = receive(config, alice_plays_f6(to, (
        f"Authentication-Results: {MTA}; dmarc=pass header.from=attacker.example\r\n")))
    assert outcome == ("ignored: DMARC pass for attacker.example, not for the From domain "
                       "example.org")
    assert played(0)[0] == []


def test_our_header_garbled_decides_nothing_in_the_senders_favour(checked):
    config, to = checked
    outcome = receive(config, alice_plays_f6(to, f"Authentication-Results: {MTA}; ===\r\n"))
    assert outcome.startswith(f"ignored: Authentication-Results from {MTA} unreadable")
    assert played(0)[0] == []


def test_a_stranger_failing_dmarc_gets_no_confirmation_request(checked):
    config, _ = checked
    outbox = Outbox.select().count()
    raw = (f"Authentication-Results: {MTA}; dmarc=fail header.from=example.net\r\n"
           f"From: mallory@example.net\r\n"
           f"To: pbem@{config.domain}\r\n"
           f"Subject: pbem\r\n"
           f"Message-ID: <stranger@example.net>\r\n"
           f"\r\n"
           f"new onyx with victim@example.com\r\n").encode()
    assert receive(config, raw) == f"ignored: DMARC fail for example.net at {MTA}"
    assert Outbox.select().count() == outbox  # nothing mailed to the forged address


def test_the_check_is_off_without_an_authserv_id(checked):
    config, to = checked
    config = replace(config, authserv_id="")  # the embedded listener's default
    outcome = receive(config, alice_plays_f6(to, (
        f"Authentication-Results: {MTA}; dmarc=fail header.from=example.org\r\n")))
    assert outcome == "done: 1 line(s)"
    assert played(0)[0] == ["F6"]
