"""A spectator's mail carries the comments (`say`) since their last, as a player's does
(#42 item 4).

follow.heard: the id of the last comment a spectator's mail carried (a player's seat has
had one since 0001: `seat.heard`); `follow.told` counts plies, and a comment said after
the last ply of a mail cannot be told from one said before it by its ply. A follow
already there starts at its game's last comment: what was said before the upgrade is
not mailed again. The column's default is the database's own (0), so that the old
workers still running mid-upgrade (deploy/README.md, "Upgrades") can still add a follow.
"""


def up(migrator, db):
    db.execute_sql("ALTER TABLE follow ADD COLUMN heard INTEGER NOT NULL DEFAULT 0")
    db.execute_sql("UPDATE follow SET heard = COALESCE((SELECT MAX(comment.id) FROM comment "
                   "WHERE comment.game_id = follow.game_id), 0)")


def down(migrator, db):
    migrator.migrate(migrator.drop_column("follow", "heard"))
