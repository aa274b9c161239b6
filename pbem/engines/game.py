"""A game as options + seed + moves: playing it, dealing it, and reading or writing its record.

This is the pure half of the server's write path and the whole of `pbem record check`:
no database and no clock. The dealer's moves (shuffles, draws) are drawn from the game's
secret seed, one fresh generator per ply, so anyone holding the revealed seed can
re-deal the game and compare; a record states every deal explicitly, so a game dealt
with physical cards can be transcribed and checked the same way.
"""

from __future__ import annotations

import copy
import hashlib
import random
from dataclasses import dataclass, field

from notation.record import Move, Record
from notation.seats import record_labels
from pbem.engines import get_engine, UnknownGame
from pbem.engines.base import CHANCE, Engine, MoveError, OptionError
from pbem.engines.dealing import (CURRENT, GENERATORS, PYTHON_RANDOM, TAG as GENERATOR_TAG,
                                  chance_rng, unknown_generator)

DEALER = "Dealer"


class RecordError(ValueError):
    """A record that is not a legal game; names the ply (1-based) and the move text, and
    for a move inside a variation its path: "variation 2 of ply 31, move 3"."""

    def __init__(self, reason: str, ply: int | None = None, text: str | None = None,
                 path: str | None = None):
        super().__init__(reason)
        self.reason, self.ply, self.text, self.path = reason, ply, text, path

    def __str__(self) -> str:
        if self.ply is None:
            return self.reason
        return f"{self.path or f'ply {self.ply}'} ({self.text}): {self.reason}"


@dataclass
class Ply:
    seat: int
    text: str  # canonical notation
    labelled: bool = False  # a record must name the seat (it is not the only one to act)
    comments: list[str] = field(default_factory=list)


def seed_commitment(seed: str) -> str:
    """The SHA-256 published at the start; the seed itself is revealed at the end."""
    return hashlib.sha256(seed.encode()).hexdigest()


@dataclass(frozen=True)
class Deal:
    """One dealer's move: the state it was made in, the decision and its text."""
    before: object
    decision: object
    text: str


def deal_while_due(engine: Engine, state, seed: str, plies: int,
                   generator: str = CURRENT) -> tuple[object, list[Deal]]:
    """The dealer's moves while the game waits for the dealer, after `plies` plies, drawn
    by `generator` (pbem.engines.dealing).

    Returns the state after them and the deals. The server and `Game` both deal here, so
    a game played by mail and its replayed record always agree.
    """
    dealt: list[Deal] = []
    while engine.to_act(state) == {CHANCE}:
        decision = engine.deal(state, chance_rng(seed, plies + len(dealt), generator))
        dealt.append(Deal(state, decision, engine.notation(state, CHANCE, decision)))
        state = engine.apply(state, CHANCE, decision)
    return state, dealt


class Game:
    """One game in play: the engine's state plus the plies that led to it."""

    def __init__(self, engine: Engine, options: dict[str, str], players: list[str],
                 seed: str | None = None, generator: str = CURRENT):
        if not engine.min_players <= len(players) <= engine.max_players:
            counts = (f"{engine.min_players}" if engine.min_players == engine.max_players
                      else f"{engine.min_players} to {engine.max_players}")
            raise OptionError(f"{engine.title} is played by {counts} players, "
                              f"not {len(players)}.")
        self.engine = engine
        self.options = engine.resolve_options(options)
        self.players = list(players)
        self.seed = seed
        self.generator = generator  # how the seed deals (pbem.engines.dealing)
        self.commitment = seed_commitment(seed) if seed is not None else None
        self.state = engine.start(self.options, len(players), seed)
        self.plies: list[Ply] = []
        self.termination: tuple[str, str] | None = None  # (result, why): ended by a player
        self._deal_while_due()

    @classmethod
    def from_log(cls, engine: Engine, options: dict[str, str], players: list[str], seed: str,
                 plies: list[Ply], state, termination: tuple[str, str] | None = None,
                 generator: str = CURRENT) -> "Game":
        """A game as the server keeps it (moves and a snapshot), without replaying it."""
        game = cls.__new__(cls)
        game.engine, game.options, game.players = engine, dict(options), list(players)
        game.seed, game.commitment = seed, seed_commitment(seed)
        game.generator = generator
        game.plies, game.state, game.termination = list(plies), state, termination
        return game

    @property
    def to_act(self) -> frozenset[int]:
        return self.engine.to_act(self.state)

    @property
    def outcome(self):
        return self.engine.outcome(self.state)

    def play(self, seat: int, text: str) -> str:
        """Play one move text for `seat`; returns its canonical text. Raises MoveError."""
        labelled = self.to_act != {seat}
        self.state, canonical = self.engine.play(self.state, seat, text, names=self.players)
        self.plies.append(Ply(seat, canonical, labelled or " " in canonical))
        self._deal_while_due()
        return canonical

    def _deal_while_due(self) -> None:
        if self.seed is not None:
            self.state, dealt = deal_while_due(self.engine, self.state, self.seed,
                                               len(self.plies), self.generator)
            self.plies += [Ply(CHANCE, deal.text, labelled=True) for deal in dealt]

    # -- seat labels in records --------------------------------------------------------

    def label(self, seat: int) -> str:
        """How a record names a seat: its player's name as one word (notation.seats)."""
        if seat == CHANCE:
            return DEALER
        return record_labels(self.players, DEALER)[seat]

    def seat_for(self, label: str) -> int:
        """The seat a record's label names: its label, its number, or (a record written
        before names of several words were labels) its player's name as written."""
        if label.lower() == DEALER.lower():
            return CHANCE
        wanted, seats = label.lower(), range(len(self.players))
        for ways in ([word.lower() for word in record_labels(self.players, DEALER)],
                     [str(seat + 1) for seat in seats],
                     [name.lower() for name in self.players]):
            if wanted in ways:
                return ways.index(wanted)
        raise ValueError(f"{label!r} names no seat (the seats: "
                         f"{', '.join(self.label(s) for s in range(len(self.players)))})")

    # -- records -----------------------------------------------------------------------

    def record(self, reveal_seed: bool | None = None) -> Record:
        """The record so far. The seed is revealed only once the game is over."""
        if reveal_seed is None:
            reveal_seed = not self.to_act or self.termination is not None
        tags = self.engine.record_tags(self.options, self.players)
        if self.commitment is not None and self.engine.dealt:
            tags.append(("SeedSHA256", self.commitment))
            tags.append((GENERATOR_TAG, self.generator))
            if reveal_seed and self.seed is not None:
                tags.append(("Seed", self.seed))
        result = self.engine.result_token(self.state)
        if self.termination is not None:
            result = self.termination[0]
        tags += self.engine.result_tags(self.state, self.players, result)
        if self.termination is not None:
            tags.append(("Termination", self.termination[1]))
        tags.append(("Result", result))
        labels = {CHANCE: DEALER, **dict(enumerate(record_labels(self.players, DEALER)))}
        moves = [Move(ply.text, labels[ply.seat] if ply.labelled else None,
                      list(ply.comments)) for ply in self.plies]
        return Record(tags, moves, result, numbered=self.engine.numbered_record())

    @classmethod
    def from_record(cls, record: Record, plies: int | None = None,
                    variations: bool = True) -> "Game":
        """Replay a record (the first `plies` moves only, if given); raises RecordError.
        Its variations are checked too, unless `variations` is False (a record checked
        already: a published annotation's page replays only the line it shows)."""
        tags = record.tag_dict()
        try:
            engine = get_engine(tags.get("Game", ""))
        except UnknownGame as error:
            raise RecordError(f"the Game tag: {error}") from None
        seed = tags.get("Seed")
        if seed is not None and "SeedSHA256" in tags and seed_commitment(seed) != tags["SeedSHA256"]:
            raise RecordError("the Seed tag does not match the SeedSHA256 commitment "
                              "published at the start")
        # Records written before the tag were all dealt by CPython's random.Random.
        generator = tags.get(GENERATOR_TAG, PYTHON_RANDOM)
        if generator not in GENERATORS:
            raise RecordError(unknown_generator(generator))
        try:
            game = cls(engine, engine.options_from_tags(tags), engine.players_from_tags(tags),
                       generator=generator)
        except OptionError as error:
            raise RecordError(f"the tags: {error}") from None
        for number, move in enumerate(record.moves[:plies], start=1):
            if variations:
                game._check_variations(move, f"ply {number}")
            game._replay(number, move, seed)
        # Only now: with a seed during the replay, the game would deal by itself.
        game.seed, game.commitment = seed, tags.get("SeedSHA256")
        return game

    def _replay(self, number: int, move: Move, seed: str | None) -> None:
        waiting = self.to_act
        if not waiting:
            outcome = self.outcome
            raise RecordError(f"the game is already over ({outcome.reason})"
                              if outcome else "the game is already over", number, move.text)
        if move.actor is not None:
            try:
                seat = self.seat_for(move.actor)
            except ValueError as error:
                raise RecordError(str(error), number, move.text) from None
        elif len(waiting) == 1:
            seat = next(iter(waiting))
        else:
            raise RecordError(f"several seats may move here; write 'Label: {move.text};'",
                              number, move.text)
        if seat == CHANCE and seed is not None:
            expected = self.engine.notation(self.state, CHANCE, self.engine.deal(
                self.state, chance_rng(seed, len(self.plies), self.generator)))
            if expected != move.text:
                raise RecordError(f"the seed deals {expected!r} here, not this", number,
                                  move.text)
        try:
            self.play(seat, move.text)
        except MoveError as error:
            raise RecordError(str(error), number, move.text) from None
        self.plies[-1].comments = list(move.comments)

    # -- variations ----------------------------------------------------------------------

    def _branch(self) -> "Game":
        """A copy to play another line in (states are never changed in place)."""
        branch = copy.copy(self)
        branch.plies = list(self.plies)
        return branch

    def _check_variations(self, move: Move, where: str) -> None:
        """Every variation of `move` is legal from the position before it. A dealer's
        move in a variation is a supposition: legal, but not checked against the seed."""
        for index, variation in enumerate(move.variations, start=1):
            path = (f"variation {index} of {where}" if where.startswith("ply ")
                    else f"{where}, variation {index}")
            self._branch()._play_line(variation.moves, path)

    def _play_line(self, moves: list[Move], path: str, variations: bool = True) -> None:
        for index, move in enumerate(moves, start=1):
            here = f"{path}, move {index}"
            if variations:
                self._check_variations(move, here)
            try:
                self._replay(len(self.plies) + 1, move, None)
            except RecordError as error:
                raise RecordError(error.reason, error.ply, error.text, here) from None

    def check_result(self, record: Record) -> None:
        """Raises RecordError unless the record's Result tag and token tell the truth."""
        actual = self.engine.result_token(self.state)
        tag = record.tag("Result")
        if tag is not None and tag != record.result:
            raise RecordError(f"the Result tag says {tag!r} but the movetext ends with "
                              f"{record.result!r}")
        if actual == "*" and record.result != "*" and record.tag("Termination"):
            return  # ended by a player (a resignation), not by the rules
        if record.result != actual:
            outcome = self.outcome
            why = f" ({outcome.reason})" if outcome else " (the game is not over)"
            raise RecordError(f"the Result is {record.result!r} but the moves give "
                              f"{actual!r}{why}")


def replay_variation(record: Record, ply: int, path: list[int],
                     variations: bool = True) -> Game:
    """The game inside a variation: `path` is (variation, moves) pairs, [2, 3] for the
    third move of the second variation of `ply`, [2, 3, 1, 1] for the first move of the
    first variation of that third move. Raises RecordError (or ValueError for a path
    that leads nowhere, naming what there is). `variations` as Game.from_record: False
    replays only the path's moves."""
    if len(path) % 2 or not path:
        raise ValueError("a variation is named VARIATION/MOVES, such as 2/3 (the third "
                         "move of the second variation), and pairs more for one inside it")
    if not 1 <= ply <= len(record.moves):
        raise ValueError(f"there is no ply {ply}: the record has {len(record.moves)}")
    game = Game.from_record(record, plies=ply - 1, variations=variations)
    game.seed = None  # a variation's deals are suppositions, not the seed's
    move, where = record.moves[ply - 1], f"ply {ply}"
    for depth in range(0, len(path), 2):
        number, count = path[depth], path[depth + 1]
        if not 1 <= number <= len(move.variations):
            raise ValueError(f"{where} has {len(move.variations)} variations, not {number}")
        moves = move.variations[number - 1].moves
        where = (f"variation {number} of {where}" if depth == 0
                 else f"{where}, variation {number}")
        if not 1 <= count <= len(moves):
            raise ValueError(f"{where} has {len(moves)} moves, not {count}")
        last = depth + 2 == len(path)
        game._play_line(moves[:count if last else count - 1], where, variations)
        move, where = moves[count - 1], f"{where}, move {count}"
    return game


def replay(record: Record, plies: int | None = None):
    """The state a record leads to (after its first `plies` moves); raises RecordError."""
    return Game.from_record(record, plies).state


def selfplay(engine: Engine, options: dict[str, str], players: int, seed: str,
             max_plies: int = 100_000, generator: str = CURRENT) -> Game:
    """A game of random legal moves, the same for the same seed (and generator)."""
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan",
             "judy"][:players]
    names += [f"player{n}" for n in range(len(names) + 1, players + 1)]
    game = Game(engine, options, names, seed=f"selfplay/{seed}", generator=generator)
    rng = random.Random(f"moves/{seed}")
    while game.to_act:
        if len(game.plies) >= max_plies:
            raise RuntimeError(f"self-play did not end within {max_plies} plies")
        seat = rng.choice(sorted(game.to_act))
        decision = engine.random_decision(game.state, seat, rng)
        game.play(seat, engine.notation(game.state, seat, decision))
    return game
