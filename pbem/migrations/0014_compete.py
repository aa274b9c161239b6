"""Competition (pbem.competition): a game may be friendly (`rated=no`); each player's
rating per game, and its history, one row per rated game; tournaments with their
entrants and pairings; open challenges (seeks)."""
from peewee import *


def up(migrator, db):
    class Game(Model):
        class Meta:
            database = db
            table_name = 'game'

    class Player(Model):
        class Meta:
            database = db
            table_name = 'player'

    class Rating(Model):
        player = ForeignKeyField(Player, on_delete='CASCADE')
        engine = CharField()
        mu = DoubleField()
        sigma = DoubleField()
        games = IntegerField(default=0)
        updated = DateTimeField()
        class Meta:
            database = db
            table_name = 'rating'
            indexes = ((('player', 'engine'), True), (('engine', 'games'), False))

    class RatingChange(Model):
        game = ForeignKeyField(Game, on_delete='CASCADE')
        player = ForeignKeyField(Player, on_delete='CASCADE')
        engine = CharField()
        mu = DoubleField()
        sigma = DoubleField()
        at = DateTimeField()
        class Meta:
            database = db
            table_name = 'rating_change'
            indexes = ((('game', 'player'), True), (('player', 'engine', 'at'), False))

    class Tournament(Model):
        engine = CharField()
        kind = CharField()
        options = TextField()
        rounds = IntegerField(default=0)
        double = BooleanField(default=False)
        table = IntegerField(default=2)
        organiser = ForeignKeyField(Player)
        status = CharField(index=True, default='inviting')
        round = IntegerField(default=0)
        starts = DateTimeField(null=True)
        created = DateTimeField()
        class Meta:
            database = db
            table_name = 'tournament'

    class Entrant(Model):
        tournament = ForeignKeyField(Tournament, on_delete='CASCADE')
        player = ForeignKeyField(Player)
        number = IntegerField()
        answer = CharField(null=True)
        withdrawn = IntegerField(null=True)
        why = TextField(default='')
        class Meta:
            database = db
            table_name = 'entrant'
            indexes = ((('tournament', 'player'), True),)

    class Pairing(Model):
        tournament = ForeignKeyField(Tournament, on_delete='CASCADE')
        round = IntegerField()
        game = ForeignKeyField(Game, null=True, on_delete='SET NULL')
        players = TextField()
        shares = TextField(null=True)
        class Meta:
            database = db
            table_name = 'pairing'
            indexes = ((('tournament', 'round'), False),)

    class Seek(Model):
        engine = CharField()
        options = TextField()
        player = ForeignKeyField(Player, on_delete='CASCADE')
        low = DoubleField(null=True)
        high = DoubleField(null=True)
        status = CharField(index=True, default='open')
        game = ForeignKeyField(Game, null=True, on_delete='SET NULL')
        created = DateTimeField()
        expires = DateTimeField(index=True)
        class Meta:
            database = db
            table_name = 'seek'

    migrator.migrate(migrator.add_column('game', 'rated', BooleanField(default=True)))
    db.create_tables([Rating, RatingChange, Tournament, Entrant, Pairing, Seek])


def down(migrator, db):
    for table in ('seek', 'pairing', 'entrant', 'tournament'):
        migrator.migrate(migrator.drop_table(table))
    migrator.migrate(migrator.drop_table('rating_change'))
    migrator.migrate(migrator.drop_table('rating'))
    migrator.migrate(migrator.drop_column('game', 'rated'))
