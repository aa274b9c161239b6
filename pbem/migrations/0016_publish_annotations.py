"""Publication (issue 22): how each game's seed deals, and the annotated records of
finished games.

`game.generator` names the dealer's generator (pbem.engines.dealing): the games already
stored were dealt by CPython's random.Random, new ones by the documented HMAC-SHA256
stream. `annotation` keeps each published annotated record with its author;
`annotator` the addresses that may annotate a game they did not play.
"""
from peewee import *


def up(migrator, db):
    migrator.migrate(migrator.add_column("game", "generator",
                                         CharField(default="Python-Random")))

    class Player(Model):
        class Meta:
            database = db
            table_name = 'player'

    class Game(Model):
        class Meta:
            database = db
            table_name = 'game'

    class Annotation(Model):
        game = ForeignKeyField(Game, on_delete='CASCADE')
        author = ForeignKeyField(Player)
        text = TextField()
        created = DateTimeField()

        class Meta:
            database = db
            table_name = 'annotation'

    class Annotator(Model):
        game = ForeignKeyField(Game, on_delete='CASCADE')
        email = CharField()

        class Meta:
            database = db
            table_name = 'annotator'
            indexes = ((('game', 'email'), True),)

    db.create_tables([Annotation, Annotator])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('annotator'), migrator.drop_table('annotation'),
                     migrator.drop_column("game", "generator"))
