"""Onyx's board: the points and lines of an N×N board (O2-O5), its capture squares and
which edges each point touches. The engine plays on it and the diagrams draw it; one
shared instance per size.
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter

from notation.onyx import OnyxText, midpoint_name, point_name
from pbem.engines.base import IllegalMove

EMPTY, BLACK, WHITE = 0, 1, 2


class Board:
    """The points and lines of an N×N Onyx board (O2–O5); one shared instance per size.

    Corner (column g, row r) has index (r - 1) * N + g; midpoints follow, one per square.
    """

    def __init__(self, size: int):
        n = self.size = size
        self.corners = n * n
        self.names = [point_name(g, r) for r in range(1, n + 1) for g in range(n)]
        self.square_at: dict[tuple[int, int], int] = {}  # lower-left (g, r) -> midpoint
        self.mid_corners: list[tuple[int, int, int, int]] = []
        lines: set[tuple[int, int]] = set()
        for r in range(1, n):
            for g in range(n - 1):
                ll, lr, ul, ur = (self.corner(g, r), self.corner(g + 1, r),
                                  self.corner(g, r + 1), self.corner(g + 1, r + 1))
                if (g + r) % 2 == 0:
                    mid = self.corners + len(self.mid_corners)
                    self.square_at[g, r] = mid
                    self.mid_corners.append((ll, lr, ul, ur))
                    self.names.append(midpoint_name(g, r))
                    lines.update((c, mid) for c in (ll, lr, ul, ur))
                else:
                    lines.add((ll, ur) if r % 2 else (ul, lr))
        for r in range(1, n + 1):
            for g in range(n):
                if g + 1 < n:
                    lines.add((self.corner(g, r), self.corner(g + 1, r)))
                if r < n:
                    lines.add((self.corner(g, r), self.corner(g, r + 1)))
        self.points = len(self.names)
        self.line_count = len(lines)
        neighbours: list[list[int]] = [[] for _ in range(self.points)]
        for a, b in lines:
            neighbours[a].append(b)
            neighbours[b].append(a)
        self.neighbours = tuple(tuple(sorted(ns)) for ns in neighbours)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.capture_squares = self._capture_squares()
        # Per corner point: the midpoints of the squares it is a corner of (at most two).
        self.midpoints_of = tuple(tuple(mid for mid, _, _, _ in squares)
                                  for squares in self.capture_squares)
        # For moves.free_points: each midpoint's lower-left corner, gathered at once.
        self.lower_lefts = itemgetter(*(ll for ll, _, _, _ in self.mid_corners))
        # Which edges a stone on a point touches: bit 1 the low edge, bit 2 the high one.
        self.edges = {BLACK: [0] * self.points, WHITE: [0] * self.points}
        for r in range(1, n + 1):
            for g in range(n):
                p = self.corner(g, r)
                self.edges[BLACK][p] = (r == 1) | (r == n) << 1
                self.edges[WHITE][p] = (g == 0) | (g == n - 1) << 1

    def corner(self, g: int, r: int) -> int:
        return (r - 1) * self.size + g

    def _capture_squares(self) -> tuple[tuple[tuple[int, int, int, int], ...], ...]:
        """Per corner point: (midpoint, opposite corner, the two other corners) of each
        square it is a corner of (O7)."""
        result: list[list[tuple[int, int, int, int]]] = [[] for _ in range(self.corners)]
        for mid, (ll, lr, ul, ur) in enumerate(self.mid_corners, start=self.corners):
            for corner, opposite, side1, side2 in ((ll, ur, lr, ul), (ur, ll, lr, ul),
                                                   (lr, ul, ll, ur), (ul, lr, ll, ur)):
                result[corner].append((mid, opposite, side1, side2))
        return tuple(tuple(squares) for squares in result)

    def standard_setup(self) -> dict[int, list[int]]:
        """O5: the outer corners of the middle edge squares; Black on White's edges."""
        n, half = self.size, self.size // 2
        return {BLACK: [self.corner(0, half), self.corner(0, half + 1),
                        self.corner(n - 1, half), self.corner(n - 1, half + 1)],
                WHITE: [self.corner(half - 1, 1), self.corner(half, 1),
                        self.corner(half - 1, n), self.corner(half, n)]}

    def point_of(self, move: OnyxText) -> int:
        """The index of a point read from text; IllegalMove when it is not on this board."""
        n = self.size
        if move.kind == "point":
            if move.column < n and 1 <= move.row <= n:
                return self.corner(move.column, move.row)
            name = point_name(move.column, move.row)
            raise IllegalMove(f"{name} is off the {n}×{n} board: columns run A–"
                              f"{point_name(n - 1, n)[0]}, rows 1–{n}.")
        name = midpoint_name(move.column, move.row)
        if move.column + 1 >= n or move.row + 1 > n:
            raise IllegalMove(f"{name} is off the {n}×{n} board.")
        if (move.column, move.row) not in self.square_at:
            raise IllegalMove(f"{name} has no midpoint: that cell is split into two "
                              f"triangles (squares and triangle pairs alternate).")
        return self.square_at[move.column, move.row]


@lru_cache(maxsize=None)
def board_of(size: int) -> Board:
    return Board(size)
