"""Computer opponents: a bot is a player whose address is `bot:easy|normal|hard`.

This package is pure search over the engines (pbem.engines, notation): no store, mail or
web. A bot sees only what its seat may see — Onyx has no secrets; for the card games it
searches over `engine.determinize(state, seat, rng)` samples, never the true hidden state.
Its randomness comes from the game's seed and the ply (`bot_rng`), so a bot's move can be
reproduced; each level is an iteration budget, with a CPU cap (time.process_time) as a
safety valve that a decision normally never reaches.

    decide(engine, state, seat, "hard", seed="…", ply=17) -> a legal decision
"""

from __future__ import annotations

import hashlib
import random

from pbem.engines.base import Decision, Engine, State

#: The levels, weakest first; `bot` alone means the default.
LEVELS = ("easy", "normal", "hard")
DEFAULT_LEVEL = "normal"
PREFIX = "bot"


class NotABot(ValueError):
    """A text that starts like a bot's address but names no level."""


def bot_level(address: str | None) -> str | None:
    """The level of a bot address (`bot`, `bot:hard`, any case), None for anyone else.

    Raises NotABot for `bot:` followed by something that is not a level, so a typing
    slip is answered rather than taken for an e-mail address."""
    text = (address or "").strip().lower()
    if text == PREFIX:
        return DEFAULT_LEVEL
    if not text.startswith(PREFIX + ":"):
        return None
    level = text[len(PREFIX) + 1:]
    if level not in LEVELS:
        raise NotABot(f"{address!r} names no bot level: write bot:easy, bot:normal or "
                      f"bot:hard (bot alone is bot:{DEFAULT_LEVEL}).")
    return level


def is_bot(address: str | None) -> bool:
    try:
        return bot_level(address) is not None
    except NotABot:
        return False


def bot_address(level: str = DEFAULT_LEVEL) -> str:
    """The canonical address of a bot of `level`: `bot:hard`."""
    return f"{PREFIX}:{level}"


def bot_name(level: str) -> str:
    """How pages, mails and records show a bot: `Bot (hard)`."""
    return f"Bot ({level})"


def bot_rng(seed: str | None, ply: int, seat: int) -> random.Random:
    """The bot's randomness for one decision: from the game's seed, the ply and the seat,
    hashed so nothing of the seed (secret while the game runs) can be read back."""
    digest = hashlib.sha256(f"pbem-bot/{seed or ''}/{ply}/{seat}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def decide(engine: Engine, state: State, seat: int, level: str = DEFAULT_LEVEL, *,
           seed: str | None = None, ply: int = 0, rng: random.Random | None = None,
           iterations: int | None = None, time_limit: float | None = -1.0) -> Decision:
    """The decision a bot of `level` makes for `seat` in `state` (a legal decision).

    `rng` defaults to `bot_rng(seed, ply, seat)`; `iterations` and `time_limit` (CPU
    seconds; None for no cap) override the level's budget, for tests and the bench."""
    from pbem.bots import onyx, search
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}: one of {', '.join(LEVELS)}")
    rng = rng or bot_rng(seed, ply, seat)
    if engine.id == "onyx":
        return onyx.choose(engine, state, seat, level, rng)
    return search.choose(engine, state, seat, level, rng, iterations=iterations,
                         time_limit=time_limit)
