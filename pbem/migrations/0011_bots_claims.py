"""Bots (pbem.bot_turns): a seat's claim, so that each waiting bot move is searched and
made by one scheduler only, however many run on the database."""
from peewee import DateTimeField


def up(migrator, db):
    migrator.migrate(migrator.add_column("seat", "claimed_until", DateTimeField(null=True)))


def down(migrator, db):
    migrator.migrate(migrator.drop_column("seat", "claimed_until"))
