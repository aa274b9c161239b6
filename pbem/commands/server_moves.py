"""The moves the server makes itself — a timeout's (pbem.timekeeping.deadlines) and a
bot's (pbem.bot_turns) — with the players' lines they free.

A Gem Forge player may send lines that must wait for the others (RULINGS G41: held
commands), and an Onyx player may answer moves in advance (`if E5 F6`); when a timeout
or a bot's move gives the game back to them, their lines run.
Held lines are the commands' own, so the scheduler reaches those jobs through here: the
jobs know the clock and the bots, this module hands them the commands' `after_moves`,
and nothing below the commands runs a player's lines by itself.
"""

from __future__ import annotations

import datetime as dt

from pbem import bot_turns
from pbem.bot_search import Searcher
from pbem.commands.lines import after_moves
from pbem.config import Config
from pbem.timekeeping import deadlines


def run_due(config: Config, now: dt.datetime | None = None, limit: int = 200,
            searcher: Searcher | None = None) -> int:
    """Remind and time out whoever is due (pbem.timekeeping.deadlines.run_due); a bot
    that plays for a player under `timeout=bot` thinks in `searcher` where one is given."""
    return deadlines.run_due(config, now, limit, resume=after_moves, searcher=searcher)


def move_bots(config: Config, now: dt.datetime | None = None,
              searcher: Searcher | None = None) -> int:
    """Play every bot move due now (pbem.bot_turns.move_bots)."""
    return bot_turns.move_bots(config, now, resume=after_moves, searcher=searcher)
