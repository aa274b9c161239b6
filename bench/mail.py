"""Moves by mail, end to end: SMTP in, validated, stored, answers written to the outbox.

A real SMTP client sends each move as a reply mail to the server's real listener on
loopback, over one connection, and waits for the 250 that comes only after the move is
committed. Delivery of the answers is not part of the figure (it runs after the commit).
The store is a fresh SQLite file, and PostgreSQL too when PBEM_BENCH_DATABASE_URL names
an empty database. The cost of a move early and late in a game compares moves near
ply 10 and near ply 300 of one long Onyx game (26×26, open setup).
"""

from __future__ import annotations

import os
import smtplib
import socket
import statistics
import tempfile
import time
import tracemalloc
from email.message import EmailMessage

from pbem.admin import start_game
from pbem.config import Config
from pbem.engines import ENGINES
from pbem.engines.game import selfplay
from pbem.mail.listener import start_listener
from pbem.mail.tokens import reply_address, seat_token
from pbem.store import Game, open_database
from pbem.store.models import database

PLAYERS = ["alice@example.org", "bob@example.org"]
BIG = {"board": "26", "setup": "open"}


def long_game() -> list[str]:
    """The moves of a random 26×26 Onyx game of at least 320 plies."""
    for seed in range(100):
        game = selfplay(ENGINES["onyx"], BIG, 2, str(seed))
        if len(game.plies) >= 320:
            return [ply.text for ply in game.plies]
    raise RuntimeError("no long game found")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def move_mail(config: Config, game_id: int, seat: int, number: int, text: str) -> bytes:
    message = EmailMessage()
    message["From"] = PLAYERS[seat]
    message["To"] = reply_address(seat_token(config.secret_key, game_id, seat), config.domain)
    message["Subject"] = f"Re: [pbem] Onyx #{game_id}"
    message["Message-ID"] = f"<bench.{game_id}.{number}@example.org>"
    message.set_content(f"#{number} {text}\n\nOn Monday, pbem wrote:\n> the board\n")
    return bytes(message)


def play_by_mail(url: str, moves: list[str]) -> list[float]:
    """Seconds per move, for every move of `moves`, through SMTP on loopback."""
    with tempfile.TemporaryDirectory() as workdir:
        config = Config(domain="pbem.test", secret_key="bench", database_url=url,
                        maildir=os.path.join(workdir, "mail"), rate_limit=10**9,
                        smtp_listen=f"127.0.0.1:{free_port()}")
        db = open_database(url)
        game_id = start_game(config, ENGINES["onyx"], BIG, PLAYERS)
        listener = start_listener(config, config.smtp_listen)
        host, port = config.smtp_listen.split(":")
        times = []
        try:  # the game is checked at the end: every move must have been played
            with smtplib.SMTP(host, int(port)) as smtp:
                for number, text in enumerate(moves, start=1):
                    seat = (number - 1) % 2
                    raw = move_mail(config, game_id, seat, number, text)
                    to = reply_address(seat_token(config.secret_key, game_id, seat),
                                       config.domain)
                    start = time.perf_counter()
                    smtp.sendmail(PLAYERS[seat], [to], raw)
                    times.append(time.perf_counter() - start)
            played = Game.get_by_id(game_id).plies
            if played != len(moves):
                raise RuntimeError(f"only {played} of {len(moves)} moves were played")
        finally:
            listener.stop()
            db.close()
            database.initialize(None)
        return times


def report(label: str, times: list[float]) -> None:
    ordered = sorted(times)
    p50, p99 = ordered[len(ordered) // 2], ordered[int(len(ordered) * 0.99)]
    early = statistics.median(times[5:15])
    late = statistics.median(times[295:305])
    print(f"  {label:10} {len(times) / sum(times):7.1f} moves/s   p50 {p50 * 1e3:6.2f} ms"
          f"   p99 {p99 * 1e3:6.2f} ms   ply 10: {early * 1e3:5.2f} ms"
          f"   ply 300: {late * 1e3:5.2f} ms   ratio {late / early:4.2f}")


def run(seconds: float) -> None:
    print("\nMoves by mail, end to end (SMTP in, validated, stored, outbox written; one core)")
    moves = long_game()[:320]
    with tempfile.TemporaryDirectory() as workdir:
        report("SQLite", play_by_mail(f"sqlite:///{workdir}/bench.db", moves))
    tracemalloc.start()  # a second run: tracing slows Python down several times
    with tempfile.TemporaryDirectory() as workdir:
        play_by_mail(f"sqlite:///{workdir}/bench.db", moves)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  peak memory of a SQLite run (traced apart): {peak / 1024:.0f} KiB")
    postgres = os.environ.get("PBEM_BENCH_DATABASE_URL")
    if postgres:
        report("PostgreSQL", play_by_mail(postgres, moves))
    else:
        print("  PostgreSQL: set PBEM_BENCH_DATABASE_URL to an empty database to measure it")
