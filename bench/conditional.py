"""`python -m bench.conditional`: what conditional moves save in a game by mail (#32).

One 60-ply Onyx game (12×12, standard setup), its moves drawn once from a seeded random
generator, is played twice through the pipeline in process on a fresh SQLite file:

- **without conditions**: each player answers each mail that asks for their move with
  that move, one mail a move;
- **with conditions**: each such mail also carries one line, `if THEIRS MINE`. Half the
  time (a seeded coin for each mail) THEIRS is the opponent's actual next move and MINE
  the player's next move after it, so the server plays MINE at once when THEIRS comes;
  the other half THEIRS is another legal move, and the line is cleared unused.

For each run: the mails each player got for the game (the outbox), how many of them
answered their own mail at once without asking for a move (a confirmation), the mails
the players sent, which are the round trips (a mail out and its answer back), the plies a
round trip carried, and the server's CPU time over the whole game (`time.process_time`
around the pipeline, one process, nothing else timed), the run without conditions being
the baseline. The game, the coins and so every figure but the CPU time are the same on
every run.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections import Counter

from bench import in_process_store
from pbem.operator.admin import start_game
from pbem.config import Config
from pbem.engines import ENGINES
from pbem.intake.pipeline import receive
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.play import Table
from pbem.store import Move, Outbox
from pbem.store.models import database

ONYX = ENGINES["onyx"]
PLIES = 60
PLAYERS = ("ann@example.org", "ben@example.org")


def script(seed: str, plies: int = PLIES) -> list[str]:
    """`plies` moves of a game that is still running after them, drawn at random."""
    for attempt in range(100):
        rng, state, moves = random.Random(f"{seed}/{attempt}"), ONYX.start({}, 2, seed), []
        while len(moves) < plies and ONYX.to_act(state):
            (seat,) = ONYX.to_act(state)
            decision = ONYX.random_decision(state, seat, rng)
            moves.append(ONYX.notation(state, seat, decision))
            state = ONYX.apply(state, seat, decision)
        if len(moves) == plies and ONYX.to_act(state):
            return moves
    raise RuntimeError("no random game lasted 60 plies")


def decoy(moves: list[str], ply: int, rng: random.Random) -> list[str]:
    """A line that does not foresee the opponent's move at `ply` (0-based): another legal
    move of theirs, and a legal answer to it."""
    state = ONYX.start({}, 2, None)
    for index, text in enumerate(moves[:ply]):
        (seat,) = ONYX.to_act(state)
        state = ONYX.apply(state, seat, ONYX.parse(state, seat, text))
    (seat,) = ONYX.to_act(state)
    while True:
        other = ONYX.random_decision(state, seat, rng)
        text = ONYX.notation(state, seat, other)
        if text != moves[ply]:
            after = ONYX.apply(state, seat, other)
            (mine,) = ONYX.to_act(after)
            answer = ONYX.notation(after, mine, ONYX.random_decision(after, mine, rng))
            return [text, answer]


def play(config: Config, moves: list[str], conditions: bool, seed: str) -> dict:
    """Play `moves` by mail, with or without a line in each mail; the figures."""
    game_id = start_game(config, ONYX, {}, list(PLAYERS), seed=seed)
    coins, sent, answers, cpu = random.Random(f"{seed}/coins"), Counter(), Counter(), 0.0
    covered = 0
    while True:
        table = Table.load(game_id, lock=False)
        ply = table.game.plies
        if ply >= len(moves):
            break
        (seat,) = table.to_act
        lines = [moves[ply]]
        if conditions and ply + 2 < len(moves):
            if coins.random() < 0.5:
                lines.append(f"if {moves[ply + 1]} {moves[ply + 2]}")
                covered += 1
            else:
                lines.append("if " + " ".join(decoy(moves, ply + 1, coins)))
        address = reply_address(seat_token(config.secret_key, game_id, seat), config.domain)
        sent[seat] += 1
        raw = (f"From: {PLAYERS[seat]}\r\nTo: {address}\r\nSubject: Re: game\r\n"
               f"Message-ID: <{seed}.{conditions}.{sum(sent.values())}@example.org>\r\n\r\n"
               + "\r\n".join(lines) + "\r\n").encode()
        before = _outbox(game_id, PLAYERS[seat])
        start = time.process_time()
        receive(config, raw)
        cpu += time.process_time() - start
        if Table.load(game_id, lock=False).to_act != {seat}:  # not a mail asking for a move
            answers[seat] += _outbox(game_id, PLAYERS[seat]) - before
    played = [m.text for m in Move.select(Move.text).where(Move.game == game_id)
              .order_by(Move.ply)]
    assert played == moves, "the game by mail is not the one drawn"
    got = Counter(row.recipient for row in Outbox.select(Outbox.recipient)
                  .where(Outbox.game == game_id))
    return {"got": [got[p] for p in PLAYERS], "sent": [sent[0], sent[1]],
            "answers": [answers[0], answers[1]], "covered": covered, "cpu": cpu}


def _outbox(game_id: int, recipient: str) -> int:
    return Outbox.select().where((Outbox.game == game_id)
                                 & (Outbox.recipient == recipient)).count()


def run(seed: str = "conditional/1") -> None:
    moves = script(seed)
    print(f"a {PLIES}-ply Onyx game by mail (seed {seed!r}); each mail of the run with "
          f"conditions carries one `if` line, true half the time")
    print(f"{'run':<20}{'mails got':>12}{'answers':>10}{'sent':>8}{'round trips':>13}"
          f"{'plies/trip':>12}{'CPU s':>8}{'ms/mail':>9}")
    with tempfile.TemporaryDirectory() as folder:
        config = in_process_store(folder)
        try:
            for conditions in (False, True):
                r = play(config, moves, conditions, f"{seed}/{conditions}")
                trips = sum(r["sent"])
                name = (f"with ({r['covered']} true)" if conditions
                        else "without (baseline)")
                print(f"{name:<20}{'/'.join(map(str, r['got'])):>12}"
                      f"{'/'.join(map(str, r['answers'])):>10}"
                      f"{'/'.join(map(str, r['sent'])):>8}{trips:>13}"
                      f"{PLIES / trips:>12.2f}{r['cpu']:>8.2f}"
                      f"{1000 * r['cpu'] / trips:>9.2f}")
        finally:
            database.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.conditional")
    parser.add_argument("--seed", default="conditional/1", help="draws the game and coins")
    run(parser.parse_args().seed)
