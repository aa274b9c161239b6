"""What the Baron Oxx engine says to a player: why a decision is refused, what to do now.

Each function takes the engine as its first argument (as pbem.engines.onix.messages
does) so that costs come from the rules themselves; this module imports nothing from
pbem.engines.baronoxx.engine, which imports it.
"""

from __future__ import annotations

from notation.baronoxx import decision_text
from pbem.engines.baronoxx.cards import CARDS
from pbem.engines.baronoxx.state import CHOOSE, OVER, OxxState


def why_not(engine, state: OxxState, seat: int, decision: tuple) -> str:
    """Why a well-written player's decision is not legal now, with what is."""
    kind = decision[0]
    if kind in ("play", "pref") and state.positive and decision[-1][1]:
        rows, _, pick = decision[-1]
        example = decision_text(decision[:-1] + ((rows, (), pick),))
        return ("In Variant 2 a card that fits no row goes under your deck and takes no "
                "row (Rule 3 is replaced), so a take list never applies: leave it out, "
                f"e.g. {'pref row 1 high' if example == 'pref none' else example}.")
    if kind == "play":
        if state.phase != CHOOSE:
            return ("The cards of this round are revealed; you choose your next card "
                    "when every card is placed." + _hint(engine, state, seat))
        hand = " ".join(map(str, state.hands[seat]))
        return f"You have no {decision[1]}: your hand is {hand}."
    if seat != state.asked:
        return "Nobody asked you where a card goes now." + _hint(engine, state, seat)
    card, asked, options = state.waiting()
    if kind == "take" and asked == "row":
        return (f"Your {card} fits {rows_words(options)}, so you take no row by choice "
                f"(Rule 3 is for a card that fits no row).{_hint(engine, state, seat)}")
    if kind == "row" and asked == "take":
        return (f"Your {card} ({CARDS[card].face}) fits no row: Rule 3, take a row into "
                f"your Oxx pile with take 1 to take 5.")
    row = state.rows[decision[1]]
    return (f"Row {decision[1] + 1} ends with {row[-1]} ({CARDS[row[-1]].face}), which "
            f"shares no colour with {card} ({CARDS[card].face}).{_hint(engine, state, seat)}")


def _hint(engine, state: OxxState, seat: int) -> str:
    return " " + prompt(engine, state, seat)


def rows_words(rows: list[int]) -> str:
    """`row 2`, `rows 1, 3 and 4`: rows as players number them."""
    names = [str(r + 1) for r in rows]
    return ("row " + names[0] if len(names) == 1
            else "rows " + ", ".join(names[:-1]) + " and " + names[-1])


def task_words(task: tuple) -> str:
    """The dealer's move that the game waits for (a task of `BaronOxx._dealer_task`)."""
    if task[0] == "rows":
        return "rows: the five row starters"
    seat = task[1] + 1
    return (f"draw #{seat}: the cards seat {seat} draws" if task[0] == "draw"
            else f"left #{seat}: the unseen cards left in seat {seat}'s deck")


def prompt(engine, state: OxxState, seat: int) -> str:
    """One or two lines: what `seat` decides now, with texts to copy."""
    if state.phase == OVER:
        return "The match is over."
    if seat == state.asked:
        card, kind, options = state.waiting()
        choices = ", ".join(f"{kind} {r + 1} ({engine.cost(state, kind, r, card)} pts)"
                            for r in options)
        what = (f"fits {rows_words(options)}" if kind == "row"
                else "fits no row: Rule 3, you take a row")
        return f"Your {card} {what}. Write one of: {choices}."
    if state.phase == CHOOSE and state.hands[seat]:
        low, high = state.hands[seat][0], state.hands[seat][-1]
        if state.chosen[seat] is not None:
            chosen = decision_text(("play",) + state.chosen[seat])
            return (f"You chose: {chosen}. Until the last card is in you may replace "
                    f"it, e.g. play {high}.")
        return (f"Choose a card in secret: play {low}, or with a preference for where "
                f"it goes: play {high} {_example_pref(state)}.")
    pick = "high" if state.positive else "low"
    return f"Nothing to decide now; a standing preference can be set: pref row 1 {pick}."


def _example_pref(state: OxxState) -> str:
    """A preference as the variant uses it: Variant 2 has no Rule 3 takes (N20) and its
    deadline default is HIGH (N14)."""
    return "row 2 3 high" if state.positive else "row 2 3 take 5 low"
