"""The registry of game engines by id: `onyx`, `onix`, `baronoxx`, `gemforge`."""

from __future__ import annotations

from pbem.engines.base import Engine
from pbem.engines.baronoxx.engine import BaronOxx
from pbem.engines.gemforge.engine import GemForge
from pbem.engines.onix.engine import Onix
from pbem.engines.onyx.engine import Onyx

ENGINES: dict[str, Engine] = {engine.id: engine for engine in (Onyx(), Onix(), BaronOxx(),
                                                               GemForge())}


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return self.args[0]


def get_engine(name: str) -> Engine:
    """The engine for an id (`onyx`) or a record's Game tag (`Onyx`), any case."""
    wanted = name.strip().lower()
    for engine in ENGINES.values():
        if wanted in (engine.id, engine.title.lower()):
            return engine
    raise UnknownGame(f"unknown game {name!r}; the games are: {', '.join(ENGINES)}")
