"""Publication (issue 22): how each game's seed deals, and the annotated records players
publish of finished games.

`game.generator` names the dealer's generator (pbem.engines.dealing): the games already
stored were dealt by CPython's random.Random, new ones by the documented HMAC-SHA256
stream. `annotation` keeps each published annotated record of a game with its author.
"""
from peewee import CharField


def up(migrator, db):
    migrator.migrate(migrator.add_column("game", "generator",
                                         CharField(default="Python-Random")))


def down(migrator, db):
    migrator.migrate(migrator.drop_column("game", "generator"))
