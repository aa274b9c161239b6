"""The scheduler's competition job: start the tournament rounds that are due and expire
the open challenges whose time is up; returns whether it did anything (mail to deliver)."""

from __future__ import annotations


def run_competition(config) -> bool:
    from pbem.competition import rounds, seeks
    from pbem.store import transaction
    with transaction():
        expired = seeks.expire(config)
    return bool(rounds.advance(config) + expired)
