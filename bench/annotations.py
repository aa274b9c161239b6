"""Hostile annotations: what checking one (`annotate 12` by mail) and showing one
(`/games/12/annotated/1`) costs, against a plain annotation of the same game.

`python -m bench.annotations` (or as part of `python -m bench`). All figures are CPU time
of this process (time.process_time), medians of a few rounds, in one fresh SQLite store
holding one finished Onyx game of 60 plies (12×12):

- **check** (pbem.annotations.checked_record, what `annotate` runs): the game's own
  record with a few comments (plain) beside 990 variations nested in one another; 800
  copies of a 60-ply variation (~200 KB, issue #29's: 1.07 s before the limits); and
  the costliest that passes, 400 moves in variations (40 copies of a 10-ply one).
  Target: hostile ≤ 3× plain.
- **page** (`GET /games/1/annotated/1?ply=40`, Flask's test client): the plain
  annotation, the one at the limits, and an 800-copy one stored before the limits
  existed (refused by its size or at the limit on moves). Target: ≤ 3× plain.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time

from notation.record import format_record
from pbem.operator.admin import start_game
from pbem.annotations import NotPublished, checked_record
from pbem.config import Config
from pbem.engines import ENGINES
from pbem.play import Table
from pbem.store import Player, open_database, transaction
from pbem.store.models import Annotation, database

PLIES = 60
LIMIT = "400 moves in variations (the limit)"


def cpu(action) -> float:
    start = time.process_time()
    action()
    return time.process_time() - start


def finished_game() -> tuple[Config, int]:
    directory = tempfile.mkdtemp(prefix="pbem-bench-annotations-")
    config = Config(domain="bench.test", secret_key="bench", maildir=f"{directory}/mail",
                    database_url=f"sqlite:///{directory}/pbem.db")
    open_database(config.database_url)
    game_id = start_game(config, ENGINES["onyx"], {"board": "12"},
                         ["ann@bench.test", "bob@bench.test"], seed="bench")
    rng = random.Random("annotations")
    for _ in range(PLIES):
        with transaction():
            table = Table.load(game_id)
            (seat,) = table.to_act
            decision = table.engine.random_decision(table.state, seat, rng)
            table.play(seat, table.engine.notation(table.state, seat, decision))
    with transaction():
        Table.load(game_id).resign(1)
    return config, game_id


def texts(game_id: int) -> dict[str, str]:
    """The plain annotation and the hostile ones, as an annotator would mail them."""
    table = Table.load(game_id, lock=False)
    record = table.record()
    for index, move in enumerate(record.moves[::10]):
        move.comments.append(f"a thought on this move, number {index}")
    plain = format_record(record)
    main = [move.text for move in record.moves]
    head, _, movetext = plain.partition("\n\n")

    def with_variations(after_ply: int, variation: str) -> str:
        words = movetext.split()
        at = _index_of_ply(words, main, after_ply)
        return head + "\n\n" + " ".join(words[:at + 1] + [variation] + words[at + 1:])
    nested = "(" + main[1] + " " + ("(" + main[1] + " ") * 989 + ")" * 990
    sixty = "(" + " ".join(main[:PLIES]) + ")"  # the game again, from ply 1
    ten = "(" + " ".join(main[30:40]) + ")"  # plies 31-40 again: legal
    return {"plain": plain,
            "990 nested variations": with_variations(2, nested),
            "800 copies of a 60-ply variation": with_variations(1, " ".join([sixty] * 800)),
            LIMIT: with_variations(31, " ".join([ten] * 40))}


def _index_of_ply(words: list[str], main: list[str], ply: int) -> int:
    """The index of the word holding ply `ply` (1-based) of the main line."""
    seen = 0
    for index, word in enumerate(words):
        if seen < len(main) and word.rstrip("!?") == main[seen]:
            seen += 1
            if seen == ply:
                return index
    raise ValueError(f"ply {ply} not found")


def check_costs(game_id: int, rounds: int = 5) -> dict[str, tuple[float, str]]:
    table = Table.load(game_id, lock=False)
    costs = {}
    for name, text in texts(game_id).items():
        outcomes, figures = [], []
        for _ in range(rounds):
            def check():
                try:
                    checked_record(table, text)
                    outcomes.append("published")
                except NotPublished as error:
                    outcomes.append("refused: " + str(error)[:70])
            figures.append(cpu(check))
        costs[name] = (statistics.median(figures), outcomes[-1], len(text))
    return costs


def page_costs(config: Config, game_id: int, rounds: int = 5) -> dict[str, float]:
    from pbem.web import create_app
    client = create_app(config).test_client()
    author = Player.get(Player.email == "ann@bench.test")
    shown = texts(game_id)
    kept = {"plain": format_record(checked_record(Table.load(game_id, lock=False),
                                                  shown["plain"])),
            LIMIT: format_record(checked_record(Table.load(game_id, lock=False),
                                                shown[LIMIT])),
            "800 copies, stored before the limits": shown["800 copies of a 60-ply "
                                                          "variation"]}
    costs = {}
    for number, (name, text) in enumerate(kept.items(), start=1):
        Annotation.create(game=game_id, author=author, text=text)
        url = f"/games/{game_id}/annotated/{number}?ply=40"
        status = client.get(url).status_code
        costs[name] = (statistics.median(cpu(lambda: client.get(url))
                                         for _ in range(rounds)), status)
    return costs


def run(seconds: float = 3.0) -> None:
    config, game_id = finished_game()
    checks = check_costs(game_id)
    plain = checks["plain"][0]
    print(f"\nAnnotations of a {PLIES}-ply Onyx game: CPU to check one (`annotate`), "
          f"beside the plain one:")
    for name, (value, outcome, size) in checks.items():
        print(f"  {name:40} {size:>8,} chars {value * 1000:8.1f} ms  "
              f"{value / plain:5.2f}× plain  {outcome}")
    print("  target: hostile <= 3× plain")
    pages = page_costs(config, game_id)
    plain = pages["plain"][0]
    print("CPU of one GET of its page (?ply=40), beside the plain one's:")
    for name, (value, status) in pages.items():
        print(f"  {name:40} {value * 1000:8.1f} ms  {value / plain:5.2f}× plain  "
              f"HTTP {status}")
    print("  target: <= 3× plain")
    database.close()


if __name__ == "__main__":
    run()
