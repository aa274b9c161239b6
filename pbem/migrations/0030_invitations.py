"""Invitations as one count (issue #29): every mail a player has pbem write to an address
that never confirmed — a game's or a tournament's invitation, a second address's request
— is a row of `invitation`, and the limits on mail to strangers count these rows
(pbem.policy.limits), so that no kind of invitation escapes them.

The invitations still waiting when the server is upgraded are written in, so the limits
hold across the upgrade: seats of games still inviting, entrants of tournaments still
inviting, and open requests to confirm a second address.
"""
from peewee import *


def up(migrator, db):
    class Player(Model):
        class Meta:
            database = db
            table_name = 'player'

    class Invitation(Model):
        inviter = ForeignKeyField(Player, on_delete='CASCADE', index=False)
        address = CharField()
        kind = CharField()
        subject = IntegerField()
        created = DateTimeField(index=True)
        waiting = BooleanField(default=True)

        class Meta:
            database = db
            table_name = 'invitation'
            indexes = ((('inviter', 'created'), False),)

    db.create_tables([Invitation])
    migrator.migrate(migrator.add_index('invitation', ('inviter_id', 'address'),
                                        name='invitation_waiting', where=SQL('"waiting"')))
    db.execute_sql(
        'INSERT INTO invitation (inviter_id, address, kind, subject, created, waiting) '
        'SELECT g.creator_id, p.email, \'game\', g.id, g.created, TRUE FROM seat s '
        'JOIN game g ON g.id = s.game_id JOIN player p ON p.id = s.player_id '
        'WHERE g.status = \'inviting\' AND s.answer IS NULL AND NOT p.confirmed '
        'AND g.creator_id IS NOT NULL AND s.player_id <> g.creator_id')
    db.execute_sql(
        'INSERT INTO invitation (inviter_id, address, kind, subject, created, waiting) '
        'SELECT t.organiser_id, p.email, \'tournament\', t.id, t.created, TRUE FROM entrant e '
        'JOIN tournament t ON t.id = e.tournament_id JOIN player p ON p.id = e.player_id '
        'WHERE t.status = \'inviting\' AND e.answer IS NULL AND NOT p.confirmed '
        'AND e.player_id <> t.organiser_id')
    db.execute_sql(
        'INSERT INTO invitation (inviter_id, address, kind, subject, created, waiting) '
        'SELECT r.player_id, a.email, \'address\', r.id, r.created, TRUE FROM request r '
        'JOIN address a ON a.player_id = r.player_id AND r.lines = \'["\' || a.email || \'"]\' '
        'WHERE r.kind = \'address\' AND r.open AND NOT a.confirmed')


def down(migrator, db):
    migrator.migrate(migrator.drop_table('invitation'))
