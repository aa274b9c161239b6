"""A running game as the public may know it: numbered by the plies the others may learn of.

A decision the others may not even learn was made (engine.anonymous: a reaction window's
answer, a standing answer; RULINGS G38, G39) is a row of the move log like any other: the
record needs it. But while the game runs, nothing anyone but its maker can fetch may change
with it, or an asked seat could tell that another seat was asked and passed: not the ply
count, not the move list, not the position, not the time of the last change, not a number
in a later page, not even after the window has closed.

So while such a game runs, its plies are numbered as the public may know them: each move
row keeps its number among the plies that are not anonymous (`Move.shown`), the game its
count of them (`Game.shown_plies`), and every public surface (the game page, the printable
page and `pbem export`, the SVGs, the index and player pages) draws the game from
`as_public` (the row with `plies`, `state` and `updated` as after its last public ply) and
lists only `shown_moves`. Mail numbers the same way (pbem.policy.conversation, `Table.next_number`).
Once the game is over, every ply shows under its place in the record. Rows are changed in
memory only, never saved.
"""

from __future__ import annotations

from peewee import Tuple

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
    """The game row as of its last ply the public may know of, `plies` counting only
    those (the same row when the game hides nothing)."""
    if game.state is None or not hides_plies(game.engine, game.status):
        return game
    known = (Move.select(Move.ply, Move.state, Move.created)
             .where((Move.game == game) & (Move.shown == game.shown_plies) & ~Move.anonymous)
             .first())
    if known is None:  # nothing public yet
        return game
    shown = Game(**{**game.__data__})
    shown.plies, shown.updated = game.shown_plies, known.created
    if known.ply != game.plies:
        shown.state = known.state
    return shown


def shown_moves(game: Game, *columns):
    """The move rows the public may list up to `game.plies` (as_public's), in order: their
    number on every public surface, as `number` (`Move.shown` while plies are hidden,
    else the ply itself), then `columns`."""
    if not hides_plies(game.engine, game.status):
        return (Move.select(Move.ply.alias("number"), *columns)
                .where((Move.game == game) & (Move.ply <= game.plies)).order_by(Move.ply))
    return (Move.select(Move.shown.alias("number"), *columns)
            .where((Move.game == game) & ~Move.anonymous & (Move.shown <= game.plies))
            .order_by(Move.ply))


def real_ply(game: Game, number: int) -> int:
    """The move log's ply of the public's ply `number` (0: the start)."""
    if number == 0 or not hides_plies(game.engine, game.status):
        return number
    return (Move.select(Move.ply).where((Move.game == game) & (Move.shown == number)
                                        & ~Move.anonymous).scalar())


def shown_numbers(game: Game, plies: set[int]) -> dict[int, int]:
    """The public's numbers of the move log's `plies` (one query for all): a comment made
    after an anonymous ply follows the public ply before it."""
    if not plies or not hides_plies(game.engine, game.status):
        return {ply: ply for ply in plies}
    return dict(Move.select(Move.ply, Move.shown)
                .where((Move.game == game) & Move.ply.in_(sorted(plies))).tuples())


def public_listing(games: list[Game]) -> list[Game]:
    """The index's rows (id, status, plies, updated) as the public may know them: one
    query for all the running games of the page, one index entry for each."""
    running = [(game.id, game.shown_plies) for game in games
               if hides_plies(game.engine, game.status)]
    if not running:
        return games
    known = dict(Move.select(Move.game, Move.created)
                 .where(Tuple(Move.game, Move.shown).in_(running) & ~Move.anonymous)
                 .tuples())
    for game in games:
        if game.id in known:
            game.plies, game.updated = game.shown_plies, known[game.id]
    return games
