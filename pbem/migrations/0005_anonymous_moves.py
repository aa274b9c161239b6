"""Moves whose maker the others may not learn (a reaction window's answer, RULINGS G39)."""
from peewee import BooleanField


def up(migrator, db):
    migrator.migrate(migrator.add_column("move", "anonymous", BooleanField(default=False)))


def down(migrator, db):
    migrator.migrate(migrator.drop_column("move", "anonymous"))
