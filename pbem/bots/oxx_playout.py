"""6 nimmt! Baron Oxx playouts for the bots' search: the rest of a game played by the
heuristic habit (pbem.bots.heuristic.baronoxx), with a little randomness, on plain lists.

The engine's states are immutable and carry what a table needs (events, preferences,
what was automatic); a playout needs none of it. Here a row is a list of cards with its
bullheads per colour and its penalty kept as it grows, and every seat plays the habit
(or the style the search drew for it, pbem.bots.styles_oxx): the card whose placement
costs least against the rows as they are (ties: the one that leaves its row farthest
from being taken), and when asked the cheapest row. With probability `epsilon` a seat
plays a random hand card, or puts its card in a random row it fits: the search's
opponents are people, not copies of the habit. About 25 times as
fast as the engine's own playouts with the same habit (bench/README.md).

It starts from any state of the engine's base game or Variant 1 (`fits`); Variant 2's
cards under the deck and its end are left to the engine's playouts. The playout ends with
the current game of a match: later games are a new deal, a share alike for every seat.
"""

from __future__ import annotations

import random

from notation.baronoxx import NO_PREF
from pbem.engines.baronoxx.cards import CARDS, MASK
from pbem.engines.baronoxx.state import CHOOSE, DEAL, HAND, PLACE, ROWS
from pbem.engines.core import change

BULLS = [None] + [CARDS[n].bullheads for n in range(1, 111)]
PENALTY = [0] + [CARDS[n].penalty for n in range(1, 111)]
MASKS = [0] + [MASK[n] for n in range(1, 111)]
#: Per card, its colours with bullheads: (colour, bullheads) pairs.
OWN = [()] + [tuple((i, n) for i, n in enumerate(BULLS[c]) if n) for c in range(1, 111)]


def fits(state) -> bool:
    """Whether this playout can start from `state` (the engine's otherwise)."""
    return not state.positive


class Table:
    """The rows as the playout keeps them: cards, bullheads per colour, the most of any
    colour, penalty."""

    __slots__ = ("cards", "bulls", "top", "penalty", "rule1")

    def __init__(self, rows, rule1: bool) -> None:
        self.cards = [list(row) for row in rows]
        self.bulls = [[sum(BULLS[c][i] for c in row) for i in range(6)] for row in rows]
        self.top = [max(bulls) for bulls in self.bulls]
        self.penalty = [sum(PENALTY[c] for c in row) for row in rows]
        self.rule1 = rule1

    def options(self, card: int) -> tuple[str, list[int]]:
        mask = MASKS[card]
        fit = [r for r in range(ROWS) if MASKS[self.cards[r][-1]] & mask]
        return ("row", fit) if fit else ("take", list(range(ROWS)))

    def _highest(self, r: int, card: int) -> int:
        """The most bullheads of one colour in row `r` with `card` added. Only the
        card's own colours can rise above the row's most, so only they are looked at:
        this is the playout's innermost loop."""
        high, bulls = self.top[r], self.bulls[r]
        for i, n in OWN[card]:
            if bulls[i] + n > high:
                high = bulls[i] + n
        return high

    def takes(self, r: int, card: int) -> bool:
        """Whether `card` placed in row `r` takes it (N12: rule 1 or rule 2)."""
        if self.rule1 and len(self.cards[r]) >= 5:
            return True
        return self._highest(r, card) >= 6

    def cost(self, kind: str, r: int, card: int) -> tuple[int, int]:
        """As the habit weighs it: (points taken now, closeness of the row to being
        taken after)."""
        if kind == "take" or (self.rule1 and len(self.cards[r]) >= 5):
            return (self.penalty[r], 0)
        high = self._highest(r, card)
        if high >= 6:
            return (self.penalty[r], 0)
        room = 5 - len(self.cards[r]) if self.rule1 else 6
        return (0, -min(room, 6 - high))

    def cheapest(self, card: int) -> tuple[int, int]:
        """The least `cost` of the card's options: of the rows it fits, else of taking
        the cheapest row."""
        mask, best = MASKS[card], None
        for r in range(ROWS):
            if MASKS[self.cards[r][-1]] & mask:
                found = self.cost("row", r, card)
                if best is None or found < best:
                    best = found
        return best if best is not None else (min(self.penalty), 0)

    def place(self, kind: str, r: int, card: int) -> int:
        """Put `card` in (or take) row `r`; the points its player takes."""
        if kind == "row" and not self.takes(r, card):
            self.cards[r].append(card)
            bulls = self.bulls[r]
            for i, n in OWN[card]:
                bulls[i] += n
                if bulls[i] > self.top[r]:
                    self.top[r] = bulls[i]
            self.penalty[r] += PENALTY[card]
            return 0
        points = self.penalty[r]
        self.cards[r] = [card]
        self.bulls[r] = list(BULLS[card])
        self.top[r] = max(BULLS[card])
        self.penalty[r] = PENALTY[card]
        return points


def as_habit(state, seat: int, rng: random.Random, epsilon: float, styles=None):
    """A sampled world in which the other seats play the habit (or each its style of
    `styles`, per seat, pbem.bots.styles_oxx): a card another seat has already chosen in
    secret is the one its style picks from the hand sampled for it (the sample's is a
    random card of that hand), and their preferences, which the bot cannot see either,
    are none, so their placements are their styles' too. Nothing here reads what the
    seat may not see: the world is already the search's sample."""
    table = Table(state.rows, state.rule1) if state.rows else None
    styles = styles or (HABIT,) * state.players
    live = live_cards(state)
    chosen = tuple(
        None if pick is None else pick if s == seat else
        (styles[s].card(table, list(state.hands[s]), live, state.players, rng, epsilon),
         NO_PREF)
        for s, pick in enumerate(state.chosen))
    queue = tuple((card, s, pref if s == seat else NO_PREF)
                  for card, s, pref in state.queue)
    standing = tuple(pref if s == seat else NO_PREF for s, pref in enumerate(state.standing))
    return change(state, chosen=chosen, queue=queue, standing=standing)


def choose_card(table: Table, hand: list[int], rng: random.Random, epsilon: float) -> int:
    """The habit's card: the one whose placement costs least now."""
    if len(hand) == 1:
        return hand[0]
    if rng.random() < epsilon:
        return hand[rng.randrange(len(hand))]
    best, best_key = hand[0], None
    for card in hand:
        key = table.cheapest(card) + (card,)
        if best_key is None or key < best_key:
            best, best_key = card, key
    return best


def choose_row(table: Table, kind: str, rows: list[int], card: int,
               rng: random.Random, epsilon: float) -> int:
    """The habit's row for a placed card: the cheapest."""
    if len(rows) == 1:
        return rows[0]
    if rng.random() < epsilon:
        return rows[rng.randrange(len(rows))]
    return min(rows, key=lambda r: table.cost(kind, r, card))


class Habit:
    """How a seat of the playout plays: the habit's card and row. The other styles of
    the family (pbem.bots.styles_oxx) are its subclasses; `live` (1 for a card not yet
    public) is for those that count cards."""

    name = "habit"

    def card(self, table: Table, hand: list[int], live, players: int,
             rng: random.Random, epsilon: float) -> int:
        return choose_card(table, hand, rng, epsilon)

    def row(self, table: Table, kind: str, rows: list[int], card: int,
            rng: random.Random, epsilon: float) -> int:
        return choose_row(table, kind, rows, card, rng, epsilon)


HABIT = Habit()


def reward(points: list[int], seat: int) -> float:
    """What a playout is worth to the seat, fewest points winning: half its share of the
    win (a tie shares it), half the share of the others it beats (a tie, half). At ten
    players a seat wins one playout in ten, so the win alone tells the bot's cards apart
    only after thousands; beating the others is what winning is made of."""
    best, mine = min(points), points[seat]
    win = 1.0 / points.count(best) if mine == best else 0.0
    beaten = sum(1.0 if mine < p else 0.5 if mine == p else 0.0 for p in points)
    return 0.5 * win + 0.5 * (beaten - 0.5) / (len(points) - 1)


def live_cards(state) -> bytearray:
    """1 for each card of a sampled world not public yet: the unseen cards and the
    hands (a secret choice is still in its hand)."""
    live = bytearray(111)
    for cards in (state.unseen, *state.hands):
        for card in cards:
            live[card] = 1
    for card, _, _ in state.queue:
        live[card] = 0
    return live


def playout(state, seat: int, rng: random.Random, epsilon: float,
            styles=None) -> tuple[list[int], int]:
    """Play the current game of `state` (a world the search sampled) to its end: each
    seat's points in the match so far, and the decisions played. The unseen cards are
    shuffled first and drawn from the end, so two playouts with the same `rng` seed draw
    the same cards whatever was played before. `styles` (per seat, None for the habit
    at every seat) are how the seats play (pbem.bots.styles_oxx)."""
    styles = styles or (HABIT,) * state.players
    players = state.players
    pool = list(state.unseen)
    rng.shuffle(pool)
    table = Table(state.rows, state.rule1)
    points = [sum(PENALTY[c] for c in pile) for pile in state.piles]
    for game in state.results:
        points = [p + g for p, g in zip(points, game)]
    if state.phase not in (CHOOSE, PLACE, DEAL) or not state.rows:
        return points, 0
    live = live_cards(state)
    hands = [list(hand) for hand in state.hands]
    decks = list(state.unknown)
    played = 0
    queue: list[tuple[int, int]] = []
    if state.phase == CHOOSE:
        chosen = state.chosen
        for s in range(players):
            if hands[s]:
                card = chosen[s][0] if chosen[s] is not None else \
                    styles[s].card(table, hands[s], live, players, rng, epsilon)
                played += chosen[s] is None
                queue.append((card, s))
                hands[s].remove(card)
        queue.sort()
    elif state.phase == PLACE:
        queue = [(card, s) for card, s, _ in state.queue]
    while True:
        for card, _ in queue:
            live[card] = 0
        for card, s in queue:
            kind, rows = table.options(card)
            r = styles[s].row(table, kind, rows, card, rng, epsilon)
            played += len(rows) > 1
            points[s] += table.place(kind, r, card)
        for s in range(players):  # the dealer refills empty hands from the decks
            if not hands[s] and decks[s]:
                count = min(HAND, decks[s])
                drawn = [pool.pop() for _ in range(count)]
                hands[s], decks[s] = drawn, decks[s] - count
        if not any(hands):
            return points, played
        queue = []
        for s in range(players):
            if hands[s]:
                card = styles[s].card(table, hands[s], live, players, rng, epsilon)
                hands[s].remove(card)
                queue.append((card, s))
                played += 1
        queue.sort()
