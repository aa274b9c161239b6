"""Onix: the gem card game for 2-6 players, Advanced Mode included.

The game's modules: engine (the rules), state (the position and the card table), messages (prompts and refusals), render (diagrams). The registry (pbem.engines) needs only
`Onix`.
"""

from pbem.engines.onix.engine import Onix

__all__ = ["Onix"]
