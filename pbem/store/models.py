"""The tables: players, games and their seats, the move log, inbound mail, the outbox.

A game's current state is kept as a snapshot (the engine's JSON) on the game row, and
each move keeps the snapshot after it, so playing a move never replays the game and the
archive can show any ply. Raw inbound mail is kept byte for byte.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import secrets

from peewee import (
    SQL,
    BigIntegerField,
    BlobField,
    BooleanField,
    CharField,
    DateField,
    DateTimeField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)

from notation.text import clean_text
from pbem import clock
from pbem.engines.dealing import CURRENT
from pbem.store.handle import database
from pbem.store.prepared import Prepared


def utcnow() -> dt.datetime:
    """Now, as rows keep it: the server's one clock (`pbem.clock.now`, which tests set)."""
    return clock.now()


def new_return_key() -> str:
    """A mail's return-path key (pbem.vocabulary.tokens.return_path): 120 random bits in 24
    lower-case base32 characters. Unlike the row's id it tells a player who sees it
    nothing of the mail others got, and no later mail is given it again: not the next
    one after a dropped mail, not one queued after a restore."""
    return base64.b32encode(secrets.token_bytes(15)).decode().lower()


class JSONField(TextField):
    """JSON as text: the same on SQLite and PostgreSQL."""

    def db_value(self, value):
        return None if value is None else json.dumps(value, separators=(",", ":"))

    def python_value(self, value):
        return None if value is None else json.loads(value)


class WrittenText(TextField):
    """Text a player wrote (a comment, an annotation): kept and read without control
    characters (notation.text), so that a row written before the intake cleaned it
    cannot break a feed, a record or a terminal on its way out."""

    def db_value(self, value):
        return None if value is None else clean_text(value)

    def python_value(self, value):
        return None if value is None else clean_text(value)


class WrittenName(CharField):
    """A display name a player chose, cleaned as WrittenText is."""

    def db_value(self, value):
        return None if value is None else clean_text(value)

    def python_value(self, value):
        return None if value is None else clean_text(value)


class BaseModel(Model):
    class Meta:
        database = database
        legacy_table_names = False


class Player(BaseModel):
    email = CharField(unique=True)  # lower-case
    name = WrittenName()
    confirmed = BooleanField(default=False)  # has shown they receive mail at `email`
    created = DateTimeField(default=utcnow)
    digest = BooleanField(default=False)  # one mail a day instead of one per move
    digest_sent = DateField(null=True)  # the digest day last claimed (pbem.policy.digest)
    web = BooleanField(default=True)  # `web off`: mail only, no seat page (pbem.web.seat_page)
    pictures = BooleanField(default=True)  # `pictures off`: game mail without pictures
    links = IntegerField(default=0)  # the seat links' generation: `link new` adds one


class Game(BaseModel):
    engine = CharField()
    options = JSONField()
    seed = CharField()  # secret until the game ends
    commitment = CharField()  # its SHA-256, published at the start
    generator = CharField(default=CURRENT)  # how the seed deals (pbem.engines.dealing)
    status = CharField(default="inviting")  # inviting running finished cancelled
    plies = IntegerField(default=0)  # moves in the log
    # Of those, the ones the public may know of while the game runs: not anonymous
    # (RULINGS G39). Pages and mail number a running game's plies by these.
    shown_plies = IntegerField(default=0)
    state = JSONField(null=True)  # snapshot after the last move
    result = CharField(default="*")
    termination = TextField(default="")  # why it ended, in words
    creator = ForeignKeyField(Player, null=True, backref="created_games")
    created = DateTimeField(default=utcnow, index=True)  # invitations a day (mail.limits)
    updated = DateTimeField(default=utcnow, index=True)
    rated = BooleanField(default=True)  # `rated=no`: a friendly game (pbem.competition)

    class Meta:
        # The archive index's pages (pbem.export.search): each index holds every column its
        # filters compare, so a page's ids are read from one index, newest first, never
        # from the rows and their snapshots. Led by id: no filter, or result=; by engine:
        # game=; by status: status= (and any other lookup by status).
        indexes = ((("id", "engine", "status", "result"), False),
                   (("engine", "id", "status", "result"), False),
                   (("status", "id", "engine", "result"), False))


class Seat(BaseModel):
    # indexed with `number`, below (Meta)
    game = ForeignKeyField(Game, backref="seats", on_delete="CASCADE", index=False)
    number = IntegerField()  # 0-based, the engine's seat
    player = ForeignKeyField(Player, backref="seats")
    answer = CharField(null=True)  # invitation: accepted, declined or None (waiting)
    # The conversation (pbem.policy.conversation): how much mail the seat wants (loud, normal,
    # quiet), and how far it has been told: the ply and the comment its last mail reached.
    mail = CharField(default="normal")
    told = IntegerField(default=0)
    heard = IntegerField(default=0)
    share = CharField(null=True)  # its share of the win once the game is over: 1, 0, 1/2
    claimed_until = DateTimeField(null=True)  # a bot seat: a scheduler moves for it until then
    claimed_by = CharField(null=True)  # ... which one: host:pid (pbem.bot_turns, 0032)

    class Meta:
        indexes = ((("game", "number"), True),)


class Move(BaseModel):
    # indexed with `ply`, below (Meta)
    game = ForeignKeyField(Game, backref="moves", on_delete="CASCADE", index=False)
    ply = IntegerField()  # 1-based
    seat = IntegerField()  # -1: the dealer
    text = TextField()  # canonical notation
    labelled = BooleanField(default=False)  # the record names the actor
    state = JSONField()  # snapshot after this move
    visible = JSONField(default=dict)  # what each seat ('0', '1', …; 'public') may read of it
    source = CharField(default="")  # the Message-ID it came in, 'cli', 'dealer'
    anonymous = BooleanField(default=False)  # the others may not learn who (engine.anonymous)
    revealed = TextField(null=True)  # what it showed everyone (engine.revelation), for news
    # Its number as the public may know it while the game runs: the plies up to it that
    # are not anonymous (an anonymous one repeats the number of the ply before it).
    shown = IntegerField(default=0)
    created = DateTimeField(default=utcnow)
    # Counted in `pbem_moves_total` when written (migration 0040: a row an older pbem
    # wrote mid-upgrade is FALSE until pbem.intake.outcomes.count_uncounted counts it).
    counted = BooleanField(default=True)

    class Meta:
        indexes = ((("game", "ply"), True), (("game", "shown"), False))


class Comment(BaseModel):
    """A player's `say`: mailed to all and kept in the record after the ply it follows."""
    game = ForeignKeyField(Game, backref="comments", on_delete="CASCADE")
    ply = IntegerField()  # plies played when it was said
    seat = IntegerField()
    text = WrittenText()
    created = DateTimeField(default=utcnow)


class Inbound(BaseModel):
    message_id = CharField(unique=True)
    sender = CharField()  # indexed with `received`, below
    raw = BlobField()
    received = DateTimeField(default=utcnow, index=True)
    outcome = TextField(default="received")  # what the pipeline did with it
    # When `raw` may be emptied (pbem.intake.retention); None: kept (not decided yet).
    kept_until = DateTimeField(null=True)  # indexed where set, below
    # Proven to be its player's (pbem.authority): only such mail spends the player's
    # budget of mails an hour; the rest counts as a stranger's (pbem.access).
    proven = BooleanField(default=False)
    counted = BooleanField(default=True)  # as Move.counted (migration 0040)

    class Meta:
        # A sender's mail of the last hour (rate limit, error replies) from the index
        # alone: the cost must not grow with all the mail the sender ever sent.
        indexes = ((("sender", "received"), False),)


class Outbox(BaseModel):
    game = ForeignKeyField(Game, null=True, backref="mails", on_delete="SET NULL")
    recipient = CharField()  # our last mail to an address (mail.limits): indexed with id
    message = BlobField()  # the whole RFC 822 message
    created = DateTimeField(default=utcnow, index=True)  # mail an hour (mail.limits)
    attempts = IntegerField(default=0)
    next_attempt = DateTimeField(default=utcnow)  # indexed while unsent, below
    claimed_until = DateTimeField(null=True)  # a deliverer is on it until then
    claimed_by = CharField(default="")  # ... which one: host:pid (pbem.mail.outbox)
    handed_over = DateTimeField(null=True)  # written to the relay, its answer not yet read
    sent = DateTimeField(null=True)  # indexed where set, below
    failed = DateTimeField(null=True)  # given up: refused for good (5xx); indexed where set
    last_error = TextField(default="")
    # Its return path's key (new_return_key); None only for mail queued before 0039,
    # whose return path carried the id (pbem.vocabulary.tokens).
    return_key = CharField(null=True, unique=True, default=new_return_key)
    bounced = DateTimeField(null=True)  # its bounce counted, once a mail (policy.bounces.mails)
    held = DateTimeField(null=True)  # by `pbem restore`: perhaps sent already (0042)

    class Meta:
        # Our last mail to an address, newest first, from the index alone (0014).
        indexes = ((("recipient", "id"), False),)


def new_request_key() -> str:
    """A request's key, which its reply address carries (pbem.vocabulary.tokens.request_token):
    100 random bits, so that it says nothing of other mail (how many requests were made
    in between) and is never another request's, whatever the store reuses."""
    return base64.b32encode(secrets.token_bytes(15)).decode().lower()[:20]


class Request(BaseModel):
    """Something waiting: a sender's confirmation, an undo proposal, held commands."""
    kind = CharField()  # confirm, undo, held
    player = ForeignKeyField(Player, backref="requests")
    game = ForeignKeyField(Game, null=True, backref="requests", on_delete="CASCADE")
    inbound = ForeignKeyField(Inbound, null=True)  # confirm: the mail to run once confirmed
    ply = IntegerField(default=0)  # undo: the ply to take back
    agreed = JSONField(default=list)  # undo: seats that agreed
    lines = JSONField(default=list)  # held: a player's commands waiting for a window
    open = BooleanField(default=True, index=True)
    created = DateTimeField(default=utcnow)
    # What its reply address carries (pbem.vocabulary.tokens.request_token): random, unique.
    key = CharField(null=True, unique=True, default=new_request_key)


class Refusal(BaseModel):
    """A mail the sender checks refused (pbem.intake.refusals): why, in a short fixed word."""
    reason = CharField()  # no-verdict, unreadable-verdict, dmarc-fail, ... (refusals.REASONS)
    inbound_id = IntegerField(null=True, index=True)  # the Inbound row, while it is kept
    at = DateTimeField(default=utcnow, index=True)


class Notice(BaseModel):
    """When a once-a-day notice (pbem.policy.notices) last went out, by what it is about."""
    key = CharField(unique=True)  # e.g. "unauthenticated:player:17"
    sent = DateTimeField()


class TimeControl(BaseModel):
    """A game's time control (pbem.bookkeeping.controls): seconds per move, or a bank
    with an increment, or neither (no limit); and what a timeout does."""
    game = ForeignKeyField(Game, unique=True, backref="time_controls", on_delete="CASCADE")
    per_move = IntegerField(default=0)  # seconds for each wait; 0: a bank, or no limit
    bank = IntegerField(default=0)  # seconds each seat starts with
    increment = IntegerField(default=0)  # seconds added after each of a seat's moves
    timeout = CharField(default="forfeit")  # forfeit, auto or bot


class Clock(BaseModel):
    """One seat's clock in one game (pbem.bookkeeping.ledger): whether the game waits for
    the seat, since when, the time left, and when the scheduler must look at it next."""
    # indexed with `seat`, below (Meta)
    game = ForeignKeyField(Game, backref="clocks", on_delete="CASCADE", index=False)
    seat = IntegerField()
    waiting = BooleanField(default=False)  # the game waits for this seat
    window = BooleanField(default=False)  # ... for an answer in a reaction window
    since = DateTimeField(null=True)  # when this wait began
    bank = IntegerField(default=0)  # seconds left as of `settled`
    allotted = IntegerField(default=0)  # seconds left when this wait began
    settled = DateTimeField(null=True)  # running since then; None: stopped or paused
    reminded = IntegerField(default=0)  # reminders sent in this wait: 0, 1 (half), 2
    due = DateTimeField(null=True, index=True)  # when the scheduler looks next
    claimed_until = DateTimeField(null=True)  # a scheduler is on it until then

    class Meta:
        indexes = ((("game", "seat"), True),)


class Vacation(BaseModel):
    """A player's vacation: the clocks of all their games stand still meanwhile."""
    player = ForeignKeyField(Player, backref="vacations", on_delete="CASCADE")
    start = DateTimeField()
    until = DateTimeField(index=True)  # as asked
    ended = DateTimeField(null=True, index=True)  # when it really ended (off, or until)


class Address(BaseModel):
    """A player's second address (`address add`): mail from it counts as the player's
    once both addresses have confirmed it; mail to the player still goes to `email`."""
    player = ForeignKeyField(Player, backref="addresses", on_delete="CASCADE")
    email = CharField(unique=True)  # lower-case
    confirmed = BooleanField(default=False)  # the new address answered its request
    created = DateTimeField(default=utcnow)


class Invitation(BaseModel):
    """A mail a player had pbem write to an address that had not confirmed (a game's or a
    tournament's invitation, a second address's request): the one count behind the
    limits on mail to strangers (pbem.policy.limits), whatever the kind."""
    inviter = ForeignKeyField(Player, backref="invitations", on_delete="CASCADE",
                              index=False)  # indexed with `created`, below
    address = CharField()  # lower-case
    kind = CharField()  # game, tournament, address (pbem.policy.invitations)
    subject = IntegerField()  # the game's, the tournament's or the request's id
    created = DateTimeField(default=utcnow, index=True)  # invitations a day, all told
    waiting = BooleanField(default=True)  # no answer yet, as far as pbem has looked

    class Meta:
        indexes = ((("inviter", "created"), False),)  # an inviter's invitations a day


class Ban(BaseModel):
    """An address (or `@domain`) whose mail is dropped unanswered (`pbem admin ban`)."""
    address = CharField(unique=True)  # lower-case: alice@example.org, or @example.org
    reason = TextField(default="")
    created = DateTimeField(default=utcnow)

    @classmethod
    def covers(cls, sender: str) -> bool:
        """Whether mail from `sender` is banned, by its address or its whole domain."""
        return _BANNED.scalar(*cls.keys(sender)) is not None

    @staticmethod
    def keys(sender: str) -> tuple[str, str]:
        """The rows that would ban `sender`: its address and its domain, as stored."""
        sender = sender.lower()
        return sender, "@" + sender.rpartition("@")[2]

    @classmethod
    def banning(cls, address, domain):
        """The query of a ban's row among `keys` (not run: a part of others)."""
        return cls.select(SQL("1")).where(cls.address.in_([address, domain]))


class PagePost(BaseModel):
    """A post from a seat's page, counted with the mail from its player's address
    against PBEM_RATE_LIMIT (pbem.access.post_refusal)."""
    address = CharField()  # the player's, as inbound.sender: lower-case
    created = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("address", "created"), False),)  # an address's posts of the hour


class Bounce(BaseModel):
    """An address our mail bounces from (pbem.policy.bounces.mails): its score, one point a day
    with a hard bounce (a 5xx at our relay, or a delivery report that came back later),
    forgotten after a quiet month; past the threshold, `bouncing` says since when no mail
    goes to it, until its player writes again or the operator clears it."""
    address = CharField(unique=True)  # lower-case, as the outbox's recipient
    score = IntegerField(default=0)
    last = DateTimeField(default=utcnow)  # the latest bounce counted
    reason = TextField(default="")  # the latest report's or relay's words, for the operator
    bouncing = DateTimeField(null=True)  # past the threshold since; None: mail goes to it


class CounterTotal(BaseModel):
    """A counter of events up to its last roll-up (pbem.store.counters): only ever grows."""
    name = CharField()  # mails_in, refusals, moves, outbox_given_up, ...
    label = CharField(default="")  # the one label's value: an outcome, a reason, a game
    total = BigIntegerField(default=0)

    class Meta:
        indexes = ((("name", "label"), True),)


class CounterEvent(BaseModel):
    """One counted event not yet rolled up into its CounterTotal (pbem.store.counters):
    written in the transaction of what it counts, never updated, so writers never wait
    for each other; read whole, deleted by id."""
    name = CharField()
    label = CharField(default="")
    amount = IntegerField(default=1)


class Backup(BaseModel):
    """A `pbem backup`: when it started (the copy holds this row: what `pbem restore`
    goes back to) and when its copy was whole (pbem.store.backups)."""
    started = DateTimeField(index=True)
    finished = DateTimeField(null=True)
    file = CharField(default="")


class Worker(BaseModel):
    """A `pbem worker` (or `pbem serve`) that runs the scheduler, by its name
    (PBEM_WORKER_NAME): when its scheduler last ticked, and whether its listeners take
    mail (pbem.store.workers)."""
    name = CharField(unique=True)
    process = CharField(default="")  # host:pid (pbem.store.claims)
    started = DateTimeField(default=utcnow)
    last_tick = DateTimeField(default=utcnow)
    listeners = IntegerField(default=0)  # SMTP and LMTP listeners it was set to run
    listening = IntegerField(default=0)  # ... of which took connections at the last tick


_BANNED = Prepared(lambda address, domain: Ban.banning(address, domain).limit(1))


class Annotation(BaseModel):
    """An annotated record of a finished game, published by mail (`annotate 12`): its
    main line is the game's, its variations checked (pbem.annotations)."""
    game = ForeignKeyField(Game, backref="annotations", on_delete="CASCADE")
    author = ForeignKeyField(Player, backref="annotations")
    text = WrittenText()  # the record in pbem's layout (notation/README.md)
    created = DateTimeField(default=utcnow)


class Annotator(BaseModel):
    """An address that may annotate a game it did not play (`pbem admin annotator`)."""
    game = ForeignKeyField(Game, backref="annotators", on_delete="CASCADE")
    email = CharField()  # lower-case

    class Meta:
        indexes = ((("game", "email"), True),)


class Follow(BaseModel):
    """A spectator's game (`follow 12`): the public view is mailed to them once per turn;
    `told` is the move log's ply their last mail reached, `heard` the last comment it
    carried, as a seat's (pbem.policy.conversation)."""
    player = ForeignKeyField(Player, backref="follows", on_delete="CASCADE")
    game = ForeignKeyField(Game, backref="followers", on_delete="CASCADE")
    told = IntegerField(default=0)
    heard = IntegerField(default=0)  # a Comment's id (0044)
    created = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("player", "game"), True),)


class Condition(BaseModel):
    """A player's conditional moves in a game (`if E5 F6 G7 H8`, pbem.commands.conditions):
    the lines still to come, each the opponent's move then the answer, in turn, as the
    engine writes them. Secret until played: nobody else reads this table."""
    # Read by (game, seat)'s index: one of its own on the game would only double it (0018).
    game = ForeignKeyField(Game, backref="conditions", on_delete="CASCADE", index=False)
    seat = IntegerField()
    lines = JSONField(default=list)  # [["E5", "F6", "G7", "H8"], ["E4", "D5"]]
    created = DateTimeField(default=utcnow)

    class Meta:
        indexes = ((("game", "seat"), True),)


# Indexes of the rows that have a value (0018): a row is written into the indexes it
# has a value for, and a mail's rows start without these (an inbound mail's retention
# date comes with its outcome; an outbox row is neither sent nor given up on). What reads
# them names a value: the unsent by `sent IS NULL` (the deliverer, `pbem status`: the
# due ones first), the sent and failed by date (pruning), the retention by date. No
# single-column index doubles the first column of another (a game's seats, moves and
# clocks; a sender's mail; our mail to an address), for each index is written on every
# insert.
Inbound.add_index(Inbound.index(Inbound.kept_until, name="inbound_kept_until")
                  .where(Inbound.kept_until.is_null(False)))
Seat.add_index(Seat.index(Seat.claimed_until, name="seat_claimed")
               .where(Seat.claimed_until.is_null(False)))  # bots' claims only (0032)
Outbox.add_index(Outbox.index(Outbox.failed, Outbox.next_attempt, name="outbox_unsent")
                 .where(Outbox.sent.is_null()))
Outbox.add_index(Outbox.index(Outbox.sent, name="outbox_sent")
                 .where(Outbox.sent.is_null(False)))
Outbox.add_index(Outbox.index(Outbox.failed, name="outbox_failed")
                 .where(Outbox.failed.is_null(False)))
for _counted in (Move, Inbound):  # rows an older pbem wrote mid-upgrade (0040)
    _counted.add_index(_counted.index(_counted.id, name=f"{_counted._meta.table_name}_uncounted")
                       .where(SQL("NOT counted")))
Invitation.add_index(Invitation.index(Invitation.inviter, Invitation.address,
                                     name="invitation_waiting")
                     .where(Invitation.waiting))  # one waiting per (inviter, address)

