"""A game the competition starts at once: a tournament's pairing or a joined seek.

Its players have all agreed already (they accepted the tournament, or one posted the
seek and the other joined it), so there are no invitations: the game is made with its
options (the engine's, `time=`/`timeout=`, `rated=`), started, and its first mails are
queued by the conversation policy, all in the caller's transaction.
"""

from __future__ import annotations

from pbem.bookkeeping.rated import split_rated
from pbem.engines import get_engine
from pbem.play import Table, create_game
from pbem.policy import conversation
from pbem.policy.conversation import Notice
from pbem.store import Game, Player
from pbem.bookkeeping import controls


def start_now(config, engine_id: str, options: dict[str, str], players: list[Player],
              creator: Player, note: str = "") -> Game:
    """The game, running; `note` is told to every player in their first mail."""
    engine = get_engine(engine_id)
    options, is_rated = split_rated(dict(options))
    options, time_options = controls.split_options(options)
    game = create_game(engine, options, players, creator, accepted=True, is_rated=is_rated)
    controls.keep(game, controls.resolve(engine.id, time_options))
    table = Table.load(game.id)
    table.start()
    if note:
        table.notices.append(Notice(lambda seat: note))
    conversation.after_write(config, table)
    return game
