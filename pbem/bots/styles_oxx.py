"""6 nimmt! Baron Oxx's family of opponent styles, on the playouts' fast table.

Each style is a short rule a person might play by, beside the habit (the cheapest
placement now, pbem.bots.heuristic):

- `dumper`: dump the highest card that fits a row without taking it (else the habit);
- `keeper`: keep the lowest card back, and play it to take a row on purpose (Rule 3) when
  it fits no row and some row costs at most `TAKE_LIMIT` points (else the habit among
  the other cards);
- `counter`: count the cards not seen yet (every card not in a row, an Oxx pile or the
  own hand): a card placed safely now counts as taking its row when the others' cards
  expected to go there before it (lower numbers that fit the row's end) fill its room;
- `careless`: the habit, with a random card or row one time in three.

Every style chooses its row as the habit does (the cheapest), `careless` with its slips.
They work on `oxx_playout.Table` and `oxx_playout.live_cards` (1 for a card not yet
public), so the bots' playouts can seat them (pbem.bots.oxx_playout) and `pbem arena`
can too (pbem.bots.styles, from the seat's own view: its hand, the rows, the piles).
"""

from __future__ import annotations

from pbem.bots.oxx_playout import (HABIT, MASKS, PENALTY, Habit, Table, choose_card,
                                   choose_row)

#: The most points the keeper takes a row for on purpose.
TAKE_LIMIT = 2
#: How often the careless style plays a random card or row.
CARELESS = 1 / 3


class Dumper(Habit):
    """Dump the highest card that fits a row without taking it."""

    name = "dumper"

    def card(self, table, hand, live, players, rng, epsilon):
        if len(hand) > 1 and rng.random() < epsilon:
            return hand[rng.randrange(len(hand))]
        free = [c for c in hand if table.options(c)[0] == "row"
                and not table.cheapest(c)[0]]
        return max(free) if free else choose_card(table, hand, rng, 0.0)


class Keeper(Habit):
    """Keep the lowest card to take a cheap row with on purpose."""

    name = "keeper"

    def card(self, table, hand, live, players, rng, epsilon):
        if len(hand) > 1 and rng.random() < epsilon:
            return hand[rng.randrange(len(hand))]
        low = min(hand)
        if table.options(low)[0] == "take" and min(table.penalty) <= TAKE_LIMIT:
            return low
        rest = [c for c in hand if c != low] or hand
        return choose_card(table, rest, rng, 0.0)


class Counter(Habit):
    """Weigh each card by the unseen lower cards that may fill its row before it."""

    name = "counter"

    def card(self, table, hand, live, players, rng, epsilon):
        if len(hand) == 1:
            return hand[0]
        if rng.random() < epsilon:
            return hand[rng.randrange(len(hand))]
        unseen = [x for x in range(1, 111) if live[x] and x not in hand]
        return min(hand, key=lambda c: self.risk(table, c, unseen, players))

    @staticmethod
    def risk(table: Table, card: int, unseen: list[int], players: int) -> tuple:
        """(points expected, room left after the expected cards, the card): less is
        better. `unseen`: the cards the seat has not seen, in order."""
        kind, rows = table.options(card)
        best = None
        for r in rows:
            points, closeness = table.cost(kind, r, card)
            expected = 0.0
            if kind == "row" and not points and unseen:
                end = MASKS[table.cards[r][-1]]
                below = 0
                for x in unseen:
                    if x >= card:
                        break
                    if MASKS[x] & end:
                        below += 1
                expected = (players - 1) * below / len(unseen)
                if expected >= -closeness:  # the others fill the row before this card
                    points = table.penalty[r] + PENALTY[card]
            key = (points, closeness + expected, card)
            if best is None or key < best:
                best = key
        return best


class Careless(Habit):
    """The habit, with a random card or row one time in three."""

    name = "careless"

    def card(self, table, hand, live, players, rng, epsilon):
        return choose_card(table, hand, rng, max(epsilon, CARELESS))

    def row(self, table, kind, rows, card, rng, epsilon):
        return choose_row(table, kind, rows, card, rng, max(epsilon, CARELESS))


#: The family, the habit first.
FAMILY = {style.name: style
          for style in (HABIT, Dumper(), Keeper(), Counter(), Careless())}

