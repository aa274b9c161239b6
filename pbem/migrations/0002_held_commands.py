"""Held commands: a player's remaining lines wait while others answer (RULINGS G41)."""
from peewee import TextField


def up(migrator, db):
    migrator.migrate(migrator.add_column("request", "lines", TextField(default="[]")))


def down(migrator, db):
    migrator.migrate(migrator.drop_column("request", "lines"))
