"""Bot strength and cost: win shares with 95% confidence intervals, CPU per decision.

    .venv/bin/python -m bench.bots [--games N] [--only GAME]

Strength (pbem.bots.arena: contestants rotate through the seats, so each plays every
seat and colour equally often; Onyx bots take or refuse the swap themselves):
- Onyx 12×12: hard against random moves and against easy; normal against easy.
- each card game at 3 players and at the most: one hard bot among random players,
  against its fair share; hard against easy (and a random player to make up three).
Cost: CPU seconds per decision of each level (time.process_time, p50 and p99) over the
decisions of the games played, and the peak memory of one decision (tracemalloc).

A hard decision takes ~1.2 s of CPU, so a full run (the default 50 games a line) takes
hours; on a shared machine run it with `--games 4` or with `--only`.
"""

from __future__ import annotations

import argparse
import random
import time
import tracemalloc

from pbem.bots import LEVELS, decide
from pbem.bots.arena import Standing, arena, summary
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE

ONYX_MATCHES = [["bot:hard", "random"], ["bot:hard", "bot:easy"], ["bot:normal", "bot:easy"]]
CARD_GAMES = {"onix": (3, 6), "baronoxx": (3, 10), "gemforge": (3, 4)}


def strength(games: int, only: str | None) -> dict[str, Standing]:
    """Print every match's standings; returns each bot level's timings, all games."""
    timings: dict[str, Standing] = {}
    lines: list[tuple[str, str, dict, list[str], int]] = []
    if only in (None, "onyx"):
        lines += [("onyx", "12x12", {}, match, 2) for match in ONYX_MATCHES]
    for game, counts in CARD_GAMES.items():
        if only in (None, game):
            for players in counts:
                lines.append((game, f"{players} players", {}, ["bot:hard"], players))
            lines.append((game, "3 players", {}, ["bot:hard", "bot:easy"], 3))
    for game, label, options, match, players in lines:
        started = time.perf_counter()
        standings = arena(ENGINES[game], match, games, options, players, seed=f"bench/{game}")
        print(f"{game} {label}: {' vs '.join(match)} ({games} games, "
              f"{time.perf_counter() - started:.0f} s)")
        for line in summary(standings, players):
            print("   " + line)
        for name, standing in standings.items():
            timings.setdefault(name, Standing(name)).seconds += standing.seconds
    return timings


def memory() -> None:
    """The peak memory one decision of each level allocates, in a mid-game position."""
    for game in ("onyx", "onix", "baronoxx", "gemforge"):
        engine, rng = ENGINES[game], random.Random(1)
        state = engine.start({}, 3 if engine.max_players > 2 else 2, seed="m")
        for _ in range(30):
            seat = min(engine.to_act(state))
            decision = (engine.deal(state, rng) if seat == CHANCE
                        else engine.random_decision(state, seat, rng))
            state = engine.apply(state, seat, decision)
        while CHANCE in engine.to_act(state):
            state = engine.apply(state, CHANCE, engine.deal(state, rng))
        seat = min(engine.to_act(state))
        figures = []
        for level in LEVELS:
            tracemalloc.start()
            decide(engine, state, seat, level, seed="m", ply=30)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            figures.append(f"{level} {peak / 1e3:.0f} kB")
        print(f"   {game}: peak memory of one decision: {', '.join(figures)}")


def run(games: int, only: str | None = None) -> None:
    print("Bots: strength (95% confidence intervals) and CPU per decision")
    timings = strength(games, only)
    print("CPU per decision, all games above:")
    for name, standing in timings.items():
        if standing.seconds:
            print(f"   {name}: p50 {standing.percentile(0.5) * 1000:.0f} ms, p99 "
                  f"{standing.percentile(0.99) * 1000:.0f} ms over "
                  f"{len(standing.seconds)} decisions")
    memory()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bots")
    parser.add_argument("--games", type=int, default=50, help="games per match (50)")
    parser.add_argument("--only", choices=sorted(ENGINES), help="one game only")
    args = parser.parse_args()
    run(args.games, args.only)


if __name__ == "__main__":
    main()
