"""Engine speed: random playouts per second, and the cost of one move early and late.

Playouts call the engine directly (random_decision + apply), the way a search or a
bulk check would, on one core; Onyx also through the public contract alone (a uniform
choice from `legal` + apply). The per-move figures compare `apply`, and loading the
snapshot (`from_json`, what every move by mail does first), at ply 10 with ply 300 on a
big Onyx board: a state holds no history, so the two should match. Times are CPU time
of this process (time.process_time), so other work on the machine does not count.
"""

from __future__ import annotations

import json
import random
import time
import tracemalloc

from pbem.engines import ENGINES
from pbem.engines.base import CHANCE
from pbem.engines.dealing import chance_rng

PLAYOUTS = {  # engine id -> [(label, options, players)]
    "onyx": [("12x12 standard", {}, 2), ("16x16 standard", {"board": "16"}, 2),
             ("26x26 open", {"board": "26", "setup": "open"}, 2)],
    "onix": [("2 players", {}, 2), ("4 players", {}, 4),
             ("6 players advanced", {"advanced": "true"}, 6)],
    "baronoxx": [("2 players", {}, 2), ("5 players v1", {"variant": "1"}, 5),
                 ("10 players v2", {"variant": "2"}, 10)],
    "gemforge": [("2 players", {}, 2), ("4 players", {}, 4)],
}


def playout(engine, options, players, rng: random.Random, contract: bool = False) -> int:
    """One random game to its end; returns the number of plies. With `contract`, each
    decision is a uniform choice from `engine.legal`."""
    state = engine.start(options, players)
    plies = 0
    while to_act := engine.to_act(state):
        seat = rng.choice(sorted(to_act))
        decision = (engine.deal(state, chance_rng("bench", plies)) if seat == CHANCE
                    else rng.choice(engine.legal(state, seat)) if contract
                    else engine.random_decision(state, seat, rng))
        state = engine.apply(state, seat, decision)
        plies += 1
    return plies


def measure_playouts(engine, options, players, seconds: float,
                     contract: bool = False) -> dict:
    rng = random.Random(1)
    options = engine.resolve_options(options)
    games = plies = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        plies += playout(engine, options, players, rng, contract)
        games += 1
    elapsed = time.process_time() - start
    tracemalloc.start()
    playout(engine, options, players, rng)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"games/s": games / elapsed, "plies/s": plies / elapsed,
            "plies/game": plies / games, "peak KiB/playout": peak / 1024}


def apply_cost(engine, options, at_ply: int,
               samples: int = 2000) -> tuple[float, float, int]:
    """Mean microseconds of CPU for one apply after `at_ply` plies and for loading its
    snapshot, and the snapshot's bytes (timed in batches: reading the CPU clock costs
    about what an apply does)."""
    rng = random.Random(at_ply)
    options = engine.resolve_options(options)
    while True:
        state = engine.start(options, 2)
        for _ in range(at_ply):
            if not engine.to_act(state):
                break
            (seat,) = engine.to_act(state)
            state = engine.apply(state, seat, engine.random_decision(state, seat, rng))
        if engine.to_act(state):
            break
    (seat,) = engine.to_act(state)
    decisions = [engine.random_decision(state, seat, rng) for _ in range(samples)]
    start = time.process_time()
    for decision in decisions:
        engine.apply(state, seat, decision)
    applied = (time.process_time() - start) / len(decisions)
    snapshot = json.loads(json.dumps(engine.to_json(state)))
    start = time.process_time()
    for _ in range(samples // 4):
        engine.from_json(snapshot)
    loaded = (time.process_time() - start) / (samples // 4)
    return applied * 1e6, loaded * 1e6, len(json.dumps(snapshot))


def run(seconds: float) -> None:
    print("Random playouts, one core (engine calls only, no notation)")
    for engine_id, cases in PLAYOUTS.items():
        engine = ENGINES[engine_id]
        for label, options, players in cases:
            figures = measure_playouts(engine, options, players, seconds)
            print(f"  {engine_id:9} {label:18} " + "  ".join(
                f"{value:9.1f} {name}" for name, value in figures.items()))
    figures = measure_playouts(ENGINES["onyx"], {}, 2, seconds, contract=True)
    print(f"  {'onyx':9} {'12x12 legal+apply':18} " + "  ".join(
        f"{value:9.1f} {name}" for name, value in figures.items()))
    print("\nOne apply and one load, early and late (Onyx 26x26 open)")
    onyx = ENGINES["onyx"]
    big = {"board": "26", "setup": "open"}
    early, early_load, early_size = apply_cost(onyx, big, 10)
    late, late_load, late_size = apply_cost(onyx, big, 300)
    print(f"  ply 10:  apply {early:6.2f} µs   load {early_load:6.1f} µs   "
          f"snapshot {early_size} bytes")
    print(f"  ply 300: apply {late:6.2f} µs   load {late_load:6.1f} µs   "
          f"snapshot {late_size} bytes")
    print(f"  ratio:   apply {late / early:6.2f}      load {late_load / early_load:6.2f}")
