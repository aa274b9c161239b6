"""Refused mail made visible (issue 17.3, and issue 14's second address): with
PBEM_AUTHSERV_ID set, mail the sender checks refuse is counted by reason in `pbem status`
and `/healthz`, a warning is logged when all recent mail is refused, and the player the
mail claimed to be is told at their registered address — never at the address the mail
came from — at most once a day. A mail with a seat's token from an address pbem does not
know gets no answer; the seat's player is told, with how to add a second address.
"""

import logging
from dataclasses import replace

import pytest

from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.intake.pipeline import receive
from pbem.intake.refusals import RECENT, recent
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.operator.status import check, describe
from pbem.store import Outbox
from pbem.web import create_app

MTA = "mx.pbem.test"


@pytest.fixture
def game(config, frozen_time):
    """Onyx between alice and bob behind an MTA (mx.pbem.test); alice's reply address."""
    config = replace(config, authserv_id=MTA)
    game_id = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    return config, game_id, reply_address(seat_token(config.secret_key, game_id, 0),
                                          config.domain)


def mail(to: str, sender: str, verdict: str, number: int) -> bytes:
    header = f"Authentication-Results: {MTA}; {verdict}\r\n" if verdict else ""
    return (f"{header}"
            f"From: {sender}\r\n"
            f"To: {to}\r\n"
            f"Subject: Re: [pbem] Onyx\r\n"
            f"Message-ID: <refused-{number}@example.org>\r\n"
            f"\r\n"
            f"F6\r\n").encode()


def mailed_since(before: int) -> list[tuple[str, str]]:
    """(recipient, subject) of every mail queued after outbox id `before`."""
    import email
    rows = Outbox.select().where(Outbox.id > before).order_by(Outbox.id)
    return [(row.recipient, email.message_from_bytes(bytes(row.message))["Subject"])
            for row in rows]


def last_outbox_id() -> int:
    row = Outbox.select().order_by(Outbox.id.desc()).first()
    return row.id if row else 0


def test_refusals_are_counted_by_reason_in_status_and_healthz(game):
    config, game_id, to = game
    receive(config, mail(to, "alice@example.org", "dmarc=fail header.from=example.org", 1))
    receive(config, mail(to, "alice@example.org", "dmarc=fail header.from=example.org", 2))
    receive(config, mail(to, "alice@example.org", "", 3))  # not through the MTA
    receive(config, mail(to, "alice@example.org", "dmarc=pass header.from=evil.example", 4))
    receive(config, mail(to, "mallory@example.net", "dmarc=pass header.from=example.net", 5))
    expected = {"dmarc-fail": 2, "dmarc-other-domain": 1, "no-verdict": 1, "wrong-sender": 1}
    assert recent() == expected
    status = check()
    assert status.refusals_last_day == expected
    assert ("refused in:   dmarc-fail 2, dmarc-other-domain 1, no-verdict 1, wrong-sender 1 "
            "(last 24 h; README: PBEM_AUTHSERV_ID)") in describe(status)
    health = create_app(config).test_client().get("/healthz").get_json()
    assert health["refusals_last_day"] == expected


def test_counts_leave_the_last_day_after_a_day(game, frozen_time):
    config, game_id, to = game
    receive(config, mail(to, "alice@example.org", "dmarc=fail header.from=example.org", 1))
    frozen_time.move(hours=25)
    assert recent() == {}


def test_a_warning_when_all_recent_mail_is_refused(game, caplog):
    config, game_id, to = game
    with caplog.at_level(logging.WARNING, logger="pbem.intake.refusals"):
        for number in range(1, RECENT):
            receive(config, mail(to, "alice@example.org", "", number))
        assert "were all refused" not in caplog.text  # nine of ten: not yet
        receive(config, mail(to, "alice@example.org", "", RECENT))
    assert f"the last {RECENT} mails were all refused by the DMARC check" in caplog.text
    assert "AuthservID equal to PBEM_AUTHSERV_ID" in caplog.text


def test_the_seats_address_is_told_once_a_day_never_the_claimed_sender(game, frozen_time):
    config, game_id, to = game
    before = last_outbox_id()
    forged = "dmarc=fail header.from=example.net"
    receive(config, mail(to, "mallory@example.net", forged, 1))  # alice's token, forged From
    receive(config, mail(to, "mallory@example.net", forged, 2))
    receive(config, mail(to, "alice@example.org", "dmarc=fail header.from=example.org", 3))
    told = [("alice@example.org", "[pbem] a mail in your name was not read")]
    assert mailed_since(before) == told  # once, to alice; nothing to mallory
    frozen_time.move(days=1, minutes=1)
    receive(config, mail(to, "mallory@example.net", forged, 4))
    assert mailed_since(before) == told * 2  # a day later, once more


def test_the_notice_quotes_nothing_the_sender_wrote(game):
    config, game_id, to = game
    before = last_outbox_id()
    raw = mail(to, "alice@example.org", "dmarc=fail header.from=example.org", 1).replace(
        b"Subject: Re: [pbem] Onyx", b"Subject: CHEAP PILLS at spam.example")
    receive(config, raw)
    (row,) = Outbox.select().where(Outbox.id > before)
    assert b"PILLS" not in bytes(row.message) and b"spam.example" not in bytes(row.message)
    assert f"your reply address for game #{game_id}".encode() in bytes(row.message)


def test_a_stranger_failing_dmarc_without_a_token_makes_no_mail(game):
    config, game_id, to = game
    before = last_outbox_id()
    receive(config, mail(f"pbem@{config.domain}", "mallory@example.net",
                         "dmarc=fail header.from=example.net", 1))
    assert mailed_since(before) == []


def test_a_token_from_an_unknown_address_tells_the_seat_how_to_add_it(game, frozen_time):
    """Issue 14: alice answers from her work address, which pbem does not know. No answer
    goes there; alice hears of it at her registered address, once a day."""
    config, game_id, to = game
    before = last_outbox_id()
    passed = "dmarc=pass header.from=work.example"
    for number in (1, 2, 3):
        outcome = receive(config, mail(to, "alice.smith@work.example", passed, number))
        assert outcome == "ignored: From is not the seat's player"
    told = mailed_since(before)
    assert told == [("alice@example.org", "[pbem] a mail from another address was ignored")]
    (row,) = Outbox.select().where(Outbox.id > before)
    text = bytes(row.message).decode()
    assert "address add alice.smith@work.example" in text and "confirm" in text
    frozen_time.move(days=1, minutes=1)
    receive(config, mail(to, "alice.smith@work.example", passed, 4))
    assert len(mailed_since(before)) == 2


def test_another_known_player_with_the_token_is_counted_not_announced(game):
    """bob is a known player: his mail with alice's token is not a second address of
    hers; it is refused and counted, and nobody is mailed."""
    config, game_id, to = game
    from pbem.store import Player
    Player.update(confirmed=True).where(Player.email == "bob@example.org").execute()
    before = last_outbox_id()
    receive(config, mail(to, "bob@example.org", "dmarc=pass header.from=example.org", 1))
    assert mailed_since(before) == [] and recent() == {"wrong-sender": 1}
