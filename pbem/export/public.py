"""A running game as the public may know it: as of its last ply the others may learn of.

A decision the others may not even learn was made (engine.anonymous: a reaction window's
answer, a standing answer; RULINGS G38, G39) is a row of the move log like any other: the
record needs it. But while the game runs, nothing the public can fetch may change with it,
or an asked seat could tell that another seat was asked and passed: not the ply count,
not the move list, not the position, not the time of the last change. So every public
surface (the game page, the printable page and `pbem export`, the SVGs, the index and
player pages) draws a running game from `as_public`: its row with `plies`, `state` and
`updated` as they were after its last ply that is not anonymous. Those later plies show once a ply the public
may see follows them (then only as "Someone chose in secret"), and all of it once the
game is over. Rows are changed in memory only, never saved.
"""

from __future__ import annotations

from peewee import fn

from pbem.engines import ENGINES
from pbem.engines.base import Engine
from pbem.store import Game, Move


def hides_plies(engine_id: str, status: str) -> bool:
    """Whether the public may be behind the move log: only while the game is not over
    (a cancelled game keeps its secrets too), and only in a game whose engine has
    decisions nobody may learn of (the others cost no query)."""
    engine = ENGINES.get(engine_id)
    return (status != "finished" and engine is not None
            and type(engine).anonymous is not Engine.anonymous)


def as_public(game: Game) -> Game:
    """The game row as of its last ply the public may know of (the same row when that is
    its last ply and the game is over)."""
    if game.state is None or not hides_plies(game.engine, game.status):
        return game
    known = (Move.select(Move.ply, Move.state, Move.created)
             .where((Move.game == game) & ~Move.anonymous).order_by(Move.ply.desc()).first())
    if known is None:  # nothing public yet (Onyx before its first move)
        return game
    shown = Game(**{**game.__data__})
    shown.plies, shown.updated = known.ply, known.created
    if known.ply != game.plies:
        shown.state = known.state
    return shown


def public_listing(games: list[Game]) -> list[Game]:
    """The index's rows (id, status, plies, updated) as the public may know them: one
    query for all the running games of the page."""
    running = [game.id for game in games if hides_plies(game.engine, game.status)]
    if not running:
        return games
    last = (Move.select(Move.game, fn.MAX(Move.ply).alias("ply"))
            .where(Move.game.in_(running) & ~Move.anonymous).group_by(Move.game))
    known = {game_id: (ply, created) for game_id, ply, created in
             Move.select(Move.game, Move.ply, Move.created)
             .join(last, on=((Move.game == last.c.game_id) & (Move.ply == last.c.ply)))
             .tuples()}
    for game in games:
        if game.id in known:
            game.plies, game.updated = known[game.id]
    return games
