"""Vacations: `vacation 7d` stops the clocks of all a player's games, `vacation off`
starts them again; a yearly allowance keeps it from becoming a way never to move.

A vacation pauses the clock of every wait for the player (not a reaction window's short
deadline: silence there is a pass, and a game should not stand for a week over it). The
opponents of a game that now waits for someone on vacation are told once, when it
starts, and their mails' clock line says so while it lasts. The allowance counts the
days asked for (or used, when ended early) of vacations begun in the calendar year.
"""

from __future__ import annotations

import datetime as dt

from pbem import clock
from pbem.config import Config
from pbem.engines.base import OptionError
from pbem.play import Table
from pbem.policy import conversation
from pbem.store import Player, transaction
from pbem.store.models import Vacation
from pbem.bookkeeping import controls, ledger

ALLOWANCE = 30 * 86400  # seconds a year
OFF = ("off", "end", "stop", "over")


class NotPossible(ValueError):
    """A vacation request that cannot be granted; the message is for the player."""


def command(config: Config, player: Player, rest: str,
            now: dt.datetime | None = None) -> list[str]:
    """`vacation 7d`, `vacation off`, or `vacation` alone (how much is left)."""
    now = now or clock.now()
    end_due(config, now)  # one that ran out a moment ago is over, scheduler or not
    rest = rest.strip().lower()
    if rest in OFF:
        return end(config, player, now)
    if not rest:
        return [status(player, now)]
    try:
        seconds = controls.parse_span(rest + "d" if rest.isdigit() else rest)
    except OptionError:
        raise NotPossible(f"`{rest}` is not a length of time: write e.g. `vacation 7d` "
                          f"(days), `vacation 36h`, or `vacation off`.") from None
    if seconds < 3600:
        raise NotPossible("a vacation lasts at least an hour, e.g. `vacation 2d`.")
    return begin(config, player, seconds, now)


def status(player: Player, now: dt.datetime) -> str:
    away = current(player, now)
    left = ALLOWANCE - used(player, now)
    if away is not None:
        return (f"You are on vacation until {controls.when(away.until)}; "
                f"{controls.words(left)} of vacation left for {now.year}.")
    return (f"You are not on vacation; {controls.words(left)} left for {now.year} "
            f"(30 days a year). `vacation 7d` stops the clocks of all your games.")


def begin(config: Config, player: Player, seconds: int, now: dt.datetime) -> list[str]:
    away = current(player, now)
    if away is not None:  # a new length replaces the vacation under way, from now
        away.ended = now
        away.save()
    left = ALLOWANCE - used(player, now)
    if seconds > left:
        if away is not None:  # refused: the vacation under way goes on as it was
            away.ended = None
            away.save()
        raise NotPossible(f"you asked for {controls.words(seconds)} of vacation, but only "
                          f"{controls.words(left)} of your 30 days for {now.year} are left"
                          + (f"; write `vacation {controls.span_text(left)}` or less."
                             if left >= 3600 else "."))
    until = now + dt.timedelta(seconds=seconds)
    Vacation.create(player=player, start=now, until=until)
    if away is None:  # (a vacation under way has paused them already)
        for seat in ledger.running_seats(player.id):
            table = Table.load(seat.game_id)  # the game's lock: a move may be settling
            if ledger.pause(seat.game_id, seat.number, now):
                tell_opponents(config, table, seat.number, until)
    return [f"You are on vacation until {controls.when(until)}: the clocks of your games "
            f"stand still meanwhile. {controls.words(left - seconds)} of vacation left for "
            f"{now.year}. `vacation off` ends it early."]


def tell_opponents(config: Config, table: Table, seat: int, until: dt.datetime) -> None:
    """Once, at the start: the others whom the engine lets know that the game waits for
    this seat (never a reaction window's, RULINGS G39)."""
    name = table.names[seat]
    for other in table.seats:
        shown = table.engine.shown_to_act(table.state, other.number) or frozenset()
        if other.number != seat and seat in shown:
            conversation.tell(config, table, other.number, [
                f"{name} is on vacation until {controls.when(until)}: game "
                f"#{table.game.id} waits for them, and their clock is paused."])


def end(config: Config, player: Player, now: dt.datetime) -> list[str]:
    away = current(player, now)
    if away is None:
        return ["You were not on vacation; your clocks are running as usual."]
    away.ended = now
    away.save()
    resume_all(player.id, now)
    return [f"Welcome back: your vacation is over and the clocks of your games run again. "
            f"{controls.words(ALLOWANCE - used(player, now))} of vacation left for "
            f"{now.year}."]


def end_due(config: Config, now: dt.datetime) -> int:
    """The scheduler's part: vacations whose time is up end, and their clocks run again
    from the moment they ended. Each is claimed by setting `ended` where it is unset."""
    ended = 0
    due = Vacation.select(Vacation.id, Vacation.player, Vacation.until).where(
        Vacation.ended.is_null() & (Vacation.until <= now))
    for away in list(due):
        with transaction():
            claimed = (Vacation.update(ended=away.until)
                       .where((Vacation.id == away.id) & Vacation.ended.is_null()).execute())
            if claimed == 1:
                resume_all(away.player_id, away.until)
                ended += 1
    return ended


def resume_all(player_id: int, at: dt.datetime) -> None:
    for seat in ledger.running_seats(player_id):
        Table.load(seat.game_id)  # the game's lock, as for every change of its clocks
        ledger.resume(seat.game_id, seat.number, at)


def current(player: Player, now: dt.datetime) -> Vacation | None:
    return (Vacation.select().where((Vacation.player == player) & Vacation.ended.is_null()
                                    & (Vacation.start <= now) & (Vacation.until > now))
            .order_by(Vacation.id.desc()).first())


def used(player: Player, now: dt.datetime) -> int:
    """Seconds of vacation begun this calendar year: as asked, or as used if ended."""
    year = dt.datetime(now.year, 1, 1)
    spent = 0
    this_year = Vacation.select().where((Vacation.player == player) & (Vacation.start >= year))
    for away in this_year:
        spent += int(((away.ended or away.until) - away.start).total_seconds())
    return spent
