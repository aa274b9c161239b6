"""Hostile mail's limits and retention: when an inbound mail's raw bytes may go
(`inbound.kept_until`, pbem.intake.retention), and the indexes the limits count with
(pbem.policy.limits): mail queued an hour, our last mail to an address, games a day."""
from peewee import DateTimeField


def up(migrator, db):
    migrator.migrate(migrator.add_column("inbound", "kept_until", DateTimeField(null=True)),
                     migrator.add_index("inbound", ("kept_until",)),
                     migrator.add_index("outbox", ("recipient",)),
                     migrator.add_index("outbox", ("created",)),
                     migrator.add_index("game", ("created",)))


def down(migrator, db):
    migrator.migrate(migrator.drop_index("game", "game_created"),
                     migrator.drop_index("outbox", "outbox_created"),
                     migrator.drop_index("outbox", "outbox_recipient"),
                     migrator.drop_index("inbound", "inbound_kept_until"),
                     migrator.drop_column("inbound", "kept_until"))
