"""What the Onix engine says to a player: why a decision is refused, and what to do now.

Every message names what was read, why it fails in the rulebook's words, and what would
work, with decisions copied from the legal ones (so an example is never wrong). Given the
players' display names, examples and messages name players by name, as people do.
"""

from __future__ import annotations

from notation.onix import (GEMS, NEW, PILES, OnixText, card_text, effect_of,
                           format_decision, gem_name, seat_text)
from pbem.engines.onix.state import (DEAL, EFFECT, OVER, PLACE, TAKE, OnixState, chains,
                                     gems_in)

STEPS = {TAKE: "take a Gem", PLACE: "place the cards taken", EFFECT: "apply an effect"}
# What a whole turn looks like, first in every prompt of one: a player who sends one
# decision a mail learns from the first what the others will ask.
WHOLE_TURN = ("a turn is: take a Gem, place each card you took, apply the Gem's effect; "
              "a whole turn may go on one line, the decisions separated by commas")


def examples(engine, state: OnixState, count: int = 3, names=None) -> str:
    found = engine.choices(state)
    step = max(1, len(found) // count)
    return ", ".join(format_decision(d, names) for d in found[::step][:count])


def _left_to_place(state: OnixState) -> str:
    return ", ".join(f"{PILES[p]} ({card_text(c)})" for p, c in state.retrieved)


def _gem_word(gem: int) -> str:
    return f"{gem_name(gem).capitalize()} ({GEMS[gem.bit_length() - 1]})"


def prompt(engine, state: OnixState, seat: int, names=None) -> str:
    """One or two lines: what `seat` decides now, with texts to copy."""
    if state.phase == OVER:
        return f"The game is over: {state.reason}."
    if state.phase == DEAL:
        return "Nothing to decide yet: the cards are being dealt."
    if seat != state.turn:
        return (f"Nothing to decide now: {seat_text(state.turn, names)} is to "
                f"{STEPS[state.phase]}.")
    if state.phase == TAKE:
        return (f"Your turn ({WHOLE_TURN}). Choose a visible Gem and a pile, for example "
                f"{examples(engine, state, names=names)}.")
    if state.phase == PLACE:
        return (f"Your turn goes on ({WHOLE_TURN}). Place the cards you took: "
                f"{_left_to_place(state)}, each on a Collection or a new one, for example "
                f"{examples(engine, state, names=names)}.")
    effect = effect_of(state.gem)
    return (f"Your turn goes on ({WHOLE_TURN}). Apply the {effect.capitalize()} effect: "
            f"for example {examples(engine, state, names=names)}.")


def contrary_placement(text: str, pile: int, placed: list[tuple[int, int]]) -> str:
    """X13a: a line places a card the server placed by itself, with another meaning.
    `placed`: (pile, Collection number) of each card placed by itself, in order."""
    got = " and ".join(f"the card from {PILES[p]} became Collection {number}"
                       for p, number in placed)
    number = next(n for p, n in placed if p == pile)
    return (f"{text!r}: your cards could only start new Collections, so they were placed "
            f"at once, in the chain's clockwise order: {got}. {text!r} says otherwise, so "
            f"it is not played, nor anything after it (X13a); write place {PILES[pile]} -> "
            f"{number}, or leave the placements out.")


def why_not(engine, state: OnixState, seat: int, text: str, written: OnixText,
            names=None) -> str:
    """The message of an IllegalMove for a text that fits no legal decision."""
    if state.phase == OVER:
        return f"The game is over: {state.reason}."
    if state.phase == DEAL:
        return "The cards are not dealt yet."
    if seat != state.turn:
        made = [text for s, text, _ in state.autos if s == seat]
        already = (f" (The server made your forced steps itself: {', '.join(made)}.)"
                   if made else "")
        return (f"It is not your turn: the game waits for {seat_text(state.turn, names)} to "
                f"{STEPS[state.phase]}.{already}")
    reason = _reason(engine, state, seat, written) or "that is not possible now"
    return (f"{text!r}: {reason}. You could write, for example: "
            f"{examples(engine, state, names=names)}.")


def _reason(engine, state: OnixState, seat: int, written: OnixText) -> str | None:
    expected = {TAKE: "take", PLACE: "place"}.get(state.phase) or effect_of(state.gem)
    if written.verb != expected:
        if state.phase == TAKE:
            return "your turn starts by taking a visible Gem from the piles"
        if state.phase == PLACE:
            return f"first place the cards you took ({_left_to_place(state)})"
        return (f"you chose the {_gem_word(state.gem)}, so its effect is "
                f"{expected.capitalize()}, once")
    if written.verb == "take":
        return _take_reason(state, written)
    if written.verb == "place":
        found = [c for p, c in state.retrieved if p == written.pile]
        if written.pile is not None and not found:
            return (f"you took no card from pile {PILES[written.pile]} this turn; still "
                    f"to place: {_left_to_place(state)}")
        return _target_reason(state, seat, found[0] if found else None, written.target)
    if written.verb in ("draw", "hoard"):
        if written.pile is not None and not state.piles[written.pile]:
            return f"pile {PILES[written.pile]} is empty"
        card = state.piles[written.pile][-1] if written.pile is not None else None
        return _target_reason(state, seat, card, written.target)
    return _collection_reason(state, seat, written)


def _take_reason(state: OnixState, written: OnixText) -> str | None:
    gem = _gem_word(written.gem)
    tops = " ".join(f"{PILES[p]}={card_text(pile[-1])}"
                    for p, pile in enumerate(state.piles) if pile)
    runs = chains(state, written.gem)
    if not runs:
        return f"no top card shows a {gem} now (the tops: {tops})"
    if written.pile is not None and not state.piles[written.pile]:
        return f"pile {PILES[written.pile]} is empty"
    if written.pile is not None:
        return (f"the top card of pile {PILES[written.pile]} is "
                f"{card_text(state.piles[written.pile][-1])}, which shows no {gem}")
    options = " or ".join(f"take {GEMS[written.gem.bit_length() - 1]} {PILES[run[0]]}"
                          for run in runs)
    return f"the {gem} can be taken in more than one place: say which, {options}"


def _target_reason(state: OnixState, seat: int, card: int | None,
                   target: int | str | None) -> str | None:
    own = dict(state.collections[seat])
    if target is None or target == NEW:
        return None
    if target not in own:
        numbers = ", ".join(map(str, own)) or "none"
        return (f"you have no Collection {target} (yours: {numbers}; a new one would be "
                f"{state.next_number[seat]}, or write new)")
    if card is not None and gems_in(own[target]) & card:
        clash = [gem_name(1 << i) for i in range(4) if (gems_in(own[target]) & card) >> i & 1]
        return (f"Collection {target} already has a {' and a '.join(clash)} (its cards: "
                f"{' '.join(map(card_text, own[target]))}), and a Collection never holds "
                f"the same Gem twice")
    return None


def _collection_reason(state: OnixState, seat: int, written: OnixText) -> str | None:
    victim = written.seat
    if victim is not None and not 0 <= victim < state.players:
        return f"there is no {seat_text(victim)}: the players are P1–P{state.players}"
    if victim == seat:
        return f"you {written.verb} an opponent's card, never your own"
    if victim is not None and written.collection is not None:
        theirs = dict(state.collections[victim])
        if written.collection not in theirs:
            numbers = ", ".join(map(str, theirs)) or "none"
            return (f"{seat_text(victim)} has no Collection {written.collection} "
                    f"(theirs: {numbers})")
        return _target_reason(state, seat, theirs[written.collection][-1], written.target)
    return None


def hoarded(before: OnixState, seat: int, after: OnixState) -> str | None:
    """What the end of a turn did beyond the decision's own text (X20): the Collections
    completed went to the Hoard, "P1's Collection 4 is complete and goes to the Hoard
    (Hoard 0 -> 3 cards)"; None where no Collection of the seat's went there."""
    old, new = len(before.hoards[seat]), len(after.hoards[seat])
    gone = sorted({n for n, _ in before.collections[seat]}
                  - {n for n, _ in after.collections[seat]})
    if new <= old or after.turn == seat and after.phase != OVER or not gone:
        return None
    which = (f"Collection {gone[0]} is complete and goes" if len(gone) == 1
             else f"Collections {', '.join(map(str, gone))} are complete and go")
    return f"{seat_text(seat)}'s {which} to the Hoard (Hoard {old} -> {new} cards)."
