"""Fewer index writes for a move by mail (issue #18): every index of a table is written
on each insert, and a 26×26 Onyx move wrote 35 pages to the log; about six of them went
to indexes that another index already served or that need not hold a new row (29.5 now).

- Dropped, because another index begins with the same column and serves every query:
  a game's seats, moves and clocks by game (`(game, number)`, `(game, ply)`,
  `(game, seat)`), a sender's mail by sender (`(sender, received)`), our mail to an
  address by recipient (`(recipient, id)`).
- Made partial, so that a new row is not written into them: the sent and the failed
  outbox rows by date and an inbound mail's retention date, each only where it is set
  (`WHERE … IS NOT NULL`; pruning reads them by date). The unsent outbox rows, which
  the deliverer and `pbem status` read, get an index of their own (`WHERE sent IS
  NULL`, by `failed` and `next_attempt`: the due ones are its first rows), in place of
  the one of every row by `next_attempt`; so the deliverer's query reads the mail
  waiting, not every mail kept, as it read through the index of `failed` before.
"""
from peewee import SQL

DROPPED = (("seat", "seat_game_id", ("game_id",)), ("move", "move_game_id", ("game_id",)),
           ("clock", "clock_game_id", ("game_id",)), ("inbound", "inbound_sender", ("sender",)),
           ("outbox", "outbox_recipient", ("recipient",)))
# (table, the old index and its column, the new index, its columns and condition)
PARTIAL = (("outbox", "outbox_next_attempt", "next_attempt", "outbox_unsent",
            ("failed", "next_attempt"), '"sent" IS NULL'),
           ("outbox", "outbox_sent", "sent", "outbox_sent", ("sent",), '"sent" IS NOT NULL'),
           ("outbox", "outbox_failed", "failed", "outbox_failed", ("failed",),
            '"failed" IS NOT NULL'),
           ("inbound", "inbound_kept_until", "kept_until", "inbound_kept_until",
            ("kept_until",), '"kept_until" IS NOT NULL'))


def up(migrator, db):
    operations = [migrator.drop_index(table, name) for table, name, _ in DROPPED]
    for table, old, _, new, columns, condition in PARTIAL:
        operations += [migrator.drop_index(table, old),
                       migrator.add_index(table, columns, name=new, where=SQL(condition))]
    migrator.migrate(*operations)


def down(migrator, db):
    operations = []
    for table, _, column, new, _, _ in PARTIAL:
        operations += [migrator.drop_index(table, new), migrator.add_index(table, (column,))]
    operations += [migrator.add_index(table, columns) for table, _, columns in DROPPED]
    migrator.migrate(*operations)
