"""The competition's tables (pbem.competition): each player's rating in a game and its
history, tournaments with their entrants and pairings, and open challenges (seeks)."""

from __future__ import annotations

from peewee import (BooleanField, CharField, DateTimeField, DoubleField, ForeignKeyField,
                    IntegerField, TextField)

from pbem.store.models import BaseModel, Game, JSONField, Player, utcnow


class Rating(BaseModel):
    """A player's rating in one game (engine), as the last rated game left it.
    Doubles, not reals: a rebuild must give the same numbers to the last bit."""
    player = ForeignKeyField(Player, backref="ratings", on_delete="CASCADE")
    engine = CharField()
    mu = DoubleField()
    sigma = DoubleField()
    games = IntegerField(default=0)
    updated = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("player", "engine"), True), (("engine", "games"), False))


class RatingChange(BaseModel):
    """A player's rating after one rated game: the history a player's page plots, and
    the mark that a game has been rated (once)."""
    game = ForeignKeyField(Game, backref="rating_changes", on_delete="CASCADE")
    player = ForeignKeyField(Player, backref="rating_changes", on_delete="CASCADE")
    engine = CharField()
    mu = DoubleField()
    sigma = DoubleField()
    at = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("game", "player"), True), (("player", "engine", "at"), False))


class Tournament(BaseModel):
    """A tournament by mail (pbem.competition.tournaments): its game, format and the
    options every one of its games is made with; which round it is in."""
    engine = CharField()
    kind = CharField()  # round-robin or swiss
    options = JSONField(default=dict)  # the games' options, time= and rated= among them
    rounds = IntegerField(default=0)  # swiss: as asked; round-robin: from the entrants
    double = BooleanField(default=False)  # round-robin: each pair twice, seats swapped
    table = IntegerField(default=2)  # players at each game
    organiser = ForeignKeyField(Player, backref="organised")
    status = CharField(default="inviting", index=True)  # inviting running finished cancelled
    round = IntegerField(default=0)  # the round being played; 0 before the first
    starts = DateTimeField(null=True)  # the first round not before (the organiser's date)
    created = DateTimeField(default=utcnow)


class Entrant(BaseModel):
    """A player invited to a tournament: their answer, seeding and withdrawal."""
    tournament = ForeignKeyField(Tournament, backref="entrants", on_delete="CASCADE")
    player = ForeignKeyField(Player, backref="entries")
    number = IntegerField()  # the order the organiser named them: the seeding
    answer = CharField(null=True)  # accepted, declined or None (waiting)
    withdrawn = IntegerField(null=True)  # the round after which they play no more
    why = TextField(default="")  # withdrew, did not play a game, ...

    class Meta:
        indexes = ((("tournament", "player"), True),)


class Pairing(BaseModel):
    """One game of a tournament's round, or a bye, or a forfeit: the players in seat order
    and, where no game is played, their points."""
    tournament = ForeignKeyField(Tournament, backref="pairings", on_delete="CASCADE")
    round = IntegerField()
    game = ForeignKeyField(Game, null=True, backref="pairings", on_delete="SET NULL")
    players = JSONField()  # player ids in seat order
    shares = JSONField(null=True)  # without a game: "1" for a bye, "1"/"0" for a forfeit

    class Meta:
        indexes = ((("tournament", "round"), False),)


class Seek(BaseModel):
    """An open challenge (pbem.competition.seeks): a game anyone may join."""
    engine = CharField()
    options = JSONField(default=dict)  # the game's options, time= and rated= among them
    player = ForeignKeyField(Player, backref="seeks", on_delete="CASCADE")
    low = DoubleField(null=True)  # the joiner's rating at least (rating=1500-1800)
    high = DoubleField(null=True)  # ... at most
    status = CharField(default="open", index=True)  # open joined withdrawn expired
    game = ForeignKeyField(Game, null=True, on_delete="SET NULL")
    created = DateTimeField(default=utcnow)
    expires = DateTimeField(index=True)
