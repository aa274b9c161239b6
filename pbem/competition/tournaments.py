"""A tournament in words: what it is (`describe`) and the subject of its mails. The
commands that create, answer and withdraw from tournaments are pbem.commands.tournaments;
the rounds are played by pbem.competition.rounds.
"""

from __future__ import annotations

from pbem.engines import get_engine
from pbem.store.competition_models import Tournament


def describe(tournament: Tournament) -> str:
    engine = get_engine(tournament.engine)
    kind = ("double round-robin" if tournament.double else "round-robin") \
        if tournament.kind == "round-robin" else f"Swiss, {tournament.rounds} rounds"
    parts = [engine.title, kind] + [f"tables of {tournament.table}"] * (tournament.table > 2)
    parts += [f"{k}={v}" for k, v in tournament.options.items()]
    if tournament.starts:
        parts.append(f"from {tournament.starts:%Y-%m-%d}")
    return ", ".join(parts)


def subject(tournament: Tournament) -> str:
    return f"[pbem] Tournament #{tournament.id}: {get_engine(tournament.engine).title}"
