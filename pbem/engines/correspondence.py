"""Play by correspondence in the engine contract: what the server needs to run a game by
mail, with the defaults that hold for a game of plain alternating turns.

Mail ends with a `prompt` (and says who a seat is, `identity`); a line of a mail may hold
several decisions (`split_line`);
a mail may end a turn by itself (`mail_done`) or keep later commands while others answer
(`holds_commands`, `interrupts`); a deadline plays `default_decision`; whom the others
may be told the game waits for is `shown_to_act`; an `undo` is refused after a decision
that `reveals` something, and the news says what it showed (`revelation`).
"""

from __future__ import annotations

import re
from typing import Sequence

from pbem.engines.core import Decision, State


def split_before(text: str, verbs: Sequence[str]) -> list[str]:
    """`text` cut at each comma followed by one of `verbs` as a whole word: the commas
    between decisions (`row 4, play 49`), not those inside one (`row 2,4`, `cash T18,
    T19`, `drop take-from-cart, mine`)."""
    pattern = re.compile(r",\s*(?=(?:%s)(?:\s|$))" % "|".join(map(re.escape, verbs)),
                         re.IGNORECASE)
    return [part.strip() for part in pattern.split(text) if part.strip()] or [text]


class Correspondence:
    """Defaults for a game whose every decision is asked for, one a line."""

    #: The words a decision starts with, where commas may stand inside one decision
    #: (split_line); None: a notation without commas, cut at every comma.
    decision_words: tuple[str, ...] | None = None

    #: Whether a mail's later commands wait while the others answer a window that the
    #: player's own move opened, instead of failing (Gem Forge's reactions, RULINGS G41).
    holds_commands = False
    #: Whether a player may answer the likely replies in advance (`if E5 F6`: pbem.commands
    #: .conditions): a game of two seats taking turns of one decision each, in turn, with
    #: nothing hidden, so a line can be checked against the position it will meet (Onyx).
    conditional_moves = False
    #: Whether a seat may queue its secret choices for the rounds to come (`next 23 45`:
    #: pbem.commands.queued): every round asks every seat in secret for one card of its
    #: hand, so a card queued for a round can be played the moment that round asks (6
    #: nimmt!). Such an engine says which round a seat chooses for next (`next_choice`)
    #: and what a queued card plays (`queued_move`).
    queued_choices = False

    def prompt(self, state: State, seat: int, names: Sequence[str] | None = None) -> str:
        """One or two lines telling `seat` what to decide now, with examples to type.

        Mail ends with this. The default lists a few legal decisions; engines whose
        decisions need explaining (which card, which row, a target) say more. `names`
        (display names by seat) lets the examples name players as people do.
        """
        legal = self.legal(state, seat)
        if not legal:
            return "Nothing to decide now."
        step = max(1, len(legal) // 3)
        examples = [self.notation(state, seat, d) for d in list(legal)[::step][:3]]
        return "Your move, for example: " + ", ".join(examples)

    def next_choice(self, state: State, seat: int) -> tuple[list[int], bool] | None:
        """For `queued_choices`: the round whose secret choice `seat` makes next, as a key
        that grows over a whole match (6 nimmt!: [game, round]), and whether the game
        waits for that choice now; None when the seat has no choice to come."""
        return None

    def queued_move(self, state: State, seat: int, text: str) -> str:
        """For `queued_choices`: the canonical move that plays the choice a player queues
        as `text` (6 nimmt!: `23` or `23 row 2 low` is `play 23 row 2 low`). Raises
        MoveError, in the player's words, where `seat` cannot queue it now (a card not in
        its hand, or its choice for the round being chosen)."""
        raise NotImplementedError(f"{type(self).__name__} queues no choices")

    def identity(self, state: State | None, seat: int) -> str | None:
        """Who `seat` is in this game and what it is after, where that is not plain from
        the seat number (Onyx: "You are White: connect columns A and L."); None if not."""
        return None

    def split_line(self, text: str) -> list[str]:
        """The decisions one line of a player's mail holds, in the order to play them.

        The server plays the parts of each command line in order until one fails. In
        every game a line may hold several decisions separated by commas: at every comma
        where the notation has none inside a decision (Onyx), else at a comma before a
        word that starts a decision (`decision_words`: 6 nimmt!'s `row 4, play 49`).
        """
        if self.decision_words is None:
            return [part.strip() for part in text.split(",") if part.strip()] or [text]
        return split_before(text, self.decision_words)

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

    def public_turn(self, state: State):
        """Which public turn the game is in, as a spectator counts them: a value that
        changes exactly when one ends (Gem Forge: the active seat; 6 nimmt!: the rounds
        carried out, so a round of secret choices, its reveal and its row questions are
        one). Followers get a mail when it changes (pbem.policy.conversation). None:
        every public decision after which its maker waits no more ends a turn (Onyx,
        Onix)."""
        return None

    def revelation(self, before: State, seat: int, decision: Decision,
                   after: State) -> str | None:
        """What a revealing decision (`reveals`) showed everyone, in words for the news
        ("Round 3 revealed: 12 (P2), 40 (P1)"), where its own text shows the others
        nothing; None where there is nothing to add."""
        return None

    def reveals(self, state: State, seat: int, decision: Decision) -> bool:
        """Whether playing `decision` shows anyone something they did not know.

        A move that reveals cannot be taken back (`undo`): the others have seen it. The
        default is safe: every move of a game with hidden information reveals.
        """
        return self.dealt
