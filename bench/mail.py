"""Moves by mail, end to end: SMTP in, validated, stored, answers written to the outbox.

A real SMTP client sends each move as a reply mail to the server's real listener on
loopback, over one connection, and waits for the 250 that comes only after the move is
committed. Delivery of the answers is not part of the figure (it runs after the commit).
The store is a fresh SQLite file, and PostgreSQL too when PBEM_BENCH_DATABASE_URL names
a database it may empty (its public schema is dropped first). The cost of a move early
and late in a game compares moves 11-50 of one game with moves 291-330 of another, in
one store, sent to the two in turns, of one long Onyx game (26×26, open setup).
"""

from __future__ import annotations

import datetime as dt
import os
import smtplib
import socket
import sqlite3
import statistics
import tempfile
import time
import tracemalloc
from email.message import EmailMessage

from bench import emptied_postgres
from pbem.operator.admin import start_game
from pbem.config import Config
from pbem.engines import ENGINES
from pbem.engines.game import selfplay
from pbem.intake.listener import start_listener
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.store import Game, Inbound, Move, Outbox, Player, Seat, open_database, transaction
from pbem.store.database import SQLITE_PRAGMAS
from pbem.store.models import database, utcnow

PLAYERS = ["alice@example.org", "bob@example.org"]
BIG = {"board": "26", "setup": "open"}


def long_game() -> list[str]:
    """The moves of a random 26×26 Onyx game of at least 330 plies."""
    for seed in range(100):
        game = selfplay(ENGINES["onyx"], BIG, 2, str(seed))
        if len(game.plies) >= 330:
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


class MailServer:
    """pbem's listener on loopback over a store of its own, with one 26×26 Onyx game
    started, and one SMTP connection to it. `fill(config)`, if given, stores history
    before the game starts (then checkpoints it, as a running server long since has)."""

    def __init__(self, workdir: str, url: str, fill=None):
        self.url = url
        self.config = Config(domain="pbem.test", secret_key="bench", database_url=url,
                             maildir=os.path.join(workdir, "mail"), rate_limit=10**9,
                             smtp_listen=f"127.0.0.1:{free_port()}")
        self.db = open_database(url)
        if fill is not None:
            fill(self.config)
            if url.startswith("sqlite"):
                database.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        self.game_id = self.new_game()
        self._listen()

    def new_game(self) -> int:
        """Another 26×26 game between the two players; `send(…, game_id=)` plays it."""
        return start_game(self.config, ENGINES["onyx"], BIG, PLAYERS)

    def _listen(self) -> None:
        self.listener = start_listener(self.config, self.config.smtp_listen)
        host, port = self.config.smtp_listen.split(":")
        self.smtp = smtplib.SMTP(host, int(port))

    def reopen(self) -> None:
        """Open the store and the listener again after close() (the models have one
        database handle: one store at a time in a process)."""
        self.db = open_database(self.url)
        self._listen()

    def send(self, number: int, text: str, game_id: int | None = None) -> tuple[float, float]:
        """Move `number` by mail (of the first game, or of `game_id`); (the server's CPU
        seconds, wall seconds). CPU is this process's (time.process_time, other work on
        the machine does not count) less what the client's thread spent sending
        (time.thread_time)."""
        seat = (number - 1) % 2
        config, game_id = self.config, game_id or self.game_id
        raw = move_mail(config, game_id, seat, number, text)
        to = reply_address(seat_token(config.secret_key, game_id, seat), config.domain)
        start, start_cpu = time.perf_counter(), time.process_time()
        client = time.thread_time()
        self.smtp.sendmail(PLAYERS[seat], [to], raw)
        client = time.thread_time() - client
        return time.process_time() - start_cpu - client, time.perf_counter() - start

    def check(self, moves: int, game_id: int | None = None) -> None:
        """Every move must have been played."""
        played = Game.get_by_id(game_id or self.game_id).plies
        if played != moves:
            raise RuntimeError(f"only {played} of {moves} moves were played")

    def close(self) -> None:
        self.smtp.close()
        self.listener.stop()
        self.db.close()
        database.initialize(None)


def play_by_mail(url: str, moves: list[str], fill=None) -> tuple[list[float], list[float]]:
    """(CPU seconds, wall seconds) per move, for every move of `moves`, through SMTP on
    loopback (MailServer.send)."""
    with tempfile.TemporaryDirectory() as workdir:
        server = MailServer(workdir, url, fill)
        try:
            times = [server.send(number, text) for number, text in enumerate(moves, start=1)]
            server.check(len(moves))
        finally:
            server.close()
        return [cpu for cpu, _ in times], [wall for _, wall in times]


def raw_commits(path: str, count: int = 3000) -> float:
    """CPU seconds of one small INSERT and its commit in plain sqlite3, with the
    product's pragmas (WAL, synchronous=normal): the store's own floor."""
    connection = sqlite3.connect(path, isolation_level=None)
    for name, value in SQLITE_PRAGMAS.items():
        connection.execute(f"PRAGMA {name} = {value}")
    connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT)")
    start = time.process_time()
    for number in range(count):
        connection.execute("BEGIN")
        connection.execute("INSERT INTO t (text) VALUES (?)", (f"move {number}",))
        connection.execute("COMMIT")
    spent = time.process_time() - start
    connection.close()
    return spent / count


class _Accept:
    async def handle_DATA(self, server, session, envelope):
        return "250 OK"


def plain_mails(moves: list[str], count: int = 300) -> float:
    """The server's CPU seconds (as play_by_mail counts them) for one move's mail sent
    over the same SMTP conversation to a listener that only says 250: what SMTP on
    loopback costs before pbem does anything."""
    from aiosmtpd.controller import Controller
    controller = Controller(_Accept(), hostname="127.0.0.1", port=free_port())
    controller.start()
    config = Config(domain="pbem.test", secret_key="bench")
    try:
        with smtplib.SMTP("127.0.0.1", controller.port) as smtp:
            raws = [move_mail(config, 1, n % 2, n + 1, moves[n % len(moves)])
                    for n in range(count)]
            start, client = time.process_time(), time.thread_time()
            for number, raw in enumerate(raws):
                smtp.sendmail(PLAYERS[number % 2], ["pbem@pbem.test"], raw)
            spent = time.process_time() - start - (time.thread_time() - client)
    finally:
        controller.stop()
    return spent / count


def history(config: Config, mails: int = 20_000, games: int = 10_000,
            moves_each: int = 5) -> None:
    """A store that has seen a lot: `mails` earlier mails from each player (and as many
    of ours to them, delivered), over the two months before the last hour, and `games`
    finished games of theirs with `moves_each` moves each."""
    engine = ENGINES["onyx"]
    final = selfplay(engine, {"board": "12"}, 2, "history")
    state = engine.to_json(final.state)
    now = utcnow()
    with transaction():
        players = [Player.create(email=email, name=email.split("@")[0], confirmed=True)
                   for email in PLAYERS]
        for number, email in enumerate(PLAYERS):
            for first in range(0, mails, 500):
                when = [now - dt.timedelta(hours=2, minutes=3 * n)
                        for n in range(first, min(first + 500, mails))]
                Inbound.insert_many([{"message_id": f"<old.{number}.{first + i}@example.org>",
                                      "sender": email, "raw": b"From: x\r\n\r\nF6\r\n",
                                      "received": w, "outcome": "done: 1 line(s)"}
                                     for i, w in enumerate(when)]).execute()
                Outbox.insert_many([{"recipient": email, "message": b"From: pbem\r\n\r\nhi",
                                     "created": w, "next_attempt": w, "sent": w}
                                    for w in when]).execute()
        for first in range(0, games, 500):
            count = min(500, games - first)
            Game.insert_many([{"engine": "onyx", "options": engine.resolve_options({"board": "12"}),
                               "seed": f"h{first + i}", "commitment": "", "status": "finished",
                               "plies": moves_each, "state": state, "result": "1-0"}
                              for i in range(count)]).execute()
            ids = [g.id for g in Game.select(Game.id).order_by(Game.id.desc()).limit(count)]
            Seat.insert_many([{"game": g, "number": n, "player": players[n],
                               "answer": "accepted", "told": moves_each} for g in ids
                              for n in range(2)]).execute()
            Move.insert_many([{"game": g, "ply": p, "seat": (p - 1) % 2, "text": "F6",
                               "state": state, "visible": {}} for g in ids
                              for p in range(1, moves_each + 1)]).execute()


def percentile(times: list[float], share: float) -> float:
    ordered = sorted(times)
    return ordered[min(int(len(ordered) * share), len(ordered) - 1)]


def report(label: str, cpu: list[float], wall: list[float], commit: float) -> None:
    per_move = sum(cpu) / len(cpu)
    print(f"  {label:10} {1 / per_move:6.1f} moves/s of CPU ({per_move * 1e3:.2f} ms a move;"
          f" {per_move / commit:.0f} raw commits)   CPU p50 {percentile(cpu, .5) * 1e3:5.2f} ms"
          f"  p99 {percentile(cpu, .99) * 1e3:5.2f} ms   wall p50 "
          f"{percentile(wall, .5) * 1e3:5.2f} ms  p99 {percentile(wall, .99) * 1e3:5.2f} ms")


def bring_to_plies(send, moves: list[str], early: int, late: int) -> None:
    """The early game to ply 10 and the late one to ply 290 (not counted), by
    `send(number, text, game_id)`."""
    for number in range(1, 291):
        if number <= 10:
            send(number, moves[number - 1], early)
        send(number, moves[number - 1], late)


def by_ply(url: str, moves: list[str], block: int = 1, count: int = 40) -> None:
    """Moves 11 to 10 + `count` of one game against moves 291 to 290 + `count` of
    another, in one store, sent to the two games in turns of `block` moves: a move late
    in a game must cost what one early does. The same moves of one game one after the
    other put the minute's load on one of them (ratios of 0.9-1.3 over ten moves), and
    so did turns of eight (0.89-1.13); a move each in turn gave 1.00-1.04."""
    with tempfile.TemporaryDirectory() as workdir:
        server = MailServer(workdir, url)
        try:
            early, late = server.game_id, server.new_game()
            bring_to_plies(server.send, moves, early, late)
            times: tuple[list[float], list[float]] = ([], [])
            for first in range(0, count, block):
                for game_id, start, spent in ((early, 10, times[0]), (late, 290, times[1])):
                    spent += [server.send(start + n, moves[start + n - 1], game_id)[0]
                              for n in range(first + 1, first + block + 1)]
            server.check(10 + count, early)
            server.check(290 + count, late)
        finally:
            server.close()
    at_10, at_300 = statistics.median(times[0]), statistics.median(times[1])
    print(f"  {'':10} CPU at ply 10-{10 + count}: {at_10 * 1e3:5.2f} ms   at ply "
          f"290-{290 + count}: {at_300 * 1e3:5.2f} ms   ratio {at_300 / at_10:4.2f} (medians;"
          f" two games in one store, in turns of {block})")


def run(seconds: float) -> None:
    from bench import moves  # a move through receive(), in process (issue #44)
    moves.run(quick=seconds < 2)
    print("\nMoves by mail, end to end (SMTP in, validated, stored, outbox written; one core;"
          " the server's CPU time)")
    moves = long_game()[:330]
    with tempfile.TemporaryDirectory() as workdir:
        commit = raw_commits(f"{workdir}/raw.db")
    plain = plain_mails(moves)
    with tempfile.TemporaryDirectory() as workdir:  # templates compiled, caches filled
        play_by_mail(f"sqlite:///{workdir}/warm.db", moves[:40])
    print(f"  baselines: raw SQLite WAL commit {commit * 1e6:.0f} µs of CPU "
          f"({1 / commit:,.0f}/s); the same mail to an SMTP listener that only says 250: "
          f"{plain * 1e3:.2f} ms")
    with tempfile.TemporaryDirectory() as workdir:
        report("SQLite", *play_by_mail(f"sqlite:///{workdir}/bench.db", moves[:320]), commit)
    with tempfile.TemporaryDirectory() as workdir:
        by_ply(f"sqlite:///{workdir}/bench.db", moves)
    tracemalloc.start()  # a second run: tracing slows Python down several times
    with tempfile.TemporaryDirectory() as workdir:
        play_by_mail(f"sqlite:///{workdir}/bench.db", moves[:320])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  peak memory of a SQLite run (traced apart): {peak / 1024:.0f} KiB")
    flat(moves[:120])
    postgres = os.environ.get("PBEM_BENCH_DATABASE_URL")
    if postgres:
        report("PostgreSQL", *play_by_mail(emptied_postgres(postgres), moves[:320]), commit)
        print("  (PostgreSQL: the server's own CPU is in another process, not counted)")
    else:
        print("  PostgreSQL: set PBEM_BENCH_DATABASE_URL to an empty database to measure it")


def flat(moves: list[str], block: int = 4) -> None:
    """The same moves on an empty store and on one that holds 20,000 earlier mails from
    each player (and 20,000 of ours to each) and 10,000 finished games of theirs, sent
    to the two in turns of `block` moves, so that the machine's moods of the minute fall
    on both alike (the models hold one database handle, so the stores take turns rather
    than moves; turns of eight gave 1.03-1.16 for the same statements, of four
    1.03-1.04)."""
    with tempfile.TemporaryDirectory() as workdir:
        servers = []
        for name, fill in (("empty", None), ("full", history)):
            servers.append(MailServer(f"{workdir}/{name}", f"sqlite:///{workdir}/{name}.db",
                                      fill))
            servers[-1].close()
        times: list[list[float]] = [[], []]
        for first in range(0, len(moves), block):
            for server, spent in zip(servers, times):
                server.reopen()
                turn = [server.send(number, moves[number - 1])[0]
                        for number in range(first + 1, min(first + block, len(moves)) + 1)]
                spent += turn[1:]  # the first after reopening connects and warms up
                if first + block >= len(moves):
                    server.check(len(moves))  # every move of both was played
                server.close()
    before, after = statistics.median(times[0]), statistics.median(times[1])
    print(f"  a move on an empty store: {before * 1e3:.2f} ms of CPU; with 20,000 earlier "
          f"mails from and to each player and 10,000 stored games: {after * 1e3:.2f} ms "
          f"(ratio {after / before:.2f}; the same moves, the stores in turns of {block}, the "
          f"first of each turn not counted)")


if __name__ == "__main__":
    run(3.0)
