"""Bots at the table: their player rows, and the scheduler job that moves for them.

A bot is a player whose address is `bot:easy|normal|hard` (pbem.bots): one row per
level, confirmed, named "Bot (hard)", never mailed (pbem.policy.conversation skips it) and
never invited. The job `move_bots` finds running games that wait for a bot seat and
plays the bot's decision through `pbem.play.Table`, like a player's mail:

1. claim the seat with a conditional UPDATE (…WHERE claimed_until IS NULL OR < now, the
   deadlines' pattern), so with several schedulers each bot move is searched once; the
   claim names its process (`claimed_by`, pbem.store.claims), and each run first takes
   over the claims of a process on this machine that died (kill -9 mid-search), as the
   outbox's deliverer does, so the bot moves at once rather than after the claim's time;
2. search outside any transaction, on the snapshot read (the search takes up to ~2 s of
   CPU and must never hold the database's write lock, nor anyone's inbound mail);
3. in one transaction, load the game locked, and play only if it still stands where the
   search began (same ply, the seat still waited for); then `conversation.after_write`,
   so the humans get their mail.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Callable

from peewee import fn

from pbem import bots, clock
from pbem.bot_search import Searcher
from pbem.config import Config
from pbem.play import Table
from pbem.policy import conversation
from pbem.store import Game, Player, Seat, transaction
from pbem.store.claims import claimer, gone
from pbem.store.models import Clock

log = logging.getLogger(__name__)
CLAIM = dt.timedelta(minutes=2)  # far longer than a hard decision takes
#: What runs a game's held commands after a move (pbem.commands.lines.resume_held):
#: handed in by the layer that owns the commands, which this module must not import.
Resume = Callable[[Config, Table, dict], None]
#: Where a bot thinks: a pbem.bot_search.Searcher's process at the lowest priority (the
#: scheduler's), or None for this thread.
SOURCE = "bot"  # a move's source in the log, as `cli` or a Message-ID
MAX_MOVES = 200  # per run: bots playing each other go on at the next run


def level_of(seat: Seat) -> str | None:
    """The level of the bot in `seat`, None for a person."""
    return bots.bot_level(seat.player.email) if bots.is_bot(seat.player.email) else None


def waiting_bots(table: Table) -> list[int]:
    """The bot seats this game waits for, lowest first."""
    return [seat.number for seat in table.seats
            if seat.number in table.to_act and level_of(seat) is not None]


def candidate_games(limit: int = 500, now: dt.datetime | None = None) -> list[int]:
    """Running games that wait for a bot seat nobody has claimed, the longest waiting
    first: read from the clock rows (one per waiting seat, kept by every write), so the
    job never loads a game whose turn is a person's, and a store of many bot games
    cannot starve the newest."""
    now = now or clock.now()
    rows = (Seat.select(Seat.game, fn.MIN(Clock.since).alias("since"))
            .join(Player).switch(Seat)
            .join(Clock, on=((Clock.game == Seat.game) & (Clock.seat == Seat.number)
                             & Clock.waiting))
            .switch(Seat).join(Game)
            .where(Player.email.startswith(bots.PREFIX + ":") & (Game.status == "running")
                   & (Seat.claimed_until.is_null() | (Seat.claimed_until < now)))
            .group_by(Seat.game).order_by(fn.MIN(Clock.since), Seat.game).limit(limit))
    return [row.game_id for row in rows]


def bot_games(player: Player | None = None) -> int:
    """Games with a bot seat that are running or still inviting (so soon running): all of
    them, or those `player` sits in. What the limits on bot load count (pbem.commands.new)."""
    with_bots = (Seat.select(Seat.game).join(Player)
                 .where(Player.email.startswith(bots.PREFIX + ":")))
    games = Game.select().where(Game.status.in_(("running", "inviting"))
                                & Game.id.in_(with_bots))
    if player is not None:
        games = games.where(Game.id.in_(Seat.select(Seat.game).where(Seat.player == player)))
    return games.count()


def move_bots(config: Config, now: dt.datetime | None = None, resume: Resume | None = None,
              searcher: Searcher | None = None) -> int:
    """Play every bot move due now; returns how many were played. `resume` runs the
    lines the bot's move frees (held commands: pbem.commands.server_moves); `searcher`
    thinks in its own low-priority process (None: in this thread)."""
    resume_after_crash(now or clock.now())
    played = 0
    for game_id in candidate_games(now=now):
        while played < MAX_MOVES:
            moved = move_once(config, game_id, now, resume, searcher)
            if not moved:
                break
            played += moved
    return played


def move_once(config: Config, game_id: int, now: dt.datetime | None = None,
              resume: Resume | None = None, searcher: Searcher | None = None) -> int:
    """The next waiting bot move of one game, if any and if no one else has it: 1 or 0."""
    table = Table.load(game_id, lock=False)
    waiting = waiting_bots(table)
    if not waiting:
        return 0
    seat = table.seats[waiting[0]]
    now = now or clock.now()
    if not claim(seat.id, now):
        return 0  # another scheduler is on it
    try:
        text = decide_text(table, seat.number, searcher=searcher)
        with transaction():
            return play_if_current(config, game_id, seat.number, table.game.plies, text,
                                   resume)
    except Exception:  # the claim is released; a later run tries again
        log.exception("the bot of game %s seat %s could not move", game_id, seat.number)
        return 0
    finally:
        Seat.update(claimed_until=None, claimed_by=None).where(Seat.id == seat.id).execute()


def resume_after_crash(now: dt.datetime) -> int:
    """Free the bot seats claimed by a process on this machine that no longer runs;
    returns how many. Read from the index of claimed seats only (0032)."""
    held = (Seat.select(Seat.claimed_by).distinct()
            .where(Seat.claimed_until.is_null(False) & (Seat.claimed_until >= now)))
    dead = [row.claimed_by for row in held if row.claimed_by and gone(row.claimed_by)]
    if not dead:
        return 0
    with transaction():
        freed = (Seat.update(claimed_until=None, claimed_by=None)
                 .where(Seat.claimed_by.in_(dead) & Seat.claimed_until.is_null(False))
                 .execute())
    log.warning("took over %d bot moves claimed by %s, which no longer runs",
                freed, ", ".join(dead))
    return freed


def claim(seat_id: int, now: dt.datetime) -> bool:
    """Atomically mark a bot seat as ours for a while; False if someone else has it."""
    with transaction():
        claimed = (Seat.update(claimed_until=now + CLAIM, claimed_by=claimer())
                   .where((Seat.id == seat_id)
                          & (Seat.claimed_until.is_null() | (Seat.claimed_until < now)))
                   .execute())
    return claimed == 1


def decide_text(table: Table, seat: int, level: str | None = None,
                searcher: Searcher | None = None) -> str:
    """The canonical text of the bot's decision for `seat` in the table's state: its
    randomness from the game's seed and the ply, so the move can be reproduced."""
    level = level or level_of(table.seats[seat]) or bots.DEFAULT_LEVEL
    if searcher is not None:
        return searcher.decide(table.engine.id, table.engine.to_json(table.state), seat,
                               level, table.game.seed, table.next_ply)
    decision = bots.decide(table.engine, table.state, seat, level, seed=table.game.seed,
                           ply=table.next_ply)
    return table.engine.notation(table.state, seat, decision)


def play_if_current(config: Config, game_id: int, seat: int, plies: int, text: str,
                    resume: Resume | None = None) -> int:
    """Play `text` for the bot if the game is still where the search began."""
    table = Table.load(game_id)
    if table.game.plies != plies or seat not in table.to_act:
        return 0  # a move came in meanwhile: the next run searches again
    table.play(seat, text, source=SOURCE)
    reports: dict = {}
    if resume is not None:  # a human's commands held for the bot's answer
        resume(config, table, reports)
    conversation.after_write(config, table, reports)
    return 1
