"""Which workers run, for the operator: each `pbem worker` (and `pbem serve`) writes its
row of `worker` at every scheduler tick (pbem.scheduler's heartbeat job): when it ticked,
and how many of its listeners take mail. `/metrics` and `pbem status` read the rows, so
any web process can tell that a worker on another machine stopped ticking.

A worker is known by its name (PBEM_WORKER_NAME, the host's name by default), not by its
pid, so a restarted worker writes the same row and a metric's label stays the same. A
worker stopped on purpose (SIGTERM) takes its row away; one that was killed or hangs
leaves it behind, ticking no more, which is what an alert looks for. Rows that have not
ticked for FORGOTTEN go at the hourly prune (a worker retired after a crash).
"""

from __future__ import annotations

import datetime as dt

from pbem.store.claims import claimer
from pbem.store.database import transaction
from pbem.store.models import Worker, utcnow

FORGOTTEN = dt.timedelta(days=2)


def tick(name: str, listeners: int, listening: int, started: bool = False) -> None:
    """Record that `name`'s scheduler ticked now (and, `started`, that it started now)."""
    now = utcnow()
    with transaction():
        fields = {Worker.process: claimer(), Worker.last_tick: now,
                  Worker.listeners: listeners, Worker.listening: listening}
        if started:
            fields[Worker.started] = now
        (Worker.insert({Worker.name: name, Worker.started: now, **fields})
         .on_conflict(conflict_target=[Worker.name], update=fields).execute())


def stopped(name: str) -> None:
    """`name` stopped on purpose: it is no longer expected to tick."""
    with transaction():
        Worker.delete().where((Worker.name == name) & (Worker.process == claimer())).execute()


def forget_silent(now: dt.datetime) -> int:
    """Drop the rows of workers silent for FORGOTTEN (pbem.intake.retention's hourly job)."""
    return Worker.delete().where(Worker.last_tick < now - FORGOTTEN).execute()


def workers() -> list[Worker]:
    return list(Worker.select().order_by(Worker.name))
