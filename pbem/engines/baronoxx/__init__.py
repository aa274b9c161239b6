"""6 nimmt! Baron Oxx: simultaneous secret choices, both variants, matches.

The game's modules: engine (the engine contract), rules (the rules that change the
state), cards (the card table), state (the position), messages (prompts and refusals),
render (diagrams). The registry (pbem.engines) needs only `BaronOxx`.
"""

from pbem.engines.baronoxx.engine import BaronOxx

__all__ = ["BaronOxx"]
