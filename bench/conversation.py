"""`python -m bench.conversation`: how much mail a player gets in a whole game.

For each game, at 2 players and at the most it allows (Onyx: 2), random but honest
players mail one decision each to their seat's reply address until the game ends
(the pipeline in process, on a fresh SQLite file, mail kept in a maildir). For each
player it counts the game mails they got, against the number of times the game began
to wait for them (ply by ply: an upper bound for the waits a transaction sees) and
against what one mail per move of the others they could see would be (the policy before
the conversation: the baseline measured in the same run). Default mail setting.

Target (issue: the mail conversation): mails ≤ waits + 3 (start, end, a comment).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from collections import Counter

from bench import in_process_store
from pbem.operator.admin import start_game
from pbem.config import Config
from pbem.policy.conversation import waits_in_log
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE
from pbem.intake.pipeline import receive
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.play import Table
from pbem.store import Move, Outbox
from pbem.store.models import database

NAMES = ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal", "ida", "jon"]


def play_game(config: Config, engine_id: str, count: int, seed: str) -> dict:
    engine = ENGINES[engine_id]
    emails = [f"{name}@example.org" for name in NAMES[:count]]
    game_id = start_game(config, engine, {}, emails, seed=seed)
    rng, sent = random.Random(seed), 0
    while True:
        table = Table.load(game_id, lock=False)
        if table.game.status != "running":
            break
        seat = rng.choice(sorted(table.to_act - {CHANCE}))
        text = engine.notation(table.state, seat, engine.random_decision(table.state, seat, rng))
        address = reply_address(seat_token(config.secret_key, game_id, seat), config.domain)
        sent += 1
        raw = (f"From: {emails[seat]}\r\nTo: {address}\r\nSubject: Re: game\r\n"
               f"Message-ID: <{seed}.{sent}@example.org>\r\n\r\n{text}\r\n").encode()
        receive(config, raw)
    mails = Counter(row.recipient for row in Outbox.select(Outbox.recipient)
                    .where(Outbox.game == game_id))
    start = engine.start(table.game.options, count, table.game.seed)
    moves = list(Move.select(Move.seat, Move.text, Move.state, Move.visible)
                 .where(Move.game == game_id).order_by(Move.ply))
    rows = []
    for seat, email in enumerate(emails):
        waits = waits_in_log(engine, start, moves, seat)
        seen = sum(1 for m in moves if m.seat not in (seat, CHANCE) and m.visible.get(str(seat)))
        rows.append((mails[email], waits, seen))
    return {"plies": len(moves), "rows": rows}


def run(games: int = 3) -> None:
    print("mail per player per game (default setting); baseline: one mail per visible move "
          "of the others")
    print(f"{'game':<10}{'players':>8}{'plies':>7}{'mails':>8}{'waits':>8}{'over':>6}"
          f"{'worst':>7}{'baseline':>10}")
    with tempfile.TemporaryDirectory() as folder:
        config = in_process_store(folder)
        try:
            for engine in ENGINES.values():
                for count in sorted({2, engine.max_players} & set(
                        range(engine.min_players, engine.max_players + 1))):
                    results = [play_game(config, engine.id, count, f"{engine.id}/{count}/{n}")
                               for n in range(games)]
                    rows = [row for result in results for row in result["rows"]]
                    over = [mails - waits for mails, waits, _ in rows]
                    print(f"{engine.id:<10}{count:>8}"
                          f"{statistics.mean(r['plies'] for r in results):>7.0f}"
                          f"{statistics.mean(m for m, _, _ in rows):>8.1f}"
                          f"{statistics.mean(w for _, w, _ in rows):>8.1f}"
                          f"{statistics.mean(over):>+6.1f}{max(over):>+7d}"
                          f"{statistics.mean(s for _, _, s in rows):>10.1f}")
        finally:
            database.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.conversation")
    parser.add_argument("--games", type=int, default=3, help="games per line")
    run(parser.parse_args().games)
