"""Moves in advance as a seat's page shows them (#32 item 5): Onyx's conditional lines as
a tree, with a branch's removal and the builder's positions; 6 nimmt!'s queued cards.

Only the seat's own page reads these (its link is checked by pbem.access before any of
this runs), from the commands that keep them (pbem.commands.conditions, .queued). What
the page posts is the text a mail would carry (`if E5 F6`, `conditions off`, `next 23
45`), run as lines of a mail (pbem.web.seat_lines): nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem.commands import conditions, queued
from pbem.engines.base import MoveError
from pbem.play import Table
from pbem.web.seat_moves import POINT


@dataclass
class Node:
    """One branch of the tree: the opponent's move and the answer to it, at `depth`."""
    depth: int
    move: str
    answer: str
    line: list[str]  # the plies from now to this answer
    rest: list[str]  # the lines to keep when this branch goes, as `if` texts


@dataclass
class Built:
    """A line being built on the page: its plies so far, the position after them, whose
    move comes next in it, and what went wrong, if anything."""
    plies: list[str] = field(default_factory=list)
    state: object = None
    mover: int | None = None  # the seat whose move the line needs next
    points: list[str] = field(default_factory=list)  # where that seat may play
    swap: bool = False  # the swap may be played there
    error: str = ""

    @property
    def theirs(self) -> bool:
        return len(self.plies) % 2 == 0  # a line starts with the opponent's move

    @property
    def complete(self) -> bool:
        return bool(self.plies) and self.theirs and not self.error  # ends with an answer


def advance(table: Table, seat: int) -> dict | None:
    """What the seat's page shows of its moves in advance, or None for a game without
    them (or one not running)."""
    engine = table.engine
    if table.game.status != "running":
        return None
    if engine.conditional_moves:
        lines = conditions.kept_lines(table, seat)
        return {"kind": "lines", "tree": tree(lines), "lines": as_texts(lines),
                "may_build": seat not in table.to_act}
    if engine.queued_choices:
        return {"kind": "queue", "moves": queued.kept(table, seat)}
    return None


def as_texts(lines: list[list[str]]) -> list[str]:
    return ["if " + " ".join(line) for line in lines]


def tree(lines: list[list[str]], depth: int = 0, before: tuple = (),
         every: list[list[str]] | None = None) -> list[Node]:
    """The lines as branches, depth first, in the order they were sent; each with the
    lines that stay when it is removed (it and the branches below it go)."""
    every = lines if every is None else every
    nodes, seen = [], []
    for line in lines:
        if len(line) >= 2 and (line[0], line[1]) not in seen:
            seen.append((line[0], line[1]))
    for move, answer in seen:
        prefix = [*before, move, answer]
        nodes.append(Node(depth, move, answer, prefix, as_texts(without(every, prefix))))
        deeper = [line[2:] for line in lines if line[:2] == [move, answer] and len(line) > 2]
        nodes += tree(deeper, depth + 1, tuple(prefix), every)
    return nodes


def without(lines: list[list[str]], prefix: list[str]) -> list[list[str]]:
    """The lines with the branch `prefix` cut off: a line through it keeps what came
    before it (the answers above stay), unless another line still holds that."""
    kept = []
    for line in lines:
        if line[:len(prefix)] == prefix:
            line = prefix[:-2]
        if line and line not in kept:
            kept.append(line)
    return [line for line in kept
            if not any(other != line and other[:len(line)] == line for other in kept)]


def build(table: Table, seat: int, text: str) -> Built:
    """Play the plies of `text` from the position now, the opponent's first, as the
    `if` command will check them; stop at the first that cannot be played."""
    engine, state = table.engine, table.state
    built = Built(state=state)
    if seat in engine.to_act(state):
        built.error = ("It is your turn: play your move first; lines answer the moves "
                       "after it.")
        return built
    for word in text.split()[:conditions.MAX_PLIES]:
        mover = (1 - seat) if built.theirs else seat
        if not engine.to_act(built.state):
            built.error = "The game would be over there."
            break
        try:
            decision = engine.parse(built.state, mover, word, names=table.names)
        except MoveError as error:
            built.error = f"{word} cannot be played there: {error}"
            break
        built.plies.append(engine.notation(built.state, mover, decision))
        built.state = engine.apply(built.state, mover, decision)
    if engine.to_act(built.state) and not built.error:
        built.mover = (1 - seat) if built.theirs else seat
        texts = [engine.notation(built.state, built.mover, d)
                 for d in engine.legal(built.state, built.mover)]
        built.points = [found.group(1) for found in map(POINT.match, texts) if found]
        built.swap = "swap" in texts
    return built
