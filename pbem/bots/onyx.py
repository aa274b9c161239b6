"""The Onyx bot: a shallow alpha-beta over a connection-aware evaluation.

The evaluation is the race of two shortest paths: for each colour, how many more stones
it needs to join its two edges (a 0-1 breadth-first search over the board's lines, where
one's own stones cost nothing, a free point one, and the opponent's stones and blocked
midpoints bar the way); the side with fewer stones to go is ahead. Captures count through
it, as a capture removes stones from a path. Before any search the bot takes a winning
point, and blocks a point that would win for the opponent (or captures its way out).

Levels: `easy` looks one ply ahead at a random part of the board and slips now and then;
`normal` looks at every point, then two plies deep at its best few; `hard` two plies deep
at its best twenty, answering with every point on either shortest path. The swap (O8) is
taken when Black's first stone is worth more than the best answer White has.
"""

from __future__ import annotations

import random
import time
from collections import deque

from pbem.engines.base import Decision, Engine
from pbem.engines.onyx.board import BLACK, WHITE, board_of
from pbem.engines.onyx.engine import SWAP, OnyxState

FAR = 10_000  # a colour cut off from its edges
WIN = 100_000.0
#: Per level: (share of the points looked at, candidates searched two plies deep,
#: chance of a slip to a random move among the best few).
LEVELS = {"easy": (0.35, 0, 0.25), "normal": (1.0, 4, 0.0), "hard": (1.0, 20, 0.0)}
#: CPU seconds (time.process_time) per decision: half of it for looking one ply ahead,
#: the rest two plies deep. On 12×12 a decision stays well inside (bench/bots.py), so
#: the same seed gives the same move; on the biggest boards the cap cuts the search.
CAPS = {"easy": 0.5, "normal": 1.2, "hard": 2.0}


def _free(board, cells: bytearray, p: int) -> bool:
    """Whether a stone may go on the empty point `p` (O6: a midpoint needs four empty
    corners)."""
    if cells[p]:
        return False
    if p < board.corners:
        return True
    return not any(cells[c] for c in board.mid_corners[p - board.corners])


def distances(state: OnyxState, colour: int, edge: int) -> list[int]:
    """Per point: the stones `colour` still needs for a chain from its `edge` (bit 1 the
    low edge, bit 2 the high one) to that point, the point included."""
    board, cells = board_of(state.size), state.cells
    other = BLACK + WHITE - colour
    cost = [0 if c == colour else (1 if not c and _free(board, cells, p) else FAR)
            for p, c in enumerate(cells)]
    for p, c in enumerate(cells):
        if c == other:
            cost[p] = FAR
    dist = [FAR] * board.points
    queue: deque[int] = deque()
    edges = board.edges[colour]
    for p in range(board.corners):
        if edges[p] & edge and cost[p] < FAR:
            dist[p] = cost[p]
            (queue.appendleft if cost[p] == 0 else queue.append)(p)
    neighbours = board.neighbours
    while queue:
        p = queue.popleft()
        d = dist[p]
        for q in neighbours[p]:
            step = cost[q]
            if step < FAR and d + step < dist[q]:
                dist[q] = d + step
                (queue.appendleft if step == 0 else queue.append)(q)
    return dist


def to_go(state: OnyxState, colour: int) -> int:
    """Stones `colour` still needs to win (FAR: cut off)."""
    board = board_of(state.size)
    dist = distances(state, colour, 1)
    edges = board.edges[colour]
    return min((dist[p] for p in range(board.corners) if edges[p] & 2), default=FAR)


def shortest(state: OnyxState, colour: int) -> tuple[int, set[int]]:
    """Stones `colour` still needs, and the free points on some shortest path (where
    both sides want to play; how many there are says how hard the path is to cut)."""
    board = board_of(state.size)
    low, high = distances(state, colour, 1), distances(state, colour, 2)
    edges = board.edges[colour]
    best = min((low[p] for p in range(board.corners) if edges[p] & 2), default=FAR)
    if best >= FAR:
        return FAR, set()
    return best, {p for p in range(board.points) if not state.cells[p]
                  and low[p] + high[p] - 1 == best}


def path_points(state: OnyxState, colour: int) -> set[int]:
    return shortest(state, colour)[1]


def evaluate(state: OnyxState, colour: int) -> float:
    """How well `colour` stands: the opponent's stones to go minus its own, then (less
    than a stone) how many more ways it has than the opponent to get there."""
    if state.winner:
        return WIN if state.winner == colour else -WIN
    mine, my_ways = shortest(state, colour)
    theirs, their_ways = shortest(state, BLACK + WHITE - colour)
    width = (len(my_ways) - len(their_ways)) / (len(my_ways) + len(their_ways) + 1)
    return float(min(theirs, 60) - min(mine, 60)) + 0.5 * width


def winning_points(state: OnyxState, colour: int) -> list[int]:
    """The points where a stone of `colour` would join its two edges at once."""
    board, cells = board_of(state.size), state.cells
    edges, neighbours = board.edges[colour], board.neighbours
    mask = [0] * board.points  # per stone of `colour`: the edges its chain touches
    seen = [False] * board.points
    for start in range(board.points):
        if cells[start] != colour or seen[start]:
            continue
        chain, reach = [start], 0
        seen[start] = True
        for p in chain:
            reach |= edges[p]
            for q in neighbours[p]:
                if cells[q] == colour and not seen[q]:
                    seen[q] = True
                    chain.append(q)
        for p in chain:
            mask[p] = reach
    found = []
    for p in range(board.points):
        if _free(board, cells, p):
            reach = edges[p]
            for q in neighbours[p]:
                if cells[q] == colour:
                    reach |= mask[q]
            if reach == 3:
                found.append(p)
    return found


def choose(engine: Engine, state: OnyxState, seat: int, level: str,
           rng: random.Random) -> Decision:
    """The bot's move for `seat` (the seat must be to move)."""
    colour = state.colour_of(seat)
    other = BLACK + WHITE - colour
    wins = winning_points(state, colour)
    if wins:
        return wins[0]
    legal = engine.legal(state, seat)
    if SWAP in legal and _swap_pays(engine, state, seat):
        return SWAP
    moves = [m for m in legal if m != SWAP]
    share, deep, slip = LEVELS[level]
    threats = winning_points(state, other)
    if threats:
        blocks = [m for m in moves
                  if not winning_points(engine.apply(state, seat, m), other)]
        moves = blocks or moves
    elif share < 1.0:
        near = path_points(state, colour) | path_points(state, other)
        moves = [m for m in moves if m in near or rng.random() < share] or moves
    cap, started = CAPS[level], time.process_time()
    rng.shuffle(moves)  # what the cap leaves out, if it cuts, is a random part
    scored = []
    for m in moves:
        if scored and time.process_time() - started > cap / 2:
            break
        scored.append((evaluate(engine.apply(state, seat, m), colour) + rng.random() * 0.01,
                       m))
    scored.sort(reverse=True)
    if slip and rng.random() < slip:
        return scored[rng.randrange(min(len(scored), 6))][1]
    if state.plies == 0 and len(scored) > 1:
        return _opening(scored)
    if not deep or scored[0][0] >= WIN:
        return scored[0][1]
    best, choice = -2 * WIN, scored[0][1]
    for _, move in scored[:deep]:
        if time.process_time() - started > cap:
            break
        value = _answered(engine, engine.apply(state, seat, move), colour, best,
                          started + cap)
        if value > best:
            best, choice = value, move
    return choice


def _answered(engine: Engine, after: OnyxState, colour: int, floor: float,
              deadline: float) -> float:
    """The value of `after` for `colour` once the opponent has made its best answer
    among the points on either shortest path and its captures (a win, if it has one);
    stops early once the value cannot beat `floor`."""
    if after.winner:
        return evaluate(after, colour)
    other = BLACK + WHITE - colour
    seat = after.seat_of(other)
    if winning_points(after, other):
        return -WIN
    answers = path_points(after, colour) | path_points(after, other) | captures(
        engine, after, seat)
    worst = evaluate(after, colour) + 1  # passing is never the opponent's best
    for move in sorted(answers):
        worst = min(worst, evaluate(engine.apply(after, seat, move), colour))
        if worst <= floor or time.process_time() > deadline:
            break
    return worst


def captures(engine: Engine, state: OnyxState, seat: int) -> set[int]:
    """The moves of `seat` that capture: their notation marks each pair with `*` (O9)."""
    return {m for m in engine.legal(state, seat)
            if m != SWAP and engine.notation(state, seat, m).endswith("*")}


def _opening(scored: list[tuple[float, int]]) -> int:
    """Black's first stone, which White may take over by the swap: a fair one, a little
    short of the best, so neither side gains by the pie rule."""
    top = scored[0][0]
    fair = [m for value, m in scored if top - 1.5 < value <= top - 0.5]
    return fair[0] if fair else scored[0][1]


def _swap_pays(engine: Engine, state: OnyxState, seat: int) -> bool:
    """O8: take Black's first stone when White's best answer would not leave White at
    least half a stone ahead (Black, with the move, would then stand better)."""
    best = max(evaluate(engine.apply(state, seat, m), WHITE)
               for m in path_points(state, WHITE) | path_points(state, BLACK))
    return best < 0.5
