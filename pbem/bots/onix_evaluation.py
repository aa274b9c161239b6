"""Onix: each seat's expected Hoard at the end of the game, from a position.

A linear model fitted on self-play of the heuristic habit (bench/onix_evaluation.py
plays the games and prints `WEIGHTS`): a seat's Hoard now, plus what its Collections
are expected to bring, by how many gems each shows and how many cards it holds, plus
where the seat sits in the order of play (the seats still to play before the end get
one more turn). The weights depend on the number of players and on how near the end is
(`near_end`: the cards left in the pile, or the two piles, whose emptying ends it, X19).
pbem.bots.onix_search scores its playouts by it.
"""

from __future__ import annotations

from pbem.bots.heuristic import POPCOUNT
from pbem.engines.onix.state import OVER, OnixState, gems_in, symbols

#: Bounds of the bins of `near_end`: a bin holds near_end in [BINS[i], BINS[i + 1]).
BINS = (0, 2, 4, 6, 9, 13, 18)
#: Per player count, per bin: the weights of (1, Collections of one gem, Collections of
#: two gems, their cards, Collections of three gems, their cards, the seat's place in
#: the order of play from the seat to act, 0 to (players - 1) / players). Each bin's
#: comment: its lower bound, the seats the fit saw, and R².
WEIGHTS = {
    2: (
        (1.46, -0.01, 0.08, 0.06, 0.27, 0.07, -2.80),  # >= 0: 6804 seats, R² 0.18
        (2.56, 0.09, 0.02, 0.26, 0.34, 0.32, -2.60),  # >= 2: 14610 seats, R² 0.16
        (4.20, 0.34, -0.01, 0.57, 0.43, 0.51, -2.65),  # >= 4: 14606 seats, R² 0.21
        (6.93, 0.50, -0.00, 0.73, 0.11, 0.77, -2.77),  # >= 6: 22496 seats, R² 0.20
        (11.05, 0.75, -0.12, 1.00, 0.17, 0.87, -2.78),  # >= 9: 31150 seats, R² 0.19
        (15.95, 1.61, -2.14, 2.27, 1.64, 0.37, -2.56),  # >= 13: 42492 seats, R² 0.17
        (19.47, 1.72, -1.04, 1.58, -1.72, 1.84, -2.46),  # >= 18: 13666 seats, R² 0.04
    ),
    3: (
        (1.42, -0.00, 0.13, 0.03, -0.34, 0.35, -2.50),  # >= 0: 13716 seats, R² 0.20
        (2.16, 0.08, 0.08, 0.25, -0.53, 0.71, -2.56),  # >= 2: 22836 seats, R² 0.21
        (3.35, 0.24, -0.06, 0.55, -0.50, 0.88, -2.61),  # >= 4: 22449 seats, R² 0.23
        (5.06, 0.44, 0.02, 0.68, -0.61, 1.06, -2.68),  # >= 6: 35070 seats, R² 0.25
        (7.63, 0.78, -0.60, 1.22, -0.12, 0.96, -2.70),  # >= 9: 48945 seats, R² 0.23
        (10.11, 1.53, -1.19, 1.55, 1.39, 0.28, -1.99),  # >= 13: 63237 seats, R² 0.15
        (12.07, 1.54, 0.12, 0.73, 0.70, 0.69, -2.60),  # >= 18: 10419 seats, R² 0.04
    ),
    4: (
        (1.36, 0.01, -0.00, 0.13, 0.00, 0.15, -2.29),  # >= 0: 22948 seats, R² 0.19
        (2.10, 0.08, -0.06, 0.30, -0.49, 0.58, -2.59),  # >= 2: 31652 seats, R² 0.19
        (3.00, 0.21, -0.10, 0.51, -0.65, 0.85, -2.59),  # >= 4: 32144 seats, R² 0.23
        (4.31, 0.40, -0.11, 0.71, -0.74, 1.02, -2.71),  # >= 6: 49060 seats, R² 0.24
        (6.35, 0.68, -0.56, 1.06, -0.33, 0.89, -2.62),  # >= 9: 68332 seats, R² 0.21
        (7.51, 1.32, -0.67, 1.10, 0.19, 0.68, -1.83),  # >= 13: 82912 seats, R² 0.10
        (7.51, 1.32, -0.67, 1.10, 0.19, 0.68, -1.83),  # >= 18: too few seats, as >= 13
    ),
    5: (
        (1.23, 0.02, 0.00, 0.09, -0.16, 0.21, -2.07),  # >= 0: 29940 seats, R² 0.20
        (1.87, 0.07, -0.02, 0.24, -0.58, 0.58, -2.47),  # >= 2: 40400 seats, R² 0.20
        (2.50, 0.15, -0.09, 0.43, -0.51, 0.73, -2.44),  # >= 4: 35095 seats, R² 0.22
        (3.33, 0.24, -0.19, 0.61, -0.93, 0.99, -2.58),  # >= 6: 44695 seats, R² 0.24
        (4.30, 0.37, -0.36, 0.83, -1.07, 1.12, -2.67),  # >= 9: 51170 seats, R² 0.26
        (5.56, 0.53, -0.48, 0.98, -0.97, 1.11, -2.66),  # >= 13: 62315 seats, R² 0.26
        (6.29, 1.56, -1.45, 1.52, 0.23, 0.61, -1.61),  # >= 18: 192120 seats, R² 0.19
    ),
    6: (
        (1.24, 0.00, -0.00, 0.10, -0.18, 0.20, -2.11),  # >= 0: 37566 seats, R² 0.21
        (1.89, 0.06, -0.13, 0.29, -0.47, 0.47, -2.65),  # >= 2: 47028 seats, R² 0.22
        (2.34, 0.11, -0.18, 0.44, -0.39, 0.59, -2.43),  # >= 4: 41604 seats, R² 0.21
        (3.02, 0.19, -0.25, 0.59, -0.64, 0.76, -2.54),  # >= 6: 54258 seats, R² 0.22
        (3.84, 0.33, -0.32, 0.73, -0.72, 0.86, -2.69),  # >= 9: 61554 seats, R² 0.23
        (4.82, 0.48, -0.54, 0.91, -0.90, 0.98, -2.57),  # >= 13: 74802 seats, R² 0.22
        (5.10, 1.23, -1.14, 1.25, -0.03, 0.62, -1.64),  # >= 18: 204522 seats, R² 0.13
    ),
}


def near_end(state: OnixState) -> int:
    """The cards left before the game's end: in the smallest pile (2–4 players), in the
    two smallest (5–6 players, X19)."""
    sizes = sorted(len(pile) for pile in state.piles)
    return sum(sizes[:2]) if state.players >= 5 else sizes[0]


def bin_of(state: OnixState) -> int:
    """The row of `WEIGHTS[players]` for how near the end the game is."""
    left = near_end(state)
    return sum(1 for bound in BINS[1:] if left >= bound)


def features(state: OnixState, seat: int) -> tuple[float, ...]:
    """What the weights multiply, for `seat`."""
    ones = twos = two_cards = threes = three_cards = 0
    for _, cards in state.collections[seat]:
        gems = POPCOUNT[gems_in(cards)]
        if gems == 1:
            ones += 1
        elif gems == 2:
            twos, two_cards = twos + 1, two_cards + len(cards)
        elif gems == 3:
            threes, three_cards = threes + 1, three_cards + len(cards)
    order = (seat - state.turn) % state.players / state.players
    return (1.0, ones, twos, two_cards, threes, three_cards, order)


def expected_hoards(state: OnixState) -> list[float]:
    """Each seat's expected Hoard at the end; at the end, its Hoard, less a hundredth a
    gem left in its Collections (the tie-break, X21)."""
    seats = range(state.players)
    if state.phase == OVER:
        return [len(state.hoards[s]) - 0.01 * symbols(state.collections[s])
                for s in seats]
    weights = WEIGHTS[state.players][bin_of(state)]
    return [len(state.hoards[s])
            + sum(w * f for w, f in zip(weights, features(state, s))) for s in seats]
