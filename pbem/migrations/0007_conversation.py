"""The conversation (pbem.policy.conversation): what each seat has been told, how much mail it
wants, each seat's own share of a finished game, and players' second addresses.

`told` is the ply up to which the seat has had its news, `heard` the last comment it has
had; both start at what the old policy had already mailed (everything so far), so a game
under way loses nothing and repeats nothing. `mail` replaces the `quiet` flag with three
settings (loud, normal, quiet). A move's `revealed` is what it showed everyone (the
last secret choice of a 6 nimmt! round shows every card), for the news. `share` is the seat's share of the win once the game is
over ("1", "0", "1/2"): the result belongs to the player, whatever colour they ended with.
Finished games get theirs from the result token, which is in seat order except Onyx's,
which is by colour (after a swap, seat 0 played White).
"""
import json
from fractions import Fraction

from peewee import (
    BooleanField,
    CharField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)


def up(migrator, db):
    class Player(Model):
        class Meta:
            database = db
            table_name = 'player'

    class Address(Model):
        player = ForeignKeyField(Player, on_delete='CASCADE')
        email = CharField(unique=True)
        confirmed = BooleanField(default=False)
        created = DateTimeField()
        class Meta:
            database = db
            table_name = 'address'

    db.create_tables([Address])
    migrator.migrate(
        migrator.add_column("seat", "told", IntegerField(default=0)),
        migrator.add_column("seat", "heard", IntegerField(default=0)),
        migrator.add_column("seat", "mail", CharField(default="normal")),
        migrator.add_column("seat", "share", CharField(null=True)),
        migrator.add_column("move", "revealed", TextField(null=True)),
    )
    db.execute_sql("UPDATE seat SET mail = 'quiet' WHERE quiet")
    db.execute_sql("UPDATE seat SET told = (SELECT plies FROM game WHERE game.id = seat.game_id)")
    db.execute_sql("UPDATE seat SET heard = COALESCE((SELECT MAX(comment.id) FROM comment "
                   "WHERE comment.game_id = seat.game_id), 0)")
    migrator.migrate(migrator.drop_column("seat", "quiet"))
    _backfill_shares(db)


def _backfill_shares(db):
    finished = db.execute_sql("SELECT id, engine, result, state FROM game "
                              "WHERE status = 'finished' AND result <> '*'").fetchall()
    for game_id, engine, result, state in finished:
        try:
            shares = [Fraction(part) for part in result.split("-")]
        except (ValueError, ZeroDivisionError):
            continue
        if engine == "onyx" and state and json.loads(state).get("swapped"):
            shares.reverse()  # 1-0 is Black's win, and Black was seat 1
        for number, share in enumerate(shares):
            db.execute_sql("UPDATE seat SET share = %s WHERE game_id = %s AND number = %s"
                           .replace("%s", db.param), (str(share), game_id, number))


def down(migrator, db):
    migrator.migrate(migrator.add_column("seat", "quiet", BooleanField(default=False)))
    db.execute_sql("UPDATE seat SET quiet = (mail = 'quiet')")
    migrator.migrate(
        migrator.drop_column("move", "revealed"),
        migrator.drop_column("seat", "share"),
        migrator.drop_column("seat", "mail"),
        migrator.drop_column("seat", "heard"),
        migrator.drop_column("seat", "told"),
    )
    db.execute_sql("DROP TABLE address")
