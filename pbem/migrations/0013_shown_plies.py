"""The ply numbers the public may know while a game runs (RULINGS G39): each move's
number among the plies that are not anonymous (`move.shown`), and the game's count of
them (`game.shown_plies`), so that pages and mail number the plies without counting, and
an answer nobody may learn of changes no number anyone can see."""
from peewee import IntegerField


def up(migrator, db):
    migrator.migrate(migrator.add_column("move", "shown", IntegerField(default=0)),
                     migrator.add_column("game", "shown_plies", IntegerField(default=0)))
    # Games already played: count once (a migration may be slow; a move may not).
    db.execute_sql("UPDATE move SET shown = (SELECT COUNT(*) FROM move AS earlier "
                   "WHERE earlier.game_id = move.game_id AND earlier.ply <= move.ply "
                   "AND NOT earlier.anonymous)")
    db.execute_sql("UPDATE game SET shown_plies = (SELECT COUNT(*) FROM move "
                   "WHERE move.game_id = game.id AND NOT move.anonymous)")
    migrator.migrate(migrator.add_index("move", ("game_id", "shown")))


def down(migrator, db):
    migrator.migrate(migrator.drop_index("move", "move_game_id_shown"),
                     migrator.drop_column("game", "shown_plies"),
                     migrator.drop_column("move", "shown"))
