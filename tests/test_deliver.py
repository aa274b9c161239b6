"""`pbem deliver` after an outage: the relay is mended, and every mail waiting goes at
once, whatever its next try (PbemOutboxBacklogOld's "do"); mail given up stays so."""

import datetime as dt
from dataclasses import replace
from email.message import EmailMessage

from mailtest import Sink
from pbem.cli import main
from pbem.mail.outbox import queue
from pbem.policy.delivery import deliver_due
from pbem.store import Outbox
from pbem.store.models import utcnow


def a_message(number: int, recipient: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "pbem@pbem.test"
    message["To"] = recipient
    message["Subject"] = f"[pbem] note {number}"
    message["Message-ID"] = f"<note-{number}@pbem.test>"
    message.set_content("Hello.\n")
    return message


def test_deliver_sends_every_waiting_mail_at_once_after_the_relay_is_back(
        config, monkeypatch, capsys):
    relay = Sink()  # its port, not listening yet: the relay is down
    config = replace(config, smtp_relay=relay.address)
    for number, who in enumerate(["ann@example.org", "ben@example.org", "cat@example.org"]):
        queue(a_message(number, who), who)
    given_up = queue(a_message(9, "dan@example.org"), "dan@example.org")
    Outbox.update(failed=utcnow(), last_error="550 5.1.1 User unknown").where(
        Outbox.id == given_up.id).execute()
    # The worker tried over twenty minutes: each try pushed the next one further
    for minutes in (0, 1, 3, 7, 15):
        deliver_due(config, now=utcnow() + dt.timedelta(minutes=minutes))
    waiting = Outbox.select().where(Outbox.sent.is_null() & Outbox.failed.is_null())
    assert min(row.next_attempt for row in waiting) > utcnow() + dt.timedelta(minutes=5)
    relay.start()  # mended
    try:
        monkeypatch.setenv("PBEM_DATABASE_URL", config.database_url)
        monkeypatch.setenv("PBEM_SECRET_KEY", config.secret_key)
        monkeypatch.setenv("PBEM_DOMAIN", config.domain)
        monkeypatch.setenv("PBEM_SMTP_RELAY", relay.address)
        assert main(["deliver"]) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[0] == "sent 3; 0 waiting"
        assert "given up: 1" in out and "pbem outbox retry --all-failed" in out
        assert sorted(r[0] for r, _ in relay.messages) == [
            "ann@example.org", "ben@example.org", "cat@example.org"]
    finally:
        relay.stop()


def test_deliver_says_why_mail_still_waits_and_exits_1(config, monkeypatch, capsys):
    relay = Sink()  # never started
    queue(a_message(1, "ann@example.org"), "ann@example.org")
    monkeypatch.setenv("PBEM_DATABASE_URL", config.database_url)
    monkeypatch.setenv("PBEM_SECRET_KEY", config.secret_key)
    monkeypatch.setenv("PBEM_SMTP_RELAY", relay.address)
    assert main(["deliver"]) == 1
    said = capsys.readouterr()
    assert said.out.splitlines()[0] == "sent 0; 1 waiting"
    assert said.err.startswith("the relay did not take them: ")


def test_the_help_says_what_deliver_does(capsys):
    try:
        main(["deliver", "--help"])
    except SystemExit:
        pass
    text = " ".join(capsys.readouterr().out.split())
    assert "whatever its next try" in text and "pbem outbox retry --all-failed" in text
