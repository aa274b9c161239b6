"""Onyx's moves: the points a stone may go on (O6), what a stone captures (O7), and the
free points after a move, derived from those before it.

`legal` (pbem.engines.onyx.engine) builds its list from the board once (all in C, see
`free_points`) and keeps it in the state (`moves`); `apply` then derives the next state's
list from it (`moves_after`), editing only around the placed stone and the captured ones,
so a caller that lists the moves every ply (a uniform choice from `legal`) pays for a
copy, not a scan. A state never asked for its moves (random_decision playouts, a loaded
snapshot) carries none and pays nothing.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import compress

from pbem.engines.onyx.board import BLACK, WHITE, Board

FREE = bytes([1] + [0] * 255)  # bytes.translate: 1 where a point is empty, else 0


def captures(board: Board, cells: bytearray, point: int, colour: int) -> list[int]:
    """The stones a stone of `colour` on `point` would capture (O7)."""
    if point >= board.corners:
        return []
    other = BLACK + WHITE - colour
    captured: list[int] = []
    for mid, opposite, side1, side2 in board.capture_squares[point]:
        if (not cells[mid] and cells[opposite] == colour
                and cells[side1] == other and cells[side2] == other):
            captured += (side1, side2)
    return captured


def midpoint_free(board: Board, cells: bytearray, point: int) -> bool:
    """Whether the four corners of the midpoint's square are empty (O6)."""
    a, b, c, d = board.mid_corners[point - board.corners]
    return not (cells[a] or cells[b] or cells[c] or cells[d])


def free_points(board: Board, cells: bytearray) -> list[int]:
    """Every point a stone may go on now (O6), in index order: the plain computation."""
    corners, points = board.corners, board.points
    moves = list(compress(range(corners), cells[:corners].translate(FREE)))
    if points > corners:
        # A midpoint is free when it and the four corners of its square are: the
        # corners as one integer, a byte a point, OR-ed with itself shifted by a
        # column, a row and both puts at each corner the stones of the square it is
        # the lower left of; one gather then reads those of the midpoints' squares.
        # All in C: the point-by-point test was most of a random playout.
        grid, n = int.from_bytes(cells[:corners], "little"), 8 * board.size
        grid |= grid >> 8
        grid |= grid >> n
        squares = bytes(board.lower_lefts(grid.to_bytes(corners, "little")))
        taken = int.from_bytes(squares, "little") | int.from_bytes(cells[corners:], "little")
        moves += compress(range(corners, points),
                          taken.to_bytes(points - corners, "little").translate(FREE))
    return moves


def moves_after(board: Board, cells: bytearray, moves: list[int], point: int,
                captured: list[int]) -> list[int] | None:
    """The free points once a stone is on `point` and `captured` are gone (`cells` is
    the board after), from `moves`, those before: only what is around them changes.
    None when `point` was not free (no list to derive from; `legal` builds one)."""
    moves = moves[:]
    i = bisect_left(moves, point)
    if i == len(moves) or moves[i] != point:
        return None
    del moves[i]
    if point >= board.corners:
        return moves  # a midpoint blocks nothing: its corners may be filled later
    midpoints_of = board.midpoints_of
    for mid in midpoints_of[point]:  # a stone on a corner blocks its squares' midpoints
        i = bisect_left(moves, mid, i)
        if i < len(moves) and moves[i] == mid:
            del moves[i]
    for gone in captured:
        moves.insert(bisect_left(moves, gone), gone)
    for gone in captured:  # a midpoint whose square has emptied is free again
        for mid in midpoints_of[gone]:
            if not cells[mid] and midpoint_free(board, cells, mid):
                i = bisect_left(moves, mid)
                if i == len(moves) or moves[i] != mid:
                    moves.insert(i, mid)
    return moves
