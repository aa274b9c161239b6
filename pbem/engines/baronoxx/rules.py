"""6 nimmt! Baron Oxx: the rules that change the state, as pure functions (RULINGS.md
N5–N23).

Whom the game waits for is read off the state (`to_act`, `dealer_task`); `apply` plays a
decision and then carries out everything that needs nobody's decision, up to the next
one (the reveal, the placements its players' preferences settle, the end of a round, a
game or the match). The state and its helpers are in pbem.engines.baronoxx.state;
pbem.engines.baronoxx.engine wraps both in the engine contract.
"""

from __future__ import annotations

from pbem.engines.base import CHANCE
from pbem.engines.core import change
from pbem.engines.baronoxx.cards import MASK, penalty, takes_row
from pbem.engines.baronoxx.state import (CHOOSE, DEAL, HAND, OVER, PLACE, REVEAL, OxxState,
                                         new_game, put, without)


# -- whom the game waits for --------------------------------------------------------------

def to_act(state: OxxState) -> frozenset[int]:
    """The dealer while it deals, the seat asked where a card goes, or the seats that
    have not chosen this round's card."""
    if state.phase in (DEAL, REVEAL):
        return frozenset({CHANCE})
    if state.phase == PLACE:
        return frozenset({state.asked})
    if state.phase == CHOOSE:
        return frozenset(s for s, c in enumerate(state.chosen)
                         if c is None and state.hands[s])
    return frozenset()


def dealer_task(state: OxxState) -> tuple:
    """The dealer's move now: the unseen cards left in a deck (`left`, N23), a seat's
    draw (`draw`), or the rows (`rows`)."""
    if state.phase == REVEAL:
        return ("left", next(s for s in range(state.players) if state.unknown[s]))
    for seat in range(state.players):
        if not state.hands[seat] and state.unknown[seat]:
            return ("draw", seat)
    return ("rows",)


# -- playing a decision, and what follows by itself ---------------------------------------

def apply(state: OxxState, seat: int, decision: tuple) -> OxxState:
    kind = decision[0]
    state = change(state, automatic=())
    if kind == "play":
        state = change(state, chosen=put(state.chosen, seat, decision[1:]))
    elif kind == "pref":
        state = change(state, standing=put(state.standing, seat, decision[1]))
    elif kind == "row":
        state = _place(state, decision[1])
    elif kind == "take":
        state = _rule3(state, decision[1])
    else:
        state = _dealt(state, decision)
    return _settle(state)


def _dealt(state: OxxState, decision: tuple) -> OxxState:
    kind, cards = decision[0], decision[-1] if decision[0] != "draw" else decision[2]
    state = change(state, unseen=without(state.unseen, cards))
    if kind == "rows":
        return change(state, rows=tuple((c,) for c in cards))
    seat = decision[1]
    if kind == "left":  # shown at the end: now public cards of that deck
        return change(state, unknown=put(state.unknown, seat, 0), bottoms=put(
            state.bottoms, seat, cards + state.bottoms[seat]))
    bottom = decision[3]
    return change(
        state, hands=put(state.hands, seat, tuple(sorted(cards + bottom))),
        known=put(state.known, seat, bottom),
        unknown=put(state.unknown, seat, state.unknown[seat] - len(cards)),
        bottoms=put(state.bottoms, seat, state.bottoms[seat][len(bottom):]))


def _settle(state: OxxState) -> OxxState:
    """Carry out everything that needs nobody's decision, up to the next one."""
    while True:
        if state.phase == CHOOSE and not to_act(state):
            state = _reveal(state)
        elif state.phase == PLACE and not state.queue:
            state = _end_round(state)
        elif state.phase == PLACE:
            placed = _place_by_itself(state)
            if placed is None:
                return state
            state = placed
        elif state.phase == DEAL and dealer_task(state)[0] == "rows" \
                and state.rows:
            state = _after_deal(state)
        elif state.phase == REVEAL and not any(state.unknown):
            state = _score(state)
        else:
            return state


def _reveal(state: OxxState) -> OxxState:
    plays = sorted((c[0], seat, c[1]) for seat, c in enumerate(state.chosen) if c)
    hands, known = list(state.hands), list(state.known)
    for card, seat, _ in plays:
        hands[seat] = without(hands[seat], (card,))
        known[seat] = without(known[seat], (card,))
    return change(state, phase=PLACE, round=state.round + 1, hands=tuple(hands),
                   known=tuple(known), chosen=(None,) * state.players,
                   queue=tuple(plays), revealed=tuple((c, s) for c, s, _ in plays),
                   events=())


def _place_by_itself(state: OxxState) -> OxxState | None:
    """N11, N13, N20: place the next card unless its player must decide."""
    _, seat, pref = state.queue[0]
    card, kind, options = state.waiting()
    if kind == "row" and len(options) == 1:
        state = change(state, automatic=state.automatic + ((seat, f"row {options[0] + 1}"),))
        return _place(state, options[0])
    if kind == "take" and state.positive:
        bottoms = put(state.bottoms, seat, state.bottoms[seat] + (card,))
        return change(state, bottoms=bottoms, queue=state.queue[1:],
                       automatic=state.automatic + ((seat, f"{card} under the deck"),),
                       events=state.events + ((seat, card, -1, (), "under"),))
    row = preferred(state, kind, options, card, (pref, state.standing[seat]))
    if row is None:
        return None
    state = change(state, automatic=state.automatic + ((seat, f"{kind} {row + 1}"),))
    return _place(state, row) if kind == "row" else _rule3(state, row)


def preferred(state: OxxState, kind: str, options: list[int], card: int,
              prefs) -> int | None:
    """N13: the card's preference, then the standing one: a list, then low/high."""
    for rows, takes, pick in prefs:
        for row in rows if kind == "row" else takes:
            if row in options:
                return row
        if pick:
            costs = {r: cost(state, kind, r, card) for r in options}
            best = (min if pick == "low" else max)(costs.values())
            return min(r for r in options if costs[r] == best)
    return None


def cost(state: OxxState, kind: str, row: int, card: int) -> int:
    """The points a player takes now by placing in (or taking) a row."""
    if kind == "take":
        return penalty(state.rows[row])
    return penalty(state.rows[row]) if takes_row(state.rows[row] + (card,),
                                                 state.rule1) else 0


def _place(state: OxxState, r: int) -> OxxState:
    card, seat, _ = state.queue[0]
    row = state.rows[r] + (card,)
    how = takes_row(row, state.rule1)
    taken = row[:-1] if how else ()
    after = change(state, rows=put(state.rows, r, (card,) if how else row),
                    piles=put(state.piles, seat, state.piles[seat] + taken),
                    queue=state.queue[1:], events=state.events + (
                        (seat, card, r, taken, f"rule {how}" if how else "row"),))
    if not after.hands[seat] and not after.deck_size(seat):
        after = change(after, finished=True)
    return after


def _rule3(state: OxxState, r: int) -> OxxState:
    card, seat, _ = state.queue[0]
    taken = state.rows[r]
    return change(state, rows=put(state.rows, r, (card,)),
                   piles=put(state.piles, seat, state.piles[seat] + taken),
                   queue=state.queue[1:],
                   events=state.events + ((seat, card, r, taken, "rule 3"),))


def _end_round(state: OxxState) -> OxxState:
    """N5, N17, N21: end the game, or refill the empty hands."""
    holding = any(state.hands[s] or state.deck_size(s) for s in range(state.players))
    if (state.positive and state.finished) or not holding:
        return _end_game(state)
    hands, known, bottoms = list(state.hands), list(state.known), list(state.bottoms)
    for seat in range(state.players):  # a deck of public cards draws by itself
        if not hands[seat] and not state.unknown[seat]:
            drawn = bottoms[seat][:HAND]
            hands[seat], known[seat] = tuple(sorted(drawn)), drawn
            bottoms[seat] = bottoms[seat][HAND:]
    return change(state, phase=DEAL, hands=tuple(hands), known=tuple(known),
                   bottoms=tuple(bottoms))


def _after_deal(state: OxxState) -> OxxState:
    if state.positive and _deadlocked(state):
        return _end_game(state)
    return change(state, phase=CHOOSE)


def _deadlocked(state: OxxState) -> bool:
    """N22: nothing anyone holds could ever be placed. Unseen deck cards are not
    named yet, so while there are any, every unseen card counts as one of them: the
    game then ends a few idle rounds later, with the same score."""
    cards = [c for s in range(state.players) for c in state.hands[s] + state.bottoms[s]]
    if any(state.unknown):
        cards += state.unseen
    ends = 0
    for row in state.rows:
        ends |= MASK[row[-1]]
    return not any(MASK[c] & ends for c in cards)


def _end_game(state: OxxState) -> OxxState:
    """The dealer shows the unseen cards left in decks (Variant 2), then scores."""
    return change(state, phase=REVEAL)


def scores(state: OxxState) -> list[int]:
    """N17, N23: this game's points so far (Variant 2: minus the cards still held)."""
    points = [penalty(pile) for pile in state.piles]
    if state.positive:
        points = [p - penalty(state.hands[s] + state.bottoms[s])
                  for s, p in enumerate(points)]
    return points


def _score(state: OxxState) -> OxxState:
    state = change(state, results=state.results + (tuple(scores(state)),))
    if state.game < state.games:
        return new_game(state, state.game + 1)
    return change(state, phase=OVER)


def totals(state: OxxState) -> list[int]:
    """The match's points so far: each game's scores added up (N18)."""
    return [sum(game[s] for game in state.results) for s in range(state.players)]
