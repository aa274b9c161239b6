"""An independent UCT player with RAVE for Onyx, and its match against the `hard` bot.

Why it exists (issue #34 item 4): the `hard` Onyx bot (a shallow alpha-beta over shortest
paths) beats random players and the other levels, which says little about its strength.
This is an opponent built on a different idea — Monte-Carlo tree search — and written
without pbem.bots (neither imported nor copied), so that the match measures the bot and
not a relative of it. It uses only the engine: its `legal` and `apply` in the tree (every
move it plays is one of the engine's legal decisions, `swap` included when the engine
offers it), and its board geometry (pbem.engines.onyx.board) for a playout of its own.

The player (`choose`): UCT over the engine's states with RAVE (all-moves-as-first): a
child's value is (1 - β)·Q + β·Q_amaf + C·√(ln N / n), with β = √(K / (3n + K)) (Gelly
and Silver's schedule); an unvisited child is valued by its AMAF mean alone, or 1 while
it has none (so it is tried before the others). One node is added per iteration, one
playout run from it; the move played is the most visited child. Its budget is CPU
seconds (time.process_time) per move; a fresh tree every move.

The playout: uniform random legal moves under the full rules (O6 midpoints, O7 captures,
stones of the captured chain relabelled) on a copy of the engine's board, with a
union-find per stone so the game ends the moment a colour joins its edges, as in the
engine (O1). The random order is one sort of the free points by random keys; points that
a capture frees go back into the rest of that order at random places.

The match (`python -m bench.onyx_uct --games N --factor F [--log FILE]`): the `hard` bot
against this player on 12×12, standard setup, the seats exchanged every game (game 0:
the bot places the first stone); either may swap. The UCT's budget for a move is F × the
bot's mean CPU per decision over the match so far (the bot's first decision of game 0
comes before the UCT's first move), both measured with time.process_time in this one
process. Seeds are fixed (`bench/onyx-uct/K`), but a CPU budget is not: two runs play
the same first moves and then part where a playout more or less changes a choice.
`--first K` plays games K to K + N - 1, so a long match can run as parts on several
cores (each part's UCT budget follows its own part's running mean).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from itertools import compress

from pbem.bots import decide
from pbem.bots.arena import Standing
from pbem.engines import ENGINES
from pbem.engines.base import Engine
from pbem.engines.onyx.board import BLACK, WHITE, board_of
from pbem.engines.onyx.engine import SWAP, OnyxState

EXPLORATION = 0.2  # C: small, as RAVE does most of the exploring
RAVE_K = 500  # K: at K visits of a child, its own mean and its AMAF mean weigh alike
BOTH_EDGES = 3
FREE = bytes([1] + [0] * 255)  # bytes.translate: 1 where a point is empty
OF_COLOUR = {colour: bytes(int(b == colour) for b in range(256)) for colour in (BLACK, WHITE)}
OPTIONS = {"board": "12", "setup": "standard"}


# -- the playout --------------------------------------------------------------------------

class Geometry:
    """What a playout needs of a board, one entry per point (midpoints after corners)."""

    def __init__(self, size: int):
        board = board_of(size)
        self.points, self.corners = board.points, board.corners
        self.neighbours = board.neighbours
        no_squares = ((),) * (board.points - board.corners)
        # Per point: (midpoint, opposite corner, side, side) of each square it captures in.
        self.capture_squares = board.capture_squares + no_squares
        self.midpoints_of = board.midpoints_of + no_squares
        # Per point: the four corners of its square, for a midpoint; None for a corner.
        self.square = (None,) * board.corners + tuple(board.mid_corners)
        self.edges = {colour: tuple(board.edges[colour]) for colour in (BLACK, WHITE)}


_GEOMETRIES: dict[int, Geometry] = {}


def geometry(size: int) -> Geometry:
    if size not in _GEOMETRIES:
        _GEOMETRIES[size] = Geometry(size)
    return _GEOMETRIES[size]


def _relabel(geo: Geometry, cells: bytearray, parent: list[int], reach: list[int],
             removed: list[int], colour: int) -> None:
    """Re-root the chains of `colour` that lost the `removed` stones: every piece left
    touches a removed stone, so a flood from their neighbours finds each piece."""
    neighbours, edges = geo.neighbours, geo.edges[colour]
    seen: set[int] = set()
    for gone in removed:
        for start in neighbours[gone]:
            if cells[start] != colour or start in seen:
                continue
            seen.add(start)
            piece, mask = [start], 0
            for p in piece:
                mask |= edges[p]
                for q in neighbours[p]:
                    if cells[q] == colour and q not in seen:
                        seen.add(q)
                        piece.append(q)
            for p in piece:
                parent[p] = start
            reach[start] = mask


def playout(state: OnyxState, rng: random.Random,
            record: list[int] | None = None) -> tuple[int, bytearray]:
    """Random legal moves from `state` until a colour joins its edges: (that colour, or 0
    if the moves ran out first; per point, the colour that played there first). The
    points played are added to `record` if given (the tests replay them)."""
    geo = geometry(state.size)
    points, square, capture_squares = geo.points, geo.square, geo.capture_squares
    neighbours, midpoints_of = geo.neighbours, geo.midpoints_of
    cells, parent, reach = bytearray(state.cells), list(state.parent), list(state.reach)
    first = bytearray(points + 1)  # the last slot stands for swap, never played here
    keys = memoryview(rng.randbytes(2 * points)).cast("H")
    order = sorted(compress(range(points), cells.translate(FREE)), key=keys.__getitem__)
    colour, i = state.to_move, 0
    while i < len(order):
        p = order[i]
        i += 1
        if cells[p]:
            continue
        corners = square[p]
        if corners is not None:  # a midpoint: free only while its square is empty
            a, b, c, d = corners
            if cells[a] or cells[b] or cells[c] or cells[d]:
                continue
            cells[p], parent[p], reach[p] = colour, p, 0
            first[p] = first[p] or colour
            if record is not None:
                record.append(p)
            colour = BLACK + WHITE - colour
            continue
        other = BLACK + WHITE - colour
        captured = None
        for mid, opposite, side1, side2 in capture_squares[p]:
            if (cells[opposite] == colour and cells[side1] == other
                    and cells[side2] == other and not cells[mid]):
                captured = (captured or []) + [side1, side2]
        cells[p] = colour
        first[p] = first[p] or colour
        if record is not None:
            record.append(p)
        edges = geo.edges[colour]
        parent[p], mask = p, edges[p]
        for q in neighbours[p]:
            if cells[q] == colour:
                while parent[q] != q:
                    parent[q] = parent[parent[q]]
                    q = parent[q]
                if q != p:
                    parent[q] = p
                    mask |= reach[q]
        reach[p] = mask
        if mask == BOTH_EDGES:
            return colour, first
        if captured:
            for gone in captured:
                cells[gone] = 0
            _relabel(geo, cells, parent, reach, captured, other)
            freed = set(captured)
            for gone in captured:
                for mid in midpoints_of[gone]:
                    a, b, c, d = square[mid]
                    if not (cells[mid] or cells[a] or cells[b] or cells[c] or cells[d]):
                        freed.add(mid)
            for q in freed:  # back into the rest of the order, at a random place
                order.append(q)
                j = rng.randrange(i, len(order))
                order[j], order[-1] = order[-1], order[j]
        colour = other
    return 0, first


# -- the tree ------------------------------------------------------------------------------

class Node:
    """A position in the tree: its mover's statistics for each move, indexed by point
    (swap, -1, is the last slot): visits, wins, AMAF visits and AMAF wins."""

    __slots__ = ("state", "seat", "colour", "moves", "children", "visits", "n", "w",
                 "amaf_n", "amaf_w")

    def __init__(self, engine: Engine, state: OnyxState):
        self.state = state
        acting = engine.to_act(state)
        self.seat = min(acting) if acting else None
        self.colour = state.to_move
        self.moves = engine.legal(state, self.seat) if acting else []
        self.children: dict[int, Node] = {}
        self.visits = 0
        slots = board_of(state.size).points + 1
        self.n, self.w = [0] * slots, [0.0] * slots
        self.amaf_n, self.amaf_w = [0] * slots, [0] * slots

    def best_child_move(self) -> int:
        """The move to search further: UCT with RAVE (the module's docstring)."""
        n, w, amaf_n, amaf_w = self.n, self.w, self.amaf_n, self.amaf_w
        spread = EXPLORATION * math.sqrt(math.log(self.visits + 1))
        best, best_value = self.moves[0], -1.0
        for move in self.moves:
            visits, seen = n[move], amaf_n[move]
            if visits:
                beta = math.sqrt(RAVE_K / (3 * visits + RAVE_K))
                mean = w[move] / visits
                amaf = amaf_w[move] / seen if seen else mean
                value = (1 - beta) * mean + beta * amaf + spread / math.sqrt(visits)
            else:
                value = amaf_w[move] / seen if seen else 1.0
            if value > best_value:
                best, best_value = move, value
        return best


def search(engine: Engine, state: OnyxState, cpu_seconds: float, rng: random.Random,
           iterations: int | None = None) -> tuple[int, int]:
    """(the move, the iterations run) after `cpu_seconds` of CPU, or `iterations`."""
    root = Node(engine, state)
    if len(root.moves) == 1:
        return root.moves[0], 0
    deadline = time.process_time() + cpu_seconds
    done = 0
    while (done < iterations) if iterations is not None else (time.process_time() < deadline):
        iterate(engine, root, rng)
        done += 1
    return max(root.moves, key=lambda m: (root.n[m], root.w[m])), done


def iterate(engine: Engine, root: Node, rng: random.Random) -> None:
    """One iteration: select down the tree, add a node, play out, back up."""
    path: list[tuple[Node, int]] = []
    node = root
    while node.seat is not None:
        move = node.best_child_move()
        path.append((node, move))
        child = node.children.get(move)
        if child is None:
            child = node.children[move] = Node(engine, engine.apply(node.state, node.seat,
                                                                    move))
            node = child
            break
        node = child
    leaf = node.state
    if leaf.winner:
        winner, first = leaf.winner, bytearray(board_of(leaf.size).points + 1)
    else:
        winner, first = playout(leaf, rng)
    winner_seat = leaf.seat_of(winner) if winner else None
    backup(path, winner_seat, first)


def backup(path: list[tuple[Node, int]], winner_seat: int | None,
           first: bytearray) -> None:
    """Each node's move gets the result; its AMAF slots get it for every point its
    mover's colour played later on the path or in the playout. Nodes before a swap on the
    path get no AMAF update: colours and seats part there, so 'the same player's later
    moves' have no single colour."""
    later = {colour: bytes(first.translate(OF_COLOUR[colour])) for colour in (BLACK, WHITE)}
    swapped_at = max((d for d, (_, move) in enumerate(path) if move == SWAP), default=-1)
    for depth in range(len(path) - 1, -1, -1):
        node, move = path[depth]
        reward = 0.5 if winner_seat is None else float(winner_seat == node.seat)
        node.visits += 1
        node.n[move] += 1
        node.w[move] += reward
        if depth <= swapped_at:
            continue
        played = later[node.colour]
        extra = {m for parent, m in path[depth:] if parent.colour == node.colour
                 and m != SWAP and not played[m]}
        node.amaf_n = list(map(int.__add__, node.amaf_n, played))
        for m in extra:
            node.amaf_n[m] += 1
        if reward == 1.0:  # a loss adds nothing to the wins; a draw (none seen) too
            node.amaf_w = list(map(int.__add__, node.amaf_w, played))
            for m in extra:
                node.amaf_w[m] += 1


def choose(engine: Engine, state: OnyxState, seat: int, cpu_seconds: float,
           rng: random.Random, iterations: int | None = None) -> tuple[int, int]:
    """The UCT player's decision for `seat` (a legal decision) and its iterations, one
    playout each; `iterations` instead of the CPU budget, for the tests."""
    if seat not in engine.to_act(state):
        raise ValueError(f"seat {seat} is not to move")
    return search(engine, state, cpu_seconds, rng, iterations)


# -- the match -----------------------------------------------------------------------------

BOT, UCT = "bot:hard", "uct"


class Match:
    """The match so far: the bot's standing (its share of each game, its CPU per
    decision), the UCT's CPU per move and iterations (= playouts) per move."""

    def __init__(self, factor: float):
        self.factor = factor
        self.bot, self.uct = Standing(BOT), Standing(UCT)
        self.playouts: list[int] = []
        self.games: list[dict] = []

    def budget(self) -> float:
        """The UCT's CPU seconds for its next move: factor × the bot's mean so far."""
        return self.factor * statistics.fmean(self.bot.seconds)

    def play(self, number: int, engine: Engine) -> dict:
        """Game `number`: the bot has seat 0 (places the first stone) in even games."""
        seed, bot_seat = f"bench/onyx-uct/{number}", number % 2
        state, ply, started = engine.start(OPTIONS, 2, seed=seed), 0, time.perf_counter()
        while engine.to_act(state):
            seat = min(engine.to_act(state))
            before = time.process_time()
            if seat == bot_seat:
                decision = decide(engine, state, seat, "hard", seed=seed, ply=ply)
                self.bot.seconds.append(time.process_time() - before)
            else:
                rng = random.Random(f"uct/{seed}/{ply}")
                decision, playouts = choose(engine, state, seat, self.budget(), rng)
                self.uct.seconds.append(time.process_time() - before)
                self.playouts.append(playouts)
            state = engine.apply(state, seat, decision)
            ply += 1
        share = float(engine.outcome(state).shares[bot_seat])
        self.bot.shares.append(share)
        self.uct.shares.append(1.0 - share)
        game = {"number": number, "bot_seat": bot_seat, "bot_share": share, "plies": ply,
                "swapped": state.swapped, "seconds": time.perf_counter() - started}
        self.games.append(game)
        return game

    def lines(self) -> list[str]:
        low, high = self.bot.interval()
        wins = sum(self.bot.shares)
        by_seat = [[g["bot_share"] for g in self.games if g["bot_seat"] == s] for s in (0, 1)]
        uct_cpu = self.uct.seconds or [0.0]
        playouts = self.playouts or [0]
        return [
            f"games {len(self.games)}: {BOT} won {wins:g}, {self.bot.mean:.1%} "
            f"(95% CI {low:.1%}–{high:.1%}); as the first seat {sum(by_seat[0]):g} of "
            f"{len(by_seat[0])}, as the second {sum(by_seat[1]):g} of {len(by_seat[1])}; "
            f"swaps {sum(g['swapped'] for g in self.games)}",
            f"{BOT} CPU per decision: mean {statistics.fmean(self.bot.seconds) * 1000:.0f} ms, "
            f"p50 {self.bot.percentile(0.5) * 1000:.0f} ms, p99 "
            f"{self.bot.percentile(0.99) * 1000:.0f} ms over {len(self.bot.seconds)} "
            f"decisions",
            f"{UCT} (budget {self.factor:g}× the bot's mean so far): CPU per move mean "
            f"{statistics.fmean(uct_cpu) * 1000:.0f} ms "
            f"({statistics.fmean(uct_cpu) / statistics.fmean(self.bot.seconds):.2f}× the "
            f"bot's mean), p50 "
            f"{self.uct.percentile(0.5) * 1000:.0f} ms, p99 "
            f"{self.uct.percentile(0.99) * 1000:.0f} ms; playouts per move mean "
            f"{statistics.fmean(playouts):.0f}, p50 {statistics.median(playouts):.0f}, "
            f"min {min(playouts)} over {len(self.playouts)} moves",
        ]


def run(games: int, factor: float, log: str | None = None, first: int = 0) -> Match:
    """Games `first` to `first + games - 1` (a game's seed and seats come from its
    number, so parts run on several cores play the games of one longer run)."""
    engine, match = ENGINES["onyx"], Match(factor)
    print(f"Onyx 12×12 standard: {BOT} against UCT with RAVE at {factor:g}× its CPU per "
          f"decision, {games} games from game {first}", flush=True)
    for number in range(first, first + games):
        game = match.play(number, engine)
        line = (f"game {number}: {BOT} seat {game['bot_seat']} "
                f"{'won' if game['bot_share'] else 'lost'} in {game['plies']} plies"
                f"{' (swap)' if game['swapped'] else ''}, {game['seconds']:.0f} s")
        print(line, flush=True)
        if log:
            with open(log, "a", encoding="utf-8") as out:
                out.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")
                out.writelines(f"   {text}\n" for text in match.lines())
    for text in match.lines():
        print(text, flush=True)
    return match


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.onyx_uct")
    parser.add_argument("--games", type=int, default=10, help="games (10)")
    parser.add_argument("--factor", type=float, default=1.0,
                        help="the UCT's CPU per move as a multiple of the bot's mean (1)")
    parser.add_argument("--log", metavar="FILE", help="add the standings to FILE after "
                        "every game")
    parser.add_argument("--first", type=int, default=0, metavar="K",
                        help="start at game K (0): a part of a longer run")
    args = parser.parse_args()
    if args.first < 0:
        parser.error("--first must be 0 or more")
    run(args.games, args.factor, args.log, args.first)


if __name__ == "__main__":
    main()
