"""`python -m bench.same_mail FILE [--compare]`: every byte a fixed set of games writes.

A change made for speed must not change a mail. This plays fixed games through
pbem.intake.pipeline.receive on a fresh SQLite file, with what is random or timed made
fixed (the clock moves a minute a mail, `secrets` draws from a seeded generator, the Date
header follows the clock), and writes every row of every table afterwards (the outbox's
bytes among them) to FILE, or compares them with FILE's. Run it before a change and
again after: "same" is the only answer that keeps behaviour.

The games: a 26×26 Onyx game of 140 moves by mail (pictures on, then off for the last
forty; a move refused, a comment, `board` and `help` on the way, two conditional
moves that the opponent's next move clears, a move answered twice
by Message-ID), then a 2-player game of each other game with random honest decisions
(the mails of bench.conversation), and one Onyx game of an hour a move, whose clocks run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import random
import secrets
import sys
import tempfile
import time

from pbem import clock

START = dt.datetime(2026, 12, 7, 9, 0)


class FixedWorld:
    """The clock and `secrets`, fixed while it is entered (and put back after)."""

    def __init__(self):
        self.now = START
        self.rng = random.Random("same-mail")

    def __enter__(self):
        self.saved = (clock.now, secrets.token_hex, secrets.token_bytes, time.time)
        clock.now = lambda: self.now
        secrets.token_hex = lambda n=32: self.rng.randbytes(n).hex()
        secrets.token_bytes = lambda n=32: self.rng.randbytes(n)
        time.time = lambda: (self.now - dt.datetime(1970, 1, 1)).total_seconds()
        return self

    def __exit__(self, *exc):
        clock.now, secrets.token_hex, secrets.token_bytes, time.time = self.saved

    def tick(self, minutes: float = 1.0) -> None:
        self.now += dt.timedelta(minutes=minutes)


def _mail(config, game_id: int, seat: int, sender: str, number: int, body: str,
          message_id: str | None = None) -> bytes:
    from pbem.vocabulary.tokens import reply_address, seat_token
    address = reply_address(seat_token(config.secret_key, game_id, seat), config.domain)
    message_id = message_id or f"<same.{game_id}.{number}@example.org>"
    return (f"From: {sender}\r\nTo: {address}\r\nSubject: Re: [pbem] game #{game_id}\r\n"
            f"Message-ID: {message_id}\r\n\r\n{body}\r\n\r\nOn Monday, pbem wrote:\r\n"
            f"> the board\r\n").encode()


def play(world: FixedWorld, config) -> None:
    from bench.conversation import play_game
    from bench.mail import BIG, PLAYERS, long_game
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.engines.game import selfplay
    from pbem.intake.pipeline import receive
    from pbem.store import Player
    moves = long_game()[:140]
    game_id = start_game(config, ENGINES["onyx"], BIG, PLAYERS, seed="same-mail")
    Player.update(pictures=True).execute()
    extra = {20: "E5 E5", 31: "# a comment on the way\nboard", 47: "help"}
    for number, text in enumerate(moves, start=1):
        seat = (number - 1) % 2
        if number == 101:
            Player.update(pictures=False).execute()
        world.tick()
        if number in extra:  # a refused line, a comment and commands, answered alone
            receive(config, _mail(config, game_id, seat, PLAYERS[seat], 1000 + number,
                                  extra[number]), PLAYERS[seat])
            world.tick()
        if number in (70, 75):  # with a conditional move the opponent will not foresee
            text += f"\nif {moves[number + 2]} {moves[number + 1]}"
        raw = _mail(config, game_id, seat, PLAYERS[seat], number, text)
        receive(config, raw, PLAYERS[seat])
        if number == 60:
            receive(config, raw, PLAYERS[seat])  # the same Message-ID: a duplicate
    real_tick = world.tick
    for engine_id in ("onix", "baronoxx", "gemforge"):
        receive_ticking(world, config)
        play_game(config, engine_id, 2, f"same/{engine_id}")
    world.tick = real_tick
    timed = start_game(config, ENGINES["onyx"], {"board": "12", "time": "1h"}, PLAYERS,
                       seed="same-mail-timed")
    opening = selfplay(ENGINES["onyx"], {"board": "12"}, 2, "timed").plies[:6]
    for number, text in enumerate((ply.text for ply in opening), start=1):
        world.tick(25)
        seat = (number - 1) % 2
        receive(config, _mail(config, timed, seat, PLAYERS[seat], number, text), PLAYERS[seat])


def receive_ticking(world: FixedWorld, config) -> None:
    """bench.conversation's games call receive itself: the clock moves with each call."""
    import bench.conversation as conversation
    from pbem.intake.pipeline import receive

    def ticking(*args, **kwargs):
        world.tick()
        return receive(*args, **kwargs)
    conversation.receive = ticking


def rows() -> list[str]:
    """Every table's rows, in order, as text."""
    from pbem.store.models import database
    lines = []
    for table in sorted(set(database.get_tables()) - {"pbem_schema"}):  # migration dates
        cursor = database.execute_sql(f'SELECT * FROM "{table}" ORDER BY rowid')
        lines.append(f"== {table}")
        lines += [repr(row) for row in cursor.fetchall()]
    return lines


def record() -> list[str]:
    from bench import in_process_store
    from pbem.store.models import database
    with tempfile.TemporaryDirectory() as folder, FixedWorld() as world:
        config = in_process_store(folder)
        try:
            play(world, config)
            return rows()
        finally:
            database.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.same_mail")
    parser.add_argument("file")
    parser.add_argument("--compare", action="store_true",
                        help="compare with FILE instead of writing it")
    args = parser.parse_args()
    lines = record()
    text = "\n".join(lines) + "\n"
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    if not args.compare:
        with open(args.file, "w") as out:
            out.write(text)
        print(f"{len(lines)} rows written, sha256 {digest}")
        return
    with open(args.file) as kept:
        before = kept.read().splitlines()
    if before == lines:
        print(f"same: {len(lines)} rows, sha256 {digest}")
        return
    for number, (old, new) in enumerate(zip(before, lines)):
        if old != new:
            print(f"differs first at line {number + 1}:\n- {old[:600]}\n+ {new[:600]}")
            break
    else:
        print(f"differs in length: {len(before)} rows before, {len(lines)} now")
    sys.exit(1)


if __name__ == "__main__":
    main()
