"""Bot strength and cost: win shares with 95% confidence intervals, CPU per decision.

    .venv/bin/python -m bench.bots [--games N] [--only GAME] [--against WHO]
                                   [--level LEVEL] [--players N] [--log FILE] [--first K]
                                   [--record LEDGER]
    .venv/bin/python -m bench.bots --tally LEDGER [LEDGER ...] [--code FINGERPRINT
                                   [--before FINGERPRINT] [--levels LEVEL OTHER]]

WHO: random, heuristic, a style (habit, dumper, keeper, counter, careless, grabber, hoarder,
spiteful, drawer, miner), mixed, or styles (each style of the game alone, then mixed).

Strength (pbem.bots.arena: contestants rotate through the seats, so each plays every
seat and colour equally often; Onyx bots take or refuse the swap themselves):
- Onyx 12×12: hard against random moves and against easy; normal against easy.
- each card game, `--against random` (the default): one hard bot among random players
  at 3 players and at the most, against its fair share; hard against easy (and a random
  player to make up three).
- each card game, `--against heuristic`: one bot of each level among heuristic players
  (pbem.bots.heuristic, the plain habit of a careful person) at 3 players and at the
  most (6 nimmt! also at 5), against its fair share.
- each card game, `--against STYLE|mixed|styles`: one hard and one normal bot (or
  `--level`) among players of one style of the game's family (pbem.bots.styles), or a
  mixed table of them (the family in turn, a different mix each game), at 3 players and
  at the most, against its fair share.
Cost: CPU seconds per decision of each level (time.process_time, p50 and p99) over the
decisions of the games played, and the peak memory of one decision (tracemalloc).

A hard decision takes ~1 s of CPU, so a full run (the default 50 games a line) takes
hours; on a shared machine run it under `nice -n 19` with `--games 4`, `--only`,
`--level` and `--players`, and `--log FILE` to follow it: each game adds the standings so
far to the file. `--first K` plays games K to K + N - 1 of each line (each game's seed
and seating come from its number), so a long line can run as parts on several cores:
`--games 30` and `--games 30 --first 30` are the first 60 games. `--record LEDGER` adds
each game to a ledger (bench/bot_ledger.py) with a fingerprint of the code that played
it, and `--tally` pools a line's games from every part, process and sitting that ran the
same code, each game number once; a game the ledger holds for the code is not played
again, so the same command run again goes on where the last one stopped. With `--code`
(`now`: the code as it is) the tally ends with where the bar of #46 stands at each table
it names: the lines of the family met, not met, short of games, and not yet played;
then with how far `normal`'s lines (measured, not judged) have come at the same tables.
`--before OLD` compares the code with an earlier one on the same deals: the arena's game
k is the same deal and seating at any code, so each line's games that both codes played
are paired, and the table gives the share before and after and the mean change per game
with its standard error (bench/bot_ledger.py `changes`). `--levels normal hard` pairs two
levels of the one code the same way: a bot of either level sits in the seat game k gives
it, among the same other seats (`between`).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
import tracemalloc

from bench import bot_ledger
from pbem.bots import LEVELS, decide
from pbem.bots.arena import Standing, arena, summary
from pbem.bots.styles import FAMILIES, NAMES
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE

ONYX_MATCHES = [["bot:hard", "random"], ["bot:hard", "bot:easy"], ["bot:normal", "bot:easy"]]
CARD_GAMES = {"onix": (3, 6), "baronoxx": (3, 10), "gemforge": (3, 4)}
#: Against heuristic players: 3 and the most players, and 6 nimmt! also at 5.
AGAINST_HEURISTIC = {"onix": (3, 6), "baronoxx": (3, 5, 10), "gemforge": (3, 4)}
#: The levels measured against the family of styles unless `--level` names one.
STYLE_LEVELS = ("hard", "normal")


def style_fills(game: str, against: str) -> list[str]:
    """The fills a run `--against` a style, `styles` or `mixed` gives GAME's lines: the
    style alone (none if GAME has no such style), each style of the family and then
    `mixed` (the habit among them, as `style:habit`), or `mixed`."""
    family = FAMILIES[game]
    if against == "styles":
        return [f"style:{name}" for name in family] + ["mixed"]
    if against == "mixed":
        return ["mixed"]
    return [f"style:{against}"] if against in family else []


def matches(only: str | None, against: str, level: str | None,
            players: int | None) -> list[tuple[str, str, list[str], int, str]]:
    """(game, label, contestants, players, fill) for each line of the run."""
    lines = []
    if against not in ("random", "heuristic"):
        for game, counts in CARD_GAMES.items():
            for fill in style_fills(game, against) if only in (None, game) else ():
                for count in counts:
                    for each in (level,) if level else STYLE_LEVELS:
                        if players in (None, count):
                            lines.append((game, f"{count} players", [f"bot:{each}"],
                                          count, fill))
        return lines
    if against == "heuristic":
        for game, counts in AGAINST_HEURISTIC.items():
            for count in counts:
                for each in LEVELS:
                    if (only in (None, game) and level in (None, each)
                            and players in (None, count)):
                        lines.append((game, f"{count} players", [f"bot:{each}"], count,
                                      "heuristic"))
        return lines
    if only in (None, "onyx"):
        lines += [("onyx", "12x12", match, 2, "random") for match in ONYX_MATCHES]
    for game, counts in CARD_GAMES.items():
        if only in (None, game):
            for count in counts:
                lines.append((game, f"{count} players", ["bot:hard"], count, "random"))
            lines.append((game, "3 players", ["bot:hard", "bot:easy"], 3, "random"))
    return [line for line in lines if players in (None, line[3])]


def strength(games: int, only: str | None, against: str = "random",
             level: str | None = None, players: int | None = None,
             log: str | None = None, first: int = 0,
             ledger: str | None = None) -> dict[str, Standing]:
    """Print every match's standings; returns each bot level's timings, all games. With
    a `ledger`, each game is recorded there, and a game it holds already for this code
    is not played again: the same command run again goes on where the last stopped."""
    timings: dict[str, Standing] = {}
    for game, label, match, count, fill in matches(only, against, level, players):
        code = bot_ledger.current(game) if ledger else None
        started, seed = time.perf_counter(), f"bench/{game}"
        # With a ledger, a game at a time, each asked of the ledger first: another
        # process running the same line may have recorded it since.
        parts = ([(k, 1) for k in range(first, first + games)] if ledger
                 else [(first, games)])
        standings: dict[str, Standing] = {}
        skipped = 0
        for part_first, part_games in parts:
            if ledger and part_first in bot_ledger.recorded(ledger, code, game, count,
                                                            match[0], fill, seed):
                skipped += 1
                continue
            seen = {name: 0 for name in match}  # each contestant's decisions so far

            def progress(played, part, game=game, count=count, match=match, fill=fill,
                         seen=seen, part_first=part_first):
                if log:
                    with open(log, "a", encoding="utf-8") as out:
                        out.write(f"{game} {count} players, game {part_first + played - 1}"
                                  f", {time.perf_counter() - started:.0f} s:\n")
                        out.writelines(f"   {line}\n" for line in summary(part, count))
                for name in dict.fromkeys(match) if ledger else ():
                    standing = part[name]
                    bot_ledger.record(ledger, {
                        "code": code, "game": game, "players": count, "contestant": name,
                        "fill": fill, "seed": seed, "k": part_first + played - 1,
                        "share": standing.shares[-1],
                        "seconds": [round(s, 4) for s in standing.seconds[seen[name]:]]})
                    seen[name] = len(standing.seconds)

            part = arena(ENGINES[game], match, part_games, {}, count, seed=seed, fill=fill,
                         report=progress if log or ledger else None, first=part_first)
            for name, standing in part.items():
                whole = standings.setdefault(name, Standing(name))
                whole.shares += standing.shares
                whole.seconds += standing.seconds
        held = f"; {skipped} more in {ledger} already" if skipped else ""
        span = f", games {first}-{first + games - 1}" if first else ""
        print(f"{game} {label}: {' vs '.join(match)}, the other seats {fill} "
              f"({games - skipped} games{span}{held}, "
              f"{time.perf_counter() - started:.0f} s)",
              flush=True)
        for line in summary(standings, count):
            print("   " + line, flush=True)
        for name, standing in standings.items():
            timings.setdefault(name, Standing(name)).seconds += standing.seconds
    return timings


def memory() -> None:
    """The peak memory one decision of each level allocates, in a mid-game position."""
    for game in ("onyx", "onix", "baronoxx", "gemforge"):
        engine, rng = ENGINES[game], random.Random(1)
        state = engine.start({}, 3 if engine.max_players > 2 else 2, seed="m")
        for _ in range(30):
            seat = min(engine.to_act(state))
            decision = (engine.deal(state, rng) if seat == CHANCE
                        else engine.random_decision(state, seat, rng))
            state = engine.apply(state, seat, decision)
        while CHANCE in engine.to_act(state):
            state = engine.apply(state, CHANCE, engine.deal(state, rng))
        seat = min(engine.to_act(state))
        figures = []
        for level in LEVELS:
            tracemalloc.start()
            decide(engine, state, seat, level, seed="m", ply=30)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            figures.append(f"{level} {peak / 1e3:.0f} kB")
        print(f"   {game}: peak memory of one decision: {', '.join(figures)}")


def run(games: int, only: str | None = None, against: str = "random",
        level: str | None = None, players: int | None = None, log: str | None = None,
        first: int = 0, ledger: str | None = None) -> None:
    print("Bots: strength (95% confidence intervals) and CPU per decision")
    if ledger:
        games_run = dict.fromkeys(game for game, *_ in matches(only, against, level,
                                                               players))
        codes = ", ".join(f"{game} {bot_ledger.current(game)}" for game in games_run)
        print(f"   recording each game in {ledger}, code {codes}")
    timings = strength(games, only, against, level, players, log, first, ledger)
    print("CPU per decision, all games above:")
    for name, standing in timings.items():
        if standing.seconds:
            print(f"   {name}: p50 {standing.percentile(0.5) * 1000:.0f} ms, p99 "
                  f"{standing.percentile(0.99) * 1000:.0f} ms over "
                  f"{len(standing.seconds)} decisions")
    if against == "random" and level is None and players is None:
        memory()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bots")
    parser.add_argument("--games", type=int, default=50, help="games per match (50)")
    parser.add_argument("--only", choices=sorted(ENGINES), help="one game only")
    parser.add_argument("--against", default="random",
                        choices=("random", "heuristic", "styles", "mixed", *NAMES),
                        help="who fills the other seats of the card games (random): "
                        "heuristic players, one style of the game's family "
                        "(pbem.bots.styles), a mixed table of them, or `styles`: each "
                        "style alone, then mixed")
    parser.add_argument("--level", choices=LEVELS, help="one bot level only (heuristic)")
    parser.add_argument("--players", type=int, help="one table size only")
    parser.add_argument("--log", metavar="FILE", help="add the standings to FILE after "
                        "every game")
    parser.add_argument("--first", type=int, default=0, metavar="K",
                        help="start at game K of each line (0): a part of a longer run")
    parser.add_argument("--record", metavar="LEDGER", help="add each game to LEDGER, a "
                        "line of JSON a game with the fingerprint of the code (see --tally)")
    parser.add_argument("--tally", nargs="+", metavar="LEDGER", help="only pool the "
                        "games of these ledgers: a row per line of one code, each game "
                        "number once")
    parser.add_argument("--code", metavar="FINGERPRINT", help="with --tally: only this "
                        "code's games (the code now: `now`)")
    parser.add_argument("--before", metavar="FINGERPRINT", help="with --tally and "
                        "--code: compare that code with this earlier one, game by game "
                        "on the same deals")
    parser.add_argument("--levels", nargs=2, choices=LEVELS, metavar=("LEVEL", "OTHER"),
                        help="with --tally and --code: compare LEVEL with OTHER at that "
                        "code, game by game on the same deals (normal hard)")
    args = parser.parse_args()
    if args.code and not args.tally:
        parser.error("--code is for --tally")
    if args.before and not args.code:
        parser.error("--before is for --tally with --code")
    if args.levels and not args.code:
        parser.error("--levels is for --tally with --code")
    if args.levels and args.levels[0] == args.levels[1]:
        parser.error("--levels names two different levels (normal hard)")
    missing = [path for path in args.tally or () if not Path(path).is_file()]
    if missing:
        parser.error(f"no ledger at {', '.join(missing)}")
    if args.tally:
        lines = bot_ledger.tally(args.tally, args.code)
        print("\n".join(bot_ledger.report(lines)))
        if args.code:  # the bar is a matter of one code's games
            # One fingerprint is one game's code: the other games' tables are not
            # missing from it, only elsewhere.
            tables = CARD_GAMES if args.code == bot_ledger.NOW else {
                game: sizes for game, sizes in CARD_GAMES.items()
                if any(line.game == game for line in lines)}
            print(f"\nThe bar of #46 (hard, code {args.code}):\n")
            print("\n".join(bot_ledger.bar(lines, tables, FAMILIES)))
            print(f"\nNormal against the family (#46 item 1, code {args.code}):\n")
            print("\n".join(bot_ledger.measured(lines, tables, FAMILIES, "bot:normal")))
        if args.before:
            found = bot_ledger.changes(lines, bot_ledger.tally(args.tally, args.before))
            print(f"\nOn the same deals, code {args.code} against {args.before} "
                  "(change: after − before, points a game; SE of the mean):\n")
            print("\n".join(bot_ledger.compared(found)) if found else
                  "No line has two games or more of both codes.")
        if args.levels:
            level, other = args.levels
            found = bot_ledger.between(lines, f"bot:{level}", f"bot:{other}")
            print(f"\nOn the same deals, code {args.code}: {level} against {other} "
                  f"(change: {level} − {other}, points a game; SE of the mean):\n")
            print("\n".join(bot_ledger.compared(found, other, level)) if found else
                  "No line has two games or more of both levels.")
        return
    if args.first < 0:
        parser.error("--first must be 0 or more")
    if args.against != "random" and args.only == "onyx":
        parser.error("Onyx has no heuristic player nor styles")
    run(args.games, args.only, args.against, args.level, args.players, args.log, args.first,
        args.record)


if __name__ == "__main__":
    main()
