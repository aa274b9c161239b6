"""Indexes so that a mail's checks read only the rows they count, however many are stored:
a sender's mail within the hour (the rate limit, the error-reply cap) by (sender,
received), and given-up mail for pruning and `pbem status` by `failed`."""


def up(migrator, db):
    migrator.migrate(migrator.add_index("inbound", ("sender", "received")),
                     migrator.add_index("outbox", ("failed",)))


def down(migrator, db):
    migrator.migrate(migrator.drop_index("outbox", "outbox_failed"),
                     migrator.drop_index("inbound", "inbound_sender_received"))
