"""The clock in words: the line under the status in every game mail, and the summary
the game's web page shows.

Each is written for one reader from what that reader may know: their own time left,
and the time of the seats the engine lets them know the game waits for
(`shown_to_act`). Whom a reaction window asks stays unsaid (RULINGS G39): only a seat
that is asked reads its own answer's deadline. Until when a player is on vacation is for
the players of their games; the public page says only that the clock is paused.
"""

from __future__ import annotations

import datetime as dt

from pbem import clock
from pbem.engines.base import CHANCE
from pbem.play import Table
from pbem.store.models import Clock, Game, Vacation
from pbem.bookkeeping import controls
from pbem.bookkeeping.ledger import deadline, remaining


def clock_line(table, viewer: int | None, now: dt.datetime | None = None) -> str:
    """'Time: 3 days per move; … You have 2 days 4 hours left (until Thu 3 Dec …).'"""
    game = table.game
    if game.status not in ("running", "inviting"):
        return ""
    now = now or clock.now()
    control, rows = table.clocks or (None, None)  # as this write's settle left them
    control = control or controls.of(game.id)
    parts = [f"Time: {control.describe()}."]
    if game.status != "running":
        return parts[0]
    if rows is None:
        rows = {row.seat: row for row in Clock.select().where(Clock.game == game.id)}
    rows = {seat: row for seat, row in rows.items() if row.waiting}
    own = rows.get(viewer) if viewer is not None else None
    if own is not None and own.window:
        left = controls.words(remaining(own, now))
        parts.append(f"Answer by {controls.when(deadline(own))} ({left} left); silence "
                     f"counts as a pass.")
    elif own is not None:
        parts.append(_time_left(own, now))
    shown = table.engine.shown_to_act(table.state, viewer) or frozenset()
    for seat in sorted(shown - {viewer, CHANCE}):
        row = rows.get(seat)
        if row is not None and not row.window:
            player_id = table.seats[seat].player_id if viewer is not None else None
            parts.append(_time_left(row, now, table.names[seat], player_id))
    return " ".join(part for part in parts if part)


def _time_left(row: Clock, now: dt.datetime, name: str | None = None,
               player_id: int | None = None) -> str:
    """One seat's clock: the reader's own (`name` None) or another's, by name; the end
    of their vacation only with their `player_id` (for a player of the game)."""
    if row.settled is None and row.bank:  # stopped while waited for: a vacation
        if name is None:
            return (f"You are on vacation: your clock is paused with "
                    f"{controls.words(row.bank)} left.")
        away = _vacation_until(player_id, now) if player_id is not None else None
        until = f" until {controls.when(away)}" if away else ""
        return (f"{name} is on vacation{until}: the game waits for them, and their clock "
                f"is paused with {controls.words(row.bank)} left.")
    if row.settled is None:
        return ""  # no time limit
    who = "You have" if name is None else f"{name} has"
    return (f"{who} {controls.words(remaining(row, now))} left "
            f"(until {controls.when(deadline(row))}).")


def _vacation_until(player_id: int, now: dt.datetime) -> dt.datetime | None:
    away = (Vacation.select().where((Vacation.player == player_id) & Vacation.ended.is_null()
                                    & (Vacation.until > now)).order_by(Vacation.until.desc())
            .first())
    return away.until if away else None


def clock_summary(game_or_table, now: dt.datetime | None = None) -> str:
    """The public clock of a game (a Game row, a Table or a game id), for its web page."""
    if isinstance(game_or_table, Table):
        table = game_or_table
    else:
        game_id = game_or_table.id if isinstance(game_or_table, Game) else int(game_or_table)
        table = Table.load(game_id, lock=False)
    if table.game.status in ("finished", "cancelled"):
        return f"Time: {controls.of(table.game.id).describe()}."
    return clock_line(table, None, now)
