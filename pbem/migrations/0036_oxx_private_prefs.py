"""6 nimmt!'s preferences are private (#35 item 3): a standing preference that settles
nothing and a secret choice that replaces one already made are now anonymous plies,
counted by nobody while the game runs (pbem.engines.baronoxx.engine.anonymous). The
games already played are read once more: each such ply is marked anonymous, and the
numbers the public may know (`move.shown`, `game.shown_plies`, migration 0013) are
counted again, so a running game's next mail and its `#N` guard agree with its pages.

Each ply's state before it is the state stored with the ply before it (the dealer's
deal always comes first), so no game is replayed from its start.
"""
from pbem.engines import get_engine
from pbem.engines.base import CHANCE


def up(migrator, db):
    engine = get_engine("baronoxx")
    p = db.param
    games = [row[0] for row in db.execute_sql(
        f"SELECT id FROM game WHERE engine = {p}", ("baronoxx",))]
    for game in games:
        moves = db.execute_sql(f"SELECT id, seat, text, state, anonymous FROM move "
                               f"WHERE game_id = {p} ORDER BY ply", (game,)).fetchall()
        marked, before = [], None
        for move_id, seat, text, state, anonymous in moves:
            if (before is not None and seat != CHANCE and not anonymous
                    and text.split(" ", 1)[0] in ("pref", "play")):
                decision = engine.parse(before, seat, text)
                if engine.anonymous(before, seat, decision):
                    marked.append(move_id)
            before = engine.from_json(_json(state))
        if not marked:
            continue
        for move_id in marked:
            db.execute_sql(f"UPDATE move SET anonymous = {p} WHERE id = {p}", (True, move_id))
        db.execute_sql(f"UPDATE move SET shown = (SELECT COUNT(*) FROM move AS earlier "
                       f"WHERE earlier.game_id = move.game_id AND earlier.ply <= move.ply "
                       f"AND NOT earlier.anonymous) WHERE game_id = {p}", (game,))
        db.execute_sql(f"UPDATE game SET shown_plies = (SELECT COUNT(*) FROM move "
                       f"WHERE move.game_id = game.id AND NOT move.anonymous) "
                       f"WHERE id = {p}", (game,))


def down(migrator, db):
    """The plies stay anonymous: an older pbem counts them as the public may know them
    too, where it reads `move.shown` (its own moves mark theirs as before)."""


def _json(value):
    import json
    return json.loads(value) if isinstance(value, (str, bytes)) else value
