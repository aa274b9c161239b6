"""What the administrator does from the command line: start a game at once, take one
mail from an MTA pipe, flush the outbox. The CLI wires these to `pbem new`, `pbem ingest`
and `pbem deliver`; each opens the store from the configuration and closes nothing else.
"""

from __future__ import annotations

from pbem import conversation
from pbem.bots import is_bot
from pbem.commands import player_for
from pbem.config import Config
from pbem.engines.base import Engine, OptionError
from pbem.mail.outbox import deliver_due
from pbem.mail.pipeline import receive
from pbem.play import Table, create_game
from pbem.store import transaction
from pbem.timekeeping import controls


def start_game(config: Config, engine: Engine, options: dict[str, str],
               emails: list[str], seed: str | None = None) -> int:
    """A game between these addresses in this order, started now, everyone mailed.
    The dealer's seed is fresh and secret unless one is given (tests replay deals)."""
    if not engine.min_players <= len(emails) <= engine.max_players:
        raise OptionError(f"{engine.title} is for {engine.min_players} to "
                          f"{engine.max_players} players, not {len(emails)}.")
    people = [e.lower() for e in emails if not is_bot(e)]  # bots may sit more than once
    if len(set(people)) != len(people):
        raise OptionError("each player needs an address of their own.")
    options, time_options = controls.split_options(options)  # time=, timeout=: the server's
    control = controls.resolve(engine.id, time_options)
    with transaction():
        players = [player_for(email) for email in emails]
        for player in players:  # the administrator vouches for these addresses
            player.confirmed = True
            player.save()
        game = create_game(engine, options, players, creator=None, accepted=True, seed=seed)
        controls.keep(game, control)
        table = Table.load(game.id)
        table.start()
        conversation.after_write(config, table)
    return game.id


def ingest(config: Config, raw: bytes) -> str:
    """One message from an MTA pipe; mail it caused goes out at once when it can."""
    outcome = receive(config, raw)
    try:
        deliver_due(config)
    except Exception:  # the outbox keeps it; `pbem serve`'s scheduler retries
        pass
    return outcome
