"""A request to confirm a new address expires after 7 days: its held mail never runs,
and the sender's next mail is asked about afresh.

Real SMTP both ways; the time is injected into `expire_confirmations`, counted from the
request's own creation time, so nothing waits.
"""

import datetime as dt

from mailtest import body
from pbem.intake.confirmations import expire_confirmations
from pbem.store import Inbound, Player, Request


def text(message) -> str:
    return body(message).replace("\r\n", "\n")


def test_an_unanswered_confirmation_expires_after_seven_days(players, sink):
    (dave,) = players("dave")
    first = dave.write("games")
    (ask,) = dave.unread()
    assert ask["Subject"] == "[pbem] please confirm"
    dave.write("games")  # one open request per address: no second mail
    assert dave.unread() == []
    request = Request.get(Request.kind == "confirm")
    asked = request.created

    assert expire_confirmations(now=asked + dt.timedelta(days=6, hours=23)) == 0
    assert Request.get_by_id(request.id).open
    assert expire_confirmations(now=asked + dt.timedelta(days=7, minutes=1)) == 1
    assert expire_confirmations(now=asked + dt.timedelta(days=7, minutes=2)) == 0
    assert not Request.get_by_id(request.id).open
    held = Inbound.get(Inbound.message_id == first["Message-ID"])
    assert held.outcome == "expired: not confirmed within 7 days"

    count = len(sink.messages)
    dave.reply("yes, it is me", to=ask)  # too late: nothing runs, nothing is sent
    assert len(sink.messages) == count
    assert not Player.get(Player.email == dave.address).confirmed
    assert Inbound.get(Inbound.message_id == first["Message-ID"]).outcome == held.outcome

    dave.write("games")  # a new mail is asked about afresh
    (again,) = dave.unread()
    assert again["Subject"] == "[pbem] please confirm"
    assert again["Reply-To"] != ask["Reply-To"]
    dave.reply("yes", to=again)
    (answer,) = dave.unread()
    assert "Done: games" in text(answer) and "Your games:\n(none running)" in text(answer)


def test_an_answered_confirmation_is_not_touched(players):
    (erin,) = players("erin")
    erin.write("games")
    (ask,) = erin.unread()
    erin.reply("ok", to=ask)
    asked = Request.get(Request.kind == "confirm").created
    assert expire_confirmations(now=asked + dt.timedelta(days=30)) == 0
    assert Inbound.select().where(Inbound.outcome.startswith("expired")).count() == 0
