"""Games for the archive's tests, made the way the server makes them: started like the
administrator's `pbem new` (pbem.operator.admin.start_game, fixed seeds) and played through the one
write path (pbem.play.Table), so every move row carries its snapshot and visibility.

Players live at @players.test, a domain that appears nowhere else, so a test can look
for any trace of an address on a page.
"""

from __future__ import annotations

import random

from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE
from pbem.play import Table
from pbem.store import transaction

DOMAIN = "players.test"


def address(name: str) -> str:
    return f"{name}@{DOMAIN}"


def start(config, engine_id: str, names: list[str], seed: str = "archive-1",
          **options) -> int:
    return start_game(config, ENGINES[engine_id], {k: str(v) for k, v in options.items()},
                      [address(name) for name in names], seed=seed)


def play(game_id: int, *texts_by_seat: tuple[int, str]) -> None:
    """Play literal moves: (seat, text) pairs, one transaction each."""
    for seat, text in texts_by_seat:
        with transaction():
            Table.load(game_id).play(seat, text)


def play_random(game_id: int, plies: int | None = None, seed: str = "moves") -> int:
    """Random legal decisions until the game has `plies` plies (None: until it ends);
    returns the plies played. The same seed plays the same game."""
    rng = random.Random(seed)
    while True:
        with transaction():
            table = Table.load(game_id)
            waiting = sorted(s for s in table.to_act if s != CHANCE)
            if not waiting or (plies is not None and table.game.plies >= plies):
                return table.game.plies
            seat = rng.choice(waiting)
            decision = table.engine.random_decision(table.state, seat, rng)
            table.play(seat, table.engine.notation(table.state, seat, decision))


def resign(game_id: int, seat: int) -> None:
    with transaction():
        Table.load(game_id).resign(seat)
