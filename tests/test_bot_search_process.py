"""Bots think in a child process at the lowest CPU priority (#29 item 7), so twenty
games of bot:hard never compete with players' mail and pages: the scheduler's searcher
plays the very move the in-thread search would, from a process niced to 19, and a child
that is killed is replaced at the next search. A real store, real processes."""

import os
import signal

import pytest

from pbem import bot_turns
from pbem.operator.admin import start_game
from pbem.bot_search import NICEST, Searcher
from pbem.commands.server_moves import move_bots
from pbem.engines import ENGINES
from pbem.play import Table
from pbem.scheduler import Scheduler
from pbem.store.models import Move


@pytest.fixture
def searcher():
    searcher = Searcher()
    yield searcher
    searcher.close()


def test_the_child_plays_the_move_the_thread_would_at_the_lowest_priority(config, searcher):
    game_id = start_game(config, ENGINES["gemforge"], {}, ["bot:easy", "alice@example.org"])
    table = Table.load(game_id, lock=False)
    (seat,) = bot_turns.waiting_bots(table)
    here = bot_turns.decide_text(table, seat)
    assert bot_turns.decide_text(table, seat, searcher=searcher) == here
    (pid,) = searcher.child_pids()
    assert pid != os.getpid()
    assert os.getpriority(os.PRIO_PROCESS, pid) == NICEST
    assert move_bots(config, searcher=searcher) == 1
    (move,) = Move.select().where((Move.game == game_id) & (Move.source == bot_turns.SOURCE))
    assert move.text == here


def test_a_killed_child_is_replaced_and_the_move_made_at_the_next_run(config, searcher):
    game_id = start_game(config, ENGINES["onyx"], {"board": "12"}, ["bot:easy", "bob@x.test"])
    table = Table.load(game_id, lock=False)
    bot_turns.decide_text(table, 0, searcher=searcher)  # the child runs
    (pid,) = searcher.child_pids()
    os.kill(pid, signal.SIGKILL)
    moved = move_bots(config, searcher=searcher)  # may meet the dead child: no move, no crash
    if not moved:
        assert move_bots(config, searcher=searcher) == 1
    assert searcher.child_pids() and pid not in searcher.child_pids()
    assert Move.select().where(Move.game == game_id).count() == 1


def test_the_scheduler_searches_in_its_own_process(config):
    scheduler = Scheduler(config)
    assert isinstance(scheduler.searcher, Searcher)
    scheduler.start()
    scheduler.stop()
    assert scheduler.searcher.child_pids() == []


PARENT = """
import sys, time
from pbem.bot_search import Searcher
from pbem.engines import ENGINES
if __name__ == "__main__":
    searcher, onyx = Searcher(), ENGINES["onyx"]
    searcher.decide("onyx", onyx.to_json(onyx.start({"board": "12"}, 2)), 0, "easy", "s", 0)
    print(searcher.child_pids()[0], flush=True)
    time.sleep(600)
"""


def test_the_child_of_a_worker_killed_with_minus_9_does_not_outlive_it(tmp_path):
    import subprocess
    import sys
    import time
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        child = int(parent.stdout.readline())
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        for _ in range(600):  # it looks every second; give a loaded machine a minute
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.kill(child, signal.SIGKILL)
            pytest.fail("the search process outlived its killed worker")
    finally:
        if parent.poll() is None:
            parent.kill()


def test_a_timeout_bot_thinks_in_the_child(config, searcher, frozen_time):
    """`timeout=bot`: the turn a bot plays for a player out of time (here Gem Forge's
    opening keep) is searched by the scheduler's niced child, text for text what the
    thread would play, and the deadline job plays it."""
    from pbem.commands.server_moves import run_due
    from pbem.store.models import Clock
    from pbem.timekeeping import deadlines
    game_id = start_game(config, ENGINES["gemforge"], {"time": "3d", "timeout": "bot"},
                         ["alice@example.org", "bob@example.org"])
    (row,) = Clock.select().where((Clock.game == game_id) & (Clock.seat == 0))
    frozen_time.move(days=3, minutes=1)
    here = deadlines.bot_turn(row.id, frozen_time.now)
    there = deadlines.bot_turn(row.id, frozen_time.now, searcher)
    assert here.texts and there == here
    (pid,) = searcher.child_pids()
    assert pid != os.getpid() and os.getpriority(os.PRIO_PROCESS, pid) == NICEST
    assert run_due(config, searcher=searcher) == 2  # both keeps were due
    played = [move.text for move in Move.select().where((Move.game == game_id)
                                                        & (Move.source == "timeout")
                                                        & (Move.seat == 0))
              .order_by(Move.ply)]
    assert played == here.texts
