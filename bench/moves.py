"""A move by mail through `receive()`, in process: from the mail in to the mail out as
the relay gets it (issue #44). Run by `bench.mail.run`, or alone:

    .venv/bin/python -m bench.moves [--quick]

Each move of one 26×26 Onyx game (open setup) is handed to
pbem.intake.pipeline.receive as the SMTP listener hands it, and the figure is the CPU
time (`time.process_time`) of that call together with reading back the bytes of every
outbox row it wrote: what the relay would be given. Delivery itself adds no work to a
message (pbem.mail.outbox hands the stored bytes over as they are), so work moved out of
`receive()` into the outbox's bytes would still be counted here. The statements a move
executes are counted inside `receive()` (peewee's `execute_sql` calls, SAVEPOINT among
them, and its BEGINs and COMMITs).

Printed, beside the raw-commit baseline of the same run on the same connection (a small
INSERT and its COMMIT in a table of the bench's store):

- moves 1-320 with pictures on and off in turns of 20 (both players' `pictures`):
  moves/s of CPU, p50 and p99, statements a move, and the ratio on ÷ off (medians);
- moves 11-50 of one game against 291-330 of another, in one store, in turns of 4
  moves, pictures on and off: late ÷ early for each, and on ÷ off early and late;
- the same 120 moves on an empty store and on one holding 20,000 earlier mails from
  and 20,000 to each player, 10,000 finished and 1,000 running games (the stores in
  turns of 4, the first move after reopening not counted): full ÷ empty;
- PostgreSQL, with PBEM_BENCH_DATABASE_URL (a database it may empty).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from bench.mail import (BIG, PLAYERS, bring_to_plies, history, long_game, move_mail,
                        percentile)
from pbem.operator.admin import start_game
from pbem.config import Config
from pbem.engines import ENGINES
from pbem.intake.pipeline import receive
from pbem.store import Game, Outbox, Player, Seat, open_database, transaction
from pbem.store.database import is_postgres
from pbem.store.models import database
from pbem.store.prepared import Prepared

_SINCE = Prepared(lambda last: Outbox.select(Outbox.id, Outbox.message)
                  .where(Outbox.id > last).order_by(Outbox.id))


class Statements:
    """Counts the statements the store runs while `counting` is set: every call of
    peewee's `execute_sql` (prepared queries and SAVEPOINT go through it too), every
    BEGIN and every COMMIT. (SQLite's trace callback would see the same, but writes each
    statement out with its values, a game's state and a mail's bytes among them: it
    doubled the cost of a move.)"""

    def __init__(self):
        self.counting, self.count, self.seen = False, 0, []
        db = database.obj
        execute, begin, commit = type(db).execute_sql, type(db).begin, type(db).commit
        db.execute_sql = lambda sql, *a, **k: (self._seen(sql), execute(db, sql, *a, **k))[1]
        db.begin = lambda *a, **k: (self._seen("BEGIN"), begin(db, *a, **k))[1]
        db.commit = lambda: (self._seen("COMMIT"), commit(db))[1]

    def _seen(self, sql: str) -> None:
        if self.counting:
            self.count += 1
            self.seen.append(sql)


class Store:
    """A store with one 26×26 game started; `move` sends a move by mail to a game."""

    def __init__(self, workdir: str, url: str, fill=None):
        self.url = url
        self.config = Config(domain="pbem.test", secret_key="bench", database_url=url,
                             maildir=os.path.join(workdir, "mail"), rate_limit=10**9)
        open_database(url)
        if fill is not None:
            fill(self.config)
            if url.startswith("sqlite"):
                database.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        self.game_id = self.new_game()
        self.statements = Statements()

    def new_game(self) -> int:
        return start_game(self.config, ENGINES["onyx"], BIG, PLAYERS)

    def reopen(self) -> None:
        open_database(self.url)
        self.statements = Statements()

    def close(self) -> None:
        database.close()
        database.initialize(None)

    def pictures(self, on: bool) -> None:
        Player.update(pictures=on).execute()

    def move(self, number: int, text: str, game_id: int | None = None) -> tuple[float, int]:
        """(CPU seconds, statements) of move `number`: receive() and the relay's bytes."""
        seat, game_id = (number - 1) % 2, game_id or self.game_id
        raw = move_mail(self.config, game_id, seat, number, text)
        last = Outbox.select(Outbox.id).order_by(Outbox.id.desc()).scalar() or 0
        counter = self.statements
        counter.count, counter.seen = 0, []
        start = time.process_time()
        counter.counting = True
        receive(self.config, raw, PLAYERS[seat], None)
        counter.counting = False
        relayed = [bytes(row.message) for row in _SINCE.rows(last)]
        spent = time.process_time() - start
        if not relayed:
            raise RuntimeError(f"move {number} ({text}) wrote no mail")
        return spent, counter.count

    def check(self, moves: int, game_id: int | None = None) -> None:
        played = Game.get_by_id(game_id or self.game_id).plies
        if played != moves:
            raise RuntimeError(f"only {played} of {moves} moves were played")

    def raw_commit(self, count: int = 3000) -> float:
        """CPU seconds of one small INSERT and its COMMIT on the store's own connection."""
        key = "SERIAL" if is_postgres() else "INTEGER"
        database.execute_sql(f"CREATE TABLE IF NOT EXISTS bench_raw (id {key} PRIMARY KEY,"
                             " text TEXT)")
        start = time.process_time()
        for number in range(count):
            with database.atomic():
                database.execute_sql("INSERT INTO bench_raw (text) VALUES (%s)"
                                     % database.param, (f"move {number}",))
        return (time.process_time() - start) / count


def line(label: str, cpu: list[float], statements: list[int], commit: float) -> str:
    mean = sum(cpu) / len(cpu)
    return (f"  {label:22} {1 / mean:6.0f} moves/s of CPU ({mean * 1e3:5.2f} ms a move, "
            f"{mean / commit:4.0f} raw commits)  p50 {percentile(cpu, .5) * 1e3:5.2f} ms  "
            f"p99 {percentile(cpu, .99) * 1e3:5.2f} ms  {statistics.mean(statements):4.1f} "
            f"statements a move")


def whole_game(url: str, moves: list[str], turn: int = 20) -> dict:
    """Moves 1-len(moves) of one game, pictures on and off in turns of `turn`."""
    with tempfile.TemporaryDirectory() as workdir:
        store = Store(workdir, url)
        try:
            commit = store.raw_commit()
            spent: dict[bool, list] = {True: [], False: []}
            for first in range(0, len(moves), turn):
                on = not (first // turn) % 2
                store.pictures(on)
                for number in range(first + 1, min(first + turn, len(moves)) + 1):
                    spent[on].append(store.move(number, moves[number - 1]))
            store.check(len(moves))
            seen = list(store.statements.seen)
        finally:
            store.close()
    return {"commit": commit, "on": spent[True], "off": spent[False], "seen": seen}


def report_game(name: str, found: dict) -> None:
    commit = found["commit"]
    print(f"  {name}: a raw commit on the same connection {commit * 1e6:.0f} µs of CPU "
          f"({1 / commit:,.0f}/s)")
    for on in ("on", "off"):
        cpu = [c for c, _ in found[on]]
        print(line(f"{name}, pictures {on}", cpu, [s for _, s in found[on]], commit))
    on, off = (statistics.median(c for c, _ in found[k]) for k in ("on", "off"))
    print(f"  {'':22} a picture: on ÷ off {on / off:.2f} (medians)")


def by_ply(url: str, moves: list[str], block: int = 4, count: int = 40) -> None:
    """Moves 11-50 of one game and 291-330 of another, in one store, in turns of `block`
    moves, each turn's pictures on then off."""
    with tempfile.TemporaryDirectory() as workdir:
        store = Store(workdir, url)
        try:
            early, late = store.game_id, store.new_game()
            bring_to_plies(store.move, moves, early, late)
            times: dict = {(g, on): [] for g in ("early", "late") for on in (True, False)}
            for first in range(0, count, block):
                on = not (first // block) % 2
                store.pictures(on)
                for game_id, start, name in ((early, 10, "early"), (late, 290, "late")):
                    times[name, on] += [store.move(start + n, moves[start + n - 1], game_id)[0]
                                        for n in range(first + 1, first + block + 1)]
            store.check(10 + count, early)
            store.check(290 + count, late)
        finally:
            store.close()
    median = {key: statistics.median(spent) for key, spent in times.items()}
    for on in (True, False):
        print(f"  pictures {'on ' if on else 'off'}: moves 11-50 {median['early', on] * 1e3:5.2f}"
              f" ms, 291-330 {median['late', on] * 1e3:5.2f} ms: late ÷ early "
              f"{median['late', on] / median['early', on]:.2f} (medians, turns of {block})")
    print(f"  a picture, on ÷ off: early {median['early', True] / median['early', False]:.2f},"
          f" late {median['late', True] / median['late', False]:.2f}")


def crowded(config: Config) -> None:
    """bench.mail.history (20,000 mails from and to each player, 10,000 finished games)
    and 1,000 running 26×26 games of the two players besides."""
    history(config)
    engine = ENGINES["onyx"]
    options = engine.resolve_options(BIG)
    state = engine.to_json(engine.start(options, 2, "crowd"))
    players = list(Player.select().order_by(Player.id))
    with transaction():
        for first in range(0, 1000, 500):
            Game.insert_many([{"engine": "onyx", "options": options, "seed": f"c{first + n}",
                               "commitment": "", "status": "running", "plies": 0,
                               "state": state} for n in range(500)]).execute()
            ids = [g.id for g in Game.select(Game.id).order_by(Game.id.desc()).limit(500)]
            Seat.insert_many([{"game": g, "number": n, "player": players[n],
                               "answer": "accepted", "told": 0} for g in ids
                              for n in range(2)]).execute()


def flat(moves: list[str], block: int = 4) -> None:
    """The same moves on an empty store and on a crowded one, in turns of `block`."""
    with tempfile.TemporaryDirectory() as workdir:
        urls = {name: f"sqlite:///{workdir}/{name}.db" for name in ("empty", "full")}
        for name, fill in (("empty", None), ("full", crowded)):
            os.mkdir(f"{workdir}/{name}")
            Store(f"{workdir}/{name}", urls[name], fill).close()
        times: dict[str, list[float]] = {"empty": [], "full": []}
        for first in range(0, len(moves), block):
            for name in ("empty", "full"):
                store = Store.__new__(Store)
                store.url, store.game_id = urls[name], 1 if name == "empty" else None
                store.config = Config(domain="pbem.test", secret_key="bench",
                                      database_url=urls[name], rate_limit=10**9,
                                      maildir=f"{workdir}/{name}/mail")
                store.reopen()
                store.game_id = store.game_id or Game.select(Game.id).where(
                    Game.status == "running").order_by(Game.id.desc()).scalar()
                turn = [store.move(n, moves[n - 1])[0]
                        for n in range(first + 1, min(first + block, len(moves)) + 1)]
                times[name] += turn[1:]
                store.close()
    before, after = statistics.median(times["empty"]), statistics.median(times["full"])
    print(f"  empty store {before * 1e3:.2f} ms; 20,000 mails from and to each player, "
          f"10,000 finished and 1,000 running games: {after * 1e3:.2f} ms (full ÷ empty "
          f"{after / before:.2f}, medians, turns of {block})")


def run(quick: bool = False) -> None:
    print("\nA move through receive(), from the mail in to the relay's bytes (in process,"
          " one core, CPU time)")
    moves = long_game()[:330]
    with tempfile.TemporaryDirectory() as workdir:  # templates compiled, caches filled
        whole_game(f"sqlite:///{workdir}/warm.db", moves[:40])
    with tempfile.TemporaryDirectory() as workdir:
        report_game("SQLite", whole_game(f"sqlite:///{workdir}/bench.db",
                                         moves[:120 if quick else 320]))
    with tempfile.TemporaryDirectory() as workdir:
        by_ply(f"sqlite:///{workdir}/bench.db", moves)
    flat(moves[:60 if quick else 120])
    postgres = os.environ.get("PBEM_BENCH_DATABASE_URL")
    if postgres:
        from bench import emptied_postgres
        report_game("PostgreSQL", whole_game(emptied_postgres(postgres),
                                             moves[:120 if quick else 320]))
        print("  (PostgreSQL: pbem's CPU only; the database server's is not counted)")
    else:
        print("  PostgreSQL: set PBEM_BENCH_DATABASE_URL to an empty database to measure it")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.moves")
    parser.add_argument("--quick", action="store_true", help="fewer moves, noisier")
    parser.add_argument("--statements", action="store_true",
                        help="list the statements of a move with pictures on, and stop")
    args = parser.parse_args()
    if args.statements:
        with tempfile.TemporaryDirectory() as folder:
            found = whole_game(f"sqlite:///{folder}/bench.db", long_game()[:20])
        print(f"{len(found['seen'])} statements in move 20:")
        print("\n".join(sql[:150] for sql in found["seen"]))
    else:
        run(args.quick)
