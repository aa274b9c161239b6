"""Fit Onix's evaluation (pbem.bots.onix_evaluation.WEIGHTS) on self-play of the habit.

    .venv/bin/python -m bench.onix_evaluation [--games N]

For each player count, plays N games (3000) of the heuristic habit at every seat, with a
random decision one time in ten (as the bots' playouts play), and at the start of every
turn records each seat's `features` and the Hoard it ends the game with. A least-squares
fit of the Hoard still to come, per player count and per bin of `near_end`, gives the
weights; the script prints them as the Python literal to paste into
pbem/bots/onix_evaluation.py, with each bin's R² (a seat's future is mostly luck: ~0.2).
Deterministic: the games' randomness comes from fixed seeds. ~2 minutes of CPU.
"""

from __future__ import annotations

import argparse
import random

from pbem.bots import heuristic
from pbem.bots.onix_evaluation import BINS, bin_of, features
from pbem.engines import ENGINES
from pbem.engines.onix.state import TAKE

EPSILON = 0.1
WIDTH = 7  # the number of features


def self_play(players: int, game: int) -> list[tuple[int, tuple, float]]:
    """(bin, features, Hoard to come) for every seat at the start of every turn."""
    engine = ENGINES["onix"]
    rng = random.Random(f"onix-evaluation/{players}/{game}")
    state = engine.start({}, players)
    seen = []
    while engine.to_act(state):
        seat = min(engine.to_act(state))
        decision = heuristic.with_slips(engine, state, seat, rng, EPSILON)
        before, state = state, engine.apply(state, seat, decision)
        if state.phase == TAKE and (before.phase != TAKE or before.turn != state.turn):
            seen += [(bin_of(state), features(state, s), s, len(state.hoards[s]))
                     for s in range(players)]
    final = [len(hoard) for hoard in state.hoards]
    return [(row, found, final[s] - now) for row, found, s, now in seen]


def least_squares(rows: list[tuple[tuple, float]]) -> tuple[list[float], float]:
    """The weights that best predict the target from the features, and R²."""
    normal = [[0.0] * WIDTH for _ in range(WIDTH)]
    right = [0.0] * WIDTH
    for x, y in rows:
        for i in range(WIDTH):
            right[i] += x[i] * y
            for j in range(WIDTH):
                normal[i][j] += x[i] * x[j]
    for i in range(WIDTH):  # a feature that never varies (one gem, one card) stays 0
        normal[i][i] += 1e-6
    weights = solve(normal, right)
    mean = sum(y for _, y in rows) / len(rows)
    residual = sum((y - sum(w * f for w, f in zip(weights, x))) ** 2 for x, y in rows)
    total = sum((y - mean) ** 2 for _, y in rows) or 1.0
    return weights, 1 - residual / total


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            for c in range(col, n + 1):
                a[r][c] -= factor * a[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


#: The fewest seats a bin is fitted on; a bin with fewer takes its nearest neighbour's
#: weights (4 players start at 17 cards before the end: the last bin is never reached).
FEWEST = 1000


def fit(games: int) -> None:
    print("WEIGHTS = {")
    for players in range(2, 7):
        by_bin: dict[int, list] = {}
        for game in range(games):
            for row, found, target in self_play(players, game):
                by_bin.setdefault(row, []).append((found, target))
        fitted = {row: least_squares(rows) for row, rows in by_bin.items()
                  if len(rows) >= FEWEST}
        if not fitted:
            raise SystemExit(f"{games} games leave no bin with {FEWEST} seats at "
                             f"{players} players: play more (--games)")
        print(f"    {players}: (")
        for row in range(len(BINS)):
            if row in fitted:
                weights, r2 = fitted[row]
                note = f"{len(by_bin[row])} seats, R² {r2:.2f}"
            else:
                nearest = min(fitted, key=lambda fit_row: (abs(fit_row - row), fit_row))
                weights = fitted[nearest][0]
                note = f"too few seats, as >= {BINS[nearest]}"
            print("        (" + ", ".join(f"{w:.2f}" for w in weights) + "),"
                  f"  # >= {BINS[row]}: {note}")
        print("    ),")
    print("}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.onix_evaluation")
    parser.add_argument("--games", type=int, default=3000,
                        help="games per player count (3000)")
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    fit(args.games)


if __name__ == "__main__":
    main()
