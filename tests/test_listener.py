"""The listeners as an MTA and an abuser meet them, over real sockets on loopback.

LMTP (RFC 2033): after the data, one reply per accepted recipient. A Reply-All or a Cc
(pbem@ and pbem+TOKEN@ in one transaction) is delivered once, routed by its token, and
both recipients are answered; a server that answers once leaves the MTA waiting for the
second reply until it gives up and delivers the mail again. The LMTP exchange is spoken
command by command (smtplib.LMTP's sendmail reads one reply after the data, as SMTP has).

Connections: at most PBEM_MAX_CONNECTIONS per listener and
PBEM_MAX_CONNECTIONS_PER_CLIENT per client address; the next one is told 421.
"""

import socket
import smtplib
from dataclasses import replace

import pytest

from mailtest import body, free_port, poll
from pbem.intake.listener import start_listener
from pbem.policy.delivery import deliver_due
from pbem.store import Inbound, Move


@pytest.fixture
def lmtp(onyx, mail_server):
    """An LMTP listener beside the SMTP one; yields its port and the game."""
    port = free_port()
    listener = start_listener(mail_server, f"127.0.0.1:{port}", lmtp=True,
                              after_receive=lambda: deliver_due(mail_server))
    yield port, onyx
    listener.stop()


def lmtp_exchange(port: int, sender: str, recipients: list[str], message: bytes
                  ) -> tuple[list[tuple[int, bytes]], list[tuple[int, bytes]], tuple[int, bytes]]:
    """(RCPT replies, the replies after the data, the reply to a NOOP sent after them)."""
    with smtplib.LMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo_or_helo_if_needed()
        client.mail(sender)
        rcpt = [client.rcpt(address) for address in recipients]
        accepted = sum(1 for code, _ in rcpt if code == 250)
        client.putcmd("data")
        assert client.getreply()[0] == 354
        client.send(message.replace(b"\n", b"\r\n") + b".\r\n")
        after_data = [client.getreply() for _ in range(accepted)]
        noop = client.noop()  # the reply to this, not a leftover of the data
    return rcpt, after_data, noop


def a_reply(alice, to: str, cc: str, number: int = 1) -> bytes:
    return (f"From: alice@example.org\n"
            f"To: {to}\n"
            f"Cc: {cc}\n"
            f"Subject: Re: [pbem] Onyx\n"
            f"Message-ID: <reply-all-{number}@example.org>\n"
            f"\n"
            f"F6\n").encode()


@pytest.mark.parametrize("to_token", [True, False], ids=["reply-all", "cc"])
def test_lmtp_answers_each_recipient_and_delivers_once(lmtp, to_token):
    port, (game_id, alice, bob) = lmtp
    token, plain = alice.last["Reply-To"], "pbem@pbem.test"
    to, cc = (token, plain) if to_token else (plain, token)
    news = len(bob.inbox)
    rcpt, after_data, noop = lmtp_exchange(port, "alice@example.org", [to, cc],
                                           a_reply(alice, to, cc))
    assert [code for code, _ in rcpt] == [250, 250]
    assert after_data == [(250, b"2.0.0 OK: taken")] * 2
    assert noop == (250, b"OK")
    assert [m.text for m in Move.select().where(Move.game == game_id)] == ["F6"]
    assert Inbound.get(Inbound.message_id == "<reply-all-1@example.org>").outcome == \
        "done: 1 line(s)"
    assert len(bob.inbox) == news + 1 and "#1 alice: F6" in body(bob.last)  # told once


def test_lmtp_answers_only_the_recipients_it_accepted(lmtp):
    port, (game_id, alice, bob) = lmtp
    token = alice.last["Reply-To"]
    rcpt, after_data, noop = lmtp_exchange(port, "alice@example.org",
                                           [token, "someone@elsewhere.example"],
                                           a_reply(alice, token, "someone@elsewhere.example"))
    assert [code for code, _ in rcpt] == [250, 550]
    assert after_data == [(250, b"2.0.0 OK: taken")]
    assert noop == (250, b"OK")


def test_lmtp_over_the_size_limit_is_refused_for_each_recipient(config):
    config = replace(config, max_message_bytes=1000)  # hard limit: 10 MB at the door
    port = free_port()
    listener = start_listener(config, f"127.0.0.1:{port}", lmtp=True)
    try:
        huge = b"From: a@example.org\nSubject: x\n\n" + b"x" * 70 + b"\n"
        huge += (b"y" * 998 + b"\n") * 10_100
        rcpt, after_data, noop = lmtp_exchange(port, "a@example.org",
                                               ["pbem@pbem.test", "pbem+x@pbem.test"], huge)
    finally:
        listener.stop()
    assert [code for code, _ in after_data] == [552, 552] and noop == (250, b"OK")


# -- connection caps --------------------------------------------------------------------

def greeting(source: str, port: int) -> tuple[socket.socket, bytes]:
    """A connection from `source` (any 127.x.y.z is this machine) and its first line."""
    client = socket.create_connection(("127.0.0.1", port), timeout=30,
                                      source_address=(source, 0))
    return client, client.makefile("rb").readline()


@pytest.fixture
def capped(config):
    """An SMTP listener taking 4 connections in all, 2 from one address."""
    config = replace(config, max_connections=4, max_connections_per_client=2)
    port = free_port()
    listener = start_listener(config, f"127.0.0.1:{port}")
    opened = []

    def connect(source: str) -> bytes:
        client, line = greeting(source, port)
        opened.append(client)
        return line
    yield connect, opened
    for client in opened:
        client.close()
    listener.stop()


def test_one_address_gets_at_most_its_share_of_connections(capped):
    connect, opened = capped
    assert connect("127.0.0.1").startswith(b"220 ")
    assert connect("127.0.0.1").startswith(b"220 ")
    assert connect("127.0.0.1").startswith(b"421 4.7.0 too many connections from your")
    assert connect("127.0.0.2").startswith(b"220 ")  # another address still comes in
    opened.pop(0).close()  # one leaves: the address may come back
    poll(lambda: connect("127.0.0.1").startswith(b"220 "), "a free place for 127.0.0.1")


def test_a_listener_takes_at_most_its_connections_in_all(capped):
    connect, opened = capped
    for source in ("127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.3"):
        assert connect(source).startswith(b"220 ")
    assert connect("127.0.0.4").startswith(b"421 4.7.0 pbem has too many connections")


def test_the_units_allow_more_descriptors_than_the_listeners_take():
    """Two listeners at their cap, the database and the relay must fit under LimitNOFILE
    (the default of 1024 was what 1100 idle connections used up)."""
    from pathlib import Path

    from pbem.config import Config
    deploy = Path(__file__).resolve().parent.parent / "deploy" / "systemd"
    for unit in ("pbem-worker.service", "pbem-web.service"):
        limits = [line.split("=", 1)[1] for line in (deploy / unit).read_text().splitlines()
                  if line.startswith("LimitNOFILE=")]
        assert limits and int(limits[0]) >= 4 * Config.max_connections + 1024, unit
