"""A player's seat links can be cut, and page posts count against the rate limit (#29
items 1 and 7).

player.links: the generation of the player's seat links (pbem.vocabulary.tokens.play_token):
`link new` adds one, and every link made under the generation before stops working at
once. 0, every player's now, makes exactly the links mailed before this migration, so
they go on working until their player asks for new ones.

page_post: a post from a seat's page (a move, `say`, a switch), by the player's address
and time: counted with the mail from that address against PBEM_RATE_LIMIT
(pbem.access), read by (address, created) as inbound mail is by (sender, received).
"""
from peewee import CharField, DateTimeField, IntegerField, Model


def up(migrator, db):
    migrator.migrate(migrator.add_column("player", "links", IntegerField(default=0)))

    class PagePost(Model):
        address = CharField()
        created = DateTimeField()

        class Meta:
            database = db
            table_name = "page_post"
            indexes = ((("address", "created"), False),)

    db.create_tables([PagePost])


def down(migrator, db):
    migrator.migrate(migrator.drop_table("page_post"), migrator.drop_column("player", "links"))
