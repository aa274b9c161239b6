"""The contract every game engine keeps, and the errors it speaks to players with.

An engine is pure rules: no Flask, no database, no clock, no global random. A game is
options + seed + the ordered list of (seat, move text); replaying them gives the same
state, always. The server knows exactly one turn concept, `to_act(state)`: the set of
seats the game waits for (one seat for turn-based play, several for simultaneous secret
choices, every other seat in a reaction window, `CHANCE` when the dealer must act, and
the empty set once the game is over).

States are opaque to the server. An engine promises that `apply` never changes the state
it is given (it returns a new one), and that `to_json`/`from_json` round-trip a state
exactly, so the server can keep a snapshot instead of replaying the game for every move.

The contract, in the order a game uses it: `resolve_options`, `start`, then while
`to_act` is not empty: `legal` / `parse` a seat's text into a decision, `notation` for
its canonical text, `apply`; `outcome` at the end. `view(state, seat)` is everything a
seat may see, as JSON-able data; `determinize` says what it may not. Records and replay
(`replay(record) -> state`) live in pbem.engines.game; diagrams (`text_diagram`,
`svg_diagram`) are drawn from views only.

Chance is part of the game (as in OpenSpiel): when `to_act` is `{CHANCE}` the dealer
moves. The server produces that move with `deal(state, rng)` from the game's secret seed;
a record states it explicitly, so a game dealt with physical cards can be transcribed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Hashable, Sequence

#: The seat of the dealer: chance outcomes (shuffles, draws) are its moves.
CHANCE = -1

State = Any  # each engine has its own state class
Decision = Hashable  # each engine has its own decision values


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


class Engine:
    """Base class: the defaults that hold for most games. Subclasses fill in the rules."""

    id: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    options: tuple[Option, ...] = ()
    dealt = False  # whether the game has chance moves, so its records carry a seed
    #: Whether a mail's later commands wait while the others answer a window that the
    #: player's own move opened, instead of failing (Gem Forge's reactions, RULINGS G41).
    holds_commands = False

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
        raise NotImplementedError

    def legal(self, state: State, seat: int) -> Sequence[Decision]:
        """Every decision `seat` may make now (empty for the dealer's open-ended deals)."""
        raise NotImplementedError

    def parse(self, state: State, seat: int, text: str) -> Decision:
        """Read a player's move text; raises InvalidMove, IllegalMove or AmbiguousMove."""
        raise NotImplementedError

    def notation(self, state: State, seat: int, decision: Decision) -> str:
        """The canonical text of a legal decision in `state` (the state before it)."""
        raise NotImplementedError

    def apply(self, state: State, seat: int, decision: Decision) -> State:
        """The state after a legal decision; `state` itself is left unchanged."""
        raise NotImplementedError

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

    # -- chance ------------------------------------------------------------------------

    def deal(self, state: State, rng: random.Random) -> Decision:
        """The dealer's move when `to_act` is {CHANCE}, drawn from `rng`."""
        raise NotImplementedError(f"{self.title} has no chance moves")

    # -- defaults most games keep ------------------------------------------------------

    def visible_notation(self, state: State, seat: int, decision: Decision,
                         viewer: int | None) -> str | None:
        """What `viewer` may read of a decision (None: that something happened, not what).

        Perfect-information games show every move to everyone; games with secret choices
        hide them until they are revealed.
        """
        return self.notation(state, seat, decision)

    def anonymous(self, state: State, seat: int, decision: Decision) -> bool:
        """Whether the others may not even learn that `seat` decided something here (a
        reaction window's answer: RULINGS G39). Such a ply is left out of their news, and
        while the game runs the public move list names nobody for it."""
        return False

    def determinize(self, state: State, viewer: int | None, rng: random.Random) -> State:
        """A state `viewer` cannot tell from this one: everything hidden from them redealt.

        The secrecy test compares `view(state, viewer)` with the view of such a state: a
        view that leaks anything hidden changes. Perfect-information games keep the state.
        """
        if self.dealt:
            raise NotImplementedError(f"{self.title} must say what is hidden from a seat")
        return state

    def random_decision(self, state: State, seat: int, rng: random.Random) -> Decision:
        """A uniformly random legal decision, for self-play and playouts."""
        return rng.choice(self.legal(state, seat))

    def default_decision(self, state: State, seat: int) -> Decision | None:
        """The decision the server plays for `seat` when its deadline passes unanswered.

        None means there is no default: the seat must act (the server's reminder and
        forfeit policy applies). Games whose rulings name defaults return them, e.g. a
        reaction window's pass, so a missing answer counts as that decision.
        """
        return None

    def mail_done(self, state: State, seat: int) -> Decision | None:
        """The decision the server plays for `seat` when their mail has no commands left.

        Most games wait for an explicit decision (None). Gem Forge ends a turn by itself
        once both actions are done and nothing must still be cashed (RULINGS G41).
        """
        return None

    def interrupts(self, state: State, actor: int, decision: Decision, waiting: int) -> bool:
        """Whether `actor`'s decision stops the commands `waiting` left held (see
        `holds_commands`): by default, anything `waiting` can see. Gem Forge: a card
        played in the window (RULINGS G41), although window answers are not shown."""
        return self.visible_notation(state, actor, decision, waiting) is not None

    def shown_to_act(self, state: State, viewer: int | None) -> frozenset[int] | None:
        """The seats `viewer` may be told the game waits for; None: that it waits for
        answers, not whose. Usually everyone may know whose turn it is (`to_act`); in
        Gem Forge's reaction windows whom the game asks follows secret standing
        answers, so it stays unsaid (RULINGS G39)."""
        return self.to_act(state)

    def seat_label(self, state: State | None, seat: int) -> str:
        """How the notation and the diagrams name a seat: `P1`, `P2` … (Onyx: its colour).
        Mail writes it beside the player's name: "P2 bob"."""
        return f"P{seat + 1}"

    def identity(self, state: State | None, seat: int) -> str | None:
        """Who `seat` is in this game and what it is after, where that is not plain from
        the seat number (Onyx: "You are White: connect columns A and L."); None if not."""
        return None

    def prompt(self, state: State, seat: int) -> str:
        """One or two lines telling `seat` what to decide now, with examples to type.

        Mail ends with this. The default lists a few legal decisions; engines whose
        decisions need explaining (which card, which row, a target) say more.
        """
        legal = self.legal(state, seat)
        if not legal:
            return "Nothing to decide now."
        step = max(1, len(legal) // 3)
        examples = [self.notation(state, seat, d) for d in list(legal)[::step][:3]]
        return "Your move, for example: " + ", ".join(examples)

    def reveals(self, state: State, seat: int, decision: Decision) -> bool:
        """Whether playing `decision` shows anyone something they did not know.

        A move that reveals cannot be taken back (`undo`): the others have seen it. The
        default is safe: every move of a game with hidden information reveals.
        """
        return self.dealt

    def revelation(self, before: State, seat: int, decision: Decision,
                   after: State) -> str | None:
        """What a revealing decision (`reveals`) showed everyone, in words for the news
        ("Round 3 revealed: 12 (P2), 40 (P1)"), where its own text shows the others
        nothing; None where there is nothing to add."""
        return None

    def position(self, state: State) -> dict:
        """The position in a few public keys, for `pbem record show --json`."""
        view = self.view(state, None)
        outcome = self.outcome(state)
        view.setdefault("to_move", sorted(self.to_act(state)) or None)
        view.setdefault("winner", sorted(outcome.winners) if outcome else None)
        return view

    def split_line(self, text: str) -> list[str]:
        """The decisions one line of a player's mail holds, in the order to play them.

        The server plays the parts of each command line in order until one fails. Most
        games take one decision per line; a game whose turn has several decisions may
        let a player write them on one line (Onix: separated by commas).
        """
        return [text]

    def play(self, state: State, seat: int, text: str) -> tuple[State, str]:
        """Parse and apply one move text; returns the new state and the canonical text."""
        decision = self.parse(state, seat, text)
        canonical = self.notation(state, seat, decision)
        return self.apply(state, seat, decision), canonical

    # -- records -----------------------------------------------------------------------

    def record_tags(self, options: dict[str, str], players: Sequence[str]) -> list[tuple[str, str]]:
        """The tags naming the game, its options and its players, in the order written."""
        tags = [("Game", self.title)]
        tags += [(option.name.capitalize(), options[option.name]) for option in self.options]
        tags += [(f"Seat{seat + 1}", name) for seat, name in enumerate(players)]
        return tags

    def options_from_tags(self, tags: dict[str, str]) -> dict[str, str]:
        return {option.name: tags[option.name.capitalize()]
                for option in self.options if option.name.capitalize() in tags}

    def players_from_tags(self, tags: dict[str, str]) -> list[str]:
        players = []
        while f"Seat{len(players) + 1}" in tags:
            players.append(tags[f"Seat{len(players) + 1}"])
        return players

    def resigned_result(self, state: State, seat: int) -> str:
        """The result token when `seat` gives up (or runs out of time): with two players
        the other wins; with more, the others share the win."""
        players = state.players
        share = str(Fraction(1, players - 1))
        return "-".join("0" if other == seat else share for other in range(players))

    def result_token(self, state: State) -> str:
        """PGN-style: each seat's share of the win in seat order, `*` while running."""
        outcome = self.outcome(state)
        if outcome is None:
            return "*"
        return "-".join(str(share) for share in outcome.shares)

    def numbered_record(self) -> bool:
        """Whether the movetext numbers pairs of plies (two seats that alternate)."""
        return False

    # -- diagrams ----------------------------------------------------------------------

    def text_diagram(self, view: dict) -> str:
        raise NotImplementedError

    def svg_diagram(self, view: dict, size: int = 480, caption: str | None = None) -> str:
        raise NotImplementedError
