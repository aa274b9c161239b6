"""Counters of events that only ever rise, shared by every process on the database.

Prometheus reads a counter that falls as a restart, so `increase()` and `rate()` jump
and an alert fires for nothing; a count of rows in a state falls whenever a row leaves
it (a held mail confirmed, a given-up mail cleaned up, a move taken back). So what a
metric counts is the event, recorded when it happens, in the transaction that makes it
happen (a rollback takes the count back with the event):

    count("mails_in", "done")    one row of `counter_event`: an insert, never an update,
                                 so processes never wait for each other on a counter

The hourly prune job (`roll_up`) moves the events into `counter_total`, one row per
(name, label), so the table of events holds about an hour's. `totals` reads both in one
statement: one snapshot, so a roll-up between two reads can never show a count twice
or not at all. Two roll-ups at once (two workers) take disjoint events: on PostgreSQL
each skips the rows the other locked; SQLite has one writer at a time.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from pbem.store.database import is_postgres, transaction
from pbem.store.models import CounterEvent, CounterTotal, database
from pbem.store.prepared import Creates, Prepared

BATCH = 10_000  # events rolled up per transaction


def count(name: str, label: str = "", amount: int = 1) -> None:
    """One event (or `amount` of them), in the caller's transaction (`gathered`: written
    with the others at its end)."""
    pending = getattr(_GATHERED, "events", None)
    if pending is not None:
        pending.append((name, label[:255], amount))
    else:
        _EVENT(name=name, label=label[:255], amount=amount)


_EVENT = Creates(CounterEvent)  # written once: a move and a mail in each count one
_GATHERED = threading.local()  # this thread's events not written yet (gathered)
# the events of a transaction in one INSERT, written once for each number of them
_EVENTS = Prepared(lambda *marks: CounterEvent.insert_many(
    [marks[at:at + 3] for at in range(0, len(marks), 3)],
    fields=[CounterEvent.name, CounterEvent.label, CounterEvent.amount]))


@contextmanager
def gathered():
    """Within it, this thread's events are written together, in the order counted, as
    it ends without an exception: inside the transaction it is opened in, as the last
    statement before its commit (a move and its mail's outcome, two events, in one
    INSERT; pbem.intake.pipeline). An exception drops them, with the transaction it
    rolls back; a savepoint rolled back in it drops its own (`mark`, `forget_since`).
    Nested, the outermost writes them."""
    if getattr(_GATHERED, "events", None) is not None:
        yield
        return
    _GATHERED.events = events = []
    try:
        yield
    finally:
        _GATHERED.events = None
    if len(events) == 1:
        _EVENT(name=events[0][0], label=events[0][1], amount=events[0][2])
    elif events:
        _EVENTS.execute(*(value for event in events for value in event))


def mark() -> int:
    """Where the events gathered so far end (0 when none are gathered)."""
    return len(getattr(_GATHERED, "events", None) or ())


def forget_since(at: int) -> None:
    """Drop the events gathered after `mark` gave `at` (a savepoint rolled back)."""
    pending = getattr(_GATHERED, "events", None)
    if pending is not None:
        del pending[at:]


def totals(name: str) -> dict[str, int]:
    """Every label's count of `name` since the store began, whatever was rolled up."""
    rows = database.obj.execute_sql(
        "SELECT label, SUM(n) FROM (SELECT label, total AS n FROM counter_total WHERE name = "
        f"{database.obj.param} UNION ALL SELECT label, amount AS n FROM counter_event "
        f"WHERE name = {database.obj.param}) AS counted GROUP BY label", (name, name))
    return {label: int(total) for label, total in sorted(rows.fetchall())}


def roll_up() -> int:
    """Move the events counted so far into the totals; returns how many were moved."""
    moved = 0
    while True:
        with transaction():
            batch = (CounterEvent.select(CounterEvent.id, CounterEvent.name,
                                         CounterEvent.label, CounterEvent.amount)
                     .order_by(CounterEvent.id).limit(BATCH))
            if is_postgres():
                batch = batch.for_update(skip_locked=True)
            rows = list(batch.tuples())
            sums: dict[tuple[str, str], int] = {}
            for _, name, label, amount in rows:
                sums[(name, label)] = sums.get((name, label), 0) + amount
            for (name, label), amount in sorted(sums.items()):  # one order: no deadlock
                (CounterTotal.insert(name=name, label=label, total=amount)
                 .on_conflict(conflict_target=[CounterTotal.name, CounterTotal.label],
                              update={CounterTotal.total: CounterTotal.total + amount})
                 .execute())
            if rows:
                CounterEvent.delete().where(CounterEvent.id.in_([r[0] for r in rows])).execute()
        moved += len(rows)
        if len(rows) < BATCH:
            return moved


__all__ = ["count", "gathered", "mark", "forget_since", "totals", "roll_up"]
