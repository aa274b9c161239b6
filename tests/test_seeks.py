"""Open challenges by mail: posted, listed with the writer's rating, joined (the game
starts), limited to a rating range, withdrawn, expired."""

from mailtest import body

from pbem.competition.jobs import run_competition
from pbem.policy.delivery import deliver_due
from pbem.store import Game, Seat
from pbem.store.competition_models import Rating, Seek


def text(message) -> str:
    return " ".join(body(message).split())


def confirmed(person, first_line):
    person.write(first_line)
    person.reply("yes, that was me")
    return text(person.last)


def test_a_seek_is_listed_and_joined_and_the_game_starts(players, frozen_time):
    carol, bob, dave = players("carol", "bob", "dave")
    answer = confirmed(carol, "seek onyx board=12 time=3d")
    assert ("Seek #1 is posted: Onyx, board=12, time=3d. Anyone may write `join seek 1` "
            "to play it, until 2026-12-07 10:00 UTC") in answer
    assert "Open seeks (write `join seek N` to play one): #1 Onyx, board=12, time=3d — " \
           "carol (25.0 ± 8.3), until 2026-12-07" in confirmed(bob, "seeks")
    bob.write("join seek 1")
    assert "You joined seek #1: game #1 (Onyx, board=12, time=3d) against carol has " \
           "started" in text(bob.last)
    game = Game.get()
    assert (game.status, game.options["board"]) == ("running", "12")
    seated = [s.player.email for s in Seat.select().where(Seat.game == game).order_by(Seat.number)]
    assert seated == [carol.address, bob.address]  # the seeker moves first
    assert "It is your turn" in text([m for m in carol.inbox if "Onyx #1" in m["Subject"]][-1])
    assert "seek #1 is not open (any more)" in confirmed(dave, "join seek 1")


def test_a_rating_range_keeps_others_out(players, frozen_time, mail_server):
    carol, bob = players("carol", "bob")
    confirmed(carol, "seek onyx rating=26-")
    assert "seek #1 is for ratings 26-; yours in Onyx is 25.0 ± 8.3." in confirmed(
        bob, "join seek 1")
    assert Game.select().count() == 0 and Seek.get().status == "open"
    carol.write("seek onyx rating=high")
    assert "rating=high: write a range on the rating scale (a newcomer is 25), e.g. " \
           "rating=20-30" in text(carol.last)


def test_a_seek_is_withdrawn_or_expires(players, frozen_time, mail_server):
    carol, bob = players("carol", "bob")
    confirmed(carol, "seek onyx days=2")
    carol.write("seek gemforge")
    carol.write("withdraw seek 2")
    assert "Seek #2 is withdrawn." in text(carol.last)
    frozen_time.move(days=2)
    assert run_competition(mail_server)  # the scheduler's job
    assert not run_competition(mail_server)
    deliver_due(mail_server)
    assert "Nobody joined your seek #1 (Onyx); it has expired." in text(carol.last)
    assert [s.status for s in Seek.select().order_by(Seek.id)] == ["expired", "withdrawn"]
    assert "No seek is open." in confirmed(bob, "seeks")
    assert Rating.select().count() == 0
