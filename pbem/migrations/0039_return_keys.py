"""Return paths that say nothing, and a bounce counted once a mail (#41 item 5).

outbox.return_key: each mail's return path (`pbem-bounce+b-<key>-<mac>@`) carries a
random key of its own (pbem.store.models.new_return_key) instead of the row's id: the id
is sequential, so two of a player's return paths told how much mail others got in
between, and reused, so a late report for a dropped or restored-away mail named another.
Rows kept from before stay without one (NULL, which a unique index allows many times):
their return paths carried the id, and a report to such a path is still read for a row
without a key, never for one that has a key (pbem.intake.reports). A mail queued before
and sent after gets its key when it is sent (pbem.mail.outbox).

outbox.bounced: when the mail's bounce was counted against its address; a second report
about the same mail, or the same report again, counts nothing.
"""
from peewee import CharField, DateTimeField


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("outbox", "return_key", CharField(null=True, unique=True)),
        migrator.add_column("outbox", "bounced", DateTimeField(null=True)))


def down(migrator, db):
    migrator.migrate(migrator.drop_index("outbox", "outbox_return_key"),
                     migrator.drop_column("outbox", "bounced"),
                     migrator.drop_column("outbox", "return_key"))
