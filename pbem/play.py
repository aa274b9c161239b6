"""The one write path for moves: load a game from its snapshot, play, log, save.

Everything that changes a running game — a move by mail, by the CLI, the dealer's moves,
a resignation, an agreed undo — goes through a `Table` inside one transaction
(`pbem.store.transaction`). A table is loaded from the game's snapshot, never by replaying
the game, so a move costs the same at ply 300 as at ply 10. Each applied decision becomes a
`Happening` that says what every seat may read of it; the mail that follows is written
from those and from each seat's view, so nobody learns what they may not see.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from fractions import Fraction

from pbem.bookkeeping import rated
from pbem.engines import get_engine
from pbem.engines.base import CHANCE, Engine, MoveError
from pbem.engines.game import DEALER, Ply, deal_while_due, seed_commitment
from pbem.engines.game import Game as GameRecord
from pbem.store import Comment, Game, Move, Player, Seat
from pbem.store.counters import count
from pbem.store.database import is_postgres
from pbem.store.models import utcnow
from pbem.store.prepared import Creates, Prepared, save_changed
from pbem.bookkeeping import ledger


#: The source of a move a player sent in advance (`if E5 F6`: pbem.commands.conditions),
#: and what the record says of it once the game is over, as ICCF records do.
CONDITIONAL, CONDITIONAL_NOTE = "conditional", "a conditional move, sent in advance"


@dataclass
class Happening:
    """One ply just played: who, its canonical text, and what each seat may read of it."""
    ply: int
    seat: int
    text: str
    visible: dict[int | None, str | None] = field(default_factory=dict)
    reveals: bool = False  # shows the others something, though not its text (a last choice)
    anonymous: bool = False  # the others may not learn that it happened (engine.anonymous)
    # Whom the game waited for just before and just after it: the clocks tell from these
    # whether the seat's wait ended with it or goes on (ledger.renewed).
    waiting_before: frozenset[int] = frozenset()
    waiting_after: frozenset[int] = frozenset()
    revealed: str | None = None  # what it showed everyone (engine.revelation)
    shown: int = 0  # its number as the public may know it while the game runs (Move.shown)
    source: str = ""  # where it came from (Move.source): CONDITIONAL for lines and queues

    def seen_by(self, viewer: int | None) -> str | None:
        return self.visible.get(viewer)


def display_name(name: str) -> str:
    """A player's name for a public page or record. Names are checked when set (no '@'),
    but an address never leaves even if a name was written some other way: keep what is
    before any '@'."""
    return name.split("@", 1)[0]


def outcome_words(names: list[str], shares) -> str:
    """`alice won`, `alice and bob shared the win`, or '' while there is no result;
    `shares`: each seat's share of the win, in seat order (Table.shares, Seat.share)."""
    if not shares or len(shares) != len(names):
        return ""
    winners = [name for name, share in zip(names, shares) if share > 0]
    if not winners:
        return ""
    if len(winners) == 1:
        return f"{winners[0]} won"
    return f"{', '.join(winners[:-1])} and {winners[-1]} shared the win"


def actor_name(names, seat: int, anonymous: bool, viewer: int | None = None,
               over: bool = False) -> str:
    """Who made a ply, as `viewer` (None: the public) may know it. A decision the others
    may not attribute (engine.anonymous: a reaction window's answer, RULINGS G39) is
    "Someone" to everyone but its maker until the game is over. `names`: by seat."""
    if seat == CHANCE:
        return DEALER
    if anonymous and seat != viewer and not over:
        return "Someone"
    return names[seat]


_GAME = Prepared(lambda id: Game.select().where(Game.id == id).limit(1))
_GAME_LOCKED = Prepared(lambda id: Game.select().where(Game.id == id).limit(1).for_update()
                        if is_postgres() else Game.select().where(Game.id == id).limit(1))
_MOVE = Creates(Move)
_SEATS = Prepared(lambda game: Seat.select(Seat, Player).join(Player)
                  .where(Seat.game == game).order_by(Seat.number))


def seats_of(game_id: int) -> list[Seat]:
    """A game's seats in order, each with its player, as `Table.load` reads them."""
    return _SEATS.rows(game_id)


class Table:
    """A game loaded for one write transaction: its row, engine, state and players."""

    def __init__(self, game: Game, engine: Engine, state, seats: list[Seat]):
        self.game, self.engine, self.state, self.seats = game, engine, state, seats
        self.happenings: list[Happening] = []
        self.status_before = game.status  # a start or an end is news for everyone
        self.state_before = state  # states are never changed in place: a turn's end is news
        # Whom the game waited for when this write began (pbem.policy.conversation: whose wait
        # begins with it); what the players said and what they are to be told meanwhile.
        self.waiting_before = (engine.to_act(state) if game.status == "running"
                               else frozenset())
        self.said: list[int] = []  # seats that `say` something
        self.notices: list = []  # pbem.policy.conversation.Notice
        self.clocked = 0  # happenings the clocks have accounted for (ledger.settle)
        # (control or None, {seat: Clock}) as ledger.settle left them: this write's mails
        # show the clock from these instead of reading the rows again for every mail.
        self.clocks: tuple | None = None

    @classmethod
    def load(cls, game_id: int, lock: bool = True, seats: list[Seat] | None = None) -> "Table":
        """The game with `game_id`, locked against other writers until the commit; without
        `lock`, only read (a reminder or a digest shows a game and changes nothing).
        `seats`: its seats (`seats_of`) as read already in this transaction after it
        took the store's write lock, so that nobody can have changed them since (SQLite's
        transactions take it at BEGIN); read here otherwise."""
        game = (_GAME_LOCKED if lock else _GAME).get(int(game_id))
        engine = get_engine(game.engine)
        state = engine.from_json(game.state) if game.state is not None else None
        return cls(game, engine, state, _SEATS.rows(game_id) if seats is None else seats)

    # -- what the server asks --------------------------------------------------------

    @property
    def names(self) -> list[str]:
        return [seat.player.name for seat in self.seats]

    @property
    def to_act(self) -> frozenset[int]:
        if self.game.status != "running":
            return frozenset()
        return self.engine.to_act(self.state)

    @property
    def next_ply(self) -> int:
        return self.game.plies + 1

    @property
    def next_number(self) -> int:
        """The number of the next move as everyone may know it (mail's "move #N", the
        `#N` guard): plies nobody may learn of while the game runs are not counted
        (pbem.export.public)."""
        return self.game.shown_plies + 1

    def seat_of(self, email: str) -> int | None:
        for seat in self.seats:
            if seat.player.email == email.lower():
                return seat.number
        return None

    # -- writing -----------------------------------------------------------------------

    def start(self) -> None:
        """Deal and open the game (all seats have accepted)."""
        options = self.game.options
        self.state = self.engine.start(options, len(self.seats), self.game.seed)
        self.game.status = "running"
        self._deal()
        self._save()

    def play(self, seat: int, text: str, source: str = "") -> str:
        """Play one move text for `seat`; returns its canonical text. Raises MoveError."""
        if self.game.status != "running":
            raise MoveError(f"game #{self.game.id} is {self.game.status}; no moves now.")
        before = self.state
        waiting = self.engine.to_act(before)
        decision = self.engine.parse(before, seat, text, names=self.names)
        canonical = self.engine.notation(before, seat, decision)
        reveals = self.engine.reveals(before, seat, decision)
        self.state = self.engine.apply(before, seat, decision)
        self._log(before, seat, decision, canonical, self.state,
                  labelled=waiting != {seat} or " " in canonical, source=source,
                  reveals=reveals)
        self._deal()
        self._save()
        return canonical

    def resign(self, seat: int, why: str = "") -> None:
        """`seat` gives up (or ran out of time, `why`): two players, the other wins; more,
        the others share the win. The token is the engine's (Onyx's is by colour); the
        shares are the players'."""
        others = Fraction(1, len(self.seats) - 1)
        self._finish(self.engine.resigned_result(self.state, seat),
                     why or f"{self.names[seat]} resigned",
                     [Fraction(0) if s == seat else others for s in range(len(self.seats))])

    def shares(self) -> list[Fraction] | None:
        """Each seat's share of the win once the game is over, in seat order; else None."""
        if self.game.status != "finished":
            return None
        if all(seat.share is not None for seat in self.seats):
            return [Fraction(seat.share) for seat in self.seats]
        outcome = self.engine.outcome(self.state) if self.state is not None else None
        return list(outcome.shares) if outcome else None

    def say(self, seat: int, text: str) -> None:
        """A comment to every player, kept in the record after the current ply."""
        Comment.create(game=self.game, ply=self.game.plies, seat=seat, text=text)
        self.said.append(seat)

    def adjudicate(self, result: str, why: str, shares: list[Fraction]) -> None:
        """The administrator ends the game: `shares` of the win by seat, `result` the
        record's token for them; the record carries it with `why` as its Termination."""
        self._finish(result, why, shares, adjudicated=True)

    def cancel(self, why: str) -> None:
        self.game.status, self.game.termination = "cancelled", why
        self.game.updated = utcnow()
        self.game.save()
        ledger.settle(self)

    def take_back(self, ply: int) -> None:
        """Undo every ply from `ply` on (the players agreed; nothing hidden was shown)."""
        previous = (Move.get((Move.game == self.game) & (Move.ply == ply - 1))
                    if ply > 1 else None)
        self.state = (self.engine.from_json(previous.state) if previous is not None
                      else self.engine.start(self.game.options, len(self.seats), self.game.seed))
        self._keep_said_after(ply)
        Move.delete().where((Move.game == self.game) & (Move.ply >= ply)).execute()
        self.game.plies = ply - 1
        self.game.shown_plies = previous.shown if previous is not None else 0
        self._save()

    def _keep_said_after(self, ply: int) -> None:
        """What was said after a ply that is being taken back stays with the move it
        followed: kept (every player was mailed it, or will be), where the game goes on,
        naming that move as the public knows it, so that the record never shows it
        under the move later played in its place."""
        said = list(Comment.select().where((Comment.game == self.game) & (Comment.ply >= ply)))
        if not said:
            return
        followed = {move.ply: move for move in Move.select(Move.ply, Move.shown, Move.visible)
                    .where((Move.game == self.game) & (Move.ply >= ply))}
        for comment in said:
            if comment.text == ledger.AUTOMATIC_NOTE:  # the move's own mark: it goes too
                comment.delete_instance()
                continue
            move = followed.get(comment.ply)
            public = move.visible.get("public") if move is not None else None
            number = f"move #{move.shown}" if move is not None else "a move"
            comment.text = (f"{comment.text} (said after {number}"
                            f"{f', {public}' if public else ''}, which was taken back)")
            comment.ply = ply - 1
            comment.save()

    def _deal(self) -> None:
        final, dealt = deal_while_due(self.engine, self.state, self.game.seed, self.game.plies,
                                      self.game.generator)
        afters = [deal.before for deal in dealt[1:]] + [final]
        for deal, after in zip(dealt, afters):
            self._log(deal.before, CHANCE, deal.decision, deal.text, after, labelled=True,
                      source="dealer")
        self.state = final

    def _log(self, before, seat: int, decision, text: str, after, labelled: bool,
             source: str, reveals: bool = False) -> None:
        self.game.plies += 1
        visible = {viewer: self.engine.visible_notation(before, seat, decision, viewer)
                   for viewer in [None, *range(len(self.seats))]}
        anonymous = self.engine.anonymous(before, seat, decision)
        if not anonymous:
            self.game.shown_plies += 1
        # What it showed everyone, for the news: a reveal's cards, and what a decision did
        # beyond its own text (Onix: Collections gone to the Hoard at the turn's end).
        revealed = self.engine.revelation(before, seat, decision, after)
        _MOVE(game=self.game, ply=self.game.plies, seat=seat, text=text,
                    labelled=labelled, state=self.engine.to_json(after), source=source,
                    visible={("public" if v is None else str(v)): t for v, t in visible.items()},
                    anonymous=anonymous, revealed=revealed, shown=self.game.shown_plies)
        if seat != CHANCE:  # counted for good: an undo takes the move back, not the count
            count("moves", self.game.engine)
        self.happenings.append(Happening(self.game.plies, seat, text, visible, reveals,
                                         anonymous, self.engine.to_act(before),
                                         self.engine.to_act(after), revealed,
                                         self.game.shown_plies, source or ""))

    def _save(self) -> None:
        self.game.state = self.engine.to_json(self.state)
        self.game.result = self.engine.result_token(self.state)
        if not self.engine.to_act(self.state):
            outcome = self.engine.outcome(self.state)
            self.game.status = "finished"
            self.game.termination = outcome.reason if outcome else ""
            if outcome is not None:
                self._keep_shares(outcome.shares)
        self.game.updated = utcnow()
        save_changed(self.game)  # not the options, seed, creator …
        ledger.settle(self)  # the clocks of the seats whose waiting changed
        if self.game.status == "finished":
            rated.game_ended(self)  # in this transaction: the ratings and the end agree

    def _finish(self, result: str, why: str, shares, adjudicated: bool = False) -> None:
        self.game.status, self.game.result, self.game.termination = "finished", result, why
        self.game.updated = utcnow()
        self.game.save()
        self._keep_shares(shares)
        ledger.settle(self)
        rated.game_ended(self, adjudicated)

    def _keep_shares(self, shares) -> None:
        """Each player's share of the win, on their seat: pages, filters and mail read the
        result from here, so it belongs to the player whatever colour they ended with."""
        for seat, share in zip(self.seats, shares):
            seat.share = str(share)
            Seat.update(share=seat.share).where(Seat.id == seat.id).execute()

    # -- the record ----------------------------------------------------------------------

    def record(self, reveal_seed: bool | None = None):
        """The game's record with every comment: after the ply each follows, and those
        said before the first move at its head (notation/README.md). The end mail, the
        exports and `history` all write this one."""
        record = self.record_game().record(reveal_seed=reveal_seed)
        opening = (Comment.select().where((Comment.game == self.game) & (Comment.ply <= 0))
                   .order_by(Comment.created, Comment.id))
        record.comments = [f"{self.names[c.seat]}: {c.text}" for c in opening] + record.comments
        return record

    def record_game(self) -> GameRecord:
        """The game as a record-writing `Game`, from the move log (for history and the end)."""
        moves = list(Move.select(Move.seat, Move.text, Move.labelled, Move.source, Move.visible)
                     .where(Move.game == self.game).order_by(Move.ply))
        plies = [Ply(move.seat, move.text, move.labelled) for move in moves]
        for move, ply in zip(moves, plies):  # kept from the others until the record
            if move.source == ledger.AUTOMATIC and move.visible.get("public") is None:
                ply.comments.append(f"{self.names[move.seat]}: {ledger.AUTOMATIC_NOTE}")
            elif move.source == CONDITIONAL and self.game.status == "finished":
                ply.comments.append(f"{self.names[move.seat]}: {CONDITIONAL_NOTE}")
        comments = self.game.comments.order_by(Comment.created, Comment.id)
        for comment in comments:
            if 0 < comment.ply <= len(plies):
                plies[comment.ply - 1].comments.append(f"{self.names[comment.seat]}: {comment.text}")
        termination = None
        if self.game.status == "finished" and self.engine.outcome(self.state) is None:
            termination = (self.game.result, self.game.termination)
        return GameRecord.from_log(self.engine, self.game.options, self.names, self.game.seed,
                                   plies, self.state, termination, self.game.generator)


def create_game(engine: Engine, options: dict[str, str], players: list[Player],
                creator: Player | None, accepted: bool, seed: str | None = None,
                is_rated: bool = True) -> Game:
    """A new game row with its seats in the order given, and a fresh secret seed.

    With `accepted`, every seat has accepted (the administrator's `pbem new`); otherwise
    only the creator's, and the others are invited. `is_rated`: False for a friendly game
    (`rated=no`, pbem.bookkeeping.rated.split_rated).
    """
    seed = seed or secrets.token_hex(16)
    game = Game.create(engine=engine.id, options=engine.resolve_options(options), seed=seed,
                       commitment=seed_commitment(seed), creator=creator, rated=is_rated)
    for number, player in enumerate(players):
        answer = "accepted" if accepted or player == creator else None
        Seat.create(game=game, number=number, player=player, answer=answer)
    return game
