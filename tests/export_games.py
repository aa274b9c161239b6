"""Games in the store for the export tests, played through the server's write path
(`pbem.play.Table`), without mail: the exports read what a game by mail would leave.

The Onyx game is the whole 6×6 game of notation/onyx.md (Black wins at ply 43; ply 31,
C5*, captures C4 and D5).
"""

import random

from pbem.players import player_for
from pbem.engines import ENGINES
from pbem.play import Table, create_game
from pbem.store import Comment, transaction

ADDRESSES = ["alice@example.org", "bob@example.org", "carol@example.org"]

ONYX_6 = ("A1 DE34 BC34 DE12 D4 D5 AB23 E1 A4 A2 D3 F2 E3 BC12 F1 E2 B1 C4 C3 F6 F4 D6 "
          "A6 A3 F5 B3 B5 E4 C1 D2 C5* B4 C4 E5 E6 D1 B2 B6 C2 C6 F3 D5 A5").split()


def new_game(engine_id: str, players: int = 2, options: dict | None = None,
             seed: str = "export-test") -> int:
    """A started game between alice, bob (and carol); its id."""
    with transaction():
        seated = [player_for(address) for address in ADDRESSES[:players]]
        game = create_game(ENGINES[engine_id], options or {}, seated, creator=None,
                           accepted=True, seed=seed)
        Table.load(game.id).start()
    return game.id


def play(game_id: int, *moves: str) -> None:
    """Moves in order, each by the one seat the game waits for."""
    with transaction():
        table = Table.load(game_id)
        for text in moves:
            (seat,) = table.to_act
            table.play(seat, text)


def play_as(game_id: int, seat: int, text: str) -> None:
    """One move by `seat`, for games that wait for several seats at once."""
    with transaction():
        Table.load(game_id).play(seat, text)


def say(game_id: int, seat: int, text: str) -> None:
    """What the `say` command keeps: a comment after the plies played so far."""
    with transaction():
        table = Table.load(game_id)
        Comment.create(game=table.game, ply=table.game.plies, seat=seat, text=text)


def play_randomly(game_id: int, plies: int | None = None, seed: int = 1) -> None:
    """Random legal decisions (the lowest waiting seat first) for `plies` plies, or to
    the end."""
    rng = random.Random(seed)
    with transaction():
        table = Table.load(game_id)
        while table.to_act and (plies is None or plies > 0):
            seat = min(table.to_act)
            decision = table.engine.random_decision(table.state, seat, rng)
            table.play(seat, table.engine.notation(table.state, seat, decision))
            plies = None if plies is None else plies - 1


def onyx_game(plies: int = len(ONYX_6)) -> int:
    """The 6×6 game of notation/onyx.md, played to `plies` plies (all: Black has won)."""
    game_id = new_game("onyx", options={"board": "6", "setup": "open"})
    play(game_id, *ONYX_6[:plies])
    return game_id
