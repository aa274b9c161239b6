"""How well the 6 nimmt! bots choose a card, against each card's value over many worlds.

    .venv/bin/python -m bench.oxx_choices [--players 10] [--against counter]
                                          [--positions 30] [--worlds 600]

A game's winner tells a good card from a bad one only through everything played after
it (at ten players one decision that differs changes the rest of the game), so lines of
games separate two bots by ten points at best. This looks at decisions instead. It
plays games with the habit at seat 0 and a style of the family (`--against`) at every
other seat, and takes some of the states where seat 0 chooses a card among three or
more. For each, every card is valued by its mean reward (oxx_playout.reward) over
`--worlds` worlds sampled from seat 0's view, played out on the fast table twice: once
with the others' styles drawn from the family as the bots' own model draws them, once
with every other seat the style they really are. Then it says, for `hard`, `normal` and
the habit, the mean regret (best card's value less the chosen card's) and how often the
best card was chosen, under each. Regret under the bots' model and under the truth
apart tell sampling noise (too few worlds) from a wrong model of the others.
"""

from __future__ import annotations

import argparse
import random
import statistics

from pbem.bots import decide, oxx_playout, oxx_search, search, styles
from pbem.bots.arena import style_decision
from pbem.bots.styles_oxx import FAMILY
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE

ENGINE = ENGINES["baronoxx"]
CHOOSERS = ("hard", "normal", "habit")
VALUED_BY = {"model": "the bots' model", "truth": "the table as it is"}
#: How often a card choice of seat 0 is taken as a position (spread over the deal).
TAKEN = 0.15


def positions(count: int, players: int, against: str) -> list:
    """`count` states where seat 0 (the habit) chooses a card among three or more, from
    games with `against` at every other seat (seeds `choices/0`, `choices/1` …)."""
    found: list = []
    game = 0
    while len(found) < count:
        rng = random.Random(f"choices/{game}")
        state = ENGINE.start({}, players, seed=f"choices/{game}")
        game += 1
        while ENGINE.to_act(state) and len(found) < count:
            seat = min(ENGINE.to_act(state))
            if seat == CHANCE:
                decision = ENGINE.deal(state, rng)
            else:
                if seat == 0 and _a_card_among_three(state) and rng.random() < TAKEN:
                    found.append(state)
                decision = style_decision(ENGINE, state, seat,
                                          styles.HABIT if seat == 0 else against, rng)
            state = ENGINE.apply(state, seat, decision)
    return found


def _a_card_among_three(state) -> bool:
    world = search.canonical(ENGINE, state, 0)
    options = search.candidates(ENGINE, world, 0)
    return (len(options) > 2 and oxx_playout.fits(world)
            and ENGINE.notation(world, 0, options[0]).startswith("play"))


def values(state, worlds: int, against: str | None, rng: random.Random) -> dict[str, float]:
    """Each card's mean reward for seat 0 over `worlds` worlds sampled from its view,
    the others' styles drawn from the family (`against` None) or all `against`: sampled
    and played out by the bots' own steps (pbem.bots.oxx_search)."""
    world = search.canonical(ENGINE, state, 0)
    options = {ENGINE.notation(world, 0, d): d for d in search.candidates(ENGINE, world, 0)}
    totals = dict.fromkeys(options, 0.0)
    for _ in range(worlds):
        names = None if against is None else tuple(
            styles.HABIT if s == 0 else against for s in range(state.players))
        sampled, seated = oxx_search.sampled_world(ENGINE, world, 0, rng, names)
        seed = rng.getrandbits(64)  # the same luck after every card
        for key, decision in options.items():
            totals[key] += oxx_search.value(ENGINE, sampled, seated, 0, decision, seed)[0]
    return {key: total / worlds for key, total in totals.items()}


def choice(state, chooser: str, number: int) -> str:
    """The card `chooser` (a bot level or the habit) takes in `state`, as notation."""
    world = search.canonical(ENGINE, state, 0)
    if chooser == "habit":
        decision = style_decision(ENGINE, state, 0, styles.HABIT, random.Random(number))
    else:
        decision = decide(ENGINE, state, 0, chooser, seed=f"choices/{number}", ply=number)
    return ENGINE.notation(world, 0, decision)


def measure(count: int, players: int, against: str, worlds: int) -> list[str]:
    """The report's lines: per chooser and per model, mean regret and best chosen."""
    rng = random.Random("choices")
    regrets = {(chooser, model): [] for chooser in CHOOSERS for model in ("model", "truth")}
    for number, state in enumerate(positions(count, players, against)):
        valued = {"model": values(state, worlds, None, rng),
                  "truth": values(state, worlds, against, rng)}
        for chooser in CHOOSERS:
            card = choice(state, chooser, number)
            for model, value in valued.items():
                regrets[chooser, model].append(max(value.values()) - value[card])
    lines = [f"6 nimmt! {players} players, seat 0 among {against} players, {count} "
             f"positions, {worlds} worlds a card:"]
    for (chooser, model), found in regrets.items():
        best = sum(regret == 0 for regret in found)
        lines.append(f"  {chooser:>6}, valued by {VALUED_BY[model]:>18}: mean regret "
                     f"{statistics.mean(found):.4f}, the best card {best} of {len(found)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--against", default="counter", choices=sorted(FAMILY))
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--worlds", type=int, default=600)
    args = parser.parse_args()
    if not ENGINE.min_players <= args.players <= ENGINE.max_players:
        parser.error(f"--players: 6 nimmt! seats {ENGINE.min_players} to "
                     f"{ENGINE.max_players}")
    if args.positions < 1 or args.worlds < 1:
        parser.error("--positions and --worlds must be 1 or more")
    print("\n".join(measure(args.positions, args.players, args.against, args.worlds)))


if __name__ == "__main__":
    main()
