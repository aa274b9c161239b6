"""Bounces that come back later (issue #30): each address our mail bounces from, with a
score of days with a hard bounce and, past the threshold, since when no mail goes to it
(pbem.policy.bounces.scores; `pbem outbox bounces` lists them, `pbem outbox clear` ends one).
"""
from peewee import *


def up(migrator, db):
    class Bounce(Model):
        address = CharField(unique=True)
        score = IntegerField(default=0)
        last = DateTimeField()
        reason = TextField(default="")
        bouncing = DateTimeField(null=True)

        class Meta:
            database = db
            table_name = 'bounce'

    db.create_tables([Bounce])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('bounce'))
