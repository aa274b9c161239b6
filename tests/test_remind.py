"""`remind` by mail: the positions of every game waiting on the sender, mailed again.

Real SMTP both ways (the server's listener, a sink for the relay). Each reminder is that
player's own game mail: their view, their reply address; a 6 nimmt! hand stays theirs.
"""

import re
from mailtest import body
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.policy.delivery import deliver_due
from pbem.store import Move

REMINDER = "You asked for a reminder: this game is waiting for you."


def text(message) -> str:
    """The plain-text part with the line ends a reader sees (the wire has CRLF)."""
    return body(message).replace("\r\n", "\n")


def latest(person, game_id):
    """The newest mail about `game_id` in `person`'s inbox."""
    return next(m for m in reversed(person.inbox) if m["Subject"].endswith(f" #{game_id}"))


def game_mails(messages):
    # a seat's reply address: the answer to the player's own mail carries their account's
    return [m for m in messages if re.match(r"pbem\+\d+-", str(m["Reply-To"] or ""))]


def test_remind_mails_each_waiting_game_once_with_only_the_players_view(
        mail_server, players):
    ann, ben = players("ann", "ben")
    onyx = start_game(mail_server, ENGINES["onyx"], {}, [ann.address, ben.address])
    oxx = start_game(mail_server, ENGINES["baronoxx"], {}, [ann.address, ben.address],
                     seed="digest")
    theirs = start_game(mail_server, ENGINES["onyx"], {}, [ben.address, ann.address])
    deliver_due(mail_server)
    reply_to = {int(m["Subject"].split("#")[1].split(":")[0]): m["Reply-To"]
                for m in game_mails(ann.inbox)}
    ann.unread()

    ann.write("remind")
    new = ann.unread()
    reminders = game_mails(new)
    assert [m["Subject"] for m in reminders] == [
        f"[pbem] Onyx #{onyx}", f"[pbem] 6 nimmt! Baron Oxx #{oxx}"]
    assert [m["Reply-To"] for m in reminders] == [reply_to[onyx], reply_to[oxx]]
    for reminder in reminders:
        assert REMINDER in text(reminder)
        assert f"References: <pbem.{reminder['Subject'].split('#')[1].split(':')[0]}@" \
               f"pbem.test>" in reminder.as_string()
    assert "It is your turn (move #1)." in text(reminders[0])
    oxx_mail = text(reminders[1])
    assert "Your hand: 26 GRW   47 GGG   100 YKW   106 BYK" in oxx_mail
    for card in ("19 RKW", "27 BRW", "77 YGR", "104 BYGRKW"):  # ben's hand
        assert card not in oxx_mail
    (answer,) = [m for m in new if m not in reminders]
    assert answer["Subject"] == "[pbem] your commands"
    assert (f"Waiting for you: #{onyx} Onyx, #{oxx} 6 nimmt! Baron Oxx. One mail per game "
            f"brings its position again: reply to that mail with your move.") in text(answer)
    assert f"#{theirs}" not in text(answer)  # that one waits for ben

    ann.reply("F6", to=reminders[0])  # a reminder is answered like any game mail
    assert [m.text for m in Move.select().where(Move.game == onyx)] == ["F6"]


def test_remind_when_no_game_waits_says_so_and_lists_the_running_games(onyx):
    game_id, alice, bob = onyx
    bob.unread()
    bob.write("remind")
    (answer,) = bob.unread()
    assert answer["Subject"] == "[pbem] your commands"
    assert text(answer).startswith(
        "Done: remind\n\nNo game is waiting for you.\n\n"
        f"Your games:\n#{game_id} Onyx (alice vs bob): Waiting for alice (move #1).\n")


def test_remind_in_a_game_reply_mails_the_other_waiting_games(onyx, mail_server):
    game_id, alice, bob = onyx
    other = start_game(mail_server, ENGINES["onyx"], {}, [bob.address, alice.address])
    deliver_due(mail_server)
    alice.reply("F6", to=latest(alice, game_id))  # now both games wait for bob
    bob.unread()
    bob.reply("remind", to=latest(bob, game_id))
    new = bob.unread()
    assert [m["Subject"] for m in new] == [f"[pbem] Onyx #{other}",
                                           f"[pbem] Onyx #{game_id}"]
    reminder, answer = new
    assert REMINDER in text(reminder) and "It is your turn (move #1)." in text(reminder)
    assert "Done: remind" in text(answer) and "It is your turn (move #2)." in text(answer)
    waiting = next(line for line in text(answer).splitlines()
                   if line.startswith("Waiting for you: "))
    assert sorted(waiting.split(": ", 1)[1].split(". ")[0].split(", ")) == [
        f"#{game_id} Onyx (this game)", f"#{other} Onyx"]  # the longest waiting first
    assert waiting.endswith(". One mail per game brings its position again: reply to "
                            "that mail with your move.")
