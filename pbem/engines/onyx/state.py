"""Onyx's state: a position (OnyxState), and the union-find of its chains.

Speed: a state holds no history, and each colour's chains live in a union-find with the
edges each chain touches, so a move costs the same at ply 300 as at ply 10. A capture
removes stones, which a union-find cannot undo; only the chains that lost stones are
relabelled then (relabel_after_capture). The engine, which plays a move on them, is
pbem.engines.onyx.engine.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from pbem.engines.onyx.board import BLACK, WHITE, Board, board_of

SWAP = -1  # the decision of the pie rule's swap; the others are point indices


@dataclass(eq=False)
class OnyxState:
    """A position. `parent`/`reach` are a union-find over stones, rebuilt from `cells`.

    All three are flat arrays (bytes; unsigned shorts for `parent`) rather than lists, so
    copying one for the next state is a memory copy whose cost does not depend on what
    the game has done so far.
    """

    size: int
    cells: bytearray
    to_move: int
    swapped: bool
    plies: int
    winner: int
    last: tuple[int, tuple[int, ...]] | None  # (point or SWAP, captured points)
    parent: array  # of unsigned shorts: the chain's parent point
    reach: bytearray  # at a chain's root: the edges it touches
    # The free points in index order (legal's list without swap), once `legal` has been
    # asked; `apply` derives the next state's from it. Never changed once set.
    moves: list[int] | None = None

    @property
    def players(self) -> int:
        return 2

    def seat_of(self, colour: int) -> int:
        return int((colour == BLACK) == self.swapped)

    def colour_of(self, seat: int) -> int:
        return BLACK if (seat == 0) != self.swapped else WHITE


def find(parent: array, p: int) -> int:
    """The root of the chain of the stone on `p`, halving the path walked."""
    while parent[p] != p:
        parent[p] = parent[parent[p]]
        p = parent[p]
    return p


def _join(parent: array, reach: bytearray, a: int, b: int) -> None:
    ra, rb = find(parent, a), find(parent, b)
    if ra != rb:
        parent[rb] = ra
        reach[ra] |= reach[rb]


def _rebuild_chains(board: Board, cells: bytearray, parent: array, reach: bytearray,
                    colour: int) -> None:
    edges, neighbours = board.edges[colour], board.neighbours
    stones = [p for p in range(board.points) if cells[p] == colour]
    for p in stones:
        parent[p] = p
        reach[p] = edges[p]
    for p in stones:
        for q in neighbours[p]:
            if q > p and cells[q] == colour:
                _join(parent, reach, p, q)


def relabel_after_capture(board: Board, cells: bytearray, parent: array,
                          reach: bytearray, removed: list[int], colour: int) -> None:
    """Rebuild the chains of `colour` that lost stones, and only those.

    A union-find cannot split a chain; but every piece left of a broken chain touches a
    removed stone, so a flood from those neighbours relabels exactly the pieces.
    """
    edges, neighbours = board.edges[colour], board.neighbours
    done: set[int] = set()
    for gone in removed:
        for start in neighbours[gone]:
            if cells[start] != colour or start in done:
                continue
            piece, mask = [start], 0
            done.add(start)
            for p in piece:  # grows while it is walked: a breadth-first flood
                mask |= edges[p]
                for q in neighbours[p]:
                    if cells[q] == colour and q not in done:
                        done.add(q)
                        piece.append(q)
            for p in piece:
                parent[p] = start
            reach[start] = mask


def with_chains(state: OnyxState) -> OnyxState:
    """The state with its chains built from its cells (a new game, an old snapshot)."""
    board = board_of(state.size)
    state.parent = array("H", range(board.points))
    state.reach = bytearray(board.points)
    for colour in (BLACK, WHITE):
        _rebuild_chains(board, state.cells, state.parent, state.reach, colour)
    return state
