"""Open challenges (seeks) as the server keeps them: what one is in words, the open
ones with their writers' ratings, and their expiry (a scheduler job). The commands that
post, list, join and withdraw them are pbem.commands.seeks.

A seek limited to a rating range (openskill's scale, pbem.competition.ratings: a
newcomer is 25) takes joiners whose rating in that game lies within it, a newcomer
counting as 25.
"""

from __future__ import annotations

from pbem import clock
from pbem.competition.ratings import Rating
from pbem.engines import get_engine
from pbem.play import display_name
from pbem.policy import letters
from pbem.store import Player
from pbem.store.competition_models import Rating as RatingRow
from pbem.store.competition_models import Seek


def rating_of(player_id: int, engine: str) -> Rating:
    row = RatingRow.get_or_none((RatingRow.player == player_id) & (RatingRow.engine == engine))
    return Rating(row.mu, row.sigma, row.games) if row else Rating()


def describe(row: Seek) -> str:
    engine = get_engine(row.engine)
    parts = [engine.title] + [f"{k}={v}" for k, v in row.options.items()]
    if row.low is not None or row.high is not None:
        parts.append(f"for ratings {bound(row.low)}-{bound(row.high)}")
    return ", ".join(parts)


def bound(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def open_seeks(engine: str | None = None) -> list[tuple[Seek, str, Rating]]:
    """The open seeks, oldest first, each with its writer's display name and rating."""
    rows = (Seek.select(Seek, Player).join(Player)
            .where((Seek.status == "open") & (Seek.expires > clock.now())).order_by(Seek.id))
    if engine is not None:
        rows = rows.where(Seek.engine == engine)
    return [(row, display_name(row.player.name), rating_of(row.player_id, row.engine))
            for row in rows]


def expire(config) -> int:
    """Open seeks whose time is up: expired, and their writers told; returns how many."""
    due = list(Seek.select(Seek, Player).join(Player)
               .where((Seek.status == "open") & (Seek.expires <= clock.now())))
    for row in due:
        if Seek.update(status="expired").where((Seek.id == row.id)
                                               & (Seek.status == "open")).execute():
            letters.seek_expired(config, row, describe(row))
    return len(due)
