"""Moves per second through a real Postfix: one worker on SQLite vs two on PostgreSQL.

    sudo .venv/bin/python -m bench.postfix [--games 16] [--moves 20]

The deployment of the end-to-end tests (tests/postfix_server.py, tests/deployed_pbem.py:
Postfix configured from deploy/, `pbem worker` started from its systemd unit as an
unprivileged user): players send each move over SMTP to Postfix, which hands it to pbem
over LMTP; pbem plays it and sends its mail back through Postfix, which relays the
players' mail to a sink in this process. A move's latency runs from the player's SMTP
send until the opponent's mail saying it is their turn arrives at the sink: both MTA
hops, the pipeline, the store and the outbox. Many games run at once (one thread each, a
move at a time per game), so moves/s is the server's throughput under that load.

Two set-ups: one worker on a SQLite file, and two workers on one PostgreSQL database
with Postfix sharing the games between them. PostgreSQL is
PBEM_BENCH_DATABASE_URL (an empty database; its public schema is dropped) or, without
it, a throwaway cluster started here. Needs root (Postfix) and Postfix installed.
"""

from __future__ import annotations

import argparse
import contextlib
import email.parser
import email.policy
import os
import re
import shutil
import smtplib
import subprocess
import sys
import threading
import time
from email.message import EmailMessage
from pathlib import Path

from aiosmtpd.controller import Controller

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from deployed_pbem import PbemService, Site, install_pbem  # noqa: E402
from loopback_services import (PBEM_DOMAIN, PLAYERS_DOMAIN, free_port,  # noqa: E402
                               give_to_service_user, scratch_directory)
from postfix_server import Postfix  # noqa: E402
from bench import emptied_postgres  # noqa: E402
from pbem.engines import ENGINES  # noqa: E402
from pbem.engines.game import selfplay  # noqa: E402
from pbem.vocabulary.tokens import reply_address, seat_token  # noqa: E402

SECRET = "bench-secret-key"
TIMEOUT = 30  # seconds for one move's mail to come back before the run is abandoned


class Arrivals:
    """The sink for the players' mail: when the mail of (game, ply, seat) arrived."""

    def __init__(self):
        self.port = free_port()
        self.seen: dict[tuple[int, int, int], float] = {}
        self.changed = threading.Condition()
        self.parser = email.parser.BytesHeaderParser(policy=email.policy.compat32)

    async def handle_DATA(self, server, session, envelope):
        now = time.perf_counter()
        # pbem's Message-IDs name game, ply and seat: <pbem.GAME.PLY.SEAT.RANDOM@domain>
        message_id = self.parser.parsebytes(envelope.content)["Message-ID"] or ""
        parts = message_id.strip("<>").split("@")[0].split(".")
        if len(parts) == 5 and parts[0] == "pbem" and parts[3].isdigit():
            with self.changed:
                self.seen[(int(parts[1]), int(parts[2]), int(parts[3]))] = now
                self.changed.notify_all()
        return "250 OK"

    def wait(self, key: tuple[int, int, int]) -> float:
        with self.changed:
            if not self.changed.wait_for(lambda: key in self.seen, timeout=TIMEOUT):
                raise RuntimeError(f"no mail for game {key[0]} ply {key[1]} seat {key[2]}")
            return self.seen[key]


def play(game_id: int, moves: list[str], players: list[str], relay: int,
         arrivals: Arrivals, latencies: list[float]) -> None:
    """One game: each move by mail, then wait for the opponent's news of it."""
    with smtplib.SMTP("127.0.0.1", relay, timeout=60) as smtp:
        for ply, text in enumerate(moves, start=1):
            seat = (ply - 1) % 2
            message = EmailMessage()
            message["From"] = players[seat]
            message["To"] = reply_address(seat_token(SECRET, game_id, seat), PBEM_DOMAIN)
            message["Subject"] = f"Re: [pbem] Onyx #{game_id}"
            message["Message-ID"] = f"<bench.{game_id}.{ply}@{PLAYERS_DOMAIN}>"
            message.set_content(f"{text}\n")
            start = time.perf_counter()
            smtp.send_message(message)
            arrived = arrivals.wait((game_id, ply, 1 - seat))
            latencies.append(arrived - start)


def run_setup(label: str, database_url: str, workers: int, games: int, moves: int) -> None:
    root = scratch_directory("pbem-bench-")
    arrivals = Arrivals()
    sink = Controller(arrivals, hostname="127.0.0.1", port=arrivals.port)
    lmtp_ports = [free_port() for _ in range(workers)]
    site = Site(root, lmtp_port=lmtp_ports[0], relay_port=free_port())
    services: list[PbemService] = []
    postfix = None
    try:
        site.state.mkdir()
        give_to_service_user(site.state)
        install_pbem(site)
        site.write_env_file({"PBEM_SECRET_KEY": SECRET, "PBEM_DATABASE_URL": database_url,
                             "PBEM_RATE_LIMIT": "1000000000"})
        sink.start()
        routes = root / "routes"
        routes.write_text(transport_routes(lmtp_ports, arrivals.port))
        postfix = Postfix(site, "", main_extra=(f"transport_maps = regexp:{routes}\n"
                                                "default_destination_concurrency_limit = 50\n"))
        postfix.start()
        for number, port in enumerate(lmtp_ports):
            service = PbemService(site, drop_in={"PBEM_LMTP_LISTEN": f"127.0.0.1:{port}"},
                                  name=f"worker-{number + 1}")
            services.append(service.start())
        players = [[f"black{g}@{PLAYERS_DOMAIN}", f"white{g}@{PLAYERS_DOMAIN}"]
                   for g in range(games)]
        game_ids = [int(services[0].pbem("new", "onyx", "--player", black, "--player",
                                         white).stdout.split()[-1])
                    for black, white in players]
        plans = [long_enough(seed, moves) for seed in range(games)]
        latencies: list[float] = []
        threads = [threading.Thread(target=play, args=(game_id, plan, pair, site.relay_port,
                                                       arrivals, latencies))
                   for game_id, plan, pair in zip(game_ids, plans, players)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
        if len(latencies) != games * moves:
            raise RuntimeError(f"{len(latencies)} of {games * moves} moves came back; "
                               f"see the logs in {root}")
        report(label, latencies, elapsed)
    except BaseException:
        print(f"  {label}: failed; the servers' logs are in {root}", file=sys.stderr)
        root = None
        raise
    finally:
        for service in services:
            service.stop()
        if postfix is not None:
            postfix.stop()
        sink.stop()
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)


def transport_routes(lmtp_ports: list[int], sink_port: int) -> str:
    """Postfix's transport map (regexp): the players' mail to the sink, and pbem's to the
    workers: with two, games of even number (a token reads pbem+GAME-SEAT-MAC) to the
    second, so both share the games evenly and each game's mail keeps its order."""
    domain = re.escape(PBEM_DOMAIN)
    lines = [rf"/@{re.escape(PLAYERS_DOMAIN)}$/ smtp:[127.0.0.1]:{sink_port}"]
    if len(lmtp_ports) == 2:
        lines.append(rf"/^pbem\+[0-9]*[02468]-.*@{domain}$/ lmtp:inet:127.0.0.1:{lmtp_ports[1]}")
    lines.append(rf"/@{domain}$/ lmtp:inet:127.0.0.1:{lmtp_ports[0]}")
    return "\n".join(lines) + "\n"


def long_enough(seed: int, moves: int) -> list[str]:
    """The first moves of a seeded random 12×12 Onyx game that lasts longer than that."""
    for attempt in range(seed, seed + 100):
        plies = selfplay(ENGINES["onyx"], {}, 2, f"bench-{attempt}").plies
        if len(plies) > moves:
            return [ply.text for ply in plies[:moves]]
    raise RuntimeError("no game long enough")


def report(label: str, latencies: list[float], elapsed: float) -> None:
    ordered = sorted(latencies)
    p50 = ordered[len(ordered) // 2]
    p99 = ordered[min(int(len(ordered) * 0.99), len(ordered) - 1)]
    print(f"  {label:30} {len(latencies) / elapsed:6.1f} moves/s   p50 {p50 * 1e3:6.1f} ms"
          f"   p99 {p99 * 1e3:6.1f} ms   ({len(latencies)} moves)", flush=True)


@contextlib.contextmanager
def postgres():
    """PBEM_BENCH_DATABASE_URL emptied, or a throwaway cluster on a free loopback port."""
    url = os.environ.get("PBEM_BENCH_DATABASE_URL")
    if url:
        emptied_postgres(url)
        yield url
        return
    pg_bin = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
    data = scratch_directory("pbem-bench-pg-")
    shutil.chown(data, "postgres")
    as_postgres = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    subprocess.run([*as_postgres, f"{pg_bin}/initdb", "-D", f"{data}/data", "-U", "postgres",
                    "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"], check=True,
                   capture_output=True)
    subprocess.run([*as_postgres, f"{pg_bin}/pg_ctl", "-D", f"{data}/data", "-l",
                    f"{data}/server.log", "-w", "start", "-o",
                    f"-c listen_addresses=127.0.0.1 -p {port} -k {data}"], check=True,
                   capture_output=True)
    try:
        subprocess.run([*as_postgres, f"{pg_bin}/createdb", "-h", "127.0.0.1", "-p", str(port),
                        "-U", "postgres", "pbem_bench"], check=True, capture_output=True)
        yield f"postgresql://postgres@127.0.0.1:{port}/pbem_bench"
    finally:
        subprocess.run([*as_postgres, f"{pg_bin}/pg_ctl", "-D", f"{data}/data", "-m", "fast",
                        "stop"], capture_output=True)
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.postfix")
    parser.add_argument("--games", type=int, default=16, help="games played at once")
    parser.add_argument("--moves", type=int, default=20, help="moves per game")
    args = parser.parse_args()
    print(f"\nMoves through Postfix, end to end ({args.games} games at once, "
          f"{args.moves} moves each; latency: send → the opponent's mail arrives)")
    scratch = scratch_directory("pbem-bench-sqlite-")
    try:
        give_to_service_user(scratch)
        run_setup("1 worker, SQLite", f"sqlite:///{scratch}/bench.db", 1,
                  args.games, args.moves)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    with postgres() as url:
        run_setup("2 workers, PostgreSQL", url, 2, args.games, args.moves)
        emptied_postgres(url)
        run_setup("1 worker, PostgreSQL", url, 1, args.games, args.moves)


if __name__ == "__main__":
    main()
