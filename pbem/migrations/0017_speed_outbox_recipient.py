"""Our last mail to an address (pbem.policy.limits.repeats_our_last_mail) from an index
on (recipient, id): PostgreSQL otherwise reads and sorts every mail ever sent to that
address to find the newest (SQLite's index on recipient holds the rowid already)."""


def up(migrator, db):
    migrator.migrate(migrator.add_index("outbox", ("recipient", "id")))


def down(migrator, db):
    migrator.migrate(migrator.drop_index("outbox", "outbox_recipient_id"))
