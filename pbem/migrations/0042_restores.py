"""Restores an operator can trust, and backups a metric can see (#43 items 4 and 5).

outbox.held: set by `pbem restore` on every mail that was waiting when the backup was
taken. It may have gone out between the backup and the restore, so the deliverer leaves
it until the operator says (`pbem outbox retry --all-held`, or `drop --all-held`); a
mail sent twice is worse than one the operator sends by hand.

backup: one row for each `pbem backup`, written when it starts (so the copy itself holds
the row, and `pbem restore` knows from the restored database what time it went back to)
and finished when the copy is whole (`pbem_last_backup_timestamp_seconds`, the alert
on a backup that is too old).
"""
from peewee import CharField, DateTimeField, Model


def up(migrator, db):
    migrator.migrate(migrator.add_column("outbox", "held", DateTimeField(null=True)))

    class Backup(Model):
        started = DateTimeField(index=True)
        finished = DateTimeField(null=True)
        file = CharField(default="")

        class Meta:
            database = db
            table_name = "backup"

    db.create_tables([Backup])


def down(migrator, db):
    migrator.migrate(migrator.drop_table("backup"), migrator.drop_column("outbox", "held"))
