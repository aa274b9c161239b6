"""A decision's options compared in the same sampled worlds (common random numbers).

Where a bot's decision has few options worth comparing and no tree of its own decisions
to grow (6 nimmt!'s card before the others' are known; Onix's step, its options cut to
the habit's best), each sampled world is played out once per option with the same
randomness: the luck of the deal and of the others' play falls alike on every option,
and what differs between their totals is the options' doing. A tree that gives each
world to one option cannot take the luck out so.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.bots.cpu_cap import CpuCap


def compare(options: list[str], sample: Callable[[], tuple[object, int]],
            play: Callable[[object, str, int], tuple[float, float]], budget: float,
            cap: float | None, iterations: int | None) -> str:
    """The option with the best total: `sample()` gives a world and a seed for the
    randomness after it, `play(world, option, seed)` what the option is worth there and
    what that cost (µs of estimated work). Runs `iterations` worlds, else until `budget`
    µs are spent, within the CPU `cap`."""
    totals = dict.fromkeys(options, 0.0)
    clock = CpuCap(cap)
    done = spent = 0
    while (done < iterations) if iterations is not None else (spent < budget):
        if not clock.allows_another():
            break
        world, seed = sample()
        for option in options:
            value, cost = play(world, option, seed)
            totals[option] += value
            spent += cost
        done += 1
    return max(options, key=totals.__getitem__)
