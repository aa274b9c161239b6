"""Clocks: each game's time control, each seat's clock, and players' vacations."""
from peewee import *


def up(migrator, db):
    class Game(Model):
        class Meta:
            database = db
            table_name = 'game'

    class Player(Model):
        class Meta:
            database = db
            table_name = 'player'

    class TimeControl(Model):
        game = ForeignKeyField(Game, unique=True, on_delete='CASCADE')
        per_move = IntegerField(default=0)
        bank = IntegerField(default=0)
        increment = IntegerField(default=0)
        timeout = CharField(default='forfeit')
        class Meta:
            database = db
            table_name = 'time_control'

    class Clock(Model):
        game = ForeignKeyField(Game, on_delete='CASCADE')
        seat = IntegerField()
        waiting = BooleanField(default=False)
        window = BooleanField(default=False)
        since = DateTimeField(null=True)
        bank = IntegerField(default=0)
        allotted = IntegerField(default=0)
        settled = DateTimeField(null=True)
        reminded = IntegerField(default=0)
        due = DateTimeField(null=True, index=True)
        claimed_until = DateTimeField(null=True)
        class Meta:
            database = db
            table_name = 'clock'
            indexes = ((('game', 'seat'), True),)

    class Vacation(Model):
        player = ForeignKeyField(Player, on_delete='CASCADE')
        start = DateTimeField()
        until = DateTimeField(index=True)
        ended = DateTimeField(null=True, index=True)
        class Meta:
            database = db
            table_name = 'vacation'

    db.create_tables([TimeControl, Clock, Vacation])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('vacation'))
    migrator.migrate(migrator.drop_table('clock'))
    migrator.migrate(migrator.drop_table('time_control'))
