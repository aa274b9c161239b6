"""Nothing dropped without a word (#35 item 4): a confirmed player whose mail a limit
silenced is told, once a day per limit, what the limit is and when it lifts; every mail
sent before confirming an address is carried out after the confirmation, in order (or
the sender is told which were not).

Real SMTP both ways on loopback; the server's clock stands still (`frozen_time`, Mon 30
Nov 2026 10:00 UTC) and moves only when the test moves it.
"""

from mailtest import body
from pbem.intake import confirmations
from pbem.store import Game, Inbound, Player

LIMIT_SUBJECT = "[pbem] your mail was not answered: a limit"
HOLIDAY = "I am out of the office until Monday."


def text(message) -> str:
    return body(message).replace("\r\n", "\n")


def outcome_of(message) -> str:
    return Inbound.get(Inbound.message_id == message["Message-ID"]).outcome


def confirm(person):
    person.write("games")
    person.reply("yes")
    assert Player.get(Player.email == person.address).confirmed
    person.unread()
    return person


def paragraphs(message) -> list[str]:
    return [" ".join(p.split()) for p in text(message).split("\n\n")]


def test_errors_in_a_row_are_told_once_with_what_lifts_them(onyx):
    game_id, alice, bob = onyx
    turn = alice.last
    alice.unread()
    sent = [alice.reply("Thank you, I will read your mail on Monday.", to=turn)
            for _ in range(7)]
    mails = alice.unread()
    assert len(mails) == 6  # five errors answered, then one notice, then silence
    notice = mails[-1]
    assert notice["Subject"] == LIMIT_SUBJECT
    assert notice["In-Reply-To"] == sent[5]["Message-ID"]
    assert paragraphs(notice)[:2] == [
        "Your mail `Thank you, I will read your mail on Monday.` was not carried out and "
        "got no answer: pbem answered your last 5 mails with only what failed in them, and "
        "after 5 such answers in a row it stops answering mails that fail (so that a robot "
        "quoting our mail cannot start a loop with it).",
        "The limit lifts as soon as a mail of yours is carried out: send a move, or "
        "`games` or `help` to see what you can write."]
    assert outcome_of(sent[6]).startswith("ignored: 5 error replies in a row")
    assert outcome_of(alice.reply("F6", to=turn)) == "done: 1 line(s)"


def test_the_limit_on_mails_an_hour_is_told_once_with_when_it_lifts(
        mail_server, server_with, players, frozen_time):
    (confirmed,) = players("alice")
    confirmed.write("games")  # 10:00, unproven: a stranger's count, not alice's
    frozen_time.move(minutes=1)
    confirmed.reply("yes")  # 10:01, proven by the request's token
    config, person = server_with(rate_limit=3)
    alice = person("alice")
    alice.read = len(alice.inbox)
    for _ in range(2):  # 10:02, 10:03: the second and the third proven
        frozen_time.move(minutes=1)
        assert outcome_of(alice.write("games")) == "done: 1 line(s)"
    alice.unread()
    frozen_time.move(minutes=1)
    flooded = alice.write("games")  # 10:04, the fourth within the hour
    (notice,) = alice.unread()
    assert notice["Subject"] == LIMIT_SUBJECT
    assert paragraphs(notice)[:3] == [
        "pbem reads at most 3 mails and posts from your seats' pages an hour from one "
        "address (PBEM_RATE_LIMIT, both counted together), and you have sent more: those "
        "of the last hour past that number were not read or carried out.",
        "The limit lifts after Mon 30 Nov 11:02 UTC if you send nothing more before then "
        "(every mail and post counts, the refused ones too). Then send again what was not "
        "carried out; a move can carry several lines, and one mail can hold several "
        "commands.",
        "If you did not send so many, someone wrote in your name; nothing past the limit "
        "was carried out."]
    assert outcome_of(flooded) == "ignored: 4 mails from this sender within an hour"
    frozen_time.move(minutes=1)
    alice.write("games")
    assert alice.unread() == []  # once a day
    frozen_time.move(hours=1)  # 11:06: 10:04, 10:05 and this one are in the hour
    assert outcome_of(alice.write("games")) == "done: 1 line(s)"


def test_a_stranger_over_a_limit_is_told_nothing(server_with, sink):
    config, person = server_with(rate_limit=1)
    mallory = person("mallory")
    mallory.write("games")  # asked to confirm
    count = len(sink.messages)
    for _ in range(3):
        mallory.write("games")
    assert len(sink.messages) == count


def test_every_mail_sent_before_confirming_is_carried_out_in_order(players):
    carol, bob = players("carol", "bob")
    first = carol.write("help")
    (ask,) = carol.unread()
    assert ask["Subject"] == "[pbem] please confirm"
    assert ("reply to this mail (anything will do) and your mail will be carried out, "
            "with any other you send before you answer, in the order you sent them."
            ) in " ".join(text(ask).split())
    second = carol.write("new onyx with bob@example.org board=16")
    assert carol.unread() == []  # no second request
    assert outcome_of(second) == "held: a confirmation is already waiting for an answer"
    confirmation = carol.reply("yes, that was me", to=ask)
    help_answer, game_answer = carol.unread()
    assert help_answer["In-Reply-To"] == first["Message-ID"]
    assert "| `new GAME with ADDRESS… [option=value …]` |" in text(help_answer) or \
        "new GAME with ADDRESS" in text(help_answer)
    assert game_answer["In-Reply-To"] == second["Message-ID"]
    (game,) = Game.select()
    assert f"Game #{game.id} (Onyx, board=16" in text(game_answer)
    assert [m["Subject"] for m in bob.inbox] == [f"[pbem] Onyx #{game.id}"]
    assert outcome_of(first) == "done: 1 line(s) (after confirmation)"
    assert outcome_of(second) == "done: 1 line(s) (after confirmation)"
    assert outcome_of(confirmation) == "done: confirmed, 2 held mail(s) carried out"


def test_held_mails_past_the_limit_are_named_to_the_sender(players, monkeypatch,
                                                           frozen_time):
    monkeypatch.setattr(confirmations, "HELD_MAX", 2)
    (dora,) = players("dora")
    dora.write("games")
    (ask,) = dora.unread()
    frozen_time.move(minutes=1)
    dora.write("help")
    frozen_time.move(minutes=1)
    late = dora.compose("name Dora", to="pbem@pbem.test", subject="my name")
    dora.send(late)
    dora.reply("yes", to=ask)
    games, help_answer, notice = dora.unread()
    assert "Done: games" in text(games) and "Done: help" in text(help_answer)
    assert notice["Subject"] == "[pbem] some of your mails were not carried out"
    assert paragraphs(notice)[:3] == [
        "Thank you for confirming your address. pbem carried out the first 2 mails you "
        "sent before confirming, in order, and answered each; these were not carried "
        "out, nothing in them was done:",
        '- Mon 30 Nov 10:02 UTC, "my name"',
        "Send again what you still want done."]
    assert outcome_of(late) == "ignored: more than 2 mails held for a confirmation"
    assert Player.get(Player.email == dora.address).name != "Dora"
