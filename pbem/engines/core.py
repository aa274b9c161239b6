"""The rules core of the engine contract: what every game must say, and nothing else.

A game is options + seed + the ordered list of (seat, move text). An engine author
writes these methods first; the optional concerns, each with working defaults, are in
pbem.engines.chance (chance and secrecy), pbem.engines.correspondence (play by mail)
and pbem.engines.records (records and pictures). pbem.engines.base puts them together
as `Engine` and says the whole contract in one place.

This module also holds what the contract speaks in: `CHANCE`, the errors a player reads
(`InvalidMove`, `IllegalMove`, `AmbiguousMove`), `Option` and `Outcome`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Hashable, Sequence

#: The seat of the dealer: chance outcomes (shuffles, draws) are its moves.
CHANCE = -1

State = Any  # each engine has its own state class
Decision = Hashable  # each engine has its own decision values


def change(state: State, **fields) -> State:
    """`dataclasses.replace` without re-running __init__: a copy of a state (a dataclass,
    frozen or not, without slots) with some fields new. replace() cost more than the
    rules themselves: 12-30 µs a call, several a decision, against 2-3 µs."""
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new.__dict__.update(fields)
    return new


class MoveError(Exception):
    """A move text a player sent could not be played; the message is written for them."""


class InvalidMove(MoveError):
    """The text is not notation for any decision of this game."""


class IllegalMove(MoveError):
    """The text is notation, but that decision is not allowed now."""


class AmbiguousMove(MoveError):
    """The text could mean several legal decisions; the message says which."""


class OptionError(ValueError):
    """A game option is unknown or has a value the game does not allow."""


@dataclass(frozen=True)
class Option:
    """One game option, written `name=value` in the CLI, in mail and on the web."""

    name: str
    default: str
    help: str
    choices: tuple[str, ...] = ()
    check: Callable[[str], str | None] | None = None  # returns a complaint or None

    def resolve(self, value: str) -> str:
        value = value.strip().lower()
        if self.choices and value not in self.choices:
            raise OptionError(f"{self.name}={value} is not allowed: choose one of "
                              f"{', '.join(self.choices)}.")
        if self.check is not None:
            complaint = self.check(value)
            if complaint:
                raise OptionError(f"{self.name}={value}: {complaint}")
        return value


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: each seat's share of the win, and why, in words."""

    shares: tuple[Fraction, ...]
    reason: str

    @property
    def winners(self) -> frozenset[int]:
        return frozenset(seat for seat, share in enumerate(self.shares) if share > 0)

    @classmethod
    def shared_by(cls, winners: Sequence[int], players: int, reason: str) -> "Outcome":
        share = Fraction(1, len(winners))
        return cls(tuple(share if seat in winners else Fraction(0)
                         for seat in range(players)), reason)


_END_PUNCTUATION = re.compile(r"[\s.!?;:,]+$")


def move_text(text: str) -> str:
    """A player's text without the full stop or other trailing punctuation that no
    game's notation ends with (`Pass.`, `take!`): every engine's `parse` reads this."""
    return _END_PUNCTUATION.sub("", text.strip())


class GameRules:
    """The small core: options, the start, whom the game waits for, the decisions and
    their text, applying them, the end, what a seat sees, snapshots."""

    id: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    options: tuple[Option, ...] = ()

    # -- options -----------------------------------------------------------------------

    def resolve_options(self, given: dict[str, str] | None = None) -> dict[str, str]:
        """All options with defaults filled in, values checked; raises OptionError."""
        given = {k.strip().lower(): str(v) for k, v in (given or {}).items()}
        known = {option.name: option for option in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise OptionError(f"{self.title} has no option {unknown[0]!r} "
                              f"(its options: {names}).")
        resolved = {name: option.resolve(given.get(name, option.default))
                    for name, option in known.items()}
        self.check_options(resolved)
        return resolved

    def check_options(self, options: dict[str, str]) -> None:
        """Checks that involve several options together; raise OptionError."""

    # -- the game ----------------------------------------------------------------------

    def start(self, options: dict[str, str], players: int, seed: str | None = None) -> State:
        raise NotImplementedError

    def to_act(self, state: State) -> frozenset[int]:
        """The seats the game waits for; {CHANCE} for the dealer; empty once over."""
        raise NotImplementedError

    def legal(self, state: State, seat: int) -> Sequence[Decision]:
        """Every real decision `seat` may make now: for a seat in `to_act`, what the game
        waits for; for any seat, what the rulings allow at any time (standing answers,
        replacing a secret choice before the reveal). Nothing that changes nothing."""
        raise NotImplementedError

    def offered(self, state: State, seat: int) -> list[Decision]:
        """The seat's decisions one of each, as a list a person (or a bot) picks from:
        `legal` itself, unless the engine's list is too long for that (6 nimmt!'s
        standing preferences multiply each card by ~320,000); the rest are written."""
        return list(self.legal(state, seat))

    def parse(self, state: State, seat: int, text: str,
              names: Sequence[str] | None = None) -> Decision:
        """Read a player's move text; raises InvalidMove, IllegalMove or AmbiguousMove.

        `names`, the players' display names by seat, lets a text name a seat the way
        people do (`steal bob 2`); the canonical text never depends on them. Besides
        a legal decision, a game may accept the text of a step it made by itself
        (`automatic`) sent again by its player: such an echo is not in `legal`, and
        `apply` lets it change nothing a player can see (RULINGS X24, X13a).
        """
        raise NotImplementedError

    def notation(self, state: State, seat: int, decision: Decision) -> str:
        """The canonical text of a legal decision in `state` (the state before it)."""
        raise NotImplementedError

    def apply(self, state: State, seat: int, decision: Decision) -> State:
        """The state after a legal decision; `state` itself is left unchanged."""
        raise NotImplementedError

    def automatic(self, state: State) -> list[tuple[int, str]]:
        """What the last `apply` did by itself after the decision it was given: forced
        steps, an ended turn, a tile cashed for its owner, as (seat, text), in order,
        the text in the game's notation where it has one. Public; every view shows it
        under the key `automatic`."""
        return []

    def outcome(self, state: State) -> Outcome | None:
        """None while the game runs."""
        raise NotImplementedError

    def view(self, state: State, seat: int | None) -> dict:
        """JSON-able data holding only what `seat` may know (None: the public)."""
        raise NotImplementedError

    def to_json(self, state: State) -> dict:
        raise NotImplementedError

    def from_json(self, data: dict) -> State:
        raise NotImplementedError

    def play(self, state: State, seat: int, text: str,
             names: Sequence[str] | None = None) -> tuple[State, str]:
        """Parse and apply one move text; returns the new state and the canonical text."""
        decision = self.parse(state, seat, text, names=names)
        canonical = self.notation(state, seat, decision)
        return self.apply(state, seat, decision), canonical
