"""Onyx: an abstract connection game with captures and a swap rule.

The game's modules: engine (the rules, O1-O9), state (the position and its chains),
moves (the free points and captures), board (its geometry), render (text and SVG
diagrams). The registry (pbem.engines) needs only `Onyx`.
"""

from pbem.engines.onyx.engine import Onyx

__all__ = ["Onyx"]
