"""Web play: a player's `web off` (mail only, no page), and spectators who `follow` a game.

player.web: whether the player's game mails carry the link to their seat's page and the
page answers (pbem.web.seat_page). follow: a spectator's game, with how far the public
view has been mailed to them (the ply), so each turn is mailed once (pbem.policy.conversation).
"""
from peewee import *


def up(migrator, db):
    migrator.migrate(migrator.add_column("player", "web", BooleanField(default=True)))

    class Game(Model):
        class Meta:
            database = db
            table_name = 'game'

    class Player(Model):
        class Meta:
            database = db
            table_name = 'player'

    class Follow(Model):
        player = ForeignKeyField(Player, on_delete='CASCADE')
        game = ForeignKeyField(Game, on_delete='CASCADE', index=True)
        told = IntegerField(default=0)
        created = DateTimeField()
        class Meta:
            database = db
            table_name = 'follow'
            indexes = ((('player', 'game'), True),)

    db.create_tables([Follow])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('follow'), migrator.drop_column("player", "web"))
