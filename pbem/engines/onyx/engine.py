"""Onyx: the rules engine (RULINGS.md O1–O9), from board geometry to the winning chain.

Seat 0 places Black's first stone; seat 1 may answer with `swap` and take over Black.
Stones never change colour, so the state speaks in colours and maps seats to colours
through `swapped`. Decisions are point indices (corner points first, then midpoints)
or SWAP.

This module holds the engine: reading and writing moves, playing them, views, snapshots
and records. The state and the union-find of its chains are in pbem.engines.onyx.state
(why a move costs the same at any ply), the free points and captures in
pbem.engines.onyx.moves (why listing them every ply costs a copy), the board's geometry
in pbem.engines.onyx.board, the diagrams in pbem.engines.onyx.render.
"""

from __future__ import annotations

import base64
import random
import sys
from array import array
from itertools import compress

from notation.onyx import NotationError, point_name, read_move
from pbem.engines.base import (Engine, IllegalMove, InvalidMove, Option, OptionError,
                               Outcome, move_text)
from pbem.engines.onyx.board import BLACK, EMPTY, WHITE, board_of
from pbem.engines.onyx.moves import captures, free_points, midpoint_free, moves_after
from pbem.engines.onyx.state import (SWAP, OnyxState, find, relabel_after_capture,
                                     with_chains)

COLOUR_NAMES = {BLACK: "black", WHITE: "white"}
BOTH_EDGES = 3
SEAT_SETS = (frozenset((0,)), frozenset((1,)))  # what to_act returns, made once
IS_BLACK, IS_WHITE = (bytes(int(b == colour) for b in range(256)) for colour in (BLACK, WHITE))
COLOURS = {name: colour for colour, name in COLOUR_NAMES.items()}
CELL_TEXT, TEXT_CELL = bytes.maketrans(b"\0\1\2", b".bw"), bytes.maketrans(b".bw", b"\0\1\2")
REACH_TEXT, TEXT_REACH = (bytes.maketrans(b"\0\1\2\3", b"0123"),
                          bytes.maketrans(b"0123", b"\0\1\2\3"))


def _written(state: OnyxState, point: int, captured) -> str:
    """The canonical text of a move: the point, one '*' per captured pair; or swap."""
    if point == SWAP:
        return "swap"
    return board_of(state.size).names[point] + "*" * (len(captured) // 2)


# -- the engine --------------------------------------------------------------------------

def _check_board(value: str) -> str | None:
    if not (value.isascii() and value.isdigit()) or int(value) % 2 \
            or not 6 <= int(value) <= 26:
        return "the board size is an even number from 6 to 26"
    return None


class Onyx(Engine):
    id = "onyx"
    title = "Onyx"
    min_players = max_players = 2
    labels_change = True  # the swap: seat 1 plays Black from move 2 on
    conditional_moves = True  # `if E5 F6`: two seats in turn, one decision a turn, no secret
    options = (
        Option("board", "12", "board size: an even number from 6 to 26", check=_check_board),
        Option("setup", "standard", "standard (four stones each) or open (empty board)",
               choices=("standard", "open")),
    )

    def check_options(self, options: dict[str, str]) -> None:
        size = int(options["board"])
        if options["setup"] == "standard" and size % 4:
            raise OptionError(f"board={size} has no standard setup (it needs a size "
                              f"divisible by 4, such as 12 or 16); add setup=open.")

    def start(self, options: dict[str, str], players: int = 2,
              seed: str | None = None) -> OnyxState:
        options = self.resolve_options(options)
        board = board_of(int(options["board"]))
        cells = bytearray(board.points)
        if options["setup"] == "standard":
            for colour, points in board.standard_setup().items():
                for p in points:
                    cells[p] = colour
        return with_chains(OnyxState(board.size, cells, BLACK, False, 0, EMPTY,
                                     None, [], []))

    def to_act(self, state: OnyxState) -> frozenset[int]:
        if state.winner:
            return frozenset()
        return SEAT_SETS[state.seat_of(state.to_move)]

    def legal(self, state: OnyxState, seat: int) -> list[int]:
        if state.winner or seat != state.seat_of(state.to_move):
            return []
        if state.moves is None:
            state.moves = free_points(board_of(state.size), state.cells)
        moves = state.moves[:]  # the caller's own: the state's list is never changed
        if state.plies == 1:
            moves.append(SWAP)
        return moves

    def seat_label(self, state: OnyxState | None, seat: int) -> str:
        colour = state.colour_of(seat) if state is not None else (BLACK, WHITE)[seat]
        return COLOUR_NAMES[colour].capitalize()

    def identity(self, state: OnyxState | None, seat: int) -> str | None:
        """Your colour and your goal; after a swap, the colour you took or were given."""
        if state is None:
            return None
        colour = state.colour_of(seat)
        last = point_name(state.size - 1, 1)[0]
        goal = (f"connect rows 1 and {state.size} (top and bottom)" if colour == BLACK
                else f"connect columns A and {last} (left and right)")
        swapped = " since the swap" if state.swapped else ""
        return f"You are {COLOUR_NAMES[colour].capitalize()}{swapped}: {goal}."

    def prompt(self, state: OnyxState, seat: int, names=None) -> str:
        """A few free points; at move 2, the pie rule's swap as well."""
        text = super().prompt(state, seat, names)
        if state.plies == 1 and seat == state.seat_of(state.to_move):
            text += (". Or `swap`: take over Black's first stone and play Black; your "
                     "opponent then plays White and moves next")
        return text

    def random_decision(self, state: OnyxState, seat: int, rng: random.Random) -> int:
        """Uniform over the legal moves; rejection sampling spares building the list."""
        board, cells = board_of(state.size), state.cells
        candidates = board.points + (state.plies == 1)
        for _ in range(32):
            p = rng.randrange(candidates)
            if p == board.points:
                return SWAP
            if not cells[p] and (p < board.corners or midpoint_free(board, cells, p)):
                return p
        return rng.choice(self.legal(state, seat))

    def parse(self, state: OnyxState, seat: int, text: str, names=None) -> int:
        self._check_turn(state, seat)
        try:
            move = read_move(move_text(text))
        except NotationError as error:
            raise InvalidMove(str(error)) from None
        board = board_of(state.size)
        if move.kind == "swap":
            if state.plies != 1:
                raise IllegalMove("swap is possible only as the second move of the game, "
                                  "in reply to Black's first stone.")
            return SWAP
        point = board.point_of(move)
        name = board.names[point]
        if state.cells[point]:
            raise IllegalMove(f"{name} is taken (a {COLOUR_NAMES[state.cells[point]]} "
                              f"stone).{self._free_near(state, point)}")
        if point >= board.corners and not midpoint_free(board, state.cells, point):
            taken = [board.names[c] for c in board.mid_corners[point - board.corners]
                     if state.cells[c]]
            raise IllegalMove(f"{name} cannot be taken: a midpoint needs all four corners "
                              f"of its square empty, and {', '.join(taken)} "
                              f"{'is' if len(taken) == 1 else 'are'} occupied."
                              f"{self._free_near(state, point)}")
        self._check_capture_marks(state, point, move.captures)
        return point

    def _check_turn(self, state: OnyxState, seat: int) -> None:
        if state.winner:
            raise IllegalMove(f"The game is over: {COLOUR_NAMES[state.winner].capitalize()} "
                              f"has won.")
        if seat != state.seat_of(state.to_move):
            raise IllegalMove(f"It is not your turn: the game waits for "
                              f"{COLOUR_NAMES[state.to_move].capitalize()}.")

    def _check_capture_marks(self, state: OnyxState, point: int, marks: int | None) -> None:
        if marks is None:
            return
        board = board_of(state.size)
        captured = captures(board, state.cells, point, state.to_move)
        pairs = len(captured) // 2
        if marks != pairs:
            name = board.names[point]
            if pairs == 0:
                what = "captures nothing"
            else:
                stones = " ".join(sorted(board.names[p] for p in captured))
                what = f"captures {'one pair' if pairs == 1 else 'two pairs'} ({stones})"
            raise IllegalMove(f"{name}{'*' * marks} was read, but {name} {what}: "
                              f"write {name}{'*' * pairs}.")

    def _free_near(self, state: OnyxState, point: int) -> str:
        board = board_of(state.size)
        free = [board.names[q] for q in board.neighbours[point] if not state.cells[q]
                and (q < board.corners or midpoint_free(board, state.cells, q))]
        return f" Free points next to it: {', '.join(free)}." if free else ""

    def notation(self, state: OnyxState, seat: int, decision: int) -> str:
        if decision == SWAP:
            return _written(state, SWAP, ())
        board = board_of(state.size)
        return _written(state, decision, captures(board, state.cells, decision,
                                                  state.to_move))

    def apply(self, state: OnyxState, seat: int, decision: int) -> OnyxState:
        if decision == SWAP:
            return OnyxState(state.size, state.cells, state.to_move, True, state.plies + 1,
                             EMPTY, (SWAP, ()), state.parent, state.reach, state.moves)
        board, colour = board_of(state.size), state.to_move
        cells, parent, reach = bytearray(state.cells), array("H", state.parent), \
            bytearray(state.reach)
        captured = captures(board, cells, decision, colour)
        cells[decision] = colour
        for p in captured:
            cells[p] = EMPTY
        # The new stone becomes the root of every chain it touches.
        parent[decision], mask = decision, board.edges[colour][decision]
        for q in board.neighbours[decision]:
            if cells[q] == colour:
                root = find(parent, q)
                if root != decision:
                    parent[root] = decision
                    mask |= reach[root]
        reach[decision] = mask
        if captured:
            relabel_after_capture(board, cells, parent, reach, captured,
                                  BLACK + WHITE - colour)
        winner = colour if mask == BOTH_EDGES else EMPTY
        moves = None if state.moves is None or winner else \
            moves_after(board, cells, state.moves, decision, captured)
        return OnyxState(state.size, cells, BLACK + WHITE - colour, state.swapped,
                         state.plies + 1, winner, (decision, tuple(captured)), parent, reach,
                         moves)

    def outcome(self, state: OnyxState) -> Outcome | None:
        if not state.winner:
            return None
        last = point_name(state.size - 1, 1)[0]
        reason = (f"Black connected rows 1 and {state.size}" if state.winner == BLACK
                  else f"White connected columns A and {last}")
        return Outcome.shared_by([state.seat_of(state.winner)], 2, reason)

    # -- what players see -------------------------------------------------------------

    def view(self, state: OnyxState, seat: int | None) -> dict:
        """Onyx has no secrets: every seat and the public see the same position."""
        view = self.position(state)
        board = board_of(state.size)
        last = None
        if state.last is not None:
            point, captured = state.last
            last = {"move": _written(state, point, captured),
                    "point": None if point == SWAP else board.names[point],
                    "captured": sorted(board.names[p] for p in captured)}
        view.update(game=self.id, board=state.size, plies=state.plies, last=last,
                    colours=[COLOUR_NAMES[state.colour_of(s)] for s in (0, 1)],
                    automatic=[])  # Onyx does nothing by itself
        if seat is not None:
            view["you"] = COLOUR_NAMES[state.colour_of(seat)]
        return view

    def position(self, state: OnyxState) -> dict:
        names, cells = board_of(state.size).names, state.cells
        # Each colour's points picked in C (a mail's view of a 26×26 board looked at its
        # 1,301 points one by one in Python), in index order as before.
        return {"black": list(compress(names, cells.translate(IS_BLACK))),
                "white": list(compress(names, cells.translate(IS_WHITE))),
                "to_move": None if state.winner else COLOUR_NAMES[state.to_move],
                "winner": COLOUR_NAMES.get(state.winner)}

    # -- snapshots --------------------------------------------------------------------

    def to_json(self, state: OnyxState) -> dict:
        """The position, and its chains as `apply` needs them (`chains`: each point's
        parent in the union-find, two bytes a point; `reach`: the edges at each root), so
        that loading costs the same whatever is on the board."""
        parent = array("H", state.parent)
        if sys.byteorder == "big":  # stored little-endian, whatever the machine
            parent.byteswap()
        return {"board": state.size,
                "cells": state.cells.translate(CELL_TEXT).decode(),
                "to_move": COLOUR_NAMES[state.to_move], "swapped": state.swapped,
                "plies": state.plies, "winner": COLOUR_NAMES.get(state.winner),
                "last": None if state.last is None else [state.last[0], list(state.last[1])],
                "chains": base64.b64encode(parent.tobytes()).decode(),
                "reach": state.reach.translate(REACH_TEXT).decode()}

    def from_json(self, data: dict) -> OnyxState:
        cells = bytearray(data["cells"].encode().translate(TEXT_CELL))
        last = data["last"]
        state = OnyxState(data["board"], cells, COLOURS[data["to_move"]], data["swapped"],
                          data["plies"], COLOURS.get(data["winner"], EMPTY),
                          None if last is None else (last[0], tuple(last[1])), [], [])
        if "chains" not in data:  # a snapshot from before the chains were kept
            return with_chains(state)
        state.parent = array("H", base64.b64decode(data["chains"]))
        if sys.byteorder == "big":
            state.parent.byteswap()
        state.reach = bytearray(data["reach"].encode().translate(TEXT_REACH))
        return state

    # -- records ----------------------------------------------------------------------

    def record_tags(self, options, players):
        return [("Game", self.title), ("Board", options["board"]),
                ("Setup", options["setup"]), ("Black", players[0]), ("White", players[1])]

    def players_from_tags(self, tags: dict[str, str]) -> list[str]:
        return [tags.get("Black", "Black"), tags.get("White", "White")]

    def result_tags(self, state: OnyxState, players, result: str) -> list[tuple[str, str]]:
        """After a swap the `Black` tag still names who placed the first stone (the
        seats replay by it), while the result is by colour: so the record also says who
        played which stones from the swap on, and who won (notation/onyx.md)."""
        if not state.swapped:
            return []
        tags = [("BlackAfterSwap", players[state.seat_of(BLACK)]),
                ("WhiteAfterSwap", players[state.seat_of(WHITE)])]
        colour = {"1-0": BLACK, "0-1": WHITE}.get(result)
        if colour is not None:
            tags.append(("Winner", players[state.seat_of(colour)]))
        return tags

    def resigned_result(self, state: OnyxState, seat: int) -> str:
        """By colour, like every Onyx result: after a swap, seat 0 plays White."""
        return "0-1" if state.colour_of(seat) == BLACK else "1-0"

    def result_token(self, state: OnyxState) -> str:
        """By stone colour, whoever played it after a swap: 1-0 Black, 0-1 White."""
        return {EMPTY: "*", BLACK: "1-0", WHITE: "0-1"}[state.winner]

    def numbered_record(self) -> bool:
        return True

    # -- diagrams ---------------------------------------------------------------------

    def text_diagram(self, view: dict) -> str:
        from pbem.engines.onyx.render import text_diagram
        return text_diagram(view)

    def sheet(self, view: dict, size: int = 480, caption: str | None = None):
        from pbem.engines.onyx.render import sheet
        return sheet(view, size, caption)

    def svg_diagram(self, view: dict, size: int = 480, caption: str | None = None,
                    **notes) -> str:
        """`notes`: numbers, captured, marks for print (pbem.engines.onyx.render)."""
        from pbem.engines.onyx.render import svg_diagram
        return svg_diagram(view, size=size, caption=caption, **notes)
