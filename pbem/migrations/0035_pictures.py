"""Pictures in game mail (issue #33): a player's choice, on unless they wrote
`pictures off` (pbem.commands.web, the seat page's switch)."""
from peewee import BooleanField


def up(migrator, db):
    migrator.migrate(migrator.add_column("player", "pictures", BooleanField(default=True)))


def down(migrator, db):
    migrator.migrate(migrator.drop_column("player", "pictures"))
