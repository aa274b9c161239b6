"""Players' names as mail clients write them (#35 item 6), through real SMTP on loopback
with literal headers: Outlook's unquoted `Jones, Bob <bob@…>` is one address, and
an invited player is named by their first mail's From header as the inviter is.
"""

import smtplib

from mailtest import body
from pbem.store import Move, Player


def send_as(person, from_header: str, text: str, to: str, subject: str = "Re: our game",
            in_reply_to: str = "") -> str:
    """A plain-text mail with this literal From header, as a client writes it."""
    person.sent += 1
    message_id = f"<{person.sent}.names.{id(person)}@client.test>"
    raw = (f"From: {from_header}\r\nTo: {to}\r\nSubject: {subject}\r\n"
           f"Message-ID: {message_id}\r\n"
           + (f"In-Reply-To: {in_reply_to}\r\n" if in_reply_to else "")
           + "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
           f"{text}\r\n").encode()
    with smtplib.SMTP("127.0.0.1", person.server_port, timeout=30) as smtp:
        smtp.sendmail(person.address, [to], raw)
    return message_id


def words(message) -> str:
    return " ".join(body(message).split())


def test_an_unquoted_last_comma_first_from_is_one_address(onyx, sink):
    game_id, alice, bob = onyx
    alice.reply("F6")
    count = len(sink.messages)
    send_as(bob, "Jones, Bob <bob@example.org>", "G5", bob.last["Reply-To"])
    assert [m.text for m in Move.select().order_by(Move.ply)] == ["F6", "G5"]
    told = [words(m) for _, m in sink.messages[count:]]
    assert not any("address add" in text for text in told), told


def test_a_stranger_written_last_comma_first_is_asked_at_their_address(players, sink):
    (bob,) = players("bob")
    send_as(bob, "Jones, Bob <bob@example.org>", "games", "pbem@pbem.test", subject="hi")
    assert [rcpt for rcpt, _ in sink.messages] == [["bob@example.org"]]
    assert Player.get().email == "bob@example.org"
    assert Player.get().name == "Bob Jones"


def test_an_invited_player_is_named_by_their_first_mails_from_header(players):
    carol, bob = players("carol", "bob")
    send_as(carol, "Carol King <carol@example.org>", "new onyx with bob@example.org",
            "pbem@pbem.test", subject="a game")
    send_as(carol, "Carol King <carol@example.org>", "yes, that was me",
            carol.last["Reply-To"], in_reply_to=carol.last["Message-ID"])
    invitation = bob.last
    assert "Carol King <carol@example.org> invites you to play Onyx" in words(invitation)
    send_as(bob, '"Bob Jones" <bob@example.org>', "accept", invitation["Reply-To"],
            in_reply_to=invitation["Message-ID"])
    for person in (carol, bob):
        assert "Players: Black Carol King" in words(person.last)
        assert "White Bob Jones" in words(person.last)
    assert Player.get(Player.email == "bob@example.org").name == "Bob Jones"


def test_a_name_chosen_with_the_name_command_is_kept(players):
    carol, bob, dan = players("carol", "bob", "dan")
    carol.write("new onyx with bob@example.org")
    carol.reply("yes, that was me")
    invitation = bob.last
    send_as(bob, "Jones, Bob <bob@example.org>", "name Robert\naccept",
            invitation["Reply-To"], in_reply_to=invitation["Message-ID"])
    assert Player.get(Player.email == "bob@example.org").name == "Robert"
    carol.write("new onyx with bob@example.org")
    send_as(bob, "Bobby J <bob@example.org>", "accept", bob.last["Reply-To"],
            in_reply_to=bob.last["Message-ID"])
    assert Player.get(Player.email == "bob@example.org").name == "Robert"
    assert "White Robert" in words(bob.last)
