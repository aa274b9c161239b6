"""Vacations by mail: `vacation 7d` stops the clocks of all your games, the opponents are
told, the clock starts again where it stood when the vacation ends (by itself or with
`vacation off`), and the yearly allowance of 30 days is kept. Time is `frozen_time`.
"""

import pytest

from mailtest import body
from pbem.policy.delivery import deliver_due
from pbem.store.models import Game, Vacation
from pbem.commands.server_moves import run_due
from pbem.bookkeeping.ledger import waiting_on


def tick(config):
    acted = run_due(config)
    deliver_due(config)
    return acted


def flat(message):
    return " ".join(body(message).split())


def test_a_vacation_pauses_the_clock_and_it_runs_again_where_it_stood(
        onyx_3d, frozen_time, mail_server):
    game_id, alice, bob = onyx_3d
    frozen_time.move(days=1)  # alice has 2 days left
    alice.write("vacation 7d")
    answer = flat(alice.last)
    assert "Done: vacation 7d" in answer
    assert ("You are on vacation until Tue 8 Dec 2026 10:00 UTC: the clocks of your games "
            "stand still meanwhile. 23 days of vacation left for 2026.") in answer
    assert (f"alice is on vacation until Tue 8 Dec 2026 10:00 UTC: game #{game_id} waits "
            f"for them, and their clock is paused.") in flat(bob.last)
    assert "alice is on vacation until Tue 8 Dec 2026 10:00 UTC: the game waits for them, " \
           "and their clock is paused with 2 days left." in flat(bob.last)
    (wait,) = waiting_on(game_id)
    assert (wait.seat, wait.paused, wait.deadline) == (0, True, None)
    alice.unread(), bob.unread()
    frozen_time.move(days=6, hours=23)
    assert tick(mail_server) == 0
    assert Game.get_by_id(game_id).status == "running" and alice.unread() == []
    frozen_time.move(hours=1)  # Tue 8 Dec 10:00: the vacation is over
    assert tick(mail_server) == 1
    assert Vacation.get().ended == frozen_time.now
    (wait,) = waiting_on(game_id)
    assert (wait.paused, wait.deadline) == (False, frozen_time.move(days=2))
    frozen_time.move(days=-2, hours=12)  # 1.5 of alice's 3 days are left
    assert tick(mail_server) == 1
    assert "half your time is gone: 1 day 12 hours left, until Thu 10 Dec 2026 10:00 UTC" \
        in flat(alice.last)
    assert bob.unread() == []  # no reminder to a seat the game does not wait for


def test_vacation_in_a_game_reply_and_vacation_off(onyx_3d, frozen_time, mail_server):
    game_id, alice, bob = onyx_3d
    alice.reply("vacation 5d", quote=False)
    assert "Done: vacation 5d" in flat(alice.last)
    assert "You are on vacation: your clock is paused with 3 days left." in flat(alice.last)
    frozen_time.move(days=2)
    alice.reply("vacation off", quote=False)
    assert ("Welcome back: your vacation is over and the clocks of your games run again. "
            "28 days of vacation left for 2026.") in flat(alice.last)
    assert "You have 3 days left (until Sat 5 Dec 2026 10:00 UTC)." in flat(alice.last)
    alice.write("vacation")
    assert "You are not on vacation; 28 days left for 2026 (30 days a year)." in flat(alice.last)


def test_the_yearly_allowance_is_kept_with_a_clear_reply(onyx_3d, frozen_time, mail_server):
    game_id, alice, bob = onyx_3d
    alice.write("vacation 20d")
    frozen_time.move(days=20)
    tick(mail_server)
    alice.write("vacation 11d")
    assert ("Not done: vacation 11d you asked for 11 days of vacation, but only 10 days of "
            "your 30 days for 2026 are left; write `vacation 10d` or less.") in flat(alice.last)
    assert Vacation.select().count() == 1
    alice.write("vacation 10d")
    assert "0 days" not in flat(alice.last) and "Done: vacation 10d" in flat(alice.last)
    assert "less than a minute of vacation left for 2026" in flat(alice.last)


@pytest.mark.parametrize("line, complaint", [
    ("vacation soon", "`soon` is not a length of time: write e.g. `vacation 7d` (days)"),
    ("vacation 10m", "a vacation lasts at least an hour"),
])
def test_a_vacation_that_makes_no_sense_gets_a_clear_reply(onyx_3d, line, complaint):
    game_id, alice, bob = onyx_3d
    alice.write(line)
    assert f"Not done: {line}" in flat(alice.last) and complaint in flat(alice.last)
    assert Vacation.select().count() == 0


def test_a_wait_that_begins_during_a_vacation_begins_paused(onyx_3d, frozen_time,
                                                            mail_server):
    game_id, alice, bob = onyx_3d
    bob.write("vacation 4d")
    alice.unread()
    alice.reply("F6")
    (wait,) = waiting_on(game_id)
    assert (wait.seat, wait.paused, wait.since) == (1, True, frozen_time.now)
    alice.reply("board")  # what alice's clock line says of bob now
    assert ("bob is on vacation until Fri 4 Dec 2026 10:00 UTC: the game waits for them, "
            "and their clock is paused with 3 days left.") in flat(alice.last)
    frozen_time.move(days=4)
    tick(mail_server)
    (wait,) = waiting_on(game_id)
    assert wait.deadline == frozen_time.move(days=3)
