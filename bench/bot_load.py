"""A player's move by mail while 20 bot:hard games run (#29 item 7).

`python -m bench.bot_load [--moves N]`: one store (a fresh SQLite file), pbem's real SMTP
listener on loopback, and a 26×26 Onyx game between two people, who send their moves by
mail (bench.mail.MailServer). The same moves are sent in three conditions, in one run:

- idle: nothing else runs (the baseline);
- in a thread: 20 games of bots only (10 Onix, 10 Gem Forge of four, every seat
  bot:hard) play themselves in a thread of the server's process, as the bot job did
  before #29: the search holds the interpreter's lock against the mail's thread;
- niced child: the same games, the search in pbem.bot_search's child process at nice 19,
  as `pbem serve` and `pbem worker` run it now.

For each: the delay of a move (wall time from the mail's first byte to the 250, which
comes after the move is committed and its answers queued: what a player waits for,
waiting for the CPU included, which is what priority changes), the mail's own CPU (the
thread time of the pipeline's thread for that mail), and the bots' CPU meanwhile (to show
the load was there). Target: the niced child's delay ≤ 0.2 s over idle. Run it under
`nice -n 19` on a shared machine; the child is niced as far as it goes from there.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time

from bench.mail import MailServer, long_game
from pbem import bot_turns
from pbem.operator.admin import start_game
from pbem.bot_search import Searcher
from pbem.engines import ENGINES
from pbem.intake import listener

GAMES = [("onix", 2)] * 10 + [("gemforge", 4)] * 10  # 20 games, every seat bot:hard
PAUSE = 0.25  # seconds between a player's mails, so bots are caught mid-search anywhere


class MailCpu:
    """The pipeline's thread time per mail: `listener.receive` wrapped (bench only)."""

    def __init__(self):
        self.seconds: list[float] = []
        self.original = listener.receive

    def __enter__(self):
        def timed(*args, **kwargs):
            start = time.thread_time()
            try:
                return self.original(*args, **kwargs)
            finally:
                self.seconds.append(time.thread_time() - start)
        listener.receive = timed
        return self

    def __exit__(self, *exc):
        listener.receive = self.original


class Bots:
    """The bots' games played out by a thread that runs the bot job back to back, as the
    scheduler's kicks do under load; `searcher` None searches in that thread."""

    def __init__(self, config, searcher: Searcher | None):
        self.config, self.searcher = config, searcher
        self.stopped = threading.Event()
        self.moves = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        # The job's loop (bot_turns.move_bots), looking at the stop between two moves.
        while not self.stopped.is_set():
            moved = 0
            for game_id in bot_turns.candidate_games():
                if self.stopped.is_set():
                    return
                done = bot_turns.move_once(self.config, game_id, searcher=self.searcher)
                self.moves += done
                moved += done
            if not moved:
                self.stopped.wait(0.05)

    def __enter__(self):
        self.cpu = _cpu(self.searcher)
        self.thread.start()
        time.sleep(2.0)  # the searches are under way (a spawned child has imported pbem)
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.thread.join()
        self.cpu = _cpu(self.searcher) - self.cpu


def _cpu(searcher: Searcher | None) -> float:
    """CPU seconds of the bots' searches so far: this process's, or the child's."""
    if searcher is None:
        return time.process_time()
    total = 0.0
    for pid in searcher.child_pids():
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def measure(server: MailServer, moves: list[str], first: int) -> tuple[list[float], list[float]]:
    """(delays, the mail's CPU) of each move, sent one by one with a pause."""
    delays = []
    with MailCpu() as cpu:
        for number, text in enumerate(moves, start=first):
            delays.append(server.send(number, text)[1])
            time.sleep(PAUSE)
    server.check(first + len(moves) - 1)
    return delays, cpu.seconds


def row(name: str, delays: list[float], cpu: list[float], idle: float | None,
        bots: str) -> str:
    median = statistics.median(delays)
    p90 = sorted(delays)[int(len(delays) * 0.9) - 1]
    over = "" if idle is None else f"{median - idle:+.3f} s"
    return (f"| {name} | {median:.3f} s | {p90:.3f} s | {max(delays):.3f} s | {over} | "
            f"{statistics.median(cpu) * 1000:.1f} ms | {bots} |")


def run(count: int = 30) -> None:
    moves = long_game()[:3 * count]
    with tempfile.TemporaryDirectory() as workdir:
        server = MailServer(workdir, f"sqlite:///{workdir}/pbem.db")
        try:
            for engine, seats in GAMES:
                start_game(server.config, ENGINES[engine], {}, ["bot:hard"] * seats)
            print(f"A move by mail (26×26 Onyx), {count} moves a condition, while "
                  f"{len(GAMES)} bot:hard games play themselves:")
            print("| condition | delay (median) | p90 | worst | over idle | mail's CPU | "
                  "bots meanwhile |")
            print("|---|---|---|---|---|---|---|")
            delays, cpu = measure(server, moves[:count], 1)
            idle = statistics.median(delays)
            print(row("idle", delays, cpu, None, "none"), flush=True)
            with Bots(server.config, None) as bots:
                delays, cpu = measure(server, moves[count:2 * count], count + 1)
            print(row("bots in a thread", delays, cpu, idle,
                      f"{bots.moves} moves, {bots.cpu:.1f} s CPU"), flush=True)
            searcher = Searcher()
            try:
                with Bots(server.config, searcher) as bots:
                    delays, cpu = measure(server, moves[2 * count:], 2 * count + 1)
            finally:
                searcher.close()
            print(row("bots in a niced child", delays, cpu, idle,
                      f"{bots.moves} moves, {bots.cpu:.1f} s CPU (nice 19)"), flush=True)
        finally:
            server.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.bot_load")
    parser.add_argument("--moves", type=int, default=30, help="moves by mail a condition")
    run(parser.parse_args().moves)
