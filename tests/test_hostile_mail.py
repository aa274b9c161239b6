"""Hostile mail: what an abuser's mail can make pbem do, and what it cannot.

- a mail built to cost seconds of CPU (hundreds of nested multiparts) is refused unread;
- one confirmed player cannot make pbem a mail cannon (invitations are limited, one
  waiting invitation per address), forged senders get confirmation requests that carry
  none of their text, at most an hourly number in all, none when the MTA saw SPF or DMARC
  fail;
- autoresponders get a few error replies an hour at most, and no answer to an echo;
- a crafted From that makes the stdlib's parser recurse is stored and answered 250;
- raw mail nobody acted on is kept a few days, players' mail longer.

Real SMTP on loopback (the server's listener, the sink as relay), literal mail.
"""

import datetime as dt
import io
import re
import smtplib
import sys

import pytest

from mailtest import body
from pbem import cli
from pbem.store import Game, Inbound, Outbox
from pbem.store.models import Player as PlayerRow
from pbem.store.models import utcnow
from pbem.store.competition_models import Tournament


def outcome_of(message):
    return Inbound.get(Inbound.message_id == message["Message-ID"]).outcome


def confirmed(person):
    """A person who wrote once and confirmed their address."""
    person.write("games")
    person.reply("yes")
    assert PlayerRow.get(PlayerRow.email == person.address).confirmed
    return person


def send_raw(config, raw: bytes, sender: str, to: str) -> tuple[int, bytes]:
    """Send literal bytes over SMTP; the server's answer to the DATA command."""
    port = int(config.smtp_listen.rsplit(":", 1)[1])
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
        smtp.ehlo()
        smtp.mail(sender)
        smtp.rcpt(to)
        return smtp.data(raw)


# -- 1. a mail built to stall the parser ------------------------------------------------

def nested_multiparts(depth: int, sender: str, to: str, message_id: str) -> bytes:
    """A mail of `depth` multiparts each inside the last: cheap to write, and the stdlib
    parser's cost grows much faster than its size."""
    head = (f"From: {sender}\r\nTo: {to}\r\nSubject: hello\r\nMessage-ID: {message_id}\r\n"
            f"MIME-Version: 1.0\r\n").encode()
    opening = b"".join(b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n'
                       % (n, n) for n in range(depth))
    closing = b"".join(b"\r\n--b%d--\r\n" % n for n in reversed(range(depth)))
    return head + opening + b"Content-Type: text/plain\r\n\r\ngames\r\n" + closing


def test_a_strangers_nested_multipart_mail_is_refused_unread_and_unanswered(mail_server, sink):
    raw = nested_multiparts(800, "mallory@example.org", "pbem@pbem.test", "<deep-1@x.test>")
    code, _ = send_raw(mail_server, raw, "mallory@example.org", "pbem@pbem.test")
    assert code == 250
    row = Inbound.get(Inbound.message_id == "<deep-1@x.test>")
    assert row.outcome.startswith("refused: malformed, it nests more than 40 multipart")
    assert bytes(row.raw) == raw and sink.messages == []


def test_a_players_nested_multipart_mail_is_refused_and_they_are_told_why(players):
    (alice,) = players("alice")
    confirmed(alice)
    raw = nested_multiparts(800, alice.address, "pbem@pbem.test", "<deep-2@x.test>")
    with smtplib.SMTP("127.0.0.1", alice.server_port, timeout=60) as smtp:
        smtp.sendmail(alice.address, ["pbem@pbem.test"], raw)
    assert Inbound.get(Inbound.message_id == "<deep-2@x.test>").outcome.startswith(
        "refused: malformed")
    assert alice.last["Subject"] == "[pbem] your mail could not be read"
    assert "it nests more than 40 multipart sections" in body(alice.last)


def test_a_mail_with_thousands_of_header_fields_is_refused_unread(mail_server, sink):
    raw = (b"From: mallory@example.org\r\nTo: pbem@pbem.test\r\nMessage-ID: <many@x.test>\r\n"
           + b"X-Filler: x\r\n" * 3000 + b"\r\ngames\r\n")
    assert send_raw(mail_server, raw, "mallory@example.org", "pbem@pbem.test")[0] == 250
    assert Inbound.get(Inbound.message_id == "<many@x.test>").outcome == (
        "refused: malformed, it has 3,003 header fields, over the limit of 500")
    assert sink.messages == []


def test_the_look_at_the_bytes_reads_long_lines_once():
    """Lines just under the limit pass, one over it does not (and neither costs a scan
    of the line from each of its bytes, as an unanchored pattern would)."""
    from pbem.intake.prescan import LINE_BYTES, structure_refusal
    head = b"From: a@example.org\r\nTo: pbem@pbem.test\r\n\r\n"
    assert structure_refusal(head + (b"x" * (LINE_BYTES - 1) + b"\n") * 5) is None
    assert structure_refusal(head + b"x" * (LINE_BYTES + 1)) == (
        "a line is over 200,000 bytes long")


# -- 2. no mail cannon --------------------------------------------------------------------

def test_an_address_is_invited_once_however_many_lines_name_it(players):
    (alice,) = players("alice")
    confirmed(alice)
    lines = "\n".join(["new baronoxx with carol@example.org dave@example.org"] * 20)
    alice.write(lines)
    assert Game.select().count() == 1
    invited = Outbox.select().where(Outbox.recipient == "carol@example.org").count()
    assert invited == 1
    assert "you invited carol@example.org to game #1 already" in body(alice.last)


def test_invitations_to_new_addresses_are_limited_per_inviter_per_day(server_with):
    config, person = server_with(invitations_per_day=4)
    alice = confirmed(person("alice"))
    alice.write("new baronoxx with a1@example.org a2@example.org a3@example.org")
    alice.write("new baronoxx with b1@example.org b2@example.org")
    assert Game.select().count() == 1
    assert "may invite 4 a day; b1@example.org, b2@example.org would be more" in \
        body(alice.last).replace("\n", " ").replace("  ", " ")
    assert Outbox.select().where(Outbox.recipient.startswith("b")).count() == 0


def test_invitations_in_total_per_day_are_limited(server_with):
    config, person = server_with(invitations_total_per_day=3)
    alice, bob = confirmed(person("alice")), confirmed(person("bob"))
    alice.write("new baronoxx with a1@example.org a2@example.org")
    bob.write("new baronoxx with b1@example.org b2@example.org")
    assert Game.select().count() == 1
    assert "as many invitations to new addresses today as it may" in body(bob.last)


def test_a_tournament_mail_of_12_lines_sends_one_invitation_to_a_stranger(players):
    (alice,) = players("alice")
    confirmed(alice)
    alice.write("\n".join(["new tournament onyx round-robin with victim@v.test mallory@m.test"]
                          * 12))
    assert Outbox.select().where(Outbox.recipient == "victim@v.test").count() == 1
    assert Tournament.select().count() == 1
    assert ("you invited victim@v.test to tournament #1 already, and they have not answered "
            "yet") in " ".join(body(alice.last).split())


def test_one_waiting_invitation_per_address_whatever_its_kind(players):
    """A game's invitation waits: the same stranger is not invited to a tournament, nor
    asked to be a second address, by the same inviter; another inviter may."""
    alice, bob = players("alice", "bob")
    confirmed(alice), confirmed(bob)
    alice.write("new onyx with victim@v.test")
    alice.write("new tournament onyx round-robin with victim@v.test carol@c.test")
    assert "you invited victim@v.test to game #1 already" in " ".join(body(alice.last).split())
    assert Outbox.select().where(Outbox.recipient == "victim@v.test").count() == 1
    bob.write("new tournament onyx round-robin with victim@v.test carol@c.test")
    assert Tournament.select().count() == 1
    assert Outbox.select().where(Outbox.recipient == "victim@v.test").count() == 2


def test_a_second_address_request_waits_like_an_invitation(players):
    (alice,) = players("alice")
    confirmed(alice)
    alice.write("address add victim@v.test")
    alice.write("new onyx with victim@v.test")
    assert ("you asked victim@v.test to confirm that it is your address already, and it has "
            "not answered yet") in " ".join(body(alice.last).split())
    assert Game.select().count() == 0
    assert Outbox.select().where(Outbox.recipient == "victim@v.test").count() == 1


def test_declined_invitation_lets_the_inviter_invite_again(players, sink):
    (alice,) = players("alice")
    confirmed(alice)
    alice.write("new tournament onyx round-robin with victim@v.test carol@c.test")
    (invitation,) = sink.to("victim@v.test")
    victim = players("victim")[0]
    victim.address = "victim@v.test"
    victim.reply("decline", to=invitation)
    alice.write("new onyx with victim@v.test")
    assert Game.select().count() == 1
    assert "invites you to play Onyx" in body(sink.to("victim@v.test")[-1])


def test_every_kind_of_invitation_counts_against_the_same_daily_limit(server_with):
    config, person = server_with(invitations_per_day=4)
    alice = confirmed(person("alice"))
    alice.write("new tournament onyx round-robin with t1@example.org t2@example.org")
    alice.write("address add second@example.org")
    alice.write("new onyx with g1@example.org")
    alice.write("new onyx with g2@example.org")
    assert "you have invited 4 addresses that never wrote to pbem within a day, and may " \
           "invite 4 a day; g2@example.org would be more" in " ".join(body(alice.last).split())
    assert Game.select().count() == 1
    assert Outbox.select().where(Outbox.recipient == "g2@example.org").count() == 0


def test_tournament_invitations_count_in_the_total_a_day(server_with):
    config, person = server_with(invitations_total_per_day=3)
    alice, bob = confirmed(person("alice")), confirmed(person("bob"))
    alice.write("new tournament onyx round-robin with t1@example.org t2@example.org")
    bob.write("new onyx with b1@example.org")
    bob.write("new onyx with b2@example.org")
    assert Game.select().count() == 1
    assert "as many invitations to new addresses today as it may" in body(bob.last)


def test_a_confirmation_request_quotes_nothing_the_sender_wrote(mail_server, players):
    (victim,) = players("victim")
    message = victim.compose("Cheap watches at http://spam.example/", to="pbem@pbem.test",
                             subject="CHEAP WATCHES http://spam.example/")
    victim.send(message)
    (request,) = victim.inbox
    assert request["Subject"] == "[pbem] please confirm"
    assert "spam.example" not in request.as_string()
    assert "WATCHES" not in request.as_string().upper()


def test_mail_to_unconfirmed_addresses_stops_at_the_hourly_cap_and_status_shows_it(
        server_with, sink, caplog):
    from pbem.operator.status import check, describe
    config, person = server_with(unconfirmed_per_hour=2)
    sent = [person(f"forged{n}").write("games") for n in range(4)]
    assert len(sink.messages) == 2
    assert [outcome_of(m) for m in sent[2:]] == [
        "ignored: the hourly cap on mail to unconfirmed addresses is reached"] * 2
    assert "hourly cap on mail to unconfirmed addresses reached" in caplog.text
    status = check()
    assert status.unconfirmed_mail_last_hour == 2
    assert status.unconfirmed_capped_last_day == 2
    assert any("2 held back by the hourly cap" in line for line in describe(status))


def test_second_address_requests_count_towards_the_hourly_cap(server_with):
    config, person = server_with(unconfirmed_per_hour=2)
    alice = confirmed(person("alice"))
    for n in range(3):
        alice.write(f"address add victim{n}@example.org\naddress remove victim{n}@example.org")
    asked = [rcpt for rcpt, _ in alice.sink.messages if "victim" in rcpt[0]]
    assert asked == [["victim0@example.org"], ["victim1@example.org"]]
    assert "as much mail to new addresses within the hour as it may" in body(alice.last)


AUTH = "mx.pbem.test"


@pytest.mark.parametrize("results", [
    "spf=fail smtp.mailfrom=example.org; dmarc=none header.from=example.org",
    "spf=pass smtp.mailfrom=example.org; dkim=none; dmarc=none header.from=example.org",
])
def test_no_confirmation_request_for_mail_whose_spf_failed(server_with, sink, results):
    config, person = server_with(authserv_id=AUTH)
    mallory = person("mallory")
    message = mallory.write("games", Authentication_Results=f"{AUTH}; {results}")
    if "spf=fail" in results:
        assert sink.messages == []
        assert outcome_of(message) == f"ignored: SPF fail at {AUTH}, no confirmation asked for"
    else:  # the check can pass: the same mail with SPF passing is asked to confirm
        assert [m["Subject"] for m in mallory.inbox] == ["[pbem] please confirm"]


# -- 4. autoresponders ----------------------------------------------------------------------

def test_a_persons_mistakes_between_moves_that_work_are_all_answered(onyx):
    """10 mistakes among 30 good moves within the hour: each mistake is answered with
    what failed (#41 item 4: an hourly count of error replies silenced a newcomer after
    five ordinary mistakes, and told them "your last 5 were such mails")."""
    from pbem.play import Table
    game_id, alice, bob = onyx
    answered = 0
    for number in range(30):
        mover = (alice, bob)[number % 2]
        if number % 2 == 0 and number < 20:  # alice: a typo first, then the move
            before = len(mover.inbox)
            mistake = mover.reply(("bord", "Z99")[number % 4 // 2], to=_latest_game_mail(mover))
            assert outcome_of(mistake).startswith("answered: error")
            assert len(mover.inbox) == before + 1
            answered += "Not played" in body(mover.last) or "Not done" in body(mover.last)
        table = Table.load(game_id, lock=False)
        seat = number % 2
        move = table.engine.notation(table.state, seat, table.engine.legal(table.state, seat)[0])
        assert outcome_of(mover.reply(move, to=_latest_game_mail(mover))) == "done: 1 line(s)"
    assert answered == 10
    assert Game.get_by_id(game_id).plies == 30


def _latest_game_mail(person):
    """The player's latest mail from their game (its Reply-To is the seat's token)."""
    return [m for m in person.inbox if re.match(r"pbem\+\d+-", str(m["Reply-To"] or ""))][-1]


HOLIDAY = "Thank you for your mail. I am on holiday until 4 January and will read it then."


def test_a_responder_quoting_our_mail_gets_five_error_replies_then_silence(onyx):
    """No robot's headers, our mail quoted below its text (so it is no echo): after five
    error replies in a row, with nothing carried out, it is not answered any more, in
    this hour or the next; a mail that works is answered and starts the count afresh."""
    game_id, alice, bob = onyx
    turn = alice.last  # the game's first mail: alice (Black) to move
    before = len(alice.inbox)
    sent = [alice.reply(HOLIDAY, to=turn) for _ in range(10)]
    assert len(alice.inbox) == before + 6  # and the limit told once a day
    assert [outcome_of(m).split(",")[0] for m in sent] == ["answered: error"] * 5 + [
        "ignored: 5 error replies in a row to this address with nothing carried out"] * 5
    Inbound.update(received=utcnow() - dt.timedelta(hours=2)).execute()
    alice.reply(HOLIDAY, to=turn)
    assert len(alice.inbox) == before + 6  # the hour is over, the row is not
    assert outcome_of(alice.reply("F6", to=turn)) == "done: 1 line(s)"  # a mail that works
    assert Game.get_by_id(game_id).plies == 1
    count = len(alice.inbox)
    assert outcome_of(alice.reply(HOLIDAY, to=turn)).startswith("answered: error")
    assert len(alice.inbox) == count + 1  # ... so an error is answered again


def test_a_mail_that_repeats_our_last_mail_is_not_answered(players, sink):
    (alice,) = players("alice")
    confirmed(alice)
    alice.write("help")
    ours = body(alice.last)
    count = len(alice.inbox)
    echo = alice.write("Your message was:\n\n" + ours)
    assert len(alice.inbox) == count
    assert outcome_of(echo) == "ignored: it repeats our last mail to this address"


@pytest.mark.parametrize("headers, reason", [
    ({"Precedence": "auto_reply"}, "Precedence: auto_reply"),
    ({"X-Precedence": "bulk"}, "X-Precedence: bulk"),
    ({"X-Loop": "alice@example.org"}, "X-Loop present"),
    ({"X-Autoreply-From": "alice@example.org"}, "X-Autoreply-From present"),
    ({"X-Mail-Autoreply": "yes"}, "X-Mail-Autoreply present"),
    ({"List-Post": "<mailto:players@lists.example.org>"}, "List-Post present"),
    ({"Feedback-ID": "1:newsletter:esp"}, "Feedback-ID present"),
    ({"Subject": "Automatic reply: [pbem] Onyx #1"}, "Subject: Automatic reply:"),
    ({"Subject": "Out of Office: [pbem] Onyx #1"}, "Subject: Out of Office"),
    ({"Subject": "Auto: [pbem] Onyx #1"}, "Subject: Auto:"),
    ({"Subject": "Abwesenheitsnotiz: [pbem] Onyx #1"}, "Subject: Abwesenheitsnotiz"),
])
def test_more_robots_are_never_answered(players, sink, headers, reason):
    headers = dict(headers)  # the parameters serve each database in turn: keep them whole
    (alice,) = players("alice")
    confirmed(alice)
    count = len(sink.messages)
    message = alice.compose("I am away until Monday.", to="pbem@pbem.test",
                            subject=headers.pop("Subject", "Re: [pbem] your commands"))
    for name, value in headers.items():
        message[name] = value
    alice.send(message)
    assert len(sink.messages) == count
    assert outcome_of(message).startswith(f"ignored: robot ({reason}")


# -- 5. a From that makes the parser recurse ------------------------------------------------

NESTED_FROM = (b"From: " + b"\r\n ".join([b"(" * 500] * 10) + b"x\r\n "
               + b"\r\n ".join([b")" * 500] * 10) + b" <mallory@example.org>\r\n"
               b"To: pbem@pbem.test\r\nSubject: x\r\nMessage-ID: <parens@x.test>\r\n\r\ngames\r\n")


def test_a_from_of_nested_parentheses_is_stored_and_answered_250(mail_server, sink):
    code, answer = send_raw(mail_server, NESTED_FROM, "mallory@example.org", "pbem@pbem.test")
    assert (code, answer.split(b" ")[0]) == (250, b"2.0.0")
    row = Inbound.get(Inbound.message_id == "<parens@x.test>")
    assert bytes(row.raw) == NESTED_FROM and row.outcome == "ignored: no From address"
    assert sink.messages == []


def test_any_exception_reading_a_mail_is_recorded_with_the_raw_bytes(config, monkeypatch):
    from pbem.intake import pipeline

    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")
    monkeypatch.setattr(pipeline, "parse_mail", broken)
    outcome = pipeline.receive(config, b"From: a@example.org\r\n\r\nhello\r\n")
    assert outcome == "failed: unreadable (RecursionError)"
    assert bytes(Inbound.get().raw) == b"From: a@example.org\r\n\r\nhello\r\n"


def test_pbem_ingest_of_a_crafted_from_exits_0(config, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    for name, value in {"PBEM_DATABASE_URL": config.database_url,
                        "PBEM_SECRET_KEY": config.secret_key, "PBEM_DOMAIN": config.domain,
                        "PBEM_MAILDIR": config.maildir}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(NESTED_FROM)))
    assert cli.main(["ingest"]) == 0
    assert capsys.readouterr().out.strip() == "ignored: no From address"


# -- 6. retention -------------------------------------------------------------------------

def test_raw_mail_is_kept_by_who_sent_it_and_the_prune_job_empties_it(mail_server, players):
    from pbem.intake.confirmations import expire_confirmations
    from pbem.intake.retention import prune
    alice, mallory = players("alice", "mallory")
    confirmed(alice)
    played = alice.write("games")
    stranger = mallory.write("games")
    robot = alice.write("games", Auto_Submitted="auto-replied")

    def raw_of(message):
        return bytes(Inbound.get(Inbound.message_id == message["Message-ID"]).raw)
    assert prune(mail_server, utcnow() + dt.timedelta(days=6)) == (0, 0)
    assert prune(mail_server, utcnow() + dt.timedelta(days=8)) == (1, 0)  # the robot's
    assert raw_of(robot) == b"" and b"games" in raw_of(stranger)  # held: it may still run
    expire_confirmations(utcnow() + dt.timedelta(days=8), keep_days=7)
    assert prune(mail_server, utcnow() + dt.timedelta(days=8)) == (1, 0)  # the stranger's
    assert raw_of(stranger) == b"" and b"games" in raw_of(played)
    assert Inbound.get(Inbound.message_id == stranger["Message-ID"]).outcome.startswith(
        "expired")  # the row stays: a late copy is still a duplicate
    sent = Outbox.select().where(Outbox.sent.is_null(False)).count()
    assert sent > 0 and prune(mail_server, utcnow() + dt.timedelta(days=31)) == (0, sent)
    assert prune(mail_server, utcnow() + dt.timedelta(days=366))[0] >= 2  # players' mail
    assert raw_of(played) == b""


def test_the_scheduler_prunes_every_hour(config):
    from pbem.scheduler import PRUNE_JOB, Scheduler
    job = Scheduler(config).scheduler.get_job(PRUNE_JOB)
    assert job.trigger.interval == dt.timedelta(hours=1)


def test_unreadable_mail_is_kept_briefly_and_given_up_mail_is_pruned(config):
    """A mail too broken to read has no known sender (a stranger's: a short stay), and a
    mail the relay refused for good goes like a delivered one."""
    from pbem.intake.retention import kept_until, prune
    now = utcnow()
    assert kept_until(config, now, "failed: unreadable (RecursionError)") == \
        now + dt.timedelta(days=config.keep_unanswered_days)
    assert kept_until(config, now, "failed: RuntimeError: a bug") == \
        now + dt.timedelta(days=config.keep_player_days)  # a player's, run again later
    Outbox.create(recipient="gone@example.org", message=b"x", failed=now)
    assert prune(config, now + dt.timedelta(days=config.keep_sent_days + 1)) == (0, 1)
