"""Production on one PostgreSQL database: two `pbem worker` processes, each with its own
SMTP listener, and gunicorn with two web workers, all running at once.

Every move mail is sent to both workers at the same moment (what an MTA with two
backends, or a retry racing the first try, does), different games' moves go in together,
and two different moves for one seat arrive at once, one at each worker. Afterwards every
move is in the log once, every mail the outbox held reached the relay (an aiosmtpd sink)
exactly once, counted by Message-ID, and the web answered all along. The processes are
real and so is the database: row locks, SKIP LOCKED claims and all. The same two
workers, started on games whose deadlines have passed, act on each deadline once; and
processes starting together on an empty database create its schema once. One worker
alone (on SQLite too) takes mail, delivers, and stops on SIGTERM or SIGINT. Waiting is
polling with a generous timeout, never a fixed sleep.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import smtplib
import subprocess
import sys
import threading
import urllib.request
from collections import Counter
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from pathlib import Path

import psycopg
import pytest

from databases import only_on
from mailtest import body, free_port, poll
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.store import Game, Inbound, Move, Outbox
from pbem.store.models import Clock, database, utcnow

TIMEOUT = 90  # seconds: generous, for a loaded machine; a pass takes far less
GAMES = 4  # the last: two moves for one seat at once; the others: each mail to both workers


class Process:
    """A server process started like a service manager does, its output kept in files."""

    def __init__(self, name: str, command: list[str], env: dict, workdir: Path):
        self.name = name
        self.out, self.err = workdir / f"{name}.out", workdir / f"{name}.err"
        self.signalled = False
        env = {**env, "PYTHONFAULTHANDLER": "1"}
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.process = subprocess.Popen(command, env=env, cwd=workdir, stdout=out,
                                            stderr=err, text=True)

    def output(self) -> str:
        return self.out.read_text() + self.err.read_text()

    def wait_for(self, text: str) -> None:
        def started():
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} ended: {self.output()}")
            return text in self.output()
        poll(started, f"{self.name} to start", timeout=TIMEOUT)

    def signal(self, number: int = signal.SIGTERM) -> None:
        """Once, as systemd stops a service: a second signal could land after Python has
        put back the default handlers on its way out, and kill it."""
        if self.process.poll() is None and not self.signalled:
            self.signalled = True
            self.process.send_signal(number)

    def stop(self) -> int:
        """Stop it (SIGTERM, unless signalled already); its exit code."""
        self.signal()
        try:
            return self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGABRT)  # faulthandler: where it hangs
            self.process.wait(timeout=TIMEOUT)
            raise AssertionError(f"{self.name} did not stop: {self.output()}") from None


@pytest.fixture
def production(config, sink, tmp_path):
    """start() runs two workers on one database and one relay, and gunicorn with two web
    workers; it returns (the two workers' SMTP ports, the web's base URL, the processes).
    Whatever was started is stopped at the end, whatever happened."""
    env = {**os.environ, "PBEM_DATABASE_URL": config.database_url,
           "PBEM_DOMAIN": config.domain, "PBEM_SECRET_KEY": config.secret_key,
           "PBEM_SMTP_RELAY": sink.address, "PBEM_RATE_LIMIT": "100000",
           "PYTHONUNBUFFERED": "1"}
    processes: list[Process] = []

    def start():
        ports, web_port = [free_port(), free_port()], free_port()
        processes.extend(Process(f"worker{n}", [sys.executable, "-m", "pbem", "worker"],
                                 {**env, "PBEM_SMTP_LISTEN": f"127.0.0.1:{port}"}, tmp_path)
                         for n, port in enumerate(ports))
        processes.append(Process("web", [sys.executable, "-m", "gunicorn", "-w", "2",
                                         "-b", f"127.0.0.1:{web_port}", "--no-control-socket",
                                         "pbem.web.wsgi:app"], env, tmp_path))
        for process in processes[:2]:
            process.wait_for("database:")  # the banner's last line: listening, scheduling
        processes[2].wait_for("Booting worker")
        return ports, f"http://127.0.0.1:{web_port}", processes

    yield start
    for process in processes:
        process.stop()


def move_mail(config, game_id: int, seat: int, text: str, message_id: str) -> EmailMessage:
    players = [f"black{game_id}@example.org", f"white{game_id}@example.org"]
    message = EmailMessage()
    message["From"] = players[seat]
    message["To"] = reply_address(seat_token(config.secret_key, game_id, seat), config.domain)
    message["Subject"] = f"Re: [pbem] Onyx #{game_id}"
    message["Message-ID"] = message_id
    message.set_content(f"{text}\n")
    return message


def send_at_once(deliveries: list[tuple[int, EmailMessage]]) -> None:
    """Each (port, message) over its own SMTP connection, all released together; each
    returns when the worker said 250, that is, when the pipeline is done with it."""
    barrier = threading.Barrier(len(deliveries))
    errors: list[BaseException] = []

    def send(port: int, message: EmailMessage) -> None:
        try:
            with smtplib.SMTP("127.0.0.1", port, timeout=TIMEOUT) as smtp:
                barrier.wait(timeout=TIMEOUT)
                smtp.send_message(message)
        except BaseException as error:  # noqa: BLE001 - re-raised in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=send, args=delivery) for delivery in deliveries]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=TIMEOUT * 2)
    assert not any(thread.is_alive() for thread in threads), "a delivery hangs"
    if errors:
        raise errors[0]


class WebWatch:
    """Asks the web for its pages, again and again, while the mail is being handled."""

    def __init__(self, base: str):
        self.base, self.answers = base, []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run)

    def run(self) -> None:
        while not self.done.is_set():
            for path in ("/", "/healthz"):
                try:
                    with urllib.request.urlopen(self.base + path, timeout=TIMEOUT) as response:
                        self.answers.append((path, response.status))
                except OSError as error:
                    self.answers.append((path, str(error)))

    def __enter__(self) -> "WebWatch":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.thread.join(timeout=TIMEOUT)


def message_id_of(raw: bytes) -> str:
    return BytesHeaderParser().parsebytes(raw)["Message-ID"]


@only_on("postgresql")
def test_two_workers_and_two_web_workers_on_one_database_do_everything_once(
        config, sink, production):
    games = [start_game(config, ENGINES["onyx"], {},
                        [f"black{n}@example.org", f"white{n}@example.org"])
             for n in range(1, GAMES + 1)]
    (first, second), web, processes = production()
    duplicated, contested = games[:-1], games[-1]

    with WebWatch(web) as watch:
        # Black moves in every game at once: each mail to both workers; in the last
        # game Black sends two different moves, one to each worker.
        blacks = [move_mail(config, g, 0, "F6", f"<black-{g}@example.org>") for g in duplicated]
        send_at_once([(port, m) for m in blacks for port in (first, second)] + [
            (first, move_mail(config, contested, 0, "F6", "<contested-f6@example.org>")),
            (second, move_mail(config, contested, 0, "G5", "<contested-g5@example.org>"))])
        whites = [move_mail(config, g, 1, "E5", f"<white-{g}@example.org>") for g in duplicated]
        send_at_once([(port, m) for m in whites for port in (first, second)])
        queued = poll(lambda: everything_delivered(sink), "the outbox to be delivered", timeout=TIMEOUT)
    codes = [process.stop() for process in processes]  # nothing more can be sent now

    for game in duplicated:
        assert [(m.ply, m.seat, m.text) for m in Move.select().where(Move.game == game)
                .order_by(Move.ply)] == [(1, 0, "F6"), (2, 1, "E5")]
    contested_moves = [m.text for m in Move.select().where(Move.game == contested)]
    assert contested_moves in (["F6"], ["G5"])  # one of the two, once

    sent_ids = [f"<{kind}-{g}@example.org>" for kind in ("black", "white") for g in duplicated]
    sent_ids += ["<contested-f6@example.org>", "<contested-g5@example.org>"]
    stored = {row.message_id: row.outcome for row in Inbound.select()}
    assert sorted(stored) == sorted(sent_ids)  # each mail stored once, of its two copies
    contested_ids = ("<contested-f6@example.org>", "<contested-g5@example.org>")
    assert {o for m, o in stored.items() if m not in contested_ids} == {"done: 1 line(s)"}
    assert sorted(stored[m] for m in contested_ids) == [  # the one played second is refused
        "answered: error, 1 line(s)", "done: 1 line(s)"]

    received = Counter(message["Message-ID"] for _, message in sink.messages)
    assert received == Counter(queued)  # every queued mail, exactly once
    assert set(received.values()) == {1}
    # The starts, each move's news to the other, and in the contested game the refusal
    # and the news of the move played (a move that went in needs no mail of its own).
    assert len(queued) == 2 * len(games) + 2 * len(duplicated) + 2

    assert watch.answers and set(watch.answers) == {("/", 200), ("/healthz", 200)}
    assert codes == [0, 0, 0], [process.output() for process in processes]
    for process in processes:
        assert "Traceback" not in process.output(), process.output()


def everything_delivered(sink):
    """The Message-IDs the outbox holds, once every one is sent and the sink has as many."""
    queued = [message_id_of(bytes(row.message)) for row in Outbox.select()]
    done = Outbox.select().where(Outbox.sent.is_null()).count() == 0
    return queued if done and len(sink.messages) >= len(queued) else None


@only_on("postgresql")
def test_two_workers_act_on_each_due_deadline_once(config, sink, production):
    """Both workers' schedulers look at the clocks as they start: every game's deadline
    is past by then (Black's three days ran out a day ago), and each is acted on once."""
    games = [start_game(config, ENGINES["onyx"], {"timeout": "forfeit"},
                        [f"black{n}@example.org", f"white{n}@example.org"])
             for n in range(1, 11)]
    long_ago = utcnow() - dt.timedelta(days=4)
    assert Clock.update(since=long_ago, settled=long_ago, due=long_ago + dt.timedelta(days=3)
                        ).where(Clock.game.in_(games) & Clock.waiting).execute() == len(games)
    processes = production()[2]

    def all_ended():
        return Game.select().where(Game.id.in_(games) & (Game.status == "running")).count() == 0
    poll(all_ended, "the deadlines to be acted on", timeout=TIMEOUT)
    queued = poll(lambda: everything_delivered(sink), "the outbox to be delivered", timeout=TIMEOUT)
    codes = [process.stop() for process in processes]

    assert Counter(message["Message-ID"] for _, message in sink.messages) == Counter(queued)
    for n, game in enumerate(games, start=1):
        assert Game.get_by_id(game).status == "finished"
        for player in (f"black{n}@example.org", f"white{n}@example.org"):
            told = [m for m in sink.to(player) if "time ran out" in body(m)]
            assert len(told) == 1, (player, [body(m) for m in told])
    assert codes == [0, 0, 0], [process.output() for process in processes]


@only_on("postgresql")
def test_processes_starting_together_on_an_empty_database_upgrade_it_once(config):
    """A first deployment starts workers and web at once: one creates the schema while
    the others wait (an advisory lock), instead of racing to create the same tables."""
    database.close()
    with psycopg.connect(config.database_url, autocommit=True) as connection:
        connection.execute("DROP SCHEMA public CASCADE")
        connection.execute("CREATE SCHEMA public")
    opening = ("import sys; from pbem.store import open_database; "
               "open_database(sys.argv[1]).close()")
    starts = [subprocess.Popen([sys.executable, "-c", opening, config.database_url],
                               stderr=subprocess.PIPE, text=True) for _ in range(4)]
    results = [(start.wait(timeout=TIMEOUT), start.stderr.read()) for start in starts]
    for start in starts:
        start.stderr.close()
    assert [code for code, _ in results] == [0] * 4, [errors for _, errors in results]
    applied = database.execute_sql("SELECT name FROM pbem_schema ORDER BY name").fetchall()
    assert len(applied) == len(set(applied)) and ("0001_initial",) in applied


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT],
                         ids=["SIGTERM", "SIGINT"])
def test_one_worker_takes_mail_delivers_and_stops_cleanly(config, sink, tmp_path, stop_signal):
    """`pbem worker` alone, on either database: the scheduler delivers the starting
    mails, the listener takes a move, and a stop signal ends it with exit code 0."""
    game = start_game(config, ENGINES["onyx"], {},
                      ["black1@example.org", "white1@example.org"])
    port = free_port()
    env = {**os.environ, "PBEM_DATABASE_URL": config.database_url,
           "PBEM_DOMAIN": config.domain, "PBEM_SECRET_KEY": config.secret_key,
           "PBEM_SMTP_LISTEN": f"127.0.0.1:{port}", "PBEM_SMTP_RELAY": sink.address,
           "PYTHONUNBUFFERED": "1"}
    worker = Process("worker", [sys.executable, "-m", "pbem", "worker"], env, tmp_path)
    try:
        worker.wait_for("database:")
        assert f"SMTP on 127.0.0.1:{port}" in worker.output()
        poll(lambda: sink.to("black1@example.org"), "the starting mail")
        send_at_once([(port, move_mail(config, game, 0, "F6", "<alone@example.org>"))])
        poll(lambda: [m for m in sink.to("white1@example.org") if "F6" in body(m)],
             "White's news of F6")
        worker.signal(stop_signal)
    finally:
        code = worker.stop()
    assert code == 0, worker.output()
    assert "Traceback" not in worker.output()
    with pytest.raises(OSError):  # the listener is gone
        smtplib.SMTP("127.0.0.1", port, timeout=5).quit()
