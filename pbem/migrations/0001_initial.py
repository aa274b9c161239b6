"""The first schema: players, games, seats, moves, comments, inbound mail, outbox, requests.

Generated with `python -m playhouse.migrations sqlite:///x.db initial
pbem.store.models:MODELS -d pbem/migrations` and frozen here: later changes to the models
come as new numbered migrations. Python-side defaults (times, JSON) live in the models.
"""
from peewee import *


def up(migrator, db):
    class Player(Model):
        email = CharField(unique=True)
        name = CharField()
        confirmed = BooleanField(default=False)
        created = DateTimeField()
        class Meta:
            database = db
            table_name = 'player'
    db.create_tables([Player])

    class Game(Model):
        engine = CharField()
        options = TextField()
        seed = CharField()
        commitment = CharField()
        status = CharField(index=True, default='inviting')
        plies = IntegerField(default=0)
        state = TextField(null=True)
        result = CharField(default='*')
        termination = TextField(default='')
        creator = ForeignKeyField(Player, null=True)
        created = DateTimeField()
        updated = DateTimeField(index=True)
        class Meta:
            database = db
            table_name = 'game'
    db.create_tables([Game])

    class Comment(Model):
        game = ForeignKeyField(Game, on_delete='CASCADE')
        ply = IntegerField()
        seat = IntegerField()
        text = TextField()
        created = DateTimeField()
        class Meta:
            database = db
            table_name = 'comment'
    db.create_tables([Comment])

    class Inbound(Model):
        message_id = CharField(unique=True)
        sender = CharField(index=True)
        raw = BlobField()
        received = DateTimeField(index=True)
        outcome = TextField(default='received')
        class Meta:
            database = db
            table_name = 'inbound'
    db.create_tables([Inbound])

    class Move(Model):
        game = ForeignKeyField(Game, on_delete='CASCADE')
        ply = IntegerField()
        seat = IntegerField()
        text = TextField()
        labelled = BooleanField(default=False)
        state = TextField()
        visible = TextField()
        source = CharField(default='')
        created = DateTimeField()
        class Meta:
            database = db
            table_name = 'move'
            indexes = ((('game', 'ply'), True),)
    db.create_tables([Move])

    class Outbox(Model):
        game = ForeignKeyField(Game, null=True, on_delete='SET NULL')
        recipient = CharField()
        message = BlobField()
        created = DateTimeField()
        attempts = IntegerField(default=0)
        next_attempt = DateTimeField(index=True)
        claimed_until = DateTimeField(null=True)
        sent = DateTimeField(index=True, null=True)
        last_error = TextField(default='')
        class Meta:
            database = db
            table_name = 'outbox'
    db.create_tables([Outbox])

    class Request(Model):
        kind = CharField()
        player = ForeignKeyField(Player)
        game = ForeignKeyField(Game, null=True, on_delete='CASCADE')
        inbound = ForeignKeyField(Inbound, null=True)
        ply = IntegerField(default=0)
        agreed = TextField(default=list)
        open = BooleanField(index=True, default=True)
        created = DateTimeField()
        class Meta:
            database = db
            table_name = 'request'
    db.create_tables([Request])

    class Seat(Model):
        game = ForeignKeyField(Game, on_delete='CASCADE')
        number = IntegerField()
        player = ForeignKeyField(Player)
        answer = CharField(null=True)
        quiet = BooleanField(default=False)
        class Meta:
            database = db
            table_name = 'seat'
            indexes = ((('game', 'number'), True),)
    db.create_tables([Seat])


def down(migrator, db):
    migrator.migrate(migrator.drop_table('seat'))
    migrator.migrate(migrator.drop_table('request'))
    migrator.migrate(migrator.drop_table('outbox'))
    migrator.migrate(migrator.drop_table('move'))
    migrator.migrate(migrator.drop_table('inbound'))
    migrator.migrate(migrator.drop_table('comment'))
    migrator.migrate(migrator.drop_table('game'))
    migrator.migrate(migrator.drop_table('player'))
