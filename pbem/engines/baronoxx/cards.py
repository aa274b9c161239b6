"""6 nimmt! Baron Oxx's cards: the assumed face table (N1) and colour matching (N10, N12).

The faces are data, not code: `data/baronoxx-cards.csv`, marked as assumed, can be
replaced by the real table without changing anything here.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib import resources

COLOURS = "BYGRKW"  # blue, yellow, green, red, black, white, as in the data file


@dataclass(frozen=True)
class Card:
    number: int
    bullheads: tuple[int, ...]  # per colour, in COLOURS order
    penalty: int
    note: str

    @property
    def mask(self) -> int:
        return sum(1 << i for i, n in enumerate(self.bullheads) if n)

    @property
    def face(self) -> str:
        """One letter per bullhead: `BBR` is two blue and one red."""
        return "".join(c * n for c, n in zip(COLOURS, self.bullheads))


def read_cards(text: str) -> dict[int, Card]:
    """The card table (N1): `number,bullheads,penalty,note`, `#` lines are comments."""
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    cards = {}
    for row in rows:
        counts = dict.fromkeys(COLOURS, 0)
        for item in row["bullheads"].split():
            counts[item[0]] += int(item[1:])
        card = Card(int(row["number"]), tuple(counts.values()), int(row["penalty"]),
                    row.get("note") or "")
        if card.penalty != sum(card.bullheads):
            raise ValueError(f"card {card.number}: a penalty is its number of bullheads")
        cards[card.number] = card
    if sorted(cards) != list(range(1, 111)):
        raise ValueError("the table must hold the cards 1 to 110 once each")
    return cards


CARDS = read_cards(resources.files("pbem.engines.baronoxx").joinpath(
    "cards.csv").read_text(encoding="utf-8"))
MASK = {n: card.mask for n, card in CARDS.items()}


def penalty(cards) -> int:
    return sum(CARDS[c].penalty for c in cards)


def legal_rows(rows, card: int) -> list[int]:
    """N10: the rows whose last card shares a colour with the card."""
    return [r for r, row in enumerate(rows) if MASK[row[-1]] & MASK[card]]


def takes_row(row: tuple[int, ...], rule1: bool) -> str:
    """N12: which rules make the player take a row that now ends with the placed card."""
    rules = []
    if rule1 and len(row) >= 6:
        rules.append("1")
    if any(sum(CARDS[c].bullheads[i] for c in row) >= 6 for i in range(len(COLOURS))):
        rules.append("2")
    return "+".join(rules)
