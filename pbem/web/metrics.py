"""`GET /metrics`: Prometheus metrics (prometheus-client's text format), read from the
database at each scrape; for the operator only (loopback, or PBEM_MONITOR_TOKEN:
pbem.web.operator), since a count of moves includes the secret ones.

Every number is counted from the stored rows (inbound mail and its outcome, the move log,
the outbox, the clocks), not kept in the process: any web process, of any number of
gunicorn workers on any machine, answers the same, and nothing needs shared memory or a
restart-surviving counter. The counters are counts of rows, so they only grow while rows
are kept (`pbem admin forget` blanks rows but never deletes them).

    pbem_mails_in_total{outcome}          inbound mail by what became of it: done, ignored,
                                          refused, held, expired, failed, received (running)
    pbem_refusals_total{reason}           ignored or refused mail, by reason (robot, banned,
                                          dmarc_fail, wrong_sender, too_large, …)
    pbem_authentication_refusals{reason}  of those, the DMARC check's in 90 days, by why
                                          (pbem.intake.refusals: no-verdict, dmarc-fail, …)
    pbem_moves_total{game}                players' moves played (not the dealer's), by game
    pbem_games{status}                    games by status
    pbem_outbox_backlog                   mails not yet delivered; _retrying: of which failed once
    pbem_outbox_given_up_total            mails given up on (5xx, or undelivered for 5 days)
    pbem_outbox_oldest_seconds            age of the oldest undelivered mail (0: none)
    pbem_scheduler_lag_seconds{job}       how long the oldest due, unclaimed work has waited:
                                          deadlines (clocks) and outbox (due mail); 0 on time
    pbem_last_inbound_seconds             since the last mail came in (absent: never)
    pbem_database_up                      1 when the database answered this scrape
    pbem_build_info{version,commit}       1, naming the pbem that answered (pbem.build)
"""

from __future__ import annotations

import datetime as dt

from flask import Blueprint, Response
from peewee import DatabaseError, InterfaceError, fn
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from pbem import build
from pbem.engines.base import CHANCE
from pbem.intake.refusals import totals as refusal_totals
from pbem.status import seconds_since
from pbem.store import Game, Inbound, Move, Outbox
from pbem.store.models import Clock, utcnow
from pbem.web.operator import operator_only

metrics = Blueprint("metrics", __name__)
metrics.before_request(operator_only)  # its counts are not the public's (pbem.web.operator)

#: Refusal reasons: a phrase of the stored outcome -> the label. The first that matches.
REASONS = (
    ("banned", "banned"),
    ("robot", "robot"),
    ("mails from this sender", "rate_limit"),
    ("DMARC fail", "dmarc_fail"),
    ("DMARC pass for", "dmarc_not_aligned"),
    ("no Authentication-Results", "no_authentication_results"),
    ("Authentication-Results from", "authentication_unreadable"),
    ("bytes, over the limit", "too_large"),
    ("reply token not valid", "bad_token"),
    ("not addressed to pbem", "not_for_pbem"),
    ("no From address", "no_from"),
    ("not the seat's player", "wrong_sender"),
    ("confirmation not for this sender", "bad_confirmation"),
    ("confirmation is already waiting", "confirmation_waiting"),
)


def outcome_kind(outcome: str) -> str:
    """'done: 2 line(s)' -> 'done'; 'ignored: robot (…)' -> 'ignored'."""
    return outcome.split(":", 1)[0].strip().lower() or "unknown"


def refusal_reason(outcome: str) -> str | None:
    """The label of an ignored or refused mail's reason; None for any other outcome."""
    if outcome_kind(outcome) not in ("ignored", "refused"):
        return None
    return next((label for phrase, label in REASONS if phrase in outcome), "other")


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
        mails = CounterMetricFamily("pbem_mails_in", "Inbound mail by what became of it",
                                    labels=["outcome"])
        refusals = CounterMetricFamily("pbem_refusals", "Ignored or refused inbound mail, "
                                       "by reason", labels=["reason"])
        kinds: dict[str, int] = {}
        reasons: dict[str, int] = {}
        for outcome, count in (Inbound.select(Inbound.outcome, fn.COUNT(Inbound.id))
                               .group_by(Inbound.outcome).tuples()):
            kinds[outcome_kind(outcome)] = kinds.get(outcome_kind(outcome), 0) + count
            reason = refusal_reason(outcome)
            if reason is not None:
                reasons[reason] = reasons.get(reason, 0) + count
        for kind, count in sorted(kinds.items()):
            mails.add_metric([kind], count)
        for reason, count in sorted(reasons.items()):
            refusals.add_metric([reason], count)
        yield mails
        yield refusals
        # The DMARC check's own reasons (pbem.intake.refusals): why authentication failed.
        # A gauge: the counts cover the last 90 days (older ones are pruned), so they
        # may fall, which a counter must not.
        failed = GaugeMetricFamily("pbem_authentication_refusals", "Mail refused by the "
                                   "DMARC check in the last 90 days, by why",
                                   labels=["reason"])
        for reason, count in sorted(refusal_totals().items()):
            failed.add_metric([reason], count)
        yield failed

        moves = CounterMetricFamily("pbem_moves", "Players' moves played (not the dealer's)",
                                    labels=["game"])
        for engine, count in (Move.select(Game.engine, fn.COUNT(Move.id)).join(Game)
                              .where(Move.seat != CHANCE).group_by(Game.engine).tuples()):
            moves.add_metric([engine], count)
        yield moves

        games = GaugeMetricFamily("pbem_games", "Games by status", labels=["status"])
        for status, count in (Game.select(Game.status, fn.COUNT(Game.id))
                              .group_by(Game.status).tuples()):
            games.add_metric([status], count)
        yield games

        waiting = Outbox.select().where(Outbox.sent.is_null() & Outbox.failed.is_null())
        yield GaugeMetricFamily("pbem_outbox_backlog", "Mails not yet delivered",
                                value=waiting.count())
        yield CounterMetricFamily("pbem_outbox_given_up", "Mails given up on (refused for "
                                  "good, or undelivered for days)",
                                  value=Outbox.select().where(Outbox.failed.is_null(False))
                                  .count())
        yield GaugeMetricFamily("pbem_outbox_retrying", "Undelivered mails that failed at "
                                "least once", value=waiting.where(Outbox.attempts > 0).count())
        oldest = waiting.select(fn.MIN(Outbox.created)).scalar()
        yield GaugeMetricFamily("pbem_outbox_oldest_seconds", "Age of the oldest undelivered "
                                "mail (0: none waits)", value=seconds_since(now, oldest) or 0)

        lag = GaugeMetricFamily("pbem_scheduler_lag_seconds", "How long the oldest due, "
                                "unclaimed work has waited for the scheduler (0: on time)",
                                labels=["job"])
        free = Clock.claimed_until.is_null() | (Clock.claimed_until < now)
        due = Clock.select(fn.MIN(Clock.due)).where((Clock.due <= now) & free).scalar()
        lag.add_metric(["deadlines"], seconds_since(now, due) or 0)
        free = Outbox.claimed_until.is_null() | (Outbox.claimed_until < now)
        due = (Outbox.select(fn.MIN(Outbox.next_attempt))
               .where(Outbox.sent.is_null() & Outbox.failed.is_null()
                      & (Outbox.next_attempt <= now) & free).scalar())
        lag.add_metric(["outbox"], seconds_since(now, due) or 0)
        yield lag

        last_in = seconds_since(now, Inbound.select(fn.MAX(Inbound.received)).scalar())
        if last_in is not None:
            yield GaugeMetricFamily("pbem_last_inbound_seconds", "Seconds since the last "
                                    "mail came in", value=last_in)


REGISTRY = CollectorRegistry(auto_describe=False)
REGISTRY.register(StoreCollector())


@metrics.route("/metrics")
def scrape():
    return Response(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST,
                    headers={"Cache-Control": "no-store"})
