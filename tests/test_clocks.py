"""Time controls and reminders, told in mail: the time set when a game is created, the
clock line of every mail, and the reminders at half time and shortly before the end —
only ever to the seat the game waits for. Time is `frozen_time`, moved by hand; the
scheduler's job (`run_due`) is called where the real one would tick.
"""

import datetime as dt

import pytest

from mailtest import body
from pbem.operator.admin import start_game
from pbem.cli import main
from pbem.engines import ENGINES
from pbem.engines.base import OptionError
from pbem.policy.delivery import deliver_due
from pbem.store.models import Clock, Game, TimeControl
from pbem.bookkeeping import controls
from pbem.commands.server_moves import run_due
from pbem.timekeeping.display import clock_summary
from pbem.bookkeeping.ledger import waiting_on
from webgames import play, start

ONYX = ENGINES["onyx"]


def tick(config):
    """One run of the scheduler's deadline job, then the outbox to the players."""
    acted = run_due(config)
    deliver_due(config)
    return acted


@pytest.fixture
def timed(mail_server, players, frozen_time):
    """An Onyx game with 3 days per move, started Mon 30 Nov 2026 10:00 UTC."""
    alice, bob = players("alice", "bob")
    game_id = start_game(mail_server, ONYX, {"time": "3d"}, [alice.address, bob.address])
    deliver_due(mail_server)
    return game_id, alice, bob


# -- the syntax ----------------------------------------------------------------------

def test_time_controls_are_written_per_move_as_a_bank_or_none():
    assert controls.parse("3d", "forfeit") == controls.Control(per_move=3 * 86400)
    bank = controls.parse("10d+2d", "auto")
    assert (bank.bank, bank.increment, bank.timeout) == (10 * 86400, 2 * 86400, "auto")
    assert bank.text == "10d+2d"
    assert controls.parse("1d12h", "forfeit").per_move == 36 * 3600
    assert not controls.parse("none", "forfeit").limited
    assert controls.parse("10d+2d", "forfeit").describe() == (
        "10 days in all, plus 2 days per move; when it runs out, the game is lost (forfeit)")


@pytest.mark.parametrize("time, timeout, complaint", [
    ("3x", "forfeit", "'3x' is not a time: write days, hours or minutes, such as 3d"),
    ("10m", "forfeit", "a limit is between 1 hour and 365 days"),
    ("1d+9999999d", "forfeit", r"^time=1d\+9999999d: an increment is at most 365 days\.$"),
    ("10d+366d", "auto", "an increment is at most 365 days"),
    ("3d", "never", "timeout=never is not allowed: choose forfeit, auto or bot"),
])
def test_a_wrong_time_control_is_refused_with_an_example(time, timeout, complaint):
    with pytest.raises(OptionError, match=complaint.replace("(", r"\(")):
        controls.parse(time, timeout)


def test_each_game_has_a_default_and_the_engine_never_sees_the_time_options():
    engine_options, time_options = controls.split_options(
        {"board": "16", "time": "10d+2d", "Timeout": "auto"})
    assert engine_options == {"board": "16"}
    assert time_options == {"time": "10d+2d", "timeout": "auto"}
    assert controls.resolve("onyx", {}).text == "3d"
    assert controls.resolve("baronoxx", {}).timeout == "auto"


def test_a_new_game_by_mail_takes_its_time_control_and_every_mail_shows_it(players,
                                                                           frozen_time):
    carol, bob = players("carol", "bob")
    carol.write("new onyx with bob@example.org board=16 time=10d+2d timeout=forfeit")
    carol.reply("yes, that was me")
    (game,) = Game.select()
    assert game.options["board"] == "16" and "time" not in game.options
    control = TimeControl.get(TimeControl.game == game)
    assert (control.bank, control.increment, control.timeout) == (864000, 172800, "forfeit")
    assert "time=10d+2d, timeout=forfeit" in body(bob.last)  # the invitation
    bob.reply("accept")
    assert ("Time: 10 days in all, plus 2 days per move; when it runs out, the game is "
            "lost (forfeit). You have 10 days left (until Thu 10 Dec 2026 10:00 UTC)."
            ) in " ".join(body(carol.last).split())
    assert "carol has 10 days left" in " ".join(body(bob.last).split())


def test_a_bad_time_option_in_a_new_game_gets_a_clear_reply(players):
    carol, bob = players("carol", "bob")
    carol.write("new onyx with bob@example.org time=soon")
    carol.reply("yes")
    assert Game.select().count() == 0
    answer = " ".join(body(carol.last).split())
    assert "Not done: new onyx with bob@example.org time=soon" in answer
    assert "'soon' is not a time" in answer and "time=10d+2d" in answer


def test_pbem_new_takes_time_options_beside_the_game_options(store, tmp_path, monkeypatch,
                                                              capsys):
    monkeypatch.chdir(tmp_path)
    for name, value in {"PBEM_DATABASE_URL": store, "PBEM_SECRET_KEY": "k",
                        "PBEM_MAILDIR": str(tmp_path / "mail")}.items():
        monkeypatch.setenv(name, value)
    assert main(["new", "onyx", "--player", "a@example.org", "--player", "b@example.org",
                 "--option", "board=16", "--option", "time=10d+2d"]) == 0
    game = Game.get()
    assert game.options["board"] == "16" and "time" not in game.options
    assert TimeControl.get(TimeControl.game == game).increment == 2 * 86400
    assert main(["new", "onyx", "--player", "a@example.org", "--player", "b@example.org",
                 "--option", "time=soon"]) == 2
    assert "time=soon: 'soon' is not a time" in capsys.readouterr().err
    assert Game.select().count() == 1


# -- reminders -----------------------------------------------------------------------

def test_reminders_come_at_half_time_and_shortly_before_and_only_to_the_seat_waited_on(
        timed, frozen_time, mail_server):
    game_id, alice, bob = timed
    alice.unread(), bob.unread()
    frozen_time.move(days=1, hours=11)
    assert tick(mail_server) == 0
    assert alice.unread() == [] and bob.unread() == []
    frozen_time.move(hours=1)  # 1.5 days of 3 gone
    assert tick(mail_server) == 1
    (reminder,) = alice.unread()
    text = " ".join(body(reminder).split())
    assert (f"Reminder: game #{game_id} waits for you, and half your time is gone: 1 day "
            f"12 hours left, until Thu 3 Dec 2026 10:00 UTC. Then you lose the game "
            f"(forfeit).") in text
    assert "It is your turn (move #1)." in text and reminder["Reply-To"] == alice.last["Reply-To"]
    assert bob.unread() == []
    assert tick(mail_server) == 0  # sent once
    frozen_time.move(days=1, hours=4, minutes=48)  # 7.2 hours left: a tenth of the time
    assert tick(mail_server) == 1
    (last_call,) = alice.unread()
    assert "your time is nearly up: 7 hours 12 minutes left" in " ".join(body(last_call).split())
    assert bob.unread() == []
    alice.reply("F6")
    bob.unread()
    frozen_time.move(days=1, hours=12)  # half of bob's new 3 days
    tick(mail_server)
    assert [m for m in alice.unread() if "Reminder" in body(m)] == []
    assert ["half your time is gone" in body(m) for m in bob.unread()] == [True]


def test_a_move_after_a_reminder_stops_the_clock_and_starts_the_other(timed, frozen_time,
                                                                      mail_server):
    game_id, alice, bob = timed
    frozen_time.move(hours=2)
    alice.reply("F6")
    (wait,) = waiting_on(game_id)
    assert (wait.seat, wait.since, wait.window, wait.paused) == (1, frozen_time.now, False,
                                                                 False)
    assert wait.deadline == frozen_time.move(days=3)
    alice_clock = Clock.get((Clock.game == game_id) & (Clock.seat == 0))
    assert (alice_clock.waiting, alice_clock.due) == (False, None)


def test_a_bank_keeps_what_is_left_and_gains_the_increment(mail_server, players,
                                                          frozen_time):
    alice, bob = players("alice", "bob")
    game_id = start_game(mail_server, ONYX, {"time": "10d+2d"}, [alice.address, bob.address])
    deliver_due(mail_server)
    frozen_time.move(days=4)
    alice.reply("F6")
    bob.reply("G5")
    mail = " ".join(body(alice.last).split())  # 10 - 4 + 2 days for alice, 12 for bob
    assert "You have 8 days left (until Sat 12 Dec 2026 10:00 UTC)." in mail
    (wait,) = waiting_on(game_id)
    assert (wait.seat, wait.deadline) == (0, frozen_time.now + dt.timedelta(days=8))
    frozen_time.move(days=1)
    alice.reply("H7")
    assert "You have 12 days left" in " ".join(body(bob.last).split())  # bob's turn mail


def test_a_bank_never_grows_past_a_year(config, frozen_time):
    """`1h+365d` would pass 2^31 seconds after some 68 moves (Clock.bank is a 32-bit
    column in PostgreSQL) and a deadline past the calendar's end soon after."""
    game_id = start(config, "onyx", ["alice", "bob"], time="1h+365d")
    play(game_id, (0, "F6"), (1, "G5"), (0, "D4"), (1, "E5"), (0, "C3"), (1, "H7"))
    rows = Clock.select().where(Clock.game == game_id).order_by(Clock.seat)
    assert [(row.seat, row.waiting, row.bank) for row in rows] == [
        (0, True, controls.LONGEST), (1, False, controls.LONGEST)]
    (wait,) = waiting_on(game_id)
    assert wait.deadline == frozen_time.now + dt.timedelta(days=365)


def test_clock_summary_is_public_and_says_whose_time_runs(timed, frozen_time):
    game_id, alice, bob = timed
    frozen_time.move(hours=6)
    assert clock_summary(game_id) == (
        "Time: 3 days per move; when it runs out, the game is lost (forfeit). alice has "
        "2 days 18 hours left (until Thu 3 Dec 2026 10:00 UTC).")
    assert clock_summary(Game.get_by_id(game_id)) == clock_summary(game_id)
