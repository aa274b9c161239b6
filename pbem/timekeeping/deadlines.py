"""The scheduler's deadline job: remind whoever the game waits for, and act when their
time has run out.

Deadlines live in the clock table (`Clock.due`), so they survive restarts. Each due row
is first claimed with a conditional UPDATE (…WHERE claimed_until IS NULL OR claimed_until
< now, the outbox's pattern), so a second scheduler by accident skips it; then, under the
game's lock (`Table.load`), the row is read again and acted on only if it is still
current: a move that arrived meanwhile has stopped or restarted the clock.

At the end of a wait: a reaction window's silence is a pass; a decision the rulings give
a default (6 nimmt!'s lowest card, Gem Forge's, Onix's part 2) is played; otherwise
`timeout=auto` plays a random legal decision and `timeout=forfeit` ends the game.
`timeout=bot` has the `normal` bot (pbem.bots) play for them, ruled default or not
(a window's silence stays a pass); its search runs before the game is locked (`BotTurn`),
so a bot's seconds of thought never hold a player's move to the same game, and, under
the scheduler, in its searcher's niced process (pbem.bot_search), as every bot's does. Every
move played for a player has the source `timeout` and the record comment
`{NAME: automatic: time ran out}` (a hidden one: only once the record is published).
"""

from __future__ import annotations

import datetime as dt
import logging
import random
from dataclasses import dataclass
from typing import Callable

from pbem import bots, clock
from pbem.config import Config
from pbem.engines.base import MoveError
from pbem.bot_search import Searcher, whole_turn
from pbem.play import Table
from pbem.policy import conversation
from pbem.policy.conversation import Notice
from pbem.policy.report import Report
from pbem.store import Comment, transaction
from pbem.store.models import Clock
from pbem.timekeeping import vacations
from pbem.bookkeeping import controls, ledger

log = logging.getLogger(__name__)
CLAIM = dt.timedelta(minutes=5)  # longer than acting on one game may take
#: What runs a game's held commands after a move (pbem.commands.lines.resume_held):
#: handed in by the layer that owns the commands, which this module must not import.
Resume = Callable[[Config, Table, dict], None]
MAX_STEPS = 20  # decisions played for one seat at one timeout (a whole Gem Forge turn)


def run_due(config: Config, now: dt.datetime | None = None, limit: int = 200,
            resume: Resume | None = None, searcher: Searcher | None = None) -> int:
    """End due vacations, then act on every due clock; returns how many acted. `resume`
    runs the lines a timeout frees (held commands: pbem.commands.server_moves);
    `searcher` thinks for `timeout=bot` (in this thread without one)."""
    now = now or clock.now()
    acted = vacations.end_due(config, now)
    due = (Clock.select(Clock.id).where(Clock.due <= now).order_by(Clock.due, Clock.id)
           .limit(limit))
    for row in list(due):
        if not claim(row.id, now):
            continue  # another scheduler has it
        try:
            turn = bot_turn(row.id, now, searcher)  # outside the transaction: a search takes seconds
            with transaction():
                acted += act(config, row.id, now, turn, resume)
        except Exception:  # the claim runs out, and a later run tries again
            log.exception("acting on clock %s failed", row.id)
    return acted


def claim(clock_id: int, now: dt.datetime) -> bool:
    """Atomically mark a due clock as ours for a while; False if someone else has it."""
    with transaction():
        claimed = (Clock.update(claimed_until=now + CLAIM)
                   .where((Clock.id == clock_id) & (Clock.due <= now)
                          & (Clock.claimed_until.is_null() | (Clock.claimed_until < now)))
                   .execute())
    return claimed == 1


@dataclass
class BotTurn:
    """What the bot would play for a seat whose time ran out, thought out on the game as
    it was after `plies` plies, before the game was locked; used only if it still is."""
    plies: int
    texts: list[str]


def bot_turn(clock_id: int, now: dt.datetime,
             searcher: Searcher | None = None) -> BotTurn | None:
    """The bot's whole turn for a clock that has run out in a `timeout=bot` game (None
    for any other clock). Read without a lock and played on the engine alone, the
    dealer's moves drawn as the table would draw them, so the texts are the table's."""
    row = Clock.get_or_none(Clock.id == clock_id)
    if (row is None or row.window or not row.waiting or row.due is None or row.due > now
            or ledger.remaining(row, now) > 0 or controls.of(row.game_id).timeout != "bot"):
        return None
    table = Table.load(row.game_id, lock=False)
    if table.game.status != "running":
        return None
    game, engine = table.game, table.engine
    if searcher is not None:
        texts = searcher.turn(engine.id, engine.to_json(table.state), row.seat,
                              bots.DEFAULT_LEVEL, game.seed, game.plies + 1,
                              game.generator, MAX_STEPS)
    else:
        texts = whole_turn(engine, table.state, row.seat, bots.DEFAULT_LEVEL, game.seed,
                           game.plies + 1, game.generator, MAX_STEPS)
    return BotTurn(game.plies, texts)


def act(config: Config, clock_id: int, now: dt.datetime, turn: BotTurn | None = None,
        resume: Resume | None = None) -> int:
    """Remind or time out, if the clock is still due once the game is locked; 1 if acted."""
    row = Clock.get_or_none(Clock.id == clock_id)
    if row is None:
        return 0
    table = Table.load(row.game_id)
    row = Clock.get_or_none(Clock.id == clock_id)  # read again under the game's lock
    try:
        if row is None or not (row.waiting and row.due is not None and row.due <= now):
            return 0  # the player moved meanwhile
        if row.seat not in table.to_act:
            ledger.settle(table, now)  # a clock out of step with the game: mend it
            return 0
        if ledger.remaining(row, now) <= 0:
            time_out(config, table, row, now, turn, resume)
        else:
            remind(config, table, row, now)
        return 1
    finally:
        Clock.update(claimed_until=None).where(Clock.id == clock_id).execute()


# -- reminders -------------------------------------------------------------------------

def remind(config: Config, table: Table, row: Clock, now: dt.datetime) -> None:
    """The seat's own game mail (its view, its prompt) with how much time is left."""
    left = ledger.remaining(row, now)
    row.reminded = 2 if left <= ledger.last_call(row) else 1
    row.due = ledger.next_due(row)
    row.save(only=[Clock.reminded, Clock.due])
    conversation.tell(config, table, row.seat, [reminder(table, row, now)])


def reminder(table: Table, row: Clock, now: dt.datetime) -> str:
    left = controls.words(ledger.remaining(row, now))
    until = controls.when(ledger.deadline(row))
    if row.window:
        return (f"Reminder: game #{table.game.id} waits for your answer ({left} left, until "
                f"{until}). If none comes, it counts as a pass.")
    half = "half your time is gone" if row.reminded == 1 else "your time is nearly up"
    return (f"Reminder: game #{table.game.id} waits for you, and {half}: {left} left, until "
            f"{until}. Then {consequence(table, row)}.")


def consequence(table: Table, row: Clock) -> str:
    if controls.of(table.game.id).timeout == "bot":
        return "a bot plays for you"
    default = table.engine.default_decision(table.state, row.seat)
    if default is not None:
        text = table.engine.notation(table.state, row.seat, default)
        return f"the server plays `{text}` for you"
    if controls.of(table.game.id).timeout == "auto":
        return "the server plays a random legal move for you"
    return "you lose the game (forfeit)"


# -- timeouts --------------------------------------------------------------------------

def time_out(config: Config, table: Table, row: Clock, now: dt.datetime,
             turn: BotTurn | None = None, resume: Resume | None = None) -> None:
    """Play for the seat what the rulings, `timeout=auto` or the bot's `turn` say, or
    end the game."""
    seat, game = row.seat, table.game
    played = play_for(table, row, turn)
    name = table.names[seat]
    if still_waiting(table, row):  # no default, and timeout=forfeit: everyone is told
        table.resign(seat, why=f"{name} ran out of time")
        announce(table, f"{name}'s time ran out in game #{game.id}: the game is over.")
        conversation.after_write(config, table)
        return
    if table.game.status != "running":  # the move played for them ended the game
        announce(table, f"{name}'s time ran out in game #{game.id}; the server played for "
                        f"them: {', '.join(played)}.")
        conversation.after_write(config, table)
        return
    if row.window:
        note = "Your time to answer ran out: that counts as a pass."
    else:
        note = f"Your time ran out, so the server played for you: {', '.join(played)}."
    reports = {seat: Report(notes=[note])}  # to them alone
    if resume is not None:
        resume(config, table, reports)
    conversation.after_write(config, table, reports)


def announce(table: Table, text: str) -> None:
    table.notices.append(Notice(lambda viewer: text))


def play_for(table: Table, row: Clock, turn: BotTurn | None = None) -> list[str]:
    """The decisions played for the seat, until the game no longer waits for it in this
    wait (a turn of several decisions is played out). A bot's `turn` thought out on this
    very position is played as it is; had the game moved on, the bot thinks again here."""
    timeout = controls.of(table.game.id).timeout
    auto = row.window or timeout == "auto"
    thought = list(turn.texts) if turn is not None and turn.plies == table.game.plies else []
    played = []
    for _ in range(MAX_STEPS):
        if not still_waiting(table, row):
            break
        state, seat = table.state, row.seat
        decision = None if row.window else _thought(table, seat, thought)
        if decision is None:
            if timeout == "bot" and not row.window:
                decision = bots.decide(table.engine, state, seat, bots.DEFAULT_LEVEL,
                                       seed=table.game.seed, ply=table.next_ply)
            else:
                decision = table.engine.default_decision(state, seat)
        if decision is None and auto:
            rng = random.Random(f"{table.game.seed}:{table.game.plies}:{seat}")
            decision = table.engine.random_decision(state, seat, rng)
        if decision is None:
            break
        text = table.engine.notation(state, seat, decision)
        public = table.engine.visible_notation(state, seat, decision, None) is not None
        ply = table.next_ply
        table.play(seat, text, source=ledger.AUTOMATIC)
        if public:  # a hidden one is marked in the record only (Table.record_game)
            Comment.create(game=table.game, ply=ply, seat=seat, text=ledger.AUTOMATIC_NOTE)
        played.append(text)
    return played


def _thought(table: Table, seat: int, thought: list[str]):
    """The next decision the bot thought out before the lock, or None: none is left, or
    it does not read on this position (then the rest goes too, and the bot thinks here)."""
    if thought:
        try:
            return table.engine.parse(table.state, seat, thought.pop(0), names=table.names)
        except MoveError:
            thought.clear()
    return None


def still_waiting(table: Table, row: Clock) -> bool:
    """Whether the game still waits for the seat in the same wait that ran out."""
    if table.game.status != "running" or row.seat not in table.to_act:
        return False
    fresh = Clock.get_or_none(Clock.id == row.id)
    return fresh is not None and fresh.waiting and fresh.since == row.since
