"""Each seat's clock, kept as the game moves: whom the game waits for, since when, and
how much time they have left.

`settle(table)` runs inside every write of a game (`Table._save`, `_finish`, `cancel`).
It compares whom the engine now waits for with the clock rows of the game's seats and
touches only the rows whose waiting changed, and those of seats whose decision in this
write ended their wait while the game waits for them again (the last secret choice of a
6 nimmt! round: the next round waits for everyone), so a move costs the same at ply 300
as at ply 3. A turn of several decisions by one seat (Onix's parts, Gem Forge's two
actions) is one wait, as it is when they come in separate mails. A running clock is
`bank` seconds as of `settled`; stopping it (the seat moved, or went on vacation)
subtracts the time used, and a bank never grows past `LONGEST`. `due` is the next
moment the scheduler must look at the row: the half-time reminder, the last reminder,
or the deadline.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from peewee import JOIN, SQL

from pbem import clock
from pbem.engines.base import CHANCE
from pbem.store.models import Clock, Game, Seat, TimeControl, Vacation
from pbem.store.prepared import Prepared, save_changed
from pbem.bookkeeping import controls
from pbem.bookkeeping.controls import LONGEST, WINDOW, Control

DAY = 86400
#: A move the server played for a player whose time ran out: its source in the move log,
#: and its comment in the record. A hidden one (a secret choice, a window's pass) gets the
#: comment only in the record (`Table.record_game`): that it was automatic would tell the
#: others something (the lowest card in a hand; whom a window asked, RULINGS G39).
AUTOMATIC, AUTOMATIC_NOTE = "timeout", "automatic: time ran out"


@dataclass(frozen=True)
class Waiting:
    """A seat the game waits for: since when, until when (None: no limit, or paused)."""
    seat: int
    since: dt.datetime
    deadline: dt.datetime | None
    window: bool  # an answer in a reaction window (whom it asks is secret, RULINGS G39)
    paused: bool  # the player is on vacation


def waiting_on(game_id: int) -> list[Waiting]:
    """The seats game `game_id` waits for, in seat order, with since when and until when.

    For reminders and digests: a window's seats are private to each of them (G39), so a
    caller tells a seat only about its own wait when `window` is set.
    """
    rows = (Clock.select().where((Clock.game == game_id) & Clock.waiting)
            .order_by(Clock.seat))
    return [Waiting(row.seat, row.since, deadline(row), row.window,
                    row.settled is None and row.bank > 0 and not row.window)
            for row in rows]


def deadline(row: Clock) -> dt.datetime | None:
    if not row.waiting or row.settled is None:
        return None
    return row.settled + dt.timedelta(seconds=row.bank)


def remaining(row: Clock, now: dt.datetime) -> float:
    """Seconds left on the seat's clock at `now`."""
    if row.settled is None:
        return row.bank
    return row.bank - (now - row.settled).total_seconds()


def last_call(row: Clock) -> float:
    """Seconds left when the second reminder goes: a tenth of the wait, at most a day."""
    return min(row.allotted / 10, DAY)


def next_due(row: Clock) -> dt.datetime | None:
    """When the scheduler must next look: the next reminder not yet sent, or the end."""
    if not row.waiting or row.settled is None:
        return None
    thresholds = [row.allotted / 2, last_call(row), 0]  # seconds left at each event
    left = thresholds[min(row.reminded, 2)]
    return row.settled + dt.timedelta(seconds=row.bank - left)


# -- bookkeeping on every write ------------------------------------------------------

def settle(table, now: dt.datetime | None = None) -> None:
    """Bring the game's clock rows in line with whom the engine waits for now."""
    now = now or clock.now()
    game = table.game
    waiting = (table.to_act - {CHANCE}) if game.status == "running" else frozenset()
    found = _CLOCKS.rows(game.id)
    rows = {row.seat: row for row in found}
    # The control comes with the clocks; a game with no clock row yet reads it alone,
    # when it needs it.
    control = controls.of_row(found[0].control) if found else None
    window = bool(waiting) and table.engine.shown_to_act(table.state, None) is None
    again = renewed(table) & waiting
    table.clocked = len(table.happenings)  # a later save in this write starts from here
    was = {seat: row.window for seat, row in rows.items() if row.waiting}
    table.clocks = (control, rows)
    if not again and was == dict.fromkeys(waiting, window):
        return  # the same seats wait as before (most decisions within a turn)
    if control is None:
        control = controls.of(game.id)
    table.clocks = (control, rows)
    for seat in table.seats:
        number = seat.number
        row = rows.get(number)
        if row is None:
            if number not in waiting:
                continue
            row = rows[number] = Clock(game=game.id, seat=number, bank=control.bank)
        if row.waiting and (number not in waiting or row.window != window
                            or number in again):
            stop(row, control, now)
        if number in waiting and not row.waiting:
            paused = control.limited and not window and on_vacation(seat.player_id, now)
            begin(row, control, now, window, paused)
        if row.id is None:
            row.save()
        else:  # only what changed: a scheduler's claim is not ours to reset
            save_changed(row)


def renewed(table) -> set[int]:
    """The seats whose wait ended with one of their decisions since the last settle.

    A decision goes on with the same wait when the game next waits (the dealer's moves
    aside) for the seat still and for nobody new: the next part of its turn, or a
    standing preference sent while it is its turn. It ends the wait when the game stops
    waiting for the seat, starts waiting for others too (a new 6 nimmt! round), or when
    it is the last secret choice of a round (it reveals them all): whatever is asked of
    the seat next, say where its card goes, is a new decision. Only this write's
    happenings are read, so the cost does not grow with the game.
    """
    return ended_waits(table.happenings[table.clocked:], table.to_act)


def ended_waits(happenings, waiting_now) -> set[int]:
    """`renewed` for these happenings (pbem.policy.conversation asks it of a whole write: a
    seat whose own decision ended its wait, and whom the game waits for again, has a new
    wait to be told of)."""
    seats: set[int] = set()
    for index, happening in enumerate(happenings):
        seat = happening.seat
        if seat == CHANCE or seat in seats:
            continue
        following = next((later.waiting_after for later in happenings[index:]
                          if later.waiting_after != {CHANCE}), waiting_now) - {CHANCE}
        closes_round = happening.reveals and happening.seen_by(None) is None
        if (closes_round or seat not in following
                or not following <= happening.waiting_before):
            seats.add(seat)
    return seats


def begin(row: Clock, control: Control, now: dt.datetime, window: bool,
          paused: bool) -> None:
    """The game starts waiting for the seat: a fresh wait, reminders to come."""
    row.waiting, row.window, row.since, row.reminded = True, window, now, 0
    if window:
        row.bank = WINDOW  # a window's deadline is its own; vacations do not stop it
    elif control.per_move:
        row.bank = control.per_move
    elif not control.bank:
        row.bank = 0
    row.allotted = row.bank
    running = window or (control.limited and not paused)
    row.settled = now if running else None
    row.due = next_due(row)


def stop(row: Clock, control: Control, now: dt.datetime) -> None:
    """The game no longer waits for the seat: a bank keeps what is left, plus the
    increment for the move."""
    if control.bank and not row.window:  # capped: a bank past LONGEST would overflow
        row.bank = min(max(0, int(remaining(row, now))) + control.increment, LONGEST)
    row.waiting, row.window, row.settled, row.due, row.reminded = False, False, None, None, 0


def move_on(by: dt.timedelta) -> set[int]:
    """Every running clock of every running game moved on by `by`: the server went back
    to a backup (`pbem restore`), and the time between the backup and the restore was
    nobody's to use. Each seat has the time it had left at the backup, its reminders
    and deadline come that much later, and a claim of the old time is forgotten. A
    paused clock (a vacation) or a game without a limit has nothing to move. The games
    whose clocks moved."""
    rows = (Clock.select().join(Game, on=(Clock.game == Game.id))
            .where(Clock.waiting & Clock.settled.is_null(False) & (Game.status == "running")))
    games = set()
    for row in rows:
        row.settled += by
        row.due = row.due + by if row.due is not None else None
        row.claimed_until = None
        row.save(only=[Clock.settled, Clock.due, Clock.claimed_until])
        games.add(row.game_id)
    return games


# -- vacations -----------------------------------------------------------------------

# A game's clocks, each with the game's time control (`control`, None for a game made
# before clocks existed): one statement, not two, in every move's settle.
_CLOCKS = Prepared(lambda game: Clock.select(Clock, TimeControl).join(
    TimeControl, JOIN.LEFT_OUTER, on=(TimeControl.game == Clock.game), attr="control")
    .where(Clock.game == game))
_ON_VACATION = Prepared(lambda player, now: Vacation.select(SQL("1")).where(
    (Vacation.player == player) & Vacation.ended.is_null() & (Vacation.start <= now)
    & (Vacation.until > now)).limit(1))


def on_vacation(player_id: int, now: dt.datetime) -> bool:
    return _ON_VACATION.scalar(player_id, now) is not None


def pause(game_id: int, seat: int, now: dt.datetime) -> bool:
    """Stop a seat's running clock (not a window's); True if it was running."""
    row = Clock.get_or_none((Clock.game == game_id) & (Clock.seat == seat))
    if row is None or not row.waiting or row.window or row.settled is None:
        return False
    row.bank = max(0, int(remaining(row, now)))
    row.settled, row.due = None, None
    row.save(only=row.dirty_fields)
    return True


def resume(game_id: int, seat: int, now: dt.datetime) -> bool:
    """Start a paused clock again where it stood; True if it was paused."""
    row = Clock.get_or_none((Clock.game == game_id) & (Clock.seat == seat))
    if (row is None or not row.waiting or row.window or row.settled is not None
            or not controls.of(game_id).limited):
        return False
    row.settled = now
    row.due = next_due(row)
    row.save(only=row.dirty_fields)
    return True


def running_seats(player_id: int) -> list[Seat]:
    """The player's seats in running games, with their games (for pausing and resuming)."""
    return list(Seat.select(Seat, Game).join(Game)
                .where((Seat.player == player_id) & (Game.status == "running"))
                .order_by(Game.id))
