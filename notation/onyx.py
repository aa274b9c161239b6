"""Onyx move notation as text: points `F6`, midpoints `DE910`, capture marks, `swap`.

Pure text, no board: a point is (column, row) with column 0 = A and row 1 = bottom;
a midpoint is named by the lower-left corner of its square. The engine checks that the
point lies on the board and that the move is legal. Accepted input (case-insensitive):
`f6`, `F6*`, `DE910`, `de-910`, `d9/e10` (two opposite corners of the square, either
order), `swap`. Canonical output: `F6`, `DE910`, one `*` per captured pair, `swap`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class NotationError(ValueError):
    """The text is not an Onyx move; the message says what would be."""

_POINT = re.compile(r"([a-z])(\d{1,2})$")
_MIDPOINT = re.compile(r"([a-z])([a-z])-?(\d{2,4})$")
_CORNERS = re.compile(r"([a-z])(\d{1,2})/([a-z])(\d{1,2})$")


@dataclass(frozen=True)
class OnyxText:
    """What a move text says, before any board is consulted."""

    kind: str  # "point", "midpoint" or "swap"
    column: int = 0  # for a midpoint: the square's lower-left corner
    row: int = 0
    captures: int | None = None  # the number of '*' written, None when none were


def point_name(column: int, row: int) -> str:
    return f"{LETTERS[column]}{row}"


def midpoint_name(column: int, row: int) -> str:
    return f"{LETTERS[column]}{LETTERS[column + 1]}{row}{row + 1}"


def read_move(text: str) -> OnyxText:
    """Read one Onyx move; raises NotationError with a message for the player."""
    raw = text.strip()
    word = raw.lower()
    stars = len(word) - len(word.rstrip("*"))
    word = word.rstrip("*").strip()
    captures = stars or None
    if word == "swap":
        if stars:
            raise NotationError(f"{raw!r}: swap captures nothing; write just 'swap'.")
        return OnyxText("swap")
    if match := _POINT.match(word):
        return OnyxText("point", _column(match.group(1)), int(match.group(2)), captures)
    if match := _MIDPOINT.match(word):
        left, right = _column(match.group(1)), _column(match.group(2))
        if right != left + 1:
            raise NotationError(f"{raw!r}: a midpoint names two neighbouring columns, left "
                              f"first, such as DE910.")
        row = _split_rows(match.group(3), raw)
        return OnyxText("midpoint", left, row, captures)
    if match := _CORNERS.match(word):
        columns = sorted((_column(match.group(1)), _column(match.group(3))))
        rows = sorted((int(match.group(2)), int(match.group(4))))
        if columns[1] != columns[0] + 1 or rows[1] != rows[0] + 1:
            raise NotationError(f"{raw!r}: write a midpoint by two opposite corners of its "
                              f"square, such as d9/e10, or by name, such as DE910.")
        return OnyxText("midpoint", columns[0], rows[0], captures)
    raise NotationError(f"{raw!r} is not an Onyx move. Write a point such as F6, a midpoint "
                      f"such as DE910 (or d9/e10), or swap.")


def format_move(move: OnyxText) -> str:
    if move.kind == "swap":
        return "swap"
    name = (point_name if move.kind == "point" else midpoint_name)(move.column, move.row)
    return name + "*" * (move.captures or 0)


def _column(letter: str) -> int:
    return LETTERS.index(letter.upper())


def _split_rows(digits: str, raw: str) -> int:
    """`910` -> 9: the two rows of a square are consecutive, lower first."""
    for row in range(1, 26):
        if f"{row}{row + 1}" == digits:
            return row
    raise NotationError(f"{raw!r}: a midpoint names two consecutive rows, lower first, "
                      f"such as DE910 (rows 9 and 10).")
