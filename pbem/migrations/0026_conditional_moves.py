"""Conditional moves (issue #32): a player's `if E5 F6 …` lines for a game, kept until the
opponent's moves meet them (pbem.commands.conditions). One row per game and seat.
"""
from peewee import *


def up(migrator, db):
    class Game(Model):
        class Meta:
            database = db
            table_name = 'game'

    class Condition(Model):
        game = ForeignKeyField(Game, on_delete='CASCADE', index=False)
        seat = IntegerField()
        lines = TextField(default='[]')
        created = DateTimeField()

        class Meta:
            database = db
            table_name = 'condition'
            indexes = ((('game', 'seat'), True),)

    db.create_tables([Condition])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('condition'))
