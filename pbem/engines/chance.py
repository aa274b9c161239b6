"""Chance and secrecy in the engine contract: the dealer's moves and what a seat may not
know. A perfect-information game without chance keeps every default here.

Chance is part of the game (as in OpenSpiel): when `to_act` is `{CHANCE}` the dealer
moves. The server produces that move with `deal(state, rng)` from the game's secret
seed; a record states it explicitly, so a game dealt with physical cards can be
transcribed. What each seat may read of a decision is `visible_notation`; what it may
not know of a state is said by `determinize`, which the secrecy test uses.
"""

from __future__ import annotations

import random

from pbem.engines.core import Decision, State


class ChanceAndSecrecy:
    """Defaults for a game that deals nothing and hides nothing."""

    dealt = False  # whether the game has chance moves, so its records carry a seed

    def deal(self, state: State, rng: random.Random) -> Decision:
        """The dealer's move when `to_act` is {CHANCE}, drawn from `rng` with only
        `randrange(n)`, `shuffle(list)` and `sample(population, k)`: the server's `rng` is
        the documented HMAC-SHA256 stream (pbem.engines.dealing), which anyone can
        re-deal in another language, or CPython's random.Random for older games."""
        raise NotImplementedError(f"{self.title} has no chance moves")

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
