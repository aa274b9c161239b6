"""Counters that only rise, and the workers' liveness (issue #30 item 6).

`/metrics` counted rows in a state: a held mail left `held` when its sender confirmed,
a given-up mail left the outbox when cleanup deleted it, a move left the log when it was
taken back, and each counter fell, which Prometheus reads as a restart. Now each event
is counted when it happens, in its own transaction (pbem.store.counters): a row of
`counter_event`, rolled up hourly into `counter_total`.

The totals start where the old counters stood, so nothing jumps at the upgrade: mail in
by the outcome it has now (those still waiting, `received`, are not an outcome yet),
refusals by reason, players' moves by game, and the mail given up on that is still kept.

`worker`: each worker's (and `pbem serve`'s) last scheduler tick and listeners, by name
(pbem.store.workers).
"""
from peewee import BigIntegerField, CharField, DateTimeField, IntegerField, Model

from pbem.intake.outcomes import outcome_kind, refusal_reason


def up(migrator, db):
    class CounterTotal(Model):
        name = CharField()
        label = CharField(default='')
        total = BigIntegerField(default=0)

        class Meta:
            database = db
            table_name = 'counter_total'
            indexes = ((('name', 'label'), True),)

    class CounterEvent(Model):
        name = CharField()
        label = CharField(default='')
        amount = IntegerField(default=1)

        class Meta:
            database = db
            table_name = 'counter_event'

    class Worker(Model):
        name = CharField(unique=True)
        process = CharField(default='')
        started = DateTimeField()
        last_tick = DateTimeField()
        listeners = IntegerField(default=0)
        listening = IntegerField(default=0)

        class Meta:
            database = db
            table_name = 'worker'

    db.create_tables([CounterTotal, CounterEvent, Worker])
    totals = {}

    def add(name, label, count):
        totals[(name, label)] = totals.get((name, label), 0) + count

    for outcome, count in db.execute_sql(
            'SELECT outcome, COUNT(*) FROM inbound GROUP BY outcome').fetchall():
        if outcome_kind(outcome) != 'received':
            add('mails_in', outcome_kind(outcome), count)
        reason = refusal_reason(outcome)
        if reason is not None:
            add('refusals', reason, count)
    for engine, count in db.execute_sql(
            'SELECT g.engine, COUNT(*) FROM move m JOIN game g ON g.id = m.game_id '
            'WHERE m.seat >= 0 GROUP BY g.engine').fetchall():
        add('moves', engine, count)
    given_up = db.execute_sql('SELECT COUNT(*) FROM outbox WHERE failed IS NOT NULL')
    add('outbox_given_up', '', given_up.fetchone()[0])
    for (name, label), count in sorted(totals.items()):
        if count:
            CounterTotal.create(name=name, label=label, total=count)


def down(migrator, db):
    migrator.migrate(migrator.drop_table('worker'), migrator.drop_table('counter_event'),
                     migrator.drop_table('counter_total'))
