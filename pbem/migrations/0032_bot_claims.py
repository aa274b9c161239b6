"""Bot claims name their claimer (issue #29 item 9): seat.claimed_by is the `host:pid`
of the process searching for a bot seat (pbem.store.claims), so a process that starts
after one was killed mid-search takes its claims over at once, as the outbox's are,
instead of leaving the bot silent for the claim's two minutes. The claimed seats are
found through an index that holds only them (`WHERE claimed_until IS NOT NULL`): a new
seat is not written into it.
"""
from peewee import SQL, CharField


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("seat", "claimed_by", CharField(null=True)),
        migrator.add_index("seat", ("claimed_until",), name="seat_claimed",
                           where=SQL('"claimed_until" IS NOT NULL')))


def down(migrator, db):
    migrator.migrate(migrator.drop_index("seat", "seat_claimed"),
                     migrator.drop_column("seat", "claimed_by"))
