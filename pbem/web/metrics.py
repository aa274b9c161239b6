"""`GET /metrics`: Prometheus metrics (prometheus-client's text format), read from the
database at each scrape; for the operator only (PBEM_MONITOR_TOKEN, or a loopback the
proxy confirms: pbem.web.operator_proof), since a count of moves includes the secret ones.

Every number comes from the database, not from the process: any web process, of any
number of gunicorn workers on any machine, answers the same, and nothing needs shared
memory. A counter (`_total`) counts events, recorded in the transaction of the event
itself (pbem.store.counters), so it only ever rises: a held mail that is confirmed, a
given-up mail that cleanup deletes, a move taken back, a mail retried with `pbem outbox
retry`, each leaves the counts as they were. What is in a state now is a gauge.

    pbem_mails_in_total{outcome}          each outcome a mail in reached: done, ignored,
                                          refused, held, expired, failed, answered, …; a
                                          held mail counts as held, then as what became of
                                          it once its sender confirmed (or never did)
    pbem_refusals_total{reason}           ignored or refused mail, by reason (robot, banned,
                                          dmarc_fail, wrong_sender, too_large, …)
    pbem_mails_held                       mails held now for their sender's confirmation
    pbem_authentication_refusals{reason}  the DMARC check's refusals in 90 days, by why
                                          (pbem.intake.refusals: no-verdict, dmarc-fail, …)
    pbem_moves_total{game}                players' moves played (not the dealer's), by game
    pbem_games{status}                    games by status
    pbem_outbox_delivered_total           mails handed to the relay (or the maildir)
    pbem_outbox_given_up_total            mails given up on (5xx, or undelivered for 5 days)
    pbem_outbox_backlog                   mails not yet delivered; _retrying: of which failed once
                                          (held mail apart: pbem_outbox_held, by `pbem restore`)
    pbem_bounces_total                    hard bounces counted against an address (a relay's
                                          5xx for the mailbox, or a report after delivery)
    pbem_outbox_oldest_seconds            age of the oldest undelivered mail (0: none)
    pbem_scheduler_lag_seconds{queue}     how long the oldest due, unclaimed work has waited:
                                          deadlines (clocks) and outbox (due mail); 0 on
                                          time (not `job`: Prometheus's own label)
    pbem_worker_last_tick_timestamp_seconds{worker}
                                          when each worker's scheduler last ticked (Unix
                                          time; pbem.store.workers): `time() - it` is its
                                          silence
    pbem_worker_listeners{worker}         its SMTP/LMTP listeners; _listening: of which
                                          took connections at that tick
    pbem_last_inbound_seconds             since the last mail came in (absent: never)
    pbem_last_backup_timestamp_seconds    when the newest whole `pbem backup` was made (Unix
                                          time; 0: none recorded; pbem.store.backups)
    pbem_database_up                      1 when the database answered this scrape
    pbem_build_info{version,commit}       1, naming the pbem that answered (pbem.build)

deploy/prometheus/pbem.rules.yml alerts on them; deploy/README.md says what each means.
"""

from __future__ import annotations

import datetime as dt

from flask import Blueprint, Response
from peewee import DatabaseError, InterfaceError, fn
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from pbem import build
from pbem.intake.outcomes import uncounted
from pbem.intake.refusals import totals as refusal_totals
from pbem.operator.status import seconds_since
from pbem.store import Game, Inbound, Outbox, backups, counters, workers
from pbem.store.models import Clock, utcnow
from pbem.web.operator import operator_only

metrics = Blueprint("metrics", __name__)
GAME_STATUSES = ("inviting", "running", "finished", "cancelled")
metrics.before_request(operator_only)  # its counts are not the public's (pbem.web.operator)


class StoreCollector:
    """prometheus-client's custom collector: each scrape asks the database afresh."""

    def collect(self):
        # Which pbem answers, even when the database does not: `pbem_build_info` joined to
        # other series (`* on() group_left(version)`) shows a fleet mid-upgrade.
        built = GaugeMetricFamily("pbem_build_info", "The pbem that answered: its version "
                                  "and commit (empty when unknown)", labels=["version", "commit"])
        about = build.info()
        built.add_metric([about["version"], about["commit"]], 1)
        yield built
        up = GaugeMetricFamily("pbem_database_up", "1 when the database answered this scrape")
        try:
            families = list(self._families(utcnow()))
        except (DatabaseError, InterfaceError):
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from families

    def _families(self, now: dt.datetime):
        # The counters, with what processes of an older pbem recorded mid-upgrade and
        # nobody counted yet (pbem.intake.outcomes): none falls when they are replaced.
        late = uncounted()

        def totals(name: str) -> dict[str, int]:
            found = counters.totals(name)
            for label, n in late.get(name, {}).items():
                found[label] = found.get(label, 0) + n
            return dict(sorted(found.items()))

        yield _counter("pbem_mails_in", "Each outcome a mail in reached (a held mail "
                       "counts again once its sender confirmed)", "outcome",
                       totals("mails_in"))
        yield _counter("pbem_refusals", "Ignored or refused inbound mail, by reason",
                       "reason", totals("refusals"))
        yield GaugeMetricFamily("pbem_mails_held", "Mails held now for their sender's "
                                "confirmation", value=Inbound.select().where(
                                    Inbound.outcome.startswith("held:")).count())
        # The DMARC check's own reasons (pbem.intake.refusals): why authentication failed.
        failed = GaugeMetricFamily("pbem_authentication_refusals", "Mail refused by the "
                                   "DMARC check in the last 90 days, by why",
                                   labels=["reason"])
        for reason, count in sorted(refusal_totals().items()):
            failed.add_metric([reason], count)
        yield failed

        yield _counter("pbem_moves", "Players' moves played (not the dealer's)", "game",
                       totals("moves"))

        games = GaugeMetricFamily("pbem_games", "Games by status", labels=["status"])
        counted = {status: 0 for status in GAME_STATUSES}  # 0 too: an alert compares it
        counted.update(Game.select(Game.status, fn.COUNT(Game.id)).group_by(Game.status)
                       .tuples())
        for status, count in counted.items():
            games.add_metric([status], count)
        yield games

        unsent = Outbox.select().where(Outbox.sent.is_null() & Outbox.failed.is_null())
        waiting = unsent.where(Outbox.held.is_null())  # held: the operator's to release
        yield GaugeMetricFamily("pbem_outbox_backlog", "Mails not yet delivered",
                                value=waiting.count())
        yield GaugeMetricFamily("pbem_outbox_held", "Mails held by pbem restore until the "
                                "operator releases them", value=unsent.where(
                                    Outbox.held.is_null(False)).count())
        yield CounterMetricFamily("pbem_outbox_delivered", "Mails handed to the relay",
                                  value=counters.totals("outbox_delivered").get("", 0))
        yield CounterMetricFamily("pbem_outbox_given_up", "Mails given up on (refused for "
                                  "good, or undelivered for days)",
                                  value=counters.totals("outbox_given_up").get("", 0))
        yield CounterMetricFamily("pbem_bounces", "Hard bounces counted against an address",
                                  value=counters.totals("bounces").get("", 0))
        yield GaugeMetricFamily("pbem_outbox_retrying", "Undelivered mails that failed at "
                                "least once", value=waiting.where(Outbox.attempts > 0).count())
        oldest = waiting.select(fn.MIN(Outbox.created)).scalar()
        yield GaugeMetricFamily("pbem_outbox_oldest_seconds", "Age of the oldest undelivered "
                                "mail (0: none waits)", value=seconds_since(now, oldest) or 0)

        lag = GaugeMetricFamily("pbem_scheduler_lag_seconds", "How long the oldest due, "
                                "unclaimed work has waited for the scheduler (0: on time)",
                                labels=["queue"])
        free = Clock.claimed_until.is_null() | (Clock.claimed_until < now)
        due = Clock.select(fn.MIN(Clock.due)).where((Clock.due <= now) & free).scalar()
        lag.add_metric(["deadlines"], seconds_since(now, due) or 0)
        free = Outbox.claimed_until.is_null() | (Outbox.claimed_until < now)
        due = (Outbox.select(fn.MIN(Outbox.next_attempt))
               .where(Outbox.sent.is_null() & Outbox.failed.is_null() & Outbox.held.is_null()
                      & (Outbox.next_attempt <= now) & free).scalar())
        lag.add_metric(["outbox"], seconds_since(now, due) or 0)
        yield lag

        yield from _workers()

        # 0 when none is recorded: an alert on its age fires for a server never backed up
        backed_up = backups.last_finished()
        yield GaugeMetricFamily("pbem_last_backup_timestamp_seconds", "When the newest whole "
                                "pbem backup was made (Unix time; 0: none recorded)",
                                value=backed_up.replace(tzinfo=dt.timezone.utc).timestamp()
                                if backed_up else 0)

        last_in = seconds_since(now, Inbound.select(fn.MAX(Inbound.received)).scalar())
        if last_in is not None:
            yield GaugeMetricFamily("pbem_last_inbound_seconds", "Seconds since the last "
                                    "mail came in", value=last_in)


def _counter(name: str, documentation: str, label: str, counts: dict[str, int]):
    family = CounterMetricFamily(name, documentation, labels=[label])
    for value, count in counts.items():
        family.add_metric([value], count)
    return family


def _workers():
    """Each worker's last scheduler tick and listeners (pbem.store.workers)."""
    tick = GaugeMetricFamily("pbem_worker_last_tick_timestamp_seconds", "When the worker's "
                             "scheduler last ticked (Unix time)", labels=["worker"])
    listeners = GaugeMetricFamily("pbem_worker_listeners", "The SMTP and LMTP listeners "
                                  "the worker runs", labels=["worker"])
    listening = GaugeMetricFamily("pbem_worker_listening", "Of the worker's listeners, "
                                  "those that took connections at its last tick",
                                  labels=["worker"])
    for worker in workers.workers():
        tick.add_metric([worker.name], worker.last_tick.replace(
            tzinfo=dt.timezone.utc).timestamp())
        listeners.add_metric([worker.name], worker.listeners)
        listening.add_metric([worker.name], worker.listening)
    yield from (tick, listeners, listening)


REGISTRY = CollectorRegistry(auto_describe=False)
REGISTRY.register(StoreCollector())


@metrics.route("/metrics")
def scrape():
    return Response(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST,
                    headers={"Cache-Control": "no-store"})
