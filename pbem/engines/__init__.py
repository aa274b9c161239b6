"""The registry of game engines by id: `onyx`, `onix`, `baronoxx`, `gemforge`, and the
names people type for them (`6nimmt`, `6-nimmt`, "6 nimmt!", `gem-forge`, "Gem Forge")."""

from __future__ import annotations

import re

from pbem.engines.base import Engine
from pbem.engines.baronoxx.engine import BaronOxx
from pbem.engines.gemforge.engine import GemForge
from pbem.engines.onix.engine import Onix
from pbem.engines.onyx.engine import Onyx

ENGINES: dict[str, Engine] = {engine.id: engine for engine in (Onyx(), Onix(), BaronOxx(),
                                                               GemForge())}


#: Names people type besides an engine's id and title, as `_plain` writes them.
ALIASES = {"6nimmt": "baronoxx", "6nimmtbaronoxx": "baronoxx", "sechsnimmt": "baronoxx"}


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return self.args[0]


def _plain(name: str) -> str:
    """A name without case, spaces or punctuation: "6 nimmt!" and `6-nimmt` are `6nimmt`."""
    return re.sub(r"[\W_]+", "", name.lower())


def names(engine: Engine) -> list[str]:
    """What may be typed for the engine, its id first (for `help` and refusals)."""
    typed = {"baronoxx": ["6nimmt"], "gemforge": ["gem-forge"]}  # a plain one of each alias
    return [engine.id] + typed.get(engine.id, [])


def games_line() -> str:
    """The games and the names to type for them, for `help` and a refusal."""
    parts = []
    for engine in ENGINES.values():
        players = (f"{engine.min_players}" if engine.min_players == engine.max_players
                   else f"{engine.min_players}-{engine.max_players}")
        also = names(engine)[1:]
        parts.append(f"{engine.id} ({engine.title}, {players} players"
                     + (f"; also {', '.join(also)}" if also else "") + ")")
    return ", ".join(parts)


def get_engine(name: str) -> Engine:
    """The engine for an id (`onyx`), a record's Game tag (`Onyx`) or a name people type
    (`6 nimmt!`, `gem-forge`), any case."""
    wanted = _plain(name)
    for engine in ENGINES.values():
        if wanted and wanted in (engine.id, _plain(engine.title)):
            return engine
    if wanted in ALIASES:
        return ENGINES[ALIASES[wanted]]
    raise UnknownGame(f"unknown game {name!r}; the games are: {games_line()}")
