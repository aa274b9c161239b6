"""Bots think in a process of their own, at the lowest CPU priority (`Searcher`).

A bot:hard decision is a second or two of pure CPU (pbem.bots). Run in a thread of the
worker, twenty games of bots would hold the interpreter's lock against the threads that
take players' mail and deliver the answers, and take a core at the same priority as
everything else the machine runs. So `pbem serve` and `pbem worker` hand each search to
one child process (spawned, not forked: the worker has threads and a database
connection), which lowers its own priority to the nicest there is (`nice 19`) before it
searches: players' mail, pages and delivery come first, and the bots use what CPU is
left. One child, so bots use at most one core whatever the number of games; the search is
the pure function `search` over the engine's JSON state, so the child needs no store.
A child that dies (killed, out of memory) is replaced at the next search; the move it was
on is tried again at the job's next run (pbem.bot_turns releases its claim). A child
whose worker was killed (kill -9) exits within a second.

The scheduler's deadline job hands it the whole turn a bot plays for a player whose time
ran out under `timeout=bot` (`Searcher.turn`, `whole_turn`) in the same way. Without a
Searcher (the tests, `pbem arena`, `pbem deliver`'s one pass) the search runs in the
calling thread, with the same result: a decision depends only on the state, the seed
and the ply.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from pbem import bots
from pbem.engines import ENGINES
from pbem.engines.game import deal_while_due

NICEST = 19  # the lowest priority a process can take (nice(1))
PARENT_CHECK = 1.0  # seconds between the child's looks at whether its parent still runs


def search(engine_id: str, state: dict, seat: int, level: str, seed: str, ply: int) -> str:
    """The canonical text of the bot's decision: run in the child, from the JSON state."""
    engine = ENGINES[engine_id]
    position = engine.from_json(state)
    decision = bots.decide(engine, position, seat, level, seed=seed, ply=ply)
    return engine.notation(position, seat, decision)


def whole_turn(engine, state, seat: int, level: str, seed: str, ply: int,
               generator: str | None, max_steps: int) -> list[str]:
    """The texts of every decision `seat` owes in a row from `state` (a whole Gem Forge
    turn, say), each searched at `level` and applied, with the dealer's moves the game's
    own dealer would make between them, so that the texts are the table's: what a bot
    plays for a player whose time ran out under `timeout=bot`."""
    texts: list[str] = []
    for _ in range(max_steps):
        if seat not in engine.to_act(state):
            break
        decision = bots.decide(engine, state, seat, level, seed=seed, ply=ply)
        texts.append(engine.notation(state, seat, decision))
        state = engine.apply(state, seat, decision)
        state, dealt = deal_while_due(engine, state, seed, ply, generator)
        ply += 1 + len(dealt)
    return texts


def search_turn(engine_id: str, state: dict, seat: int, level: str, seed: str, ply: int,
                generator: str | None, max_steps: int) -> list[str]:
    """`whole_turn` in the child, from the JSON state."""
    engine = ENGINES[engine_id]
    return whole_turn(engine, engine.from_json(state), seat, level, seed, ply, generator,
                      max_steps)


def _child_start(parent: int) -> None:
    """The child's first acts: nice itself as far as it goes (nice adds, up to 19), and
    watch its parent: a worker killed with -9 cannot shut its pool down, and its child
    must not outlive it, idle for ever."""
    os.nice(NICEST - os.nice(0))
    threading.Thread(target=_exit_with, args=(parent,), daemon=True,
                     name="parent-watch").start()


def _exit_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os._exit(0)  # the parent is gone: nobody will ask for a search again


class Searcher:
    """One child process that runs `search` at the lowest priority; `close` ends it."""

    def __init__(self):
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def decide(self, engine_id: str, state: dict, seat: int, level: str, seed: str,
               ply: int) -> str:
        pool = self._running()
        try:
            return pool.submit(search, engine_id, state, seat, level, seed, ply).result()
        except BrokenProcessPool:  # the child died: a new one for the next search
            self._drop(pool)
            raise

    def turn(self, engine_id: str, state: dict, seat: int, level: str, seed: str, ply: int,
             generator: str | None, max_steps: int) -> list[str]:
        """A whole turn's texts (`whole_turn`), searched in the child."""
        pool = self._running()
        try:
            return pool.submit(search_turn, engine_id, state, seat, level, seed, ply,
                               generator, max_steps).result()
        except BrokenProcessPool:
            self._drop(pool)
            raise

    def child_pids(self) -> list[int]:
        """The search process's pid, if it runs (for `bench.bot_load`'s CPU figures)."""
        pool = self._pool
        return list(getattr(pool, "_processes", {}) or {}) if pool is not None else []

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _running(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_child_start, initargs=(os.getpid(),))
            return self._pool

    def _drop(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)
