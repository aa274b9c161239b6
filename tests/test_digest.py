"""The daily digest by mail: `digest on`, then one mail a day instead of one per move.

Real SMTP both ways (the server's listener, a sink for the relay); the clock is injected
into `send_digests`, so "the next day" is a date in the test, never a wait.
"""

import datetime as dt
import re
from dataclasses import replace

from databases import at_once
from mailtest import body, html
from pbem.operator.admin import start_game
from pbem.policy.digest import send_digests
from pbem.engines import ENGINES
from pbem.policy.delivery import deliver_due
from pbem.scheduler import DIGEST_JOB, Scheduler
from pbem.store import Move, Player

DAY_1_0700 = dt.datetime(2026, 12, 1, 7, 0)
DAY_1_1800 = dt.datetime(2026, 12, 1, 18, 0)
DAY_2_0659 = dt.datetime(2026, 12, 2, 6, 59)
DAY_2_0700 = dt.datetime(2026, 12, 2, 7, 0)


def text(message) -> str:
    """The plain-text part with the line ends a reader sees (the wire has CRLF)."""
    return body(message).replace("\r\n", "\n")


def moves_of(game_id):
    return [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def run_digests(config, now):
    """The scheduler's daily job at `now`, then the outbox delivered over SMTP."""
    queued = send_digests(config, now=now)
    deliver_due(config)
    return queued


def digests(person):
    return [m for m in person.inbox if m["Subject"].startswith("[pbem] daily digest")]


def test_digest_on_holds_back_the_news_of_moves_until_the_daily_digest(onyx, mail_server):
    game_id, alice, bob = onyx
    game_reply_to = bob.last["Reply-To"]
    bob.write("digest on")
    assert bob.last["Subject"] == "[pbem] your commands"
    assert ("Daily digest on: once a day, at 07:00 UTC, one mail lists every game waiting "
            "for you, instead of a mail after each move.") in text(bob.last)
    before = len(bob.inbox)
    alice.reply("F6")
    assert moves_of(game_id) == ["F6"]
    assert len(bob.inbox) == before  # no news of F6, although it is now bob's turn

    assert run_digests(mail_server, DAY_1_0700) == 1
    (digest,) = digests(bob)
    assert digest["Subject"] == "[pbem] daily digest: 1 game waiting for you"
    # each game has its own address, inside; the digest's own is the player's account's
    assert digest["Reply-To"].startswith("pbem+a-")
    words = text(digest)
    assert words.startswith("Your daily digest: 1 game waiting for you.\n\n"
                           "To play, reply to the address under each game (not to this "
                           "mail), with your\nmove on the first line.")
    assert (f"== #{game_id} Onyx ==\nSince your last mail:\n  #1 alice: F6\n\n"
            f"Players: Black alice, White bob (you)\n") in words
    assert "It is your turn (move #2)." in words
    assert (f"Reply to: {game_reply_to}\n(your move on the first line; `#2 YOUR-MOVE` "
            f"plays it only as move #2)\n") in words
    assert "Write `digest off` to it" in words
    assert f'<a href="mailto:{game_reply_to}?subject=Re%3A%20%5Bpbem%5D%20Onyx%20%23{game_id}' \
           in html(digest)

    assert run_digests(mail_server, DAY_1_1800) == 0  # once a day
    assert run_digests(mail_server, DAY_2_0659) == 0  # the next day's starts at 07:00
    assert len(digests(bob)) == 1
    assert run_digests(mail_server, DAY_2_0700) == 1
    assert len(digests(bob)) == 2 and "It is your turn (move #2)." in text(bob.last)
    assert digests(alice) == []  # alice has no digest


def test_a_reply_to_the_address_in_the_digest_plays_the_move(onyx, mail_server):
    game_id, alice, bob = onyx
    bob.write("digest on")
    alice.reply("F6")
    run_digests(mail_server, DAY_1_0700)
    address = re.search(r"^Reply to: (\S+)$", text(bob.last), re.M).group(1)
    bob.send(bob.compose("#2 G5", to=address, subject=f"Re: [pbem] Onyx #{game_id}"))
    assert moves_of(game_id) == ["F6", "G5"]
    assert "#2 bob: G5" in text(alice.last)
    bob.send(bob.compose("#3 H7", to=address, subject=f"Re: [pbem] Onyx #{game_id}"))
    assert "Not played: #3 H7" in text(bob.last)  # an answer that needs saying: at once


def test_no_digest_when_no_game_waits_and_the_day_is_not_sent_twice(onyx, mail_server):
    game_id, alice, bob = onyx
    bob.write("digest on")
    assert run_digests(mail_server, DAY_1_0700) == 0  # the game waits for alice
    alice.reply("F6")  # now for bob: that is news for tomorrow's digest
    assert run_digests(mail_server, DAY_1_1800) == 0
    assert digests(bob) == []
    assert run_digests(mail_server, DAY_2_0700) == 1
    assert "It is your turn (move #2)." in text(digests(bob)[0])


def test_a_missed_day_is_sent_at_the_next_run(onyx, mail_server):
    """The server was down at 07:00 on day 1 and came back at 03:00 on day 2."""
    game_id, alice, bob = onyx
    bob.write("digest on")
    alice.reply("F6")
    assert run_digests(mail_server, dt.datetime(2026, 12, 2, 3, 0)) == 1
    assert run_digests(mail_server, dt.datetime(2026, 12, 2, 6, 0)) == 0
    assert run_digests(mail_server, DAY_2_0700) == 1  # and day 2's at its time


def test_a_digest_player_still_hears_at_once_of_comments_and_of_the_end(onyx):
    game_id, alice, bob = onyx
    bob.reply("digest on")  # in a game's reply, too
    assert "Daily digest on" in text(bob.last)
    before = len(bob.inbox)
    alice.reply("F6\nsay good luck!")
    assert len(bob.inbox) == before + 1  # the comment, not the news of F6
    assert "alice says: good luck!" in text(bob.last)
    alice.reply("resign")
    assert len(bob.inbox) == before + 2
    assert "Game over: alice resigned. Result: 0-1" in text(bob.last)


def test_a_turn_with_less_than_a_day_to_its_deadline_is_mailed_at_once(mail_server, players):
    """With `time=12h` the next digest could come after the deadline: no waiting for it."""
    alice, bob = players("alice", "bob")
    game_id = start_game(mail_server, ENGINES["onyx"], {"time": "12h"},
                         [alice.address, bob.address])
    deliver_due(mail_server)
    bob.write("digest on")
    alice.reply("F6", to=alice.inbox[0])
    assert f"Onyx #{game_id}" in bob.last["Subject"]
    assert "#1 alice: F6" in text(bob.last) and "It is your turn (move #2)." in text(bob.last)
    bob.reply("G5")
    before = len(alice.inbox), len(bob.inbox)
    alice.reply("H7")
    assert (len(alice.inbox), len(bob.inbox)) == (before[0], before[1] + 1)


def test_digest_off_brings_back_the_mail_after_each_move(onyx):
    game_id, alice, bob = onyx
    bob.write("digest on")
    bob.write("digest off")
    assert "Daily digest off: you get a mail after each move again." in text(bob.last)
    alice.reply("F6")
    assert "#1 alice: F6" in text(bob.last)


def test_digest_without_on_or_off_is_answered_with_what_to_write(onyx):
    game_id, alice, bob = onyx
    bob.write("digest please")
    assert ("Not done: digest please\n  write `digest on` (one mail a day listing the "
            "games waiting for you, instead of a mail after each move) or `digest off`; "
            "yours is off.") in text(bob.last)
    assert Player.get(Player.email == bob.address).digest is False


def test_a_baron_oxx_digest_shows_only_the_players_own_hand(mail_server, players):
    ann, ben = players("ann", "ben")
    game_id = start_game(mail_server, ENGINES["baronoxx"], {}, [ann.address, ben.address],
                         seed="digest")
    deliver_due(mail_server)
    ann.write("digest on")
    ben.write("digest on")
    assert run_digests(mail_server, DAY_1_0700) == 2
    (for_ann,), (for_ben,) = digests(ann), digests(ben)
    assert f"== #{game_id} 6 nimmt! Baron Oxx ==" in text(for_ann)
    assert "Your hand: 26 GRW   47 GGG   100 YKW   106 BYK" in text(for_ann)
    assert "Your hand: 19 RKW   27 BRW   77 YGR   104 BYGRKW" in text(for_ben)
    for card in ("19 RKW", "27 BRW", "77 YGR", "104 BYGRKW"):  # ben's hand
        assert card not in text(for_ann) and card not in html(for_ann)
    for card in ("26 GRW", "47 GGG", "100 YKW", "106 BYK"):  # ann's hand
        assert card not in text(for_ben) and card not in html(for_ben)
    ann.send(ann.compose("play 26", to=re.search(r"^Reply to: (\S+)$", text(for_ann),
                                                 re.M).group(1), subject="Re: digest"))
    assert Move.select().where(Move.text == "play 26").count() == 1
    assert len(digests(ben)) == 1 and ben.last is for_ben  # a secret choice: no news


def test_two_digest_runs_at_once_send_one_digest_each(config, sink):
    """Two schedulers on one database (threads, each with its own connection)."""
    relay = replace(config, smtp_relay=sink.address)
    start_game(relay, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    start_game(relay, ENGINES["onyx"], {}, ["bob@example.org", "alice@example.org"])
    Player.update(digest=True).execute()
    deliver_due(relay)
    sink.messages.clear()
    queued = at_once(lambda: send_digests(relay, now=DAY_1_0700),
                     lambda: send_digests(relay, now=DAY_1_0700))
    assert sorted(queued) in ([0, 2], [1, 1])
    deliver_due(relay)
    subjects = sorted((rcpt[0], m["Subject"]) for rcpt, m in sink.messages)
    assert subjects == [("alice@example.org", "[pbem] daily digest: 1 game waiting for you"),
                        ("bob@example.org", "[pbem] daily digest: 1 game waiting for you")]


def test_the_scheduler_looks_for_due_digests_at_start_and_every_ten_minutes(config):
    job = Scheduler(config).scheduler.get_job(DIGEST_JOB)
    assert job.func.__name__ == "digests"
    assert job.trigger.interval == dt.timedelta(minutes=10)
