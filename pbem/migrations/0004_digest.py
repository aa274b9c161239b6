"""The daily digest: a player's choice, and the digest day last claimed for them."""
from peewee import BooleanField, DateField


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("player", "digest", BooleanField(default=False)),
        migrator.add_column("player", "digest_sent", DateField(null=True)),
    )


def down(migrator, db):
    migrator.migrate(
        migrator.drop_column("player", "digest_sent"),
        migrator.drop_column("player", "digest"),
    )
