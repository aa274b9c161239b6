"""Gem Forge: hidden action cards and reactions on other players' turns.

The game's modules: engine (the contract), rules (what each card and tile does), state (the position and the tile table), moves (decisions and their notation), messages (prompts and refusals), random_play (fast random decisions for playouts), render (diagrams). The registry (pbem.engines) needs only
`GemForge`.
"""

from pbem.engines.gemforge.engine import GemForge

__all__ = ["GemForge"]
