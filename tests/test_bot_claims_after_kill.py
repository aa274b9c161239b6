"""A bot turn claimed by a process killed mid-search (kill -9) is taken over by the next
run of the job at once, as the outbox's claims are (#29 item 9), not after the claim's
two minutes; a live process's claim is left alone. A real process, a real store."""

import os
import signal
import subprocess
import sys
import textwrap

from pbem import bot_turns
from pbem.operator.admin import start_game
from pbem.commands.server_moves import move_bots
from pbem.engines import ENGINES
from pbem.store.models import Move, Seat

SEARCHER = textwrap.dedent("""
    import sys, time
    from pbem import bot_turns
    from pbem.config import Config
    from pbem.store import open_database
    url, game_id = sys.argv[1], int(sys.argv[2])
    open_database(url)
    def searching(table, seat, level=None, searcher=None):  # never ends, until killed
        print("searching", flush=True)
        time.sleep(600)
    bot_turns.decide_text = searching
    bot_turns.move_once(Config(domain="pbem.test", secret_key="k", database_url=url), game_id)
""")


def test_a_bot_turn_claimed_by_a_killed_process_is_moved_at_once(config):
    game_id = start_game(config, ENGINES["onyx"], {"board": "6", "setup": "open"},
                         ["bot:easy", "alice@example.org"])
    searcher = subprocess.Popen([sys.executable, "-c", SEARCHER, config.database_url,
                                 str(game_id)], stdout=subprocess.PIPE, text=True)
    try:
        assert searcher.stdout.readline() == "searching\n"
        seat = Seat.get((Seat.game == game_id) & (Seat.number == 0))
        assert seat.claimed_by == f"{os.uname().nodename}:{searcher.pid}"
        assert move_bots(config) == 0  # it is alive and on it: left alone
        os.kill(searcher.pid, signal.SIGKILL)
        searcher.wait()
    finally:
        if searcher.poll() is None:
            searcher.kill()
            searcher.wait()
    assert move_bots(config) == 1  # at once, not two minutes later
    (move,) = Move.select().where(Move.game == game_id)
    assert (move.seat, move.source) == (0, bot_turns.SOURCE)
    seat = Seat.get((Seat.game == game_id) & (Seat.number == 0))
    assert (seat.claimed_until, seat.claimed_by) == (None, None)
