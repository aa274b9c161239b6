"""Indexes for the archive index's pages: a deep page reads ids from an index, not rows.

Each holds the columns the index's filters compare (engine, status, result) beside the
id, led by the one it is for: id (no filter, result=), engine (game=), status (status=,
and any other lookup by status, so the single-column status index goes).
"""

LISTING = (("id", "engine", "status", "result"),
           ("engine", "id", "status", "result"),
           ("status", "id", "engine", "result"))


def up(migrator, db):
    migrator.migrate(*(migrator.add_index("game", columns) for columns in LISTING),
                     migrator.drop_index("game", "game_status"))


def down(migrator, db):
    migrator.migrate(migrator.add_index("game", ("status",)),
                     *(migrator.drop_index("game", "_".join(("game",) + columns))
                       for columns in LISTING))
