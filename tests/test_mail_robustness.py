"""Intake and delivery when things are not simple: strangers, robots, floods, huge mail,
a crash in the middle of a move, a relay that goes away, and the other ways mail comes in
(LMTP, `pbem ingest`) or games start (`pbem new`).

Everything goes through real SMTP on loopback: the server's listener takes the mail, and
the sink stands in for the relay. Mail is literal text as a person or a robot writes it.
"""

import datetime as dt
import email
import email.policy
import io
import os
import smtplib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from databases import only_on
from mailtest import body, free_port
from pbem import cli
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.mail import letters
from pbem.intake.listener import start_listener
from pbem.policy.delivery import deliver_due
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.store import Game, Inbound, Move, Outbox, Seat
from pbem.store.models import utcnow

def moves_of(game_id):
    return [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def outcome_of(message):
    return Inbound.get(Inbound.message_id == message["Message-ID"]).outcome


# -- invitations and confirmation -------------------------------------------------------

def test_a_stranger_gets_one_confirmation_request_and_nothing_is_sent_on_their_behalf(
        players, sink):
    carol, bob = players("carol", "bob")
    first = carol.write("new onyx with bob@example.org board=16")
    assert [m["Subject"] for m in carol.inbox] == ["[pbem] please confirm"]
    assert "reply to this mail" in body(carol.last)
    assert outcome_of(first) == "held: confirmation asked for"
    second = carol.write("new onyx with bob@example.org")
    assert len(carol.inbox) == 1  # no second confirmation for the same address
    assert outcome_of(second) == "held: a confirmation is already waiting for an answer"
    assert bob.inbox == [] and Game.select().count() == 0
    assert len(sink.messages) == 1


def test_a_confirmed_invitation_starts_the_game_when_everyone_accepts(players):
    carol, bob = players("carol", "bob")
    carol.write("new onyx with bob@example.org board=16")
    carol.reply("yes, that was me")
    (game,) = Game.select()
    assert (game.status, game.options["board"]) == ("inviting", "16")
    assert f"Game #{game.id} (Onyx, board=16" in body(carol.last)
    assert [m["Subject"] for m in bob.inbox] == [f"[pbem] Onyx #{game.id}"]
    invitation = body(bob.last)
    assert "carol <carol@example.org> invites you to play Onyx (board=16" in invitation
    assert "Reply to this mail with `accept` or `decline`" in invitation
    carol_mails = len(carol.inbox)
    bob.reply("accept")
    assert Game.get_by_id(game.id).status == "running"
    assert f"#{game.id} has started" in body(bob.last)
    assert "Waiting for carol (move #1)." in body(bob.last)
    assert len(carol.inbox) == carol_mails + 1
    assert "It is your turn (move #1)." in body(carol.last)
    carol.reply("#1 H9")  # a point of the 16×16 board
    assert moves_of(game.id) == ["H9"]


def test_a_move_before_everyone_accepted_is_refused(players):
    carol, bob = players("carol", "bob")
    carol.write("new onyx with bob@example.org")
    carol.reply("yes")
    bob.reply("F6")  # bob has not answered his invitation
    assert "you are invited to this game: write `accept` or `decline`" in body(bob.last)
    assert Game.get().status == "inviting" and Move.select().count() == 0


def test_a_decline_cancels_the_game_and_tells_everyone(players):
    carol, bob, dan = players("carol", "bob", "dan")
    carol.write("new onix with bob@example.org dan@example.org")
    carol.reply("confirmed")
    (game,) = Game.select()
    bob.reply("accept")
    assert Game.get_by_id(game.id).status == "inviting"
    assert "Waiting for dan to accept." in body(bob.last)
    dan.reply("decline")
    assert Game.get_by_id(game.id).status == "cancelled"
    for person in (carol, bob, dan):
        text = body(person.last)
        assert "dan declined the invitation" in text
        assert "Game cancelled: dan declined." in text


# -- robots are never answered --------------------------------------------------------

@pytest.mark.parametrize("sender, headers, reason", [
    ("", {}, "null envelope sender"),
    (None, {"Precedence": "bulk"}, "Precedence: bulk"),
    (None, {"X-Pbem-Loop": "pbem.test"}, "X-Pbem-Loop present"),
], ids=["bounce", "bulk", "our-own-mail"])
def test_a_robot_is_never_answered(onyx, sink, sender, headers, reason):
    game_id, alice, bob = onyx
    count = len(sink.messages)
    message = alice.compose("F6", to=alice.last["Reply-To"], subject="Re: x")
    for name, value in headers.items():
        message[name] = value
    alice.send(message, sender=sender)
    assert moves_of(game_id) == [] and len(sink.messages) == count
    assert outcome_of(message).startswith(f"ignored: robot ({reason}")


def test_a_bounce_to_the_server_address_asks_no_stranger_to_confirm(players, sink):
    (daemon,) = players("mailer-daemon")
    daemon.write("Delivery to the following recipient failed permanently: bob@example.org")
    assert sink.messages == []


# -- floods and huge mail ------------------------------------------------------------

def test_a_sender_over_the_rate_limit_is_ignored_for_the_hour(onyx, server_with):
    config, person = server_with(rate_limit=3)
    alice = person("alice")
    before = len(alice.inbox)
    sent = [alice.write("games") for _ in range(5)]
    # every mail kept from her within the hour counts, answered or not; she is told of
    # the limit once (tests/test_limits_and_held_mail.py)
    assert len(alice.inbox) == before + 4
    assert alice.inbox[-1]["Subject"] == "[pbem] your mail was not answered: a limit"
    assert [outcome_of(m).split(":")[0] for m in sent] == ["done"] * 3 + ["ignored"] * 2
    assert outcome_of(sent[-1]) == "ignored: 5 mails from this sender within an hour"


def test_an_oversized_mail_from_a_stranger_gets_no_answer(server_with, sink):
    config, person = server_with(max_message_bytes=5_000)
    mallory = person("mallory")
    message = mallory.write("new onyx with bob@example.org\n" + "x" * 10_000)
    assert sink.messages == []
    assert outcome_of(message).startswith("refused: ")


def test_an_oversized_move_from_a_player_is_refused_with_the_limit(onyx, server_with):
    game_id, alice, bob = onyx
    config, person = server_with(max_message_bytes=5_000)
    player = person("alice")
    message = player.compose("F6\n\n" + "pictures " * 1000, to=alice.last["Reply-To"],
                             subject="Re: x")
    player.send(message)
    assert moves_of(game_id) == []
    assert "the limit is 5,000" in body(alice.last)


# -- a crash in the middle never half-applies a move --------------------------------

def test_a_crash_mid_move_keeps_nothing_and_a_redelivery_plays_it(onyx, monkeypatch):
    game_id, alice, bob = onyx
    before = Game.get_by_id(game_id)
    mails_before = Outbox.select().count()
    real_queue, queued = letters.queue, []

    def queue_then_crash(message, recipient, game=None):
        queued.append(real_queue(message, recipient, game))  # in the outbox table, then
        raise RuntimeError("disk on fire")
    monkeypatch.setattr(letters, "queue", queue_then_crash)

    sent = alice.reply("F6")
    assert queued  # the crash came after the move and one mail were written
    assert moves_of(game_id) == []
    after = Game.get_by_id(game_id)
    assert (after.plies, after.state, after.updated) == (before.plies, before.state,
                                                         before.updated)
    assert Outbox.select().count() == mails_before
    assert outcome_of(sent) == "failed: RuntimeError: disk on fire"

    monkeypatch.undo()
    alice.send(sent)  # the MTA delivers the same mail again
    assert moves_of(game_id) == ["F6"]
    assert "#1 alice: F6" in body(bob.last)
    assert outcome_of(sent) == "done: 1 line(s)"


# -- the relay goes away and comes back ----------------------------------------------

def test_a_relay_outage_mid_game_delays_mail_and_delivers_all_of_it_once_in_order(
        onyx, sink, mail_server):
    game_id, alice, bob = onyx
    delivered_before = len(sink.messages)
    alice.reply("#1 F6")
    sink.stop()
    bob.reply("#2 G5", to=bob.inbox[-1])   # bob never saw F6: the move number guards him
    alice.reply("#3 H7", to=alice.inbox[-1])
    bob.reply("#4 E5", to=bob.inbox[-1])
    assert moves_of(game_id) == ["F6", "G5", "H7", "E5"]  # play goes on without the relay
    waiting = list(Outbox.select().where(Outbox.sent.is_null()).order_by(Outbox.id))
    assert len(waiting) == 3  # the news and the turn, to the other player, of each move
    # Tried until the relay is found out of reach; the rest waits as long, its error noted
    assert any(m.attempts >= 1 for m in waiting) and all(m.last_error for m in waiting)
    assert len(sink.messages) == delivered_before + 1  # only what F6 caused

    sink.start()  # the relay is back, on the same port
    assert deliver_due(mail_server) == 0  # nothing is due before the pause
    later = utcnow() + dt.timedelta(minutes=10)
    assert deliver_due(mail_server, now=later) == len(waiting)
    assert deliver_due(mail_server, now=later + dt.timedelta(hours=1)) == 0
    ids = [m["Message-ID"] for _, m in sink.messages[delivered_before + 1:]]
    expected = [_message_id(row) for row in waiting]
    assert ids == expected  # each exactly once, in the order queued
    assert Outbox.select().where(Outbox.sent.is_null()).count() == 0
    assert "#4 bob: E5" in body(alice.last) and "It is your turn (move #5)." in body(alice.last)
    alice.reply("D4")
    assert moves_of(game_id)[-1] == "D4"


def _message_id(row):
    return email.message_from_bytes(bytes(row.message), policy=email.policy.default)[
        "Message-ID"]


# -- other ways in: LMTP from an MTA, `pbem ingest` from a pipe ---------------------------

def test_an_lmtp_listener_takes_a_move(onyx, mail_server):
    game_id, alice, bob = onyx
    port = free_port()
    listener = start_listener(mail_server, f"127.0.0.1:{port}", lmtp=True,
                              after_receive=lambda: deliver_due(mail_server))
    try:
        message = alice.compose("F6", to=alice.last["Reply-To"], subject="Re: x")
        with smtplib.LMTP("127.0.0.1", port) as lmtp:
            refused = lmtp.send_message(message, to_addrs=[alice.last["Reply-To"]])
        assert refused == {}
    finally:
        listener.stop()
    assert moves_of(game_id) == ["F6"]
    assert "#1 alice: F6" in body(bob.last)


def literal_move(config, game_id, seat, sender, text, message_id):
    token = seat_token(config.secret_key, game_id, seat)
    return (f"From: {sender}\r\nTo: {reply_address(token, config.domain)}\r\n"
            f"Subject: Re: our game\r\nMessage-ID: {message_id}\r\n"
            f"Content-Type: text/plain; charset=us-ascii\r\n\r\n{text}\r\n").encode()


def environment(config):
    return {"PBEM_DATABASE_URL": config.database_url, "PBEM_SECRET_KEY": config.secret_key,
            "PBEM_DOMAIN": config.domain, "PBEM_MAILDIR": config.maildir,
            "PBEM_SMTP_RELAY": config.smtp_relay}


def run_cli(monkeypatch, config, argv, stdin=b""):
    for name, value in environment(config).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    return cli.main(argv)


def test_ingest_plays_a_mail_from_stdin_and_the_answer_goes_to_the_maildir(
        config, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    game_id = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    raw = literal_move(config, game_id, 0, "alice@example.org", "F6", "<pipe-1@client.test>")
    assert run_cli(monkeypatch, config, ["ingest"], raw) == 0
    assert capsys.readouterr().out.strip() == "done: 1 line(s)"
    assert moves_of(game_id) == ["F6"]
    maildir = list((Path(config.maildir) / "new").iterdir())
    answers = [p.read_bytes() for p in maildir if b"#1 alice: F6" in p.read_bytes()]
    assert len(answers) == 1 and b"To: bob <bob@example.org>" in answers[0]
    assert Outbox.select().where(Outbox.sent.is_null()).count() == 0


@only_on("sqlite")  # a lock on the database file
def test_ingest_asks_the_mta_to_retry_while_the_database_is_locked(
        config, monkeypatch, capsys, tmp_path):
    from pbem.store.database import SQLITE_PRAGMAS
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(SQLITE_PRAGMAS, "busy_timeout", 200)  # ms, not 10 s
    game_id = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    raw = literal_move(config, game_id, 0, "alice@example.org", "F6", "<pipe-2@client.test>")
    other = sqlite3.connect(config.database_url.split("sqlite:///", 1)[1], timeout=0)
    other.execute("BEGIN IMMEDIATE")  # another process is writing, and takes its time
    try:
        assert run_cli(monkeypatch, config, ["ingest"], raw) == cli.EX_TEMPFAIL
        assert "try again later" in capsys.readouterr().err
    finally:
        other.rollback()
        other.close()
    assert moves_of(game_id) == []
    assert run_cli(monkeypatch, config, ["ingest"], raw) == 0  # the MTA's retry
    assert moves_of(game_id) == ["F6"]


def test_ingest_exits_75_when_the_database_cannot_be_opened(tmp_path):
    (tmp_path / "a-file").write_text("not a directory")
    env = {**os.environ, "PBEM_DATABASE_URL": f"sqlite:///{tmp_path}/a-file/pbem.db",
           "PBEM_SECRET_KEY": "k", "PBEM_MAILDIR": str(tmp_path / "maildir")}
    done = subprocess.run([sys.executable, "-m", "pbem", "ingest"], input=b"Subject: x\r\n\r\nF6",
                          capture_output=True, env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 75, done.stderr.decode()
    assert b"try again later" in done.stderr


# -- `pbem new`: a game started by the administrator -------------------------------------

def test_pbem_new_prints_the_game_id_last_and_mails_every_player(
        mail_server, sink, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    code = run_cli(monkeypatch, mail_server, ["new", "onix", "--player", "ann@example.org",
                                              "--player", "ben@example.org",
                                              "--player", "cy@example.org"])
    assert code == 0
    game_id = int(capsys.readouterr().out.strip().splitlines()[-1])
    game = Game.get_by_id(game_id)
    assert (game.engine, game.status, Seat.select().where(Seat.game == game).count()) == (
        "onix", "running", 3)
    for address in ("ann@example.org", "ben@example.org", "cy@example.org"):
        (mail,) = sink.to(address)
        assert mail["Subject"] == f"[pbem] Onix #{game_id}"
        assert f"Game #{game_id} has started" in body(mail)
        assert mail["Reply-To"].startswith(f"pbem+{game_id}-")
