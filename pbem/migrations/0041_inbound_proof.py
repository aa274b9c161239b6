"""Mail counts against a player's hourly budget only once it proves to be theirs (#41
item 3, pbem.authority).

inbound.proven: whether the mail proved to be its player's (a reply token of theirs, an
aligned DMARC pass, a confirmation). PBEM_RATE_LIMIT counts proven mail (with the
player's page posts) apart from mail that proves nothing, which counts as a stranger's:
forged mail can no longer spend a player's budget. Mail before this migration is counted
as unproven for the hour after the upgrade, which only ever lets more through.
"""
from peewee import BooleanField


def up(migrator, db):
    migrator.migrate(migrator.add_column("inbound", "proven", BooleanField(default=False)))


def down(migrator, db):
    migrator.migrate(migrator.drop_column("inbound", "proven"))
