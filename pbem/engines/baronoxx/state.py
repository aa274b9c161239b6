"""6 nimmt! Baron Oxx: the state of a match and the pure helpers the engine is made of.

`OxxState` is one moment of a match; `Decisions` lists a seat's legal decisions lazily,
preferences included (N13); the rest are small helpers on tuples and snapshots. The rules
that change the state are in pbem.engines.baronoxx.rules, the engine in
pbem.engines.baronoxx.engine, what it says to players in pbem.engines.baronoxx.messages, the
card table in pbem.engines.baronoxx.cards.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

from notation.baronoxx import PICKS, ROWS, Pref
from pbem.engines.core import change
from pbem.engines.baronoxx.cards import legal_rows

CARDS_EACH = {2: 24, 3: 20, 4: 16, 5: 16, 6: 16, 7: 12, 8: 12, 9: 8, 10: 8}
HAND = 4
DEAL, CHOOSE, PLACE, REVEAL, OVER = "deal", "choose", "place", "reveal", "over"


# -- preferences: every ordered list of distinct rows, so legal() can count them ----------

ROW_LISTS = tuple(p for k in range(ROWS + 1) for p in permutations(range(ROWS), k))
PREFS = len(ROW_LISTS) ** 2 * len(PICKS)


def pref_at(index: int) -> Pref:
    rows, rest = divmod(index, len(ROW_LISTS) * len(PICKS))
    takes, pick = divmod(rest, len(PICKS))
    return (ROW_LISTS[rows], ROW_LISTS[takes], PICKS[pick])


def random_pref(rng: random.Random, takes: bool = True) -> Pref:
    """A short preference, as people write them: a row or two, a take (not in Variant 2),
    low or high."""
    rows = tuple(rng.sample(range(ROWS), rng.randrange(3)))
    takes = tuple(rng.sample(range(ROWS), rng.randrange(2))) if takes else ()
    return (rows, takes, rng.choice(PICKS))


_ROW_LIST_SET = frozenset(ROW_LISTS)


def is_pref(pref) -> bool:
    return (isinstance(pref, tuple) and len(pref) == 3 and pref[2] in PICKS
            and all(isinstance(rows, tuple) and rows in _ROW_LIST_SET for rows in pref[:2]))


class Decisions(Sequence):
    """A seat's legal decisions, listed lazily: preferences multiply each card by
    ~320,000 (N13), too many to build, but each can be counted, indexed and checked.
    Without `takes` (Variant 2, N20) no preference holds a take list: one decision per
    meaning."""

    def __init__(self, plain: tuple, cards: tuple[int, ...], takes: bool = True):
        self.plain, self.cards = plain, cards  # a standing preference is always legal
        self.takes = takes
        self.prefs = PREFS if takes else len(ROW_LISTS) * len(PICKS)

    def _pref(self, index: int) -> Pref:
        if self.takes:
            return pref_at(index)
        rows, pick = divmod(index, len(PICKS))
        return (ROW_LISTS[rows], (), PICKS[pick])

    def __len__(self) -> int:
        return len(self.plain) + self.prefs * (len(self.cards) + 1)

    def one_of_each(self) -> list:
        """The plain decisions, each card without a preference, and the standing
        preference once (the first of each run of ~320,000)."""
        return [*self.plain, *(("play", card, self._pref(0)) for card in self.cards),
                ("pref", self._pref(0))]

    def __getitem__(self, index: int):
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        index %= len(self)
        if index < len(self.plain):
            return self.plain[index]
        card, pref = divmod(index - len(self.plain), self.prefs)
        if card < len(self.cards):
            return ("play", self.cards[card], self._pref(pref))
        return ("pref", self._pref(pref))

    def __contains__(self, decision) -> bool:
        if decision in self.plain:
            return True
        if not isinstance(decision, tuple) or not decision:
            return False
        pref = decision[-1]
        if not self.takes and is_pref(pref) and pref[1]:
            return False
        if decision[0] == "play" and len(decision) == 3:
            return decision[1] in self.cards and is_pref(pref)
        return decision[0] == "pref" and len(decision) == 2 and is_pref(pref)


# -- state ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class OxxState:
    """One moment of a match. Rows are numbered 0–4 here and 1–5 in text (N7)."""

    players: int
    variant: str
    games: int
    game: int = 1
    phase: str = DEAL
    round: int = 0
    rows: tuple = ()  # of tuples of cards, left to right
    hands: tuple = ()  # per seat, sorted
    known: tuple = ()  # per seat: hand cards everyone has seen (N6, Variant 2)
    unknown: tuple = ()  # per seat: the cards on top of the deck that nobody has seen
    bottoms: tuple = ()  # per seat: public cards under the deck, drawn in this order
    unseen: tuple = ()  # sorted: every card nobody has seen (decks and the set-aside)
    piles: tuple = ()  # Oxx piles
    chosen: tuple = ()  # per seat: None or (card, pref), secret until the reveal
    queue: tuple = ()  # revealed (card, seat, pref) still to place, lowest first
    revealed: tuple = ()  # the last reveal: (card, seat), lowest first
    events: tuple = ()  # placements since: (seat, card, row, cards taken, how)
    standing: tuple = ()  # per seat: the standing preference (N13)
    finished: bool = False  # Variant 2: someone placed their last card this round (N21)
    results: tuple = ()  # the scores of each finished game of the match
    automatic: tuple = ()  # what the last decision led to by itself: (seat, text)

    @property
    def rule1(self) -> bool:
        return "1" not in self.variant.split("+")

    @property
    def positive(self) -> bool:
        return "2" in self.variant.split("+")

    @property
    def asked(self) -> int | None:
        """The seat whose revealed card waits for its decision."""
        return self.queue[0][1] if self.phase == PLACE and self.queue else None

    def deck_size(self, seat: int) -> int:
        return self.unknown[seat] + len(self.bottoms[seat])

    def waiting(self) -> tuple[int, str, list[int]]:
        """The revealed card to place next, and its player's options (N11, N15): `row`
        and the rows it fits, or `take` and every row when it fits none."""
        card = self.queue[0][0]
        fits = legal_rows(self.rows, card)
        return card, "row" if fits else "take", fits or list(range(ROWS))


def new_game(state: OxxState, game: int) -> OxxState:
    """Game `game` of the match before its deal: every card unseen, full decks."""
    n, each = state.players, CARDS_EACH[state.players]
    return change(state, game=game, phase=DEAL, round=0, rows=(), hands=((),) * n,
                   known=((),) * n, unknown=(each,) * n, bottoms=((),) * n,
                   unseen=tuple(range(1, 111)), piles=((),) * n, chosen=(None,) * n,
                   queue=(), revealed=(), events=(), finished=False)


def put(items: tuple, index: int, value) -> tuple:
    """A per-seat (or per-row) tuple with one item replaced."""
    return items[:index] + (value,) + items[index + 1:]


def without(cards: tuple, gone) -> tuple:
    return tuple(c for c in cards if c not in gone)


# -- snapshots: tuples to JSON lists and back ----------------------------------------

def to_lists(value):
    return [to_lists(v) for v in value] if isinstance(value, tuple) else value


def to_tuples(value):
    return tuple(to_tuples(v) for v in value) if isinstance(value, list) else value
