"""The web archive under load: pages per second, p50/p99, queries and memory per page.

A fresh SQLite file is filled cheaply (rows inserted directly, in batches: players,
games with a real end-of-game snapshot of their engine, two seats each) and one real
Onyx game of about 300 plies is played through `pbem.play.Table`, so its moves,
snapshots and comments are what a game by mail leaves. Pages are requested through the
Flask test client, in one process on one core: the figure is the app and the store, not
a network or a WSGI server. The index is measured at 1,000, 10,000 and 50,000 games, page
1 and the last page, to show whether a page's cost grows with the archive or its depth.
The store is SQLite, and PostgreSQL too when PBEM_BENCH_DATABASE_URL names a database
it may empty (its public schema is dropped first). `python -m bench.web [--seconds S]`
runs this benchmark alone.

Each page is also requested once with peewee's SQL log counted (queries per page) and
once under tracemalloc (peak memory of one request), apart from the timed runs. Beside
the wall-clock p50 the CPU time of the process is given: on a machine shared with other
work it is the figure that does not move with the load.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import os
import tempfile
import time
import tracemalloc

from peewee import PostgresqlDatabase

from bench import emptied_postgres
from pbem.config import Config
from pbem.engines import ENGINES
from pbem.engines.game import seed_commitment, selfplay
from pbem.play import Table, create_game
from pbem.store import Comment, Game, Player, Seat, open_database, transaction
from pbem.store.models import database
from pbem.web import create_app

FILLER_PLAYERS = 200
BATCH = 500  # rows per INSERT: well under SQLite's limit on bound variables
STATUSES = ["finished"] * 7 + ["running"] * 2 + ["cancelled"]  # one game in ten of each


class QueryCounter(logging.Handler):
    """Counts the statements peewee logs (it logs each one at DEBUG)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record) -> None:
        self.count += 1


def snapshots() -> dict[str, tuple[dict, str, int]]:
    """Per engine: the snapshot, result and plies of one finished self-played game."""
    found = {}
    for engine_id, engine in ENGINES.items():
        game = selfplay(engine, {}, 2, "bench-web")
        found[engine_id] = (engine.to_json(game.state), engine.result_token(game.state),
                            len(game.plies))
    return found


def fill(first: int, count: int, players: list[int], finals: dict) -> None:
    """Games `first`.. `first + count - 1`, newest last, two filler players each."""
    engines = list(ENGINES)
    start = dt.datetime(2026, 1, 1)
    with transaction():
        for base in range(first, first + count, BATCH):
            numbers = range(base, min(base + BATCH, first + count))
            rows, seats = [], []
            for n in numbers:
                engine_id = engines[n % len(engines)]
                state, result, plies = finals[engine_id]
                status = STATUSES[n % len(STATUSES)]
                when = start + dt.timedelta(minutes=n)
                rows.append({"engine": engine_id, "options": ENGINES[engine_id].resolve_options(),
                             "seed": f"seed{n}", "commitment": seed_commitment(f"seed{n}"),
                             "status": status, "plies": plies, "state": state,
                             "result": result if status == "finished" else "*",
                             "created": when, "updated": when})
            Game.insert_many(rows).execute()
            ids = [g.id for g in Game.select(Game.id).order_by(Game.id.desc()).limit(len(rows))]
            for n, game_id in zip(reversed(numbers), ids):
                a, b = n % len(players), (n * 7 + 1) % len(players)
                b = (a + 1) % len(players) if a == b else b
                seats += [{"game": game_id, "number": 0, "player": players[a],
                           "answer": "accepted"},
                          {"game": game_id, "number": 1, "player": players[b],
                           "answer": "accepted"}]
            Seat.insert_many(seats).execute()


def long_onyx_game() -> int:
    """A finished 16×16 Onyx game of 290-330 plies, played move by move through a Table,
    with a few comments; its id."""
    engine = ENGINES["onyx"]
    for seed in range(200):
        record = selfplay(engine, {"board": "16"}, 2, f"long{seed}")
        if 290 <= len(record.plies) <= 330:
            break
    with transaction():
        alice = Player.create(email="alice@example.org", name="alice", confirmed=True)
        bob = Player.create(email="bob@example.org", name="bob", confirmed=True)
        game = create_game(engine, {"board": "16"}, [alice, bob], creator=None,
                           accepted=True, seed="bench")
        table = Table.load(game.id)
        table.start()
        for ply in record.plies:
            table.play(ply.seat, ply.text)
            if table.game.plies % 50 == 0:
                Comment.create(game=game, ply=table.game.plies, seat=ply.seat,
                               text=f"ply {table.game.plies}: still going")
    return game.id


def measure(client, url: str, seconds: float) -> dict | None:
    """Timed requests of `url` for `seconds` (at least 20); None if it is not served."""
    answer = client.get(url)
    if answer.status_code != 200:
        print(f"  {url:34} not served: {answer.status_code}")
        return None
    size = len(answer.get_data())
    times, cpu = [], []
    began = time.perf_counter()
    while time.perf_counter() - began < seconds or len(times) < 20:
        start, start_cpu = time.perf_counter(), time.process_time()
        client.get(url).get_data()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    counter = QueryCounter()
    logger = logging.getLogger("peewee")
    level = logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(counter)
    try:
        client.get(url).get_data()
    finally:
        logger.removeHandler(counter)
        logger.setLevel(level)
    tracemalloc.start()
    client.get(url).get_data()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    ordered = sorted(times)
    return {"pages/s": len(times) / sum(times), "p50": ordered[len(ordered) // 2] * 1e3,
            "p99": ordered[int(len(ordered) * 0.99)] * 1e3,
            "cpu": sorted(cpu)[len(cpu) // 2] * 1e3, "queries": counter.count,
            "KiB": peak / 1024, "bytes": size}


def report(label: str, url: str, figures: dict | None) -> None:
    if figures is None:
        return
    flag = "  (over 20 ms of CPU)" if figures["cpu"] > 20 else ""
    print(f"  {label:26} {figures['pages/s']:6.1f} pages/s  p50 {figures['p50']:6.2f} ms  "
          f"p99 {figures['p99']:6.2f} ms  (CPU p50 {figures['cpu']:6.2f} ms)  "
          f"{figures['queries']:2d} queries  peak {figures['KiB']:5.0f} KiB  "
          f"{figures['bytes'] / 1024:6.1f} KiB page{flag}")


SIZES = (1000, 10_000, 50_000)  # games in the archive when the index is measured


def run(seconds: float) -> None:
    print("\nThe web archive (Flask test client, one core)")
    finals = snapshots()
    with tempfile.TemporaryDirectory() as workdir:
        archive("SQLite", f"sqlite:///{workdir}/bench.db", finals, seconds)
    postgres = os.environ.get("PBEM_BENCH_DATABASE_URL")
    if postgres:
        archive("PostgreSQL", emptied_postgres(postgres), finals, seconds)
    else:
        print(" PostgreSQL: set PBEM_BENCH_DATABASE_URL to an empty database to measure it")


def archive(kind: str, url: str, finals: dict, seconds: float) -> None:
    """Every page's figures on the database at `url` (empty), filled as it goes."""
    print(f" {kind}")
    db = open_database(url)
    try:
        with transaction():
            Player.insert_many([{"email": f"player{n}@example.org", "name": f"player{n}",
                                 "confirmed": True} for n in range(FILLER_PLAYERS)]
                               ).execute()
        players = [p.id for p in Player.select(Player.id).order_by(Player.id)]
        fill(0, SIZES[0], players, finals)
        big = long_onyx_game()
        plies = Game.get_by_id(big).plies
        client = create_app(Config(database_url=url, secret_key="bench")).test_client()
        filled = SIZES[0]
        for total in SIZES:
            fill(filled, total - filled, players, finals)
            filled = total
            settle(db)
            deepest = (total + 1) // 50  # the last full page: 50 rows, like page 1
            print(f" {total + 1} games, a {plies}-ply Onyx game among them")
            for label, page in (("index page 1", "/games"),
                                (f"index page {deepest} (deepest)",
                                 f"/games?page={deepest}")):
                report(label, page, measure(client, page, seconds))
        deepest = Game.select().where(Game.engine == "onyx",
                                      Game.status == "finished").count() // 50
        pages = [("index, one player's games", f"/games?player={players[0]}"),
                 ("index, onyx finished", "/games?game=onyx&status=finished"),
                 (f"  ... its deepest, page {deepest}",
                  f"/games?game=onyx&status=finished&page={deepest}"),
                 (f"game page at ply {plies // 2}", f"/games/{big}?ply={plies // 2}"),
                 (f"SVG of ply {plies // 2}", f"/games/{big}/ply/{plies // 2}.svg"),
                 ("record (.txt)", f"/games/{big}.txt"),
                 ("SGF", f"/games/{big}.sgf"),
                 ("print page, every 20", f"/games/{big}/print?every=20")]
        for label, page in pages:
            report(label, page, measure(client, page, seconds))
    finally:
        db.close()
        database.initialize(None)


def settle(db) -> None:
    """PostgreSQL: what autovacuum does to a live database soon after many inserts —
    statistics for the planner (without them it guesses a few thousand rows and
    scans the table) and the visibility map that lets it answer from an index alone."""
    if isinstance(db, PostgresqlDatabase):
        db.execute_sql("VACUUM ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.web")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time spent on each page's measurement")
    run(parser.parse_args().seconds)


if __name__ == "__main__":
    main()
