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


def test_a_record_labels_every_seat_by_its_players_name(mail_server, players):
    from mailtest import record_in
    from notation.record import parse_record
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.engines.game import Game
    from pbem.vocabulary.tokens import reply_address, seat_token
    from pbem.policy.delivery import deliver_due
    ann, cat, dan = players("ann", "cat", "dan")
    game_id = start_game(mail_server, ENGINES["onix"], {}, [p.address for p in (ann, cat, dan)],
                         seed="x")  # cat (P2) begins
    deliver_due(mail_server)
    ann.write("name Ann Smith")
    dan.write("name Dan Lee")

    def play(person, seat, text):
        to = reply_address(seat_token(mail_server.secret_key, game_id, seat), "pbem.test")
        person.send(person.compose(text, to=to, subject="Re: our game"))
    play(cat, 1, "take O A\nplace A -> 2\ndraw D -> new")
    play(dan, 2, "take D D\nplace D -> 2\nsteal P1 1 -> 3")
    play(ann, 0, "take X B\nplace B -> new\ndestroy P2 5")
    play(cat, 1, "resign")
    news = words(cat.inbox[-2])
    assert "#5-7 Dan Lee: take D D; place D -> 2; steal P1 1 -> 3" in news
    record = record_in(body(cat.last))
    assert ("cat: take O A; cat: place A -> 2; cat: draw D -> new; Dan_Lee: take D D; "
            "Dan_Lee: place D -> 2; Dan_Lee: steal P1 1 -> 3; Ann_Smith: take X B; "
            "Ann_Smith: place B -> new; Ann_Smith: destroy P2 5; 1/2-0-1/2") in " ".join(
                record.split())
    parsed = parse_record(record)
    Game.from_record(parsed).check_result(parsed)  # it reads back: `pbem record check`
    # A record written before (the seats' numbers for names of two words) still reads.
    before = parse_record(record.replace("Ann_Smith:", "1:").replace("Dan_Lee:", "3:"))
    assert Game.from_record(before).state == Game.from_record(parsed).state


def test_labels_are_made_of_names_and_fall_back_to_numbers_only_when_they_must():
    from notation.seats import record_labels
    assert record_labels(["Ann Smith", "cat", "José Núñez"]) == ["Ann_Smith", "cat", "Jose_Nunez"]
    assert record_labels(["李雷", "bob", "Bob"]) == ["1", "2", "3"]
    assert record_labels(["dealer", "42", "O'Brien"]) == ["1", "2", "OBrien"]


def test_a_from_with_no_domain_gets_no_mail(players, sink):
    from pbem.store import Inbound
    (bob,) = players("bob")
    sent = send_as(bob, "jones", "games", "pbem@pbem.test", subject="hi")
    assert sink.messages == []  # a confirmation request to `jones` would reach the relay
    assert Inbound.get(Inbound.message_id == sent).outcome == "ignored: no From address"
