"""A move from a seat's page: what the text was read as, and the same write path as mail.

The page is a second door into the same game. What a player types (or clicks) is run
exactly like a line of their mail (`pbem.commands.lines.run_lines`: the same parser, the
same `#12` guard, the same stale guard with the ply the page showed standing for the ply
of the mail answered, the same record), then the conversation policy mails whoever should
hear of it (`pbem.policy.conversation.after_write`). Only the writer's own answer differs: it is
the next page, not a mail.

Before a move is played, the page says what the text was read as (`read_back`), from the
engine's own parse and canonical notation, and asks to confirm. The read-back never looks
past a decision that shows the player something (a last secret choice before a reveal, a
draw): it would let them peek before committing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pbem.authority import SEAT_LINK, Proof
from pbem.commands.catalogue import BY_NAME
from pbem.commands.lines import after_moves, run_lines
from pbem.commands.speaker import WEB, Speaker
from pbem.engines.base import CHANCE, MoveError
from pbem.play import Table
from pbem.policy import conversation
from pbem.policy.report import Report
from pbem.store import Player

SOURCE = WEB  # Move.source of a move played from a page
POINT = re.compile(r"^([A-Z]+\d+)\**$")  # an Onyx point: F6, a midpoint DE910; C2* captures


@dataclass
class ReadBack:
    """What a text was read as: one sentence per part, or why it cannot be played."""
    text: str
    parts: list[str] = field(default_factory=list)
    error: str = ""
    after: object = None  # Onyx (no secrets): the state it would make, for a preview

    @property
    def playable(self) -> bool:
        return bool(self.parts) and not self.error


def known_ply(table: Table, seat: int) -> int:
    """The ply the seat's page shows, as everyone numbers the plies (`Move.shown`: a
    decision nobody may learn of is not counted, RULINGS G39), which its form sends back
    for the stale guard, as a mail's Message-ID does."""
    return table.game.shown_plies


def read_back(table: Table, seat: int, text: str) -> ReadBack:
    """`F6` → "F6: a black stone on F6, capturing E5 and G7"; a command → what it does."""
    text = " ".join(text.split())
    found = ReadBack(text)
    if not text:
        found.error = "Write a move (or click one) first."
        return found
    word = text.partition(" ")[0].lower()
    if word in BY_NAME and word != "move":
        command = BY_NAME[word]
        found.parts.append(f"the command {command.usage.split()[0]}: {command.help}")
        return found
    if word == "move":
        text = text.partition(" ")[2]
    text = re.sub(r"(?:^|\s)#\d+(?=\s|$)", " ", text).strip()  # the guard, checked on play
    if table.game.status != "running":
        found.error = f"game #{table.game.id} is {table.game.status}; no moves now."
        return found
    engine, state = table.engine, table.state
    for part in engine.split_line(text):
        if seat not in engine.to_act(state) and not engine.legal(state, seat):
            found.parts.append(f"{part} (checked when it is played)")
            continue
        try:
            decision = engine.parse(state, seat, part, names=table.names)
        except MoveError as error:
            found.error = str(error)
            return found
        canonical = engine.notation(state, seat, decision)
        if engine.reveals(state, seat, decision):
            found.parts.append(canonical)
            state = None
            break
        after = engine.apply(state, seat, decision)
        found.parts.append(_described(engine, state, seat, canonical, after))
        if not engine.dealt:
            found.after = after  # nothing hidden: the board it would make, captures marked
        state = after
        if CHANCE in engine.to_act(after):
            break  # the dealer moves next: later parts are checked when played
    rest = engine.split_line(text)[len(found.parts):]
    found.parts += [f"{part} (checked when it is played)" for part in rest]
    return found


def _described(engine, before, seat: int, canonical: str, after) -> str:
    """A decision in words. Onyx (no secrets): the stone and what it captures; a card
    game: its canonical text and what the game then does by itself (public)."""
    if not engine.dealt:
        view = engine.view(after, seat)
        last = view.get("last") or {}
        colour = engine.view(before, seat).get("to_move") or ""
        if last.get("point"):
            words = f"{canonical}: a {colour} stone on {last['point']}"
            if last.get("captured"):
                words += ", capturing " + " and ".join(last["captured"])
            return words
        return f"{canonical}: the swap (you take over the first stone's colour)"
    automatic = [text for _, text in engine.automatic(after) if text]
    return canonical + (f" (then by itself: {'; '.join(automatic)})" if automatic else "")


def choices(table: Table, seat: int) -> list[tuple[str, list[str]]]:
    """The decisions the engine lists for this seat, grouped as a player thinks of them:
    by their first word (take, place, set, row, play …). Onyx's points are on the board,
    so only its other decisions (the swap) are listed."""
    if table.game.status != "running":
        return []
    engine, state = table.engine, table.state
    groups: dict[str, list[str]] = {}
    for decision in engine.offered(state, seat)[:MOST_BUTTONS]:
        text = engine.notation(state, seat, decision)
        if not engine.dealt and POINT.match(text):
            continue
        groups.setdefault(text.partition(" ")[0], []).append(text)
    return list(groups.items())


MOST_BUTTONS = 150  # a page's worth; the text box takes the rest


def points(table: Table, seat: int) -> list[str]:
    """Onyx: the points this seat may play now (for the board's clickable points)."""
    engine, state = table.engine, table.state
    if engine.dealt or table.game.status != "running" or seat not in engine.to_act(state):
        return []
    texts = (engine.notation(state, seat, d) for d in engine.legal(state, seat))
    return [found.group(1) for found in map(POINT.match, texts) if found]


def play_from_page(config, table: Table, seat: int, player: Player, text: str,
                   shown_ply: int) -> Report:
    """Run one line typed or clicked on the seat's page as a line of its mail, inside the
    caller's transaction, and mail the others as the policy says. The page shows the
    writer what became of it, so the writer's own answer is not mailed."""
    table.seats[seat].player = player
    proof = Proof(SEAT_LINK, table.game.id, seat)  # this seat only (pbem.authority)
    speaker = Speaker(config, player, message_id=SOURCE, replied_ply=shown_ply, proof=proof)
    reports = {seat: run_lines(speaker, table, seat, [" ".join(text.split())])}
    after_moves(config, table, reports)
    mine = reports.pop(seat)
    conversation.after_write(config, table, reports)
    return mine

