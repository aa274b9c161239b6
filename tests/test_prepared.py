"""Prepared queries (pbem.store.prepared) return what the peewee query they were written
from returns, run after run with new values: models, joined models, counts; the values
of a run bound in the right places among peewee's own (a LIKE pattern, a LIMIT)."""

import datetime as dt

import pytest
from peewee import JOIN, Model, fn

from pbem.store import Game, Inbound, Player, Seat, transaction
from pbem.store.models import Clock, TimeControl
from pbem.store.prepared import _PLAIN_MODEL, Prepared, _Joined

SEATS = Prepared(lambda game, number: Seat.select(Seat, Player).join(Player)
                 .where((Seat.game == game) & (Seat.number >= number)).order_by(Seat.number))
GAME = Prepared(lambda id: Game.select().where(Game.id == id).limit(1))
# peewee's constants before, between and after the values: LIKE 'done%', LIMIT 5
DONE = Prepared(lambda sender, since: Inbound.select(fn.COUNT(Inbound.id)).where(
    Inbound.outcome.startswith("done") & (Inbound.sender == sender)
    & (Inbound.received >= since)))
NEWEST = Prepared(lambda sender: Inbound.select(Inbound.message_id)
                  .where(Inbound.sender == sender).order_by(Inbound.id.desc()).limit(2).tuples())


@pytest.fixture
def two_games(store):
    with transaction():
        ann = Player.create(email="ann@example.org", name="ann", confirmed=True)
        ben = Player.create(email="ben@example.org", name="ben", confirmed=True)
        games = [Game.create(engine="onyx", options={"board": "12"}, seed=f"s{n}",
                             commitment="c", state={"plies": n}) for n in range(2)]
        for game, players in zip(games, ([ann, ben], [ben, ann])):
            for number, player in enumerate(players):
                Seat.create(game=game, number=number, player=player, answer="accepted")
        when = dt.datetime(2026, 12, 1, 12, 0)
        for n, (sender, outcome) in enumerate([("ann@example.org", "done: 1 line(s)"),
                                               ("ann@example.org", "ignored: robot"),
                                               ("ben@example.org", "done: 2 line(s)"),
                                               ("ann@example.org", "done: 3 line(s)")]):
            Inbound.create(message_id=f"<m{n}@example.org>", sender=sender, raw=b"x",
                           received=when + dt.timedelta(minutes=n), outcome=outcome)
    return games


def test_rows_come_back_as_the_query_returns_them(two_games):
    first, second = two_games
    for game in (second, first, second):  # written once, run with new values
        query = (Seat.select(Seat, Player).join(Player)
                 .where((Seat.game == game.id) & (Seat.number >= 0)).order_by(Seat.number))
        expected = [(seat.__data__, seat.player.__data__) for seat in query]
        found = SEATS.rows(game.id, 0)
        assert [(seat.__data__, seat.player.__data__) for seat in found] == expected
    assert [seat.player.name for seat in SEATS.rows(second.id, 0)] == ["ben", "ann"]
    assert [seat.player.name for seat in SEATS.rows(first.id, 1)] == ["ben"]
    loaded = GAME.get(second.id)
    assert loaded.__data__ == Game.get_by_id(second.id).__data__
    assert loaded.state == {"plies": 1} and loaded.options == {"board": "12"}

SEATS_ALONE = Prepared(lambda game: Seat.select().where(Seat.game == game).order_by(Seat.number))


def test_later_runs_build_the_rows_peewees_reader_builds(two_games):
    # From the second run on, rows are read without peewee's reader working the columns
    # out again; rows of one model are built straight into their __data__.
    first, second = two_games
    for _ in range(3):
        for game in two_games:
            expected = list(Seat.select().where(Seat.game == game.id).order_by(Seat.number))
            found = SEATS_ALONE.rows(game.id)
            assert [type(s) for s in found] == [Seat, Seat]
            assert [(s.__data__, s._dirty, s.__rel__) for s in found] == \
                [(s.__data__, s._dirty, s.__rel__) for s in expected]
            joined = SEATS.rows(game.id, 0)
            assert [(s.__data__, s.player.__data__, s._dirty) for s in joined] == \
                [(s.__data__, s.player.__data__, s._dirty) for s in
                 Seat.select(Seat, Player).join(Player).where(Seat.game == game.id)
                 .order_by(Seat.number)]
    assert {kind for kind, _ in SEATS_ALONE._readers.values()} == {_PLAIN_MODEL}
    # a join: its models built bare too, and joined as peewee joins them
    assert {type(kind) for kind, _ in SEATS._readers.values()} == {_Joined}
    seat = SEATS_ALONE.rows(second.id)[0]
    assert seat.player.name == "ben" and seat.game_id == second.id  # the foreign keys
    seat.answer = "declined"  # and such a row saves as any other
    assert seat.dirty_fields == [Seat.answer]
    seat.save()
    assert Seat.get_by_id(seat.id).answer == "declined"
    game = GAME.get(first.id)
    game.state = {"plies": 7}
    game.save()
    assert GAME.get(first.id).state == {"plies": 7} and GAME.get(second.id).state == {"plies": 1}


CLOCKS = Prepared(lambda game: Clock.select(Clock, TimeControl).join(
    TimeControl, JOIN.LEFT_OUTER, on=(TimeControl.game == Clock.game), attr="control")
    .where(Clock.game == game).order_by(Clock.seat))


def _whole(row):
    """A row as peewee left it: its values, dirty set, joined rows and other attributes."""
    if not isinstance(row, Model):
        return row
    others = {k: _whole(v) for k, v in vars(row).items()
              if k not in ("__data__", "_dirty", "__rel__")}
    return (type(row), row.__data__, row._dirty,
            {k: _whole(v) for k, v in row.__rel__.items()}, others)


def test_an_outer_join_without_its_row_joins_none_as_peewee_does(two_games):
    first, second = two_games
    with transaction():
        for game in two_games:
            for seat in (0, 1):
                Clock.create(game=game, seat=seat, bank=60 * seat)
        TimeControl.create(game=first, per_move=3600)
    for _ in range(3):
        for game in two_games:
            found = CLOCKS.rows(game.id)
            expected = list(Clock.select(Clock, TimeControl).join(
                TimeControl, JOIN.LEFT_OUTER, on=(TimeControl.game == Clock.game),
                attr="control").where(Clock.game == game.id).order_by(Clock.seat))
            assert [_whole(c) for c in found] == [_whole(c) for c in expected]
    assert [c.control.per_move for c in CLOCKS.rows(first.id)] == [3600, 3600]
    assert [c.control for c in CLOCKS.rows(second.id)] == [None, None]
    assert {type(kind) for kind, _ in CLOCKS._readers.values()} == {_Joined}
    clock = CLOCKS.rows(first.id)[1]
    clock.bank = 30  # and such a row saves only what changed
    assert clock.dirty_fields == [Clock.bank]


def test_values_are_bound_among_peewees_own(two_games):
    noon = dt.datetime(2026, 12, 1, 12, 0)
    assert DONE.scalar("ann@example.org", noon) == 2
    assert DONE.scalar("ann@example.org", noon + dt.timedelta(minutes=1)) == 1
    assert DONE.scalar("ben@example.org", noon) == 1
    assert NEWEST.rows("ann@example.org") == [("<m3@example.org>",), ("<m1@example.org>",)]


def test_values_used_out_of_order_twice_or_not_at_all_go_where_they_belong(two_games):
    """Arguments in order are passed on as they are; any other use is mapped."""
    shuffled = Prepared(lambda email, name: Player.select(Player.name).where(
        (Player.name == name) | ((Player.email == email) & (Player.name != email))
        ).order_by(Player.name).tuples())
    assert shuffled.rows("ann@example.org", "ben") == [("ann",), ("ben",)]
    assert shuffled.rows("ben@example.org", "nobody") == [("ben",)]
    unused = Prepared(lambda email, ignored: Player.select(Player.name)
                      .where(Player.email == email).tuples())
    assert unused.rows("ann@example.org", "whatever") == [("ann",)]
    ordered = Prepared(lambda email, name: Player.select(Player.name)
                       .where((Player.email == email) & (Player.name == name)).tuples())
    assert ordered.rows("ben@example.org", "ben") == [("ben",)]
    assert [w.in_order for w in (*shuffled._written.values(), *unused._written.values(),
                                 *ordered._written.values())] == [False, False, True]


def test_get_of_nothing_raises_as_peewee_does(two_games):
    with pytest.raises(Game.DoesNotExist):
        GAME.get(999)
    assert GAME.first(999) is None


def test_an_update_changes_the_rows_it_names(two_games):
    mark = Prepared(lambda outcome, sender: Inbound.update(outcome=outcome)
                    .where(Inbound.sender == sender))
    assert mark.execute("done: read again", "ben@example.org") == 1
    assert mark.execute("done: read again", "nobody@example.org") == 0
    assert [i.outcome for i in Inbound.select().order_by(Inbound.id)] == [
        "done: 1 line(s)", "ignored: robot", "done: read again", "done: 3 line(s)"]


def test_creates_makes_the_row_model_create_makes(two_games):
    from pbem.store import Move
    from pbem.store.prepared import Creates
    game = two_games[0]
    made = Creates(Move)(game=game, ply=1, seat=0, text="F6", state={"cells": "..b"},
                         visible={"public": "F6", "0": "F6"})
    again = Move.create(game=game, ply=2, seat=1, text="G7", state={"cells": "..b"},
                        visible={"public": "F6", "0": "F6"})
    assert made.id is not None and not made.is_dirty()
    stored, reference = Move.get_by_id(made.id), Move.get_by_id(again.id)
    differ = {"id", "ply", "seat", "text", "created"}
    assert ({k: v for k, v in stored.__data__.items() if k not in differ}
            == {k: v for k, v in reference.__data__.items() if k not in differ})
    assert (stored.state, stored.visible, stored.revealed, stored.labelled) == (
        {"cells": "..b"}, {"public": "F6", "0": "F6"}, None, False)
    assert stored.game_id == game.id and stored.created is not None
    blob = Creates(Inbound)(message_id="<b@example.org>", sender="ann@example.org",
                            raw=b"\x00\xffbytes")
    assert bytes(Inbound.get_by_id(blob.id).raw) == b"\x00\xffbytes"
    assert Inbound.get_by_id(blob.id).outcome == "received"  # the model's default


def test_save_changed_writes_what_changed_and_only_that(two_games):
    from pbem.store.prepared import save_changed
    game = Game.get_by_id(two_games[1].id)
    Game.update(result="1-0").where(Game.id == game.id).execute()  # another writer's
    game.state, game.plies = {"plies": 7, "cells": "b.w"}, 7
    save_changed(game)
    assert not game.is_dirty()
    stored = Game.get_by_id(game.id)
    assert (stored.state, stored.plies, stored.result) == ({"plies": 7, "cells": "b.w"}, 7, "1-0")
    save_changed(stored)  # nothing changed: nothing written
