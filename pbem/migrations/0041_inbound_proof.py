"""Mail counts against a player's hourly budget only once it proves to be theirs (#41
item 3, pbem.authority).

inbound.proven: whether the mail proved to be its player's (a reply token of theirs, an
aligned DMARC pass, a confirmation). PBEM_RATE_LIMIT counts proven mail (with the
player's page posts) apart from mail that proves nothing, which counts as a stranger's:
forged mail can no longer spend a player's budget. Mail before this migration is counted
as unproven for the hour after the upgrade, which only ever lets more through.

The column's default is the database's own (FALSE), not only the model's: the old
workers still running mid-upgrade (deploy/README.md, "Upgrades") insert mail without
naming it, and their rows must not fail on it.
"""


def up(migrator, db):
    db.execute_sql("ALTER TABLE inbound ADD COLUMN proven BOOLEAN NOT NULL DEFAULT FALSE")


def down(migrator, db):
    migrator.migrate(migrator.drop_column("inbound", "proven"))
