"""An independent reference implementation of Onyx, used only by the tests.

Why it exists: the project's engine (``pbem/engines``) and notation package are
cross-checked against this file through the command line (``pbem record check`` and
``pbem record show --json``).  It was written from the rulebook and RULINGS.md
(O1-O9) alone, without reading or importing any project code, so that one mistaken
reading of the rules cannot hide in both places.  Keep it that way: this module must
not import ``pbem``.

What it offers:

- ``Board``: the points, the lines (O3/O4), the squares, the standard setup (O5).
- ``Game``: a position plus history; legal moves (O6), captures (O7), swap (O8),
  the win test (O1), canonical move texts (O9) and record writing.
- ``play_random_game``: seeded random games that prefer captures now and then, so a
  corpus of them holds single captures, double captures and swaps.
- ``replay``: play a list of canonical move texts (used to build rulebook positions).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

EMPTY, BLACK, WHITE = 0, 1, 2
COLOUR_NAME = {BLACK: "black", WHITE: "white"}
OTHER = {BLACK: WHITE, WHITE: BLACK}
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class IllegalMove(ValueError):
    """A move text that is not possible in the position it is played in."""


@dataclass(frozen=True)
class Square:
    """A square cell: its midpoint id and its corners (lower-left, lower-right,
    upper-left, upper-right)."""

    midpoint: int
    corners: tuple[int, int, int, int]


class Board:
    """The Onyx board of size n: points are ints; corners first, then midpoints.

    Corner (column c in 0..n-1, row r in 1..n) has id (r-1)*n + c.
    """

    def __init__(self, n: int):
        if n % 2 or not 6 <= n <= 26:
            raise ValueError(f"board size must be even, 6..26, not {n}")
        self.n = n
        self.names: list[str] = [
            f"{LETTERS[c]}{r}" for r in range(1, n + 1) for c in range(n)
        ]
        self.squares: list[Square] = []
        lines: set[tuple[int, int]] = set()

        def line(a: int, b: int) -> None:
            lines.add((min(a, b), max(a, b)))

        for r in range(1, n + 1):  # orthogonal lines
            for c in range(n):
                if c + 1 < n:
                    line(self.corner(c, r), self.corner(c + 1, r))
                if r + 1 <= n:
                    line(self.corner(c, r), self.corner(c, r + 1))
        for g in range(n - 1):  # cells
            for r in range(1, n):
                ll, lr = self.corner(g, r), self.corner(g + 1, r)
                ul, ur = self.corner(g, r + 1), self.corner(g + 1, r + 1)
                if (g + r) % 2 == 0:
                    mid = len(self.names)
                    self.names.append(f"{LETTERS[g]}{LETTERS[g + 1]}{r}{r + 1}")
                    self.squares.append(Square(mid, (ll, lr, ul, ur)))
                    for corner in (ll, lr, ul, ur):
                        line(mid, corner)
                elif r % 2 == 1:
                    line(ll, ur)  # "/"
                else:
                    line(ul, lr)  # "\"
        self.lines = sorted(lines)
        self.adjacent: list[list[int]] = [[] for _ in self.names]
        for a, b in self.lines:
            self.adjacent[a].append(b)
            self.adjacent[b].append(a)
        self.ids = {name: i for i, name in enumerate(self.names)}
        self.square_of_midpoint = {sq.midpoint: sq for sq in self.squares}
        # For each corner: (midpoint, opposite corner, side corner, side corner)
        # of every square it is a corner of.
        self.capture_patterns: list[list[tuple[int, int, int, int]]] = [
            [] for _ in range(n * n)
        ]
        for sq in self.squares:
            ll, lr, ul, ur = sq.corners
            for p, opp, s1, s2 in ((ll, ur, lr, ul), (ur, ll, lr, ul),
                                   (lr, ul, ll, ur), (ul, lr, ll, ur)):
                self.capture_patterns[p].append((sq.midpoint, opp, s1, s2))

    def corner(self, c: int, r: int) -> int:
        return (r - 1) * self.n + c

    def column(self, p: int) -> int:
        return p % self.n

    def row(self, p: int) -> int:
        return p // self.n + 1

    def is_midpoint(self, p: int) -> bool:
        return p >= self.n * self.n

    def standard_setup(self) -> dict[int, int]:
        """O5: the outer corners of the middle edge squares (n a multiple of 4)."""
        n = self.n
        if n % 4:
            raise ValueError(f"the standard setup needs a multiple of 4, not {n}")
        lo, hi = n // 2, n // 2 + 1  # 1-based rows/columns of the middle pair
        black = [self.corner(0, lo), self.corner(0, hi),
                 self.corner(n - 1, lo), self.corner(n - 1, hi)]
        white = [self.corner(lo - 1, 1), self.corner(hi - 1, 1),
                 self.corner(lo - 1, n), self.corner(hi - 1, n)]
        # sanity: they are the outer corners of squares
        for a, b in ((black[0], black[1]), (black[2], black[3]),
                     (white[0], white[1]), (white[2], white[3])):
            assert any(a in sq.corners and b in sq.corners for sq in self.squares)
        return {**{p: BLACK for p in black}, **{p: WHITE for p in white}}


@dataclass
class Game:
    """A game in progress: the board contents, who places next, the history."""

    board: Board
    setup: str
    cells: list[int] = field(default_factory=list)
    to_move: int = BLACK  # colour of the next stone placed
    winner: int | None = None
    moves: list[str] = field(default_factory=list)  # canonical texts, one a ply

    @classmethod
    def new(cls, n: int, setup: str) -> "Game":
        board = Board(n)
        cells = [EMPTY] * len(board.names)
        if setup == "standard":
            for p, colour in board.standard_setup().items():
                cells[p] = colour
        elif setup != "open":
            raise ValueError(f"unknown setup {setup!r}")
        return cls(board, setup, cells)

    # -- rules -------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.winner is not None

    def swap_allowed(self) -> bool:
        """O8: only as the second ply."""
        return not self.over and len(self.moves) == 1

    def placeable(self, p: int) -> bool:
        """O6: empty, and for a midpoint its four corners are empty too."""
        if self.cells[p] != EMPTY:
            return False
        if self.board.is_midpoint(p):
            sq = self.board.square_of_midpoint[p]
            return all(self.cells[c] == EMPTY for c in sq.corners)
        return True

    def legal_points(self) -> list[int]:
        """Every point the mover may take now (O6), corners first."""
        if self.over:
            return []
        cells = self.cells
        points = [p for p in range(self.board.n ** 2) if cells[p] == EMPTY]
        for sq in self.board.squares:
            a, b, c, d = sq.corners
            if not (cells[sq.midpoint] or cells[a] or cells[b] or cells[c] or cells[d]):
                points.append(sq.midpoint)
        return points

    def captures(self, p: int, colour: int | None = None) -> list[tuple[int, int]]:
        """O7: the pairs a stone of `colour` on empty point p would capture.

        Both squares are judged on the position after the placement; they share only
        p, so the order of removal does not matter.
        """
        colour = self.to_move if colour is None else colour
        if self.board.is_midpoint(p):
            return []
        enemy = OTHER[colour]
        found = []
        for mid, opp, s1, s2 in self.board.capture_patterns[p]:
            if (self.cells[mid] == EMPTY and self.cells[opp] == colour
                    and self.cells[s1] == enemy and self.cells[s2] == enemy):
                found.append((s1, s2))
        return found

    def connected(self, colour: int) -> bool:
        """O1: black joins row n to row 1; white joins column A to the last column."""
        b, n = self.board, self.board.n
        if colour == BLACK:
            start = [b.corner(c, 1) for c in range(n)]
            goal = lambda p: not b.is_midpoint(p) and b.row(p) == n  # noqa: E731
        else:
            start = [b.corner(0, r) for r in range(1, n + 1)]
            goal = lambda p: not b.is_midpoint(p) and b.column(p) == n - 1  # noqa: E731
        seen = {p for p in start if self.cells[p] == colour}
        todo = list(seen)
        while todo:
            p = todo.pop()
            if goal(p):
                return True
            for q in b.adjacent[p]:
                if q not in seen and self.cells[q] == colour:
                    seen.add(q)
                    todo.append(q)
        return False

    def text_of(self, p: int) -> str:
        """O9: canonical move text of placing on p now, with capture markers."""
        return self.board.names[p] + "*" * len(self.captures(p))

    def place(self, p: int) -> str:
        if self.over:
            raise IllegalMove("the game is over")
        if not self.placeable(p):
            raise IllegalMove(f"{self.board.names[p]} cannot be taken now")
        text = self.text_of(p)
        colour = self.to_move
        pairs = self.captures(p)
        self.cells[p] = colour
        for s1, s2 in pairs:
            self.cells[s1] = self.cells[s2] = EMPTY
        self.moves.append(text)
        if self.connected(colour):
            self.winner = colour
        self.to_move = OTHER[colour]
        return text

    def swap(self) -> str:
        """O8: seats change; the stones stay and White places the next stone."""
        if not self.swap_allowed():
            raise IllegalMove("swap is possible only as the second ply")
        self.moves.append("swap")
        return "swap"

    def play(self, text: str) -> str:
        """Play one canonical move text (markers checked if present)."""
        if text == "swap":
            return self.swap()
        m = re.fullmatch(r"([A-Z]+\d+)(\**)", text)
        if not m or m.group(1) not in self.board.ids:
            raise IllegalMove(f"cannot read {text!r}")
        p = self.board.ids[m.group(1)]
        if m.group(2) and self.placeable(p) and len(m.group(2)) != len(self.captures(p)):
            raise IllegalMove(f"{text!r}: wrong capture marker")
        return self.place(p)

    # -- reporting ---------------------------------------------------------
    def stones(self, colour: int) -> list[str]:
        return sorted(self.board.names[p] for p, c in enumerate(self.cells) if c == colour)

    def final(self) -> dict:
        return {
            "black": self.stones(BLACK),
            "white": self.stones(WHITE),
            "to_move": None if self.over else COLOUR_NAME[self.to_move],
            "winner": None if self.winner is None else COLOUR_NAME[self.winner],
        }

    def result(self) -> str:
        return {None: "*", BLACK: "1-0", WHITE: "0-1"}[self.winner]

    def record(self, move_numbers: bool = True, moves: list[str] | None = None,
               result: str | None = None, width: int = 78) -> str:
        """The game record: tag pairs, blank line, wrapped movetext, result token."""
        moves = self.moves if moves is None else moves
        result = self.result() if result is None else result
        tags = [("Game", "Onyx"), ("Board", str(self.board.n)), ("Setup", self.setup),
                ("Black", "alice"), ("White", "bob"), ("Result", result)]
        head = "".join(f'[{k} "{v}"]\n' for k, v in tags)
        return head + "\n" + movetext(moves, result, move_numbers, width) + "\n"


def movetext(moves: list[str], result: str, move_numbers: bool = True,
             width: int = 78) -> str:
    tokens = []
    for i, move in enumerate(moves):
        if move_numbers and i % 2 == 0:
            tokens.append(f"{i // 2 + 1}.")
        tokens.append(move)
    tokens.append(result)
    lines, current = [], ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > width:
            lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    lines.append(current)
    return "\n".join(lines)


def replay(n: int, setup: str, moves: list[str]) -> Game:
    """Play canonical move texts from the start; raises IllegalMove on a bad one."""
    game = Game.new(n, setup)
    for ply, text in enumerate(moves, start=1):
        try:
            game.play(text)
        except IllegalMove as err:
            raise IllegalMove(f"ply {ply}: {err}") from None
    return game


class RandomPlayer:
    """Random play with three biases, so that a corpus holds many captures.

    - a double capture, when one exists, is taken with probability double_bias;
    - a single capture, when one exists, with probability capture_bias;
    - with probability setup_bias the mover plays the corner that best builds
      towards a double-capture pattern, for either colour: an empty corner q whose
      two squares have empty midpoints, the capturer's stones on the two corners
      diagonally opposite q and the victim's stones on q's four orthogonal
      neighbours;
    - otherwise a uniformly random legal point (midpoints included).
    """

    def __init__(self, rng: random.Random, board: Board, capture_bias: float,
                 setup_bias: float, double_bias: float = 0.95):
        self.rng = rng
        self.capture_bias = capture_bias
        self.setup_bias = setup_bias
        self.double_bias = double_bias
        # corner p -> the corners q with two squares whose double pattern includes p
        self.involved: dict[int, list[int]] = {}
        for q in range(board.n * board.n):
            if len(board.capture_patterns[q]) == 2:
                for _mid, opp, s1, s2 in board.capture_patterns[q]:
                    for p in (opp, s1, s2):
                        self.involved.setdefault(p, []).append(q)

    def choose(self, game: Game, legal: list[int]) -> int:
        rng = self.rng
        corners = [p for p in legal if p < game.board.n ** 2]
        counts = [(p, len(game.captures(p))) for p in corners]
        doubles = [p for p, k in counts if k == 2]
        singles = [p for p, k in counts if k == 1]
        if doubles and rng.random() < self.double_bias:
            return rng.choice(doubles)
        if singles and rng.random() < self.capture_bias:
            return rng.choice(singles)
        if corners and rng.random() < self.setup_bias:
            scored = [(self.build_score(game, p), p) for p in corners]
            best = max(s for s, _ in scored)
            if best > 0:
                return rng.choice([p for s, p in scored if s == best])
        return rng.choice(legal)

    def build_score(self, game: Game, p: int) -> int:
        """How much a stone of the mover on p completes double-capture patterns."""
        me, cells = game.to_move, game.cells
        total = 0
        for q in self.involved.get(p, ()):
            if cells[q] != EMPTY:
                continue
            for capturer in (BLACK, WHITE):
                matched, possible = 0, True
                for mid, opp, s1, s2 in game.board.capture_patterns[q]:
                    if cells[mid] != EMPTY:
                        possible = False
                    for pos, want in ((opp, capturer), (s1, OTHER[capturer]),
                                      (s2, OTHER[capturer])):
                        have = me if pos == p else cells[pos]
                        if have == want:
                            matched += 1
                        elif have != EMPTY:
                            possible = False
                if possible:
                    total += matched * matched
        return total


def random_game(rng: random.Random, board: int, setup: str, swap_probability: float,
                max_plies: int | None = None, *, capture_bias: float | None = None,
                setup_bias: float | None = None) -> Game:
    """Play a random game; stop when someone wins or after max_plies plies.

    Biases left as None are drawn from rng, so games differ in style.
    """
    if capture_bias is None:
        capture_bias = rng.choice([0.1, 0.3, 0.6])
    if setup_bias is None:
        setup_bias = rng.choice([0.0, 0.05, 0.1, 0.15])
    game = Game.new(board, setup)
    player = RandomPlayer(rng, game.board, capture_bias, setup_bias)
    while not game.over and (max_plies is None or len(game.moves) < max_plies):
        if game.swap_allowed() and rng.random() < swap_probability:
            game.swap()
            continue
        legal = game.legal_points()
        if not legal:  # never seen: a full board has a winner
            break
        game.place(player.choose(game, legal))
    return game


def play_random_game(rng: random.Random, board: int, setup: str, swap_probability: float,
                     max_plies: int | None = None, *, move_numbers: bool = True
                     ) -> tuple[str, dict]:
    """A seeded random game as (record text, final position summary).

    final = {"black": [...], "white": [...], "to_move": "black"|"white"|None,
    "winner": "black"|"white"|None}; the record's Result is "*" when max_plies cut
    the game short.
    """
    game = random_game(rng, board, setup, swap_probability, max_plies)
    return game.record(move_numbers=move_numbers), game.final()
