"""How mail and pages name a game's state for one reader: the subject every mail of a
game shares, whose turn it is (`status`), the players with their seats, the engine's
words with the players' names, the seat's view with the names to draw. Pages
(pbem.web) and mail (pbem.mail.letters) both write from these, so they agree.
"""

from __future__ import annotations

import re

from pbem.engines.base import CHANCE
from pbem.play import Table, display_name


def subject(table: Table) -> str:
    """The same for every mail of a game, so clients keep one thread: the game and its
    number only, for the players' names change (an invited address is named when its
    player answers, anyone may write `name`), and a changed subject splits the thread."""
    return f"[pbem] {table.engine.title} #{table.game.id}"


def started_note(table: Table) -> str:
    """What everyone is told when a game starts (the dealer's commitment, if it deals)."""
    note = f"Game #{table.game.id} has started: {table.engine.title} ({', '.join(table.names)})."
    if table.engine.dealt:
        note += (f" The dealer's commitment (the SHA-256 of the secret seed, revealed at "
                 f"the end): {table.game.commitment}")
    return note


def status(table: Table, viewer: int) -> str:
    game = table.game
    if game.status == "finished":
        why = with_names(table, game.termination) or "the game has ended"
        return f"Game over: {why}. Result: {game.result}"
    if game.status == "cancelled":
        return f"Game cancelled: {game.termination}."
    if game.status == "inviting":
        waiting = [s.player.name for s in table.seats if s.answer is None]
        return f"Waiting for {', '.join(waiting)} to accept."
    if viewer in table.to_act:
        return f"It is your turn (move #{table.next_number})."
    shown = table.engine.shown_to_act(table.state, viewer)
    if shown is None:
        return f"Waiting for the answers to a reaction window (move #{table.next_number})."
    names = [table.names[s] for s in sorted(shown) if s != CHANCE]
    return f"Waiting for {', '.join(names)} (move #{table.next_number})."


def with_names(table: Table, text: str) -> str:
    """The engine's words with each seat's label followed by the player's name: "P3
    wins" → "P3 cat wins", "#1 32, #2 28" → "#1 ann 32, #2 ben 28"."""
    names = [display_name(name) for name in table.names]
    labels = {table.engine.seat_label(table.state, seat): name
              for seat, name in enumerate(names)}
    if not text or not labels:
        return text
    pattern = re.compile(r"(?<![\w#])(" + "|".join(
        re.escape(label) for label in sorted(labels, key=len, reverse=True)) + r")(?![\w])")
    return pattern.sub(lambda found: f"{found.group(1)} {labels[found.group(1)]}", text)


def named_view(table: Table, seat: int | None) -> dict:
    """The seat's view, with the players' names for the diagram to write beside the seat
    numbers ("P2 ben"); names are public, so no view loses a secret by it."""
    view = table.engine.view(table.state, seat)
    view["names"] = [display_name(name) for name in table.names]
    return view


def players_line(table: Table, seat: int) -> str:
    """'P1 alice (you), P2 bob'; in Onyx 'Black: alice (you), White: bob'."""
    state = table.state
    return ", ".join(f"{table.engine.seat_label(state, n)} {name}{' (you)' if n == seat else ''}"
                     for n, name in enumerate(table.names))


def public_status(table: Table, shown) -> str:
    """Whose turn it is as the public may know it, for a spectator (`shown`: the game row
    as of its last public ply, pbem.export.public.as_public)."""
    game = table.game
    if game.status != "running":
        return status(table, -1)
    state = table.engine.from_json(shown.state)
    waiting = table.engine.shown_to_act(state, None)
    if waiting is None:
        return "Waiting for the answers to a reaction window."
    names = [table.names[s] for s in sorted(waiting) if s != CHANCE]
    return f"Waiting for {', '.join(names)} (move #{shown.plies + 1})." if names else ""
