"""A game loaded for an export: read-only, from its snapshot; and its state at any ply.

Exports read what `pbem.play.Table` writes, through the same class (its names, its
`record_game`), but never lock the game: nothing here writes. A refusal is an
`ExportError` carrying the HTTP status it deserves and a sentence for the reader, so the
web answers it as text/plain and the CLI prints it and exits non-zero.
"""

from __future__ import annotations

from pbem.engines import ENGINES
from pbem.export.public import as_public, real_ply
from pbem.play import Table, display_name
from pbem.store import Game, Move, Player, Seat
from pbem.store.prepared import Prepared


class ExportError(Exception):
    """An export that cannot be given: `status` 404 (no such thing), 403 (not public
    yet) or 400 (a bad option); the message says why, for a person."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def load_table(game: int | Game) -> Table:
    """The game (an id or a row), its engine, final state and seats, as the public may
    know it (pbem.export.public); ExportError 404 when there is no such game or it has
    not started (an invitation has no moves)."""
    if not isinstance(game, Game):
        row = Game.get_or_none(Game.id == game)
        if row is None:
            raise ExportError(404, f"There is no game #{game}.")
        game = row
    if game.state is None:
        raise ExportError(404, f"Game #{game.id} has not started: its players are still "
                               f"being invited, so there is nothing to export yet.")
    if game.engine not in ENGINES:  # a game of an engine this version no longer has
        raise ExportError(404, f"Game #{game.id} is of a game this server does not know "
                               f"({game.engine!r}).")
    engine = ENGINES[game.engine]
    game = as_public(game)  # a running game as of its last ply the public may know of
    seats = list(Seat.select(Seat, Player).join(Player).where(Seat.game == game)
                 .order_by(Seat.number))
    for seat in seats:  # names are checked when set; an address never leaves, whatever
        seat.player.name = display_name(seat.player.name)  # (in memory, never saved)
    return Table(game, engine, engine.from_json(game.state), seats)


def is_over(table: Table) -> bool:
    """Whether everything may be published: only a finished game reveals its secrets.
    (A cancelled game of cards never ends, so its hands stay private.)"""
    return table.game.status == "finished"


def hides_information(table: Table) -> bool:
    """Whether the game has secrets now: cards in hands, a seed not yet revealed."""
    return table.engine.dealt and not is_over(table)


def parse_ply(table: Table, text: str | int | None) -> int:
    """A ply number from a URL or the command line: 0 (the start) to the last ply;
    None means the last. ExportError 404 otherwise, naming the plies there are."""
    last = table.game.plies
    if text is None:
        return last
    text = str(text).strip()
    if not (text.isascii() and text.isdigit()) or int(text) > last:
        raise ExportError(404, f"Game #{table.game.id} has no ply {text!r}: plies run from "
                               f"0 (the start) to {last}.")
    return int(text)


def state_at(table: Table, ply: int):
    """The state after the public's ply `ply` (pbem.export.public), from the stored
    snapshot of that ply (no replay)."""
    if ply == table.game.plies:
        return table.state
    if ply == 0:
        return table.engine.start(table.game.options, len(table.seats), table.game.seed)
    return table.engine.from_json(_SNAPSHOT.get(table.game.id, real_ply(table.game, ply)).state)


#: The snapshot alone (the print page reads fifteen), its SQL written once.
_SNAPSHOT = Prepared(lambda game, ply: Move.select(Move.state)
                     .where((Move.game == game) & (Move.ply == ply)).limit(1))
