"""Hostile mail: what a crafted mail costs the server, against a plain mail of its size.

`python -m bench.hostile` (or as part of `python -m bench`). All figures are CPU time of
this process (time.process_time), so other work on the machine does not count:

- **parse cost**: one mail through `pbem.intake.pipeline.receive` into a fresh SQLite
  store: a hostile mail (800 nested multiparts, ~50 KB) and a plain mail of the same
  size, both from a stranger, then both from a confirmed player; a stranger's mail with
  30 KB of Content-Type parameters (the header registry's slow case); a player's mail of
  40 nested multiparts (the most the prescan lets through) and one of dense HTML (what
  html2text reads is cut to 32 KB); beside them, what the
  standard library's full parse of the hostile mail costs (what intake paid before the
  prescan). Target: hostile ≤ 3× plain.
- **a player's move behind 12 hostile mails**: the CPU a player's Onyx move costs alone
  (the baseline, same run), and the CPU of 12 hostile mails arriving at once from a
  stranger followed by the move: how much they delay it on a one-core intake. Target:
  ≤ 0.5 s of delay.
"""

from __future__ import annotations

import email
import email.policy
import statistics
import tempfile
import time

from pbem.operator.admin import start_game
from pbem.config import Config
from pbem.engines import ENGINES
from pbem.intake.pipeline import receive
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.store import Player, open_database
from pbem.store.models import database

DEPTH = 800


def hostile(sender: str, n: int, depth: int = DEPTH) -> bytes:
    head = (f"From: {sender}\r\nTo: pbem@bench.test\r\nSubject: hello\r\n"
            f"Message-ID: <hostile-{n}@bench.test>\r\nMIME-Version: 1.0\r\n").encode()
    opening = b"".join(b'Content-Type: multipart/mixed; boundary="b%d"\r\n\r\n--b%d\r\n'
                       % (d, d) for d in range(depth))
    closing = b"".join(b"\r\n--b%d--\r\n" % d for d in reversed(range(depth)))
    return head + opening + b"Content-Type: text/plain\r\n\r\ngames\r\n" + closing


def plain(sender: str, n: int, size: int, text: str = "games",
          to: str = "pbem@bench.test") -> bytes:
    head = (f"From: {sender}\r\nTo: {to}\r\nSubject: hello\r\nMessage-ID: <plain-{n}@bench."
            f"test>\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n{text}\r\n\r\n")
    filler = b"".join(b"%06d a line of an ordinary mail, quoted or written\r\n" % i
                      for i in range(size // 50))
    return head.encode() + filler[: max(size - len(head), 0)]


def html(sender: str, n: int, size: int) -> bytes:
    """A player's HTML mail of dense markup: html2text's cost is per byte."""
    head = (f"From: {sender}\r\nTo: pbem@bench.test\r\nSubject: hello\r\nMessage-ID: "
            f"<html-{n}@bench.test>\r\nContent-Type: text/html; charset=us-ascii\r\n\r\n"
            f"<html><body><p>games</p>")
    return (head + "<div><b>x</b><i>y</i> some text</div>\r\n" * (size // 40)).encode()


def parameters(sender: str, n: int) -> bytes:
    """A header the stdlib's header registry parses slowly: 30 KB of Content-Type
    parameters, folded as a mail client would."""
    value = "text/plain; " + "; ".join(f"a{i}=b" for i in range(3500))
    folded = "\r\n ".join(value[i:i + 900] for i in range(0, len(value), 900))
    return (f"From: {sender}\r\nTo: pbem@bench.test\r\nSubject: hello\r\nMessage-ID: "
            f"<params-{n}@bench.test>\r\nContent-Type: {folded}\r\n\r\ngames\r\n").encode()


def cpu(action) -> float:
    start = time.process_time()
    action()
    return time.process_time() - start


def fresh_store() -> Config:
    directory = tempfile.mkdtemp(prefix="pbem-bench-hostile-")
    config = Config(domain="bench.test", secret_key="bench", maildir=f"{directory}/mail",
                    database_url=f"sqlite:///{directory}/pbem.db", rate_limit=1_000_000,
                    unconfirmed_per_hour=1_000_000)
    open_database(config.database_url)
    return config


def parse_costs(rounds: int = 5) -> dict[str, float]:
    config = fresh_store()
    Player.create(email="ann@bench.test", name="ann", confirmed=True)
    size = len(hostile("x@bench.test", 0))
    figures = {name: [] for name in ("stranger hostile", "stranger plain",
                                     "stranger, 30 KB of parameters", "player hostile",
                                     "player plain", "player, 40 nested (the limit)",
                                     "player, dense HTML",
                                     "stdlib full parse of hostile")}
    for n in range(rounds):
        figures["stranger hostile"].append(
            cpu(lambda: receive(config, hostile(f"s{n}@else.test", n))))
        figures["stranger plain"].append(
            cpu(lambda: receive(config, plain(f"t{n}@else.test", n, size))))
        figures["stranger, 30 KB of parameters"].append(
            cpu(lambda: receive(config, parameters(f"p{n}@else.test", n))))
        figures["player hostile"].append(
            cpu(lambda: receive(config, hostile("ann@bench.test", 1000 + n))))
        figures["player plain"].append(
            cpu(lambda: receive(config, plain("ann@bench.test", 1000 + n, size))))
        figures["player, 40 nested (the limit)"].append(
            cpu(lambda: receive(config, hostile("ann@bench.test", 2000 + n, 40))))
        figures["player, dense HTML"].append(
            cpu(lambda: receive(config, html("ann@bench.test", 3000 + n, size))))
        raw = hostile("x@bench.test", n)
        figures["stdlib full parse of hostile"].append(
            cpu(lambda: email.message_from_bytes(raw, policy=email.policy.default)))
    database.close()
    return {name: statistics.median(values) for name, values in figures.items()} | {
        "size": size}


def delayed_move() -> tuple[float, float]:
    """(CPU of a player's move alone, CPU of 12 hostile mails then the move)."""
    config = fresh_store()
    game_id = start_game(config, ENGINES["onyx"], {"board": "12"},
                         ["ann@bench.test", "bob@bench.test"], seed="bench")
    Player.update(confirmed=True).execute()
    token = reply_address(seat_token(config.secret_key, game_id, 0), config.domain)
    alone = cpu(lambda: receive(config, plain("ann@bench.test", 1, 0, "F6", to=token)))
    token = reply_address(seat_token(config.secret_key, game_id, 1), config.domain)

    def crowd():
        for n in range(12):
            receive(config, hostile("mallory@else.test", n))
        receive(config, plain("bob@bench.test", 2, 0, "G5", to=token))
    behind = cpu(crowd)
    database.close()
    return alone, behind


def run(seconds: float = 3.0) -> None:
    costs = parse_costs()
    size = costs.pop("size")
    print(f"\nHostile mail ({DEPTH} nested multiparts, {size:,} bytes) vs plain mail of "
          f"the same size, CPU per mail through receive():")
    for name, value in costs.items():
        print(f"  {name:32} {value * 1000:8.1f} ms")
    for who in ("stranger", "player"):
        ratio = costs[f"{who} hostile"] / costs[f"{who} plain"]
        print(f"  {who}: hostile / plain = {ratio:.2f} (target <= 3)")
    alone, behind = delayed_move()
    print(f"A player's move alone: {alone * 1000:.1f} ms CPU; behind 12 hostile mails: "
          f"{behind * 1000:.1f} ms CPU; delay {(behind - alone) * 1000:.1f} ms "
          f"(target <= 500 ms)")


if __name__ == "__main__":
    run()
