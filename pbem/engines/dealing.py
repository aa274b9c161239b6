"""The dealer's random numbers: the documented HMAC-SHA256 stream that games deal from,
and CPython's `random.Random` that dealt the games started before it.

A record names its generator in the `DealGenerator` tag (notation/dealing.md, which is
the specification: anyone can re-deal a game from it in a few lines of any language, as
templates/web/deal_check.js does in the browser). The stream for the dealer's move at ply k (k-1 plies played before
it, called `ply` here as everywhere in the engines) is

    HMAC-SHA256(key = seed as UTF-8, message = "<ply>/<counter>" in ASCII decimal)

for counter 0, 1, 2, ..., each 32-byte block read as eight unsigned 32-bit big-endian
integers. A number below n is drawn by rejection sampling (unbiased), a shuffle is
Fisher-Yates from the last place down, a sample of k is the first k places of a
Fisher-Yates from the first place up. Engines call only `randrange(n)`, `shuffle` and
`sample`, so both generators serve the same `deal(state, rng)`.

`HMAC-SHA256-2` is the same stream with one rule more, so that a reshuffle is checked
from its own text: a discard pile is shuffled in the order of its game's table (the
card list, the tile list), not in the order it was discarded, which only the full rules
of the game could tell. `HMAC-SHA256` keeps the order discarded, for the games dealt
with it.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from typing import Sequence

HMAC_SHA256_2 = "HMAC-SHA256-2"  # new games: discard piles shuffled in the table's order
HMAC_SHA256 = "HMAC-SHA256"  # games started from issue 22 to issue 31: in the order discarded
PYTHON_RANDOM = "Python-Random"  # random.Random("SEED/K-1"): games dealt before HMAC-SHA256
GENERATORS = (HMAC_SHA256_2, HMAC_SHA256, PYTHON_RANDOM)
CURRENT = HMAC_SHA256_2  # what new games deal with
TAG = "DealGenerator"

_WORDS = 2 ** 32


class HmacStream:
    """The numbers for one dealer's move: a seed, the plies played before it."""

    piles_in_table_order = False  # see `pile_order`

    def __init__(self, seed: str, ply: int):
        self._key = seed.encode("utf-8")
        self._ply = ply
        self._counter = 0
        self._block = b""

    def word(self) -> int:
        """The next unsigned 32-bit integer of the stream."""
        if not self._block:
            message = f"{self._ply}/{self._counter}".encode("ascii")
            self._block = hmac.new(self._key, message, hashlib.sha256).digest()
            self._counter += 1
        word, self._block = int.from_bytes(self._block[:4], "big"), self._block[4:]
        return word

    def randrange(self, n: int) -> int:
        """A number in 0 .. n-1, each equally likely: words at or above the largest
        multiple of n below 2**32 are thrown away and the next one is read."""
        if not 0 < n <= _WORDS:
            raise ValueError(f"a range of {n} numbers cannot be drawn from 32-bit words")
        limit = _WORDS - _WORDS % n
        while True:
            word = self.word()
            if word < limit:
                return word % n

    def shuffle(self, items: list) -> None:
        """Fisher-Yates in place: for i from the last place down to 1, swap place i with
        place randrange(i + 1)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randrange(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, population: Sequence, k: int) -> list:
        """k distinct items in the order drawn: for i from 0 to k-1, swap place i of a
        copy with place i + randrange(n - i); the first k places are the sample."""
        pool = list(population)
        if not 0 <= k <= len(pool):
            raise ValueError(f"cannot draw {k} of {len(pool)}")
        for i in range(k):
            j = i + self.randrange(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


class TableOrderStream(HmacStream):
    """HMAC-SHA256-2: the same numbers; discard piles are shuffled in the table's order."""

    piles_in_table_order = True


def pile_order(rng, pile: Sequence, table: Sequence) -> list:
    """The order a discard pile is shuffled from: under HMAC-SHA256-2 the order of the
    game's `table` (its list of every card or tile, a card as often as it has copies),
    which anyone can read off the reshuffle itself; before it, the order discarded."""
    if getattr(rng, "piles_in_table_order", False):
        return sorted(pile, key=list(table).index)
    return list(pile)


def chance_rng(seed: str, ply: int, generator: str = CURRENT):
    """The generator for the dealer's move at `ply` (plies played before it)."""
    if generator == HMAC_SHA256_2:
        return TableOrderStream(seed, ply)
    if generator == HMAC_SHA256:
        return HmacStream(seed, ply)
    if generator == PYTHON_RANDOM:
        return random.Random(f"{seed}/{ply}")
    raise ValueError(unknown_generator(generator))


def unknown_generator(name: str) -> str:
    return (f"the {TAG} tag names {name!r}, which pbem does not know; the generators are "
            f"{' and '.join(GENERATORS)} (notation/dealing.md)")
