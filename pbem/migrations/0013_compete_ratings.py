"""Ratings (pbem.competition): a game may be friendly (`rated=no`); each player's rating
per game, and its history, one row per rated game."""
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

    class Rating(Model):
        player = ForeignKeyField(Player, on_delete='CASCADE')
        engine = CharField()
        mu = DoubleField()
        sigma = DoubleField()
        games = IntegerField(default=0)
        updated = DateTimeField()
        class Meta:
            database = db
            table_name = 'rating'
            indexes = ((('player', 'engine'), True), (('engine', 'games'), False))

    class RatingChange(Model):
        game = ForeignKeyField(Game, on_delete='CASCADE')
        player = ForeignKeyField(Player, on_delete='CASCADE')
        engine = CharField()
        mu = DoubleField()
        sigma = DoubleField()
        at = DateTimeField()
        class Meta:
            database = db
            table_name = 'rating_change'
            indexes = ((('game', 'player'), True), (('player', 'engine', 'at'), False))

    migrator.migrate(migrator.add_column('game', 'rated', BooleanField(default=True)))
    db.create_tables([Rating, RatingChange])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('rating_change'))
    migrator.migrate(migrator.drop_table('rating'))
    migrator.migrate(migrator.drop_column('game', 'rated'))
