"""Banned addresses: their mail is dropped before anything answers it (pbem admin ban)."""
from peewee import *


def up(migrator, db):
    class Ban(Model):
        address = CharField(unique=True)
        reason = TextField(default='')
        created = DateTimeField()
        class Meta:
            database = db
            table_name = 'ban'

    db.create_tables([Ban])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('ban'))
