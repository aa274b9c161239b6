"""When time runs out: forfeit ends the game and tells everyone; an automatic move is
played where the rulings give a default (6 nimmt!'s lowest card, Gem Forge's pass at a
reaction window's 12-hour deadline) or where the game says `timeout=auto`, marked in the
record. Deadlines survive a restart, and two schedulers never act twice on one.
"""

import threading

import pytest

import mailtest
from mailtest import body
from notation.record import format_record
from pbem.operator.admin import start_game
from pbem.cli import main
from pbem.engines import ENGINES
from pbem.policy.delivery import deliver_due
from pbem.play import Table
from pbem.scheduler import Scheduler
from pbem.store import open_database, transaction
from pbem.store.models import Clock, Comment, Game, Move, Outbox, database
from pbem.timekeeping import deadlines
from pbem.commands.server_moves import run_due


def tick(config):
    acted = run_due(config)
    deliver_due(config)
    return acted


def moves_of(game_id):
    return [(m.seat, m.text, m.source) for m in
            Move.select().where(Move.game == game_id).order_by(Move.ply)]


def flat(message):
    return " ".join(body(message).split())


def record_in(message) -> str:
    return mailtest.record_in(body(message).replace("\r\n", "\n")).rstrip("\n")


def check_record(tmp_path, text) -> int:
    path = tmp_path / "game.txt"
    path.write_text(text + "\n")
    return main(["record", "check", str(path)])


def test_forfeit_ends_the_game_and_mails_everyone(onyx_3d, frozen_time, mail_server,
                                                  tmp_path):
    game_id, alice, bob = onyx_3d
    alice.reply("F6")
    frozen_time.move(days=2, hours=23)
    tick(mail_server)
    assert Game.get_by_id(game_id).status == "running"
    frozen_time.move(hours=1)  # bob's 3 days are up
    assert tick(mail_server) == 1
    game = Game.get_by_id(game_id)
    assert (game.status, game.result, game.termination) == ("finished", "1-0",
                                                            "bob ran out of time")
    for person in (alice, bob):
        mail = flat(person.last)
        assert f"bob's time ran out in game #{game_id}: the game is over." in mail
        assert "Game over: bob ran out of time. Result: 1-0" in mail
    record = record_in(bob.last)
    assert '[Termination "bob ran out of time"]\n[Result "1-0"]\n\n1. F6 1-0' in record
    assert check_record(tmp_path, record) == 0
    assert tick(mail_server) == 0  # nothing left to do


def test_a_move_that_arrives_before_the_scheduler_acts_is_played(onyx_3d, frozen_time,
                                                                 mail_server):
    game_id, alice, bob = onyx_3d
    frozen_time.move(days=3, minutes=1)  # due, but the job has not run yet
    (row,) = Clock.select().where(Clock.game == game_id)
    assert deadlines.claim(row.id, frozen_time.now)
    alice.reply("F6")  # meanwhile: the clock stops
    with transaction():
        assert deadlines.act(mail_server, row.id, frozen_time.now) == 0
    assert Game.get_by_id(game_id).status == "running"
    assert [m[1] for m in moves_of(game_id)] == ["F6"]


def test_timeout_auto_plays_a_random_legal_move_in_onyx_marked_in_the_record(
        mail_server, players, frozen_time, tmp_path):
    alice, bob = players("alice", "bob")
    game_id = start_game(mail_server, ENGINES["onyx"], {"time": "1d", "timeout": "auto"},
                         [alice.address, bob.address], seed="clock")
    deliver_due(mail_server)
    frozen_time.move(days=1)
    assert tick(mail_server) == 1
    ((seat, text, source),) = moves_of(game_id)
    assert (seat, text, source) == (0, "AB23", "timeout")  # a midpoint; seeded by the game
    assert f"Your time ran out, so the server played for you: {text}." in flat(alice.last)
    assert f"#1 alice: {text}" in flat(bob.last) and "It is your turn (move #2)." in flat(bob.last)
    assert Comment.get().text == "automatic: time ran out"
    bob.reply("resign")
    record = record_in(bob.last)
    assert f"{text} {{alice: automatic: time ran out}}" in " ".join(record.split())
    assert check_record(tmp_path, record) == 0


def test_timeout_auto_plays_a_whole_onix_turn(mail_server, players, frozen_time):
    """Part 1 (the take) has no ruled default, so it is random; part 2 follows X26."""
    alice, bob = players("alice", "bob")
    game_id = start_game(mail_server, ENGINES["onix"], {"time": "1d", "timeout": "auto"},
                         [alice.address, bob.address], seed="clock")
    deliver_due(mail_server)
    first = Table.load(game_id).state.turn
    frozen_time.move(days=1)
    assert tick(mail_server) == 1
    played = [m for m in moves_of(game_id) if m[0] != -1]
    assert played and {(seat, source) for seat, _, source in played} == {(first, "timeout")}
    assert played[0][1].startswith("take ")
    table = Table.load(game_id)
    assert table.to_act == {1 - first}


def test_baron_oxx_plays_the_lowest_card_for_whoever_did_not_choose(mail_server, players,
                                                                   frozen_time, tmp_path):
    ann, ben, cat = players("ann", "ben", "cat")
    game_id = start_game(mail_server, ENGINES["baronoxx"], {},  # 2 days, timeout=auto
                         [ann.address, ben.address, cat.address], seed="clock-18")
    deliver_due(mail_server)
    ann.reply("play 80", quote=False)  # hands: ann 34 37 80 105, ben 6 41 43 67, cat 2 33 35 57
    for person in (ann, ben, cat):
        person.unread()
    frozen_time.move(days=1)  # half of 2 days: the two who have not chosen are reminded
    assert tick(mail_server) == 2
    assert ann.unread() == []
    for person, card in ((ben, 6), (cat, 2)):
        (reminder,) = person.unread()
        assert (f"half your time is gone: 1 day left, until Wed 2 Dec 2026 10:00 UTC. Then "
                f"the server plays `play {card} low` for you.") in flat(reminder)
    assert [t for s, t, src in moves_of(game_id) if s != -1] == ["play 80"]
    frozen_time.move(days=1)
    assert tick(mail_server) == 2
    chosen = [(s, t, src) for s, t, src in moves_of(game_id) if t.startswith("play")]
    assert [(seat, text) for seat, text, _ in chosen] == [
        (0, "play 80"), (1, "play 6 low"), (2, "play 2 low")]
    assert [source.startswith("<1.ann@") for _, _, source in chosen] == [True, False, False]
    assert [source for _, _, source in chosen[1:]] == ["timeout", "timeout"]
    assert any("Your time ran out, so the server played for you: play 6 low." in flat(m)
               for m in ben.inbox)
    assert not any("time ran out" in body(m) for m in ann.inbox)
    assert Comment.select().count() == 0  # hidden choices: marked in the record only
    table = Table.load(game_id)
    assert table.state.chosen == (None, None, None)  # revealed and placed: the next round
    record = format_record(table.record_game().record())
    assert "ben: play 6 low; {ben: automatic: time ran out} cat: play 2 low; {cat: " \
        "automatic: time ran out}" in " ".join(record.split())
    assert check_record(tmp_path, record) == 0


@pytest.fixture
def forge(mail_server, players, frozen_time):
    """Gem Forge past the secret tile choice; the other player asks to be asked when a
    gem is taken (a copy-take window)."""
    gemforge = ENGINES["gemforge"]
    ann, ben = players("ann", "ben")
    game_id = start_game(mail_server, gemforge, {}, [ann.address, ben.address], seed="forge")
    deliver_due(mail_server)
    for person, seat in ((ann, 0), (ben, 1)):
        table = Table.load(game_id)
        keep = gemforge.default_decision(table.state, seat)
        person.reply(gemforge.notation(table.state, seat, keep), quote=False)
    active_seat = Table.load(game_id).state.active
    active, other = (ann, ben) if active_seat == 0 else (ben, ann)
    other.reply("pref copy-take ask", quote=False)
    return game_id, active_seat, active, other


def test_a_reaction_window_passes_at_its_12_hour_deadline(forge, frozen_time, mail_server):
    game_id, seat, active, other = forge
    active.reply("take\ndraw", quote=False)
    assert Table.load(game_id).to_act == {1 - seat}  # the copy-take window asks the other
    assert ("Answer by Mon 30 Nov 2026 22:00 UTC (12 hours left); silence counts as a pass."
            in flat(other.last))
    assert "Answer by" not in flat(active.last) and "22:00" not in flat(active.last)
    active.unread(), other.unread()
    frozen_time.move(hours=6)
    assert tick(mail_server) == 1
    (reminder,) = other.unread()
    assert (f"Reminder: game #{game_id} waits for your answer (6 hours left, until Mon 30 "
            f"Nov 2026 22:00 UTC). If none comes, it counts as a pass.") in flat(reminder)
    assert active.unread() == []  # whom a window asks stays secret (G39)
    frozen_time.move(hours=6)
    assert tick(mail_server) == 1
    last_two = [t for s, t, src in moves_of(game_id)][-2:]
    assert last_two == ["pass", "draw"]
    assert moves_of(game_id)[-2][2] == "timeout"
    assert "Your time to answer ran out: that counts as a pass." in flat(other.unread()[0])
    assert active.unread() == []  # the held draw went in; nothing says who timed out


# -- restarts and two schedulers --------------------------------------------------------

def test_a_restart_keeps_every_deadline(onyx_3d, frozen_time, mail_server, store):
    game_id, alice, bob = onyx_3d
    database.close()
    database.initialize(None)
    open_database(store)  # the process starts again: everything from the tables
    scheduler = Scheduler(mail_server)
    frozen_time.move(days=1, hours=12)
    scheduler.deadlines()
    deliver_due(mail_server)
    assert "half your time is gone" in flat(alice.last)
    database.close()
    open_database(store)
    frozen_time.move(days=1, hours=12)
    Scheduler(mail_server).deadlines()
    assert Game.get_by_id(game_id).termination == "alice ran out of time"


def at_once(*calls):
    """Each call in a thread of its own (so a connection of its own), released together."""
    barrier, results, errors = threading.Barrier(len(calls)), [None] * len(calls), []

    def run(index, call):
        try:
            barrier.wait(timeout=30)
            results[index] = call()
        except BaseException as error:  # noqa: BLE001 - re-raised below
            errors.append(error)
        finally:
            database.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    return results


def test_two_schedulers_at_once_remind_once_and_time_out_once(mail_server, players,
                                                              frozen_time):
    games = []
    for number in range(4):
        a, b = players(f"a{number}", f"b{number}")
        games.append(start_game(mail_server, ENGINES["onyx"], {"time": "3d"},
                                [a.address, b.address]))
    queued = Outbox.select().count()
    frozen_time.move(days=1, hours=12)
    assert sum(at_once(lambda: run_due(mail_server), lambda: run_due(mail_server))) == 4
    assert Outbox.select().count() == queued + 4  # one reminder per game
    frozen_time.move(days=1, hours=12)
    assert sum(at_once(lambda: run_due(mail_server), lambda: run_due(mail_server))) == 4
    assert [Game.get_by_id(g).termination for g in games] == [
        f"a{n} ran out of time" for n in range(4)]
    assert Outbox.select().count() == queued + 4 + 8  # the end, to both players of each
    assert Move.select().count() == 0


@pytest.fixture
def oxx_2d(mail_server, players, frozen_time):
    """6 nimmt! for ann, ben and cat, 2 days per choice; all three are to choose.
    Hands: ann 34 37 80 105, ben 6 41 43 67, cat 2 33 35 57."""
    ann, ben, cat = players("ann", "ben", "cat")
    game_id = start_game(mail_server, ENGINES["baronoxx"], {"time": "2d"},
                         [ann.address, ben.address, cat.address], seed="clock-18")
    deliver_due(mail_server)
    return game_id, ann, ben, cat


def test_the_last_to_choose_in_6_nimmt_starts_the_next_round_with_a_fresh_clock(
        oxx_2d, mail_server, frozen_time):
    """Cat's choice ends her wait and the next round begins a new one, as for the
    others: her old wait's reminder and deadline do not carry over."""
    game_id, ann, ben, cat = oxx_2d
    # LOW settles every placement
    ann.reply("play 80 low", quote=False)
    ben.reply("play 67 low", quote=False)
    frozen_time.move(days=1)
    assert tick(mail_server) == 1  # cat's half-time reminder
    frozen_time.move(hours=16)  # Wed 2 Dec 2026 02:00, 40 hours in
    cat.reply("play 2 low", quote=False)
    assert Table.load(game_id).to_act == {0, 1, 2}  # placed by the preferences: round 2
    rows = Clock.select().where(Clock.game == game_id).order_by(Clock.seat)
    assert [(row.seat, row.waiting, row.since, row.reminded) for row in rows] == [
        (seat, True, frozen_time.now, 0) for seat in (0, 1, 2)]
    assert ("You have 2 days left (until Fri 4 Dec 2026 02:00 UTC). ann has 2 days left "
            "(until Fri 4 Dec 2026 02:00 UTC).") in flat(cat.last)
    frozen_time.move(hours=8)  # when cat's old wait would have run out
    assert tick(mail_server) == 0
    assert [t for s, t, src in moves_of(game_id) if src == "timeout"] == []
    frozen_time.move(hours=16)  # half of the new 2 days: all three are reminded alike
    assert tick(mail_server) == 3
    assert ("half your time is gone: 1 day left, until Fri 4 Dec 2026 02:00 UTC. Then the "
            "server plays `play 33 low` for you.") in flat(cat.last)


def test_a_row_asked_of_the_last_to_choose_is_a_new_wait(oxx_2d, mail_server, frozen_time):
    game_id, ann, ben, cat = oxx_2d
    ann.reply("play 80", quote=False)
    ben.reply("play 67", quote=False)
    frozen_time.move(days=1)
    assert tick(mail_server) == 1  # cat's half-time reminder
    frozen_time.move(hours=16)
    cat.reply("play 2", quote=False)  # 2 fits no row: cat is asked which to take
    assert Table.load(game_id).to_act == {2}
    row = Clock.get((Clock.game == game_id) & (Clock.seat == 2))
    assert (row.waiting, row.since, row.reminded) == (True, frozen_time.now, 0)
    frozen_time.move(hours=8)
    assert tick(mail_server) == 0
    assert [t for s, t, src in moves_of(game_id) if src == "timeout"] == []
