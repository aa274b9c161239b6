"""A request's reply address carries a random key, not its id (#41, "ids that leave the
server say nothing and are never reused").

request.key: 20 random base32 characters, unique; the reply address of a request made
from now on is `pbem+r-<key>@`. A request made before keeps no key, and its old address
(`pbem+c-<id>-<mac>@`) is read for it only while it has none, so an id that a later
request reuses never reaches it.
"""
from peewee import CharField


def up(migrator, db):
    migrator.migrate(migrator.add_column("request", "key", CharField(null=True)),
                     migrator.add_index("request", ("key",), True))


def down(migrator, db):
    migrator.migrate(migrator.drop_index("request", "request_key"),
                     migrator.drop_column("request", "key"))
