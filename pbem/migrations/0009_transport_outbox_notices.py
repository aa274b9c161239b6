"""Mail transport: the outbox's crash and bounce states, refusals by reason, daily notices.

outbox.claimed_by names the process that claimed a row (host:pid), so a restarted worker
takes over the rows of a process that died without waiting for the claim to lapse;
outbox.handed_over is set when the whole message was written to the relay and its answer
not yet read (after a crash the relay has it: it is not sent again); outbox.failed is
set when pbem gave up on it (a permanent refusal, 5xx). refusal counts the mail the
sender checks refused, by reason (pbem.intake.refusals); notice keeps when each
once-a-day notice last went out (pbem.policy.notices).
"""
from peewee import CharField, DateTimeField, IntegerField, Model


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("outbox", "claimed_by", CharField(default="")),
        migrator.add_column("outbox", "handed_over", DateTimeField(null=True)),
        migrator.add_column("outbox", "failed", DateTimeField(null=True)),
    )

    class Refusal(Model):
        reason = CharField()
        inbound_id = IntegerField(null=True, index=True)
        at = DateTimeField(index=True)
        class Meta:
            database = db
            table_name = 'refusal'

    class Notice(Model):
        key = CharField(unique=True)
        sent = DateTimeField()
        class Meta:
            database = db
            table_name = 'notice'

    db.create_tables([Refusal, Notice])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('notice'), migrator.drop_table('refusal'),
                     migrator.drop_column("outbox", "failed"),
                     migrator.drop_column("outbox", "handed_over"),
                     migrator.drop_column("outbox", "claimed_by"))
