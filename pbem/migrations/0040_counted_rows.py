"""Counters that do not fall across a rolling upgrade (#43 item 2).

0038 started the counters where the rows stood when `pbem migrate` ran; the old
workers, still running until their restart, went on playing moves and taking mail
without counting them, so `pbem_moves_total` and `pbem_mails_in_total` fell when the
new web replaced the old one (which counted rows) and stayed behind for good.

`counted` on `move` and `inbound`: TRUE for every row already there (0038 counted
them) and for every row this pbem writes (its models say so, and it counts the event
in the same transaction); FALSE, the column's default, for a row written by a pbem that
does not know the column, i.e. an old process mid-upgrade. `/metrics` adds the rows not
counted yet to the totals, and the hourly roll-up counts them for good and marks them
(pbem.intake.outcomes.count_uncounted). A partial index finds them without a scan.
"""
from peewee import PostgresqlDatabase

TABLES = ("move", "inbound")


def up(migrator, db):
    for table in TABLES:
        if isinstance(db, PostgresqlDatabase):
            # TRUE for the rows there (no rewrite of the table), FALSE for old code's
            db.execute_sql(f"ALTER TABLE {table} ADD COLUMN counted BOOLEAN NOT NULL "
                           f"DEFAULT TRUE")
            db.execute_sql(f"ALTER TABLE {table} ALTER COLUMN counted SET DEFAULT FALSE")
        else:  # SQLite cannot change a column's default: FALSE, then the rows there TRUE
            db.execute_sql(f"ALTER TABLE {table} ADD COLUMN counted BOOLEAN NOT NULL "
                           f"DEFAULT 0")
            db.execute_sql(f"UPDATE {table} SET counted = 1")
        db.execute_sql(f"CREATE INDEX {table}_uncounted ON {table} (id) WHERE NOT counted")


def down(migrator, db):
    for table in TABLES:
        db.execute_sql(f"DROP INDEX IF EXISTS {table}_uncounted")
        migrator.migrate(migrator.drop_column(table, "counted"))
