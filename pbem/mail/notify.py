"""Game mails composed and queued: each written from one seat's view only.

Whom to mail, and when, is decided by the conversation policy (pbem.conversation); this
module writes what it is given. The news is each ply as the engine lets that seat read
it (`visible_notation`, gathered by the policy), the diagram is drawn from `view(state,
seat)`, and the prompt is the engine's, so nobody reads what they may not see.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from notation.record import format_record
from pbem.bots import is_bot
from pbem.config import Config
from pbem.engines.base import CHANCE
from pbem.mail import compose
from pbem.mail.outbox import queue
from pbem.mail.tokens import reply_address, seat_token
from pbem.play import Table, display_name


@dataclass
class Report:
    """The fate of each command line of a player's mail, in order, and notes for them."""
    applied: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)  # waiting for the others to answer
    dropped: list[str] = field(default_factory=list)  # held, then overtaken by events
    notes: list[str] = field(default_factory=list)
    asked: bool = False  # a command that wants its answer (board, history, games, …) ran

    def needs_answer(self) -> bool:
        """Whether the writer must hear back now: something failed, waits or was dropped,
        a command has something to say. A move that simply went in is confirmed in the
        writer's next mail ("#12 You: F6"), not by a mail of its own."""
        return bool(self.failed or self.skipped or self.held or self.dropped or self.notes
                    or self.asked or not self.applied)

    def __bool__(self) -> bool:
        return bool(self.applied or self.failed or self.skipped or self.held or self.dropped)

    def extend(self, other: "Report") -> None:
        for name in ("applied", "failed", "skipped", "held", "dropped", "notes"):
            getattr(self, name).extend(getattr(other, name))
        self.asked = self.asked or other.asked


def subject(table: Table) -> str:
    """The same for every mail of a game, so clients keep one thread."""
    return f"[pbem] {table.engine.title} #{table.game.id}: {' vs '.join(table.names)}"


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


def game_mail(config: Config, table: Table, seat: int, news: list[str], clock: str = "",
              report: Report | None = None, notes: list[str] | tuple = (),
              in_reply_to: str | None = None):
    """The mail for `seat`: news, diagram, whose turn, what to do; the record at the end."""
    engine, game = table.engine, table.game
    finished = game.status == "finished"
    view_seat = None if finished else seat  # after the end, everything is shown
    diagram = engine.text_diagram(named_view(table, view_seat)) if table.state else ""
    waits = game.status == "running" and seat in table.to_act
    prompt = engine.prompt(table.state, seat, names=table.names) if waits else ""
    identity = engine.identity(table.state, seat) if table.state is not None else None
    context = {
        "report": report, "notes": list(notes), "news": news, "identity": identity or "",
        "diagram": diagram.rstrip("\n"), "status": status(table, seat), "prompt": prompt,
        "clock": clock, "move_number": table.next_number, "finished": finished,
        "game": {"id": game.id, "title": engine.title}, "dealt": engine.dealt,
        "players": players_line(table, seat),
        "url": f"{config.web_url}/games/{game.id}",
        "record": format_record(table.record()) if finished else "",
        "seed": game.seed if finished else "", "commitment": game.commitment,
    }
    player = table.seats[seat].player
    token = seat_token(config.secret_key, game.id, seat)
    return compose.build(config, (player.name, player.email), subject(table), "game", context,
                         reply_to=reply_address(token, config.domain), game_id=game.id,
                         ply=game.shown_plies, seat=seat, in_reply_to=in_reply_to)


def send_game_mail(config: Config, table: Table, seat: int, **kwargs) -> None:
    message = game_mail(config, table, seat, **kwargs)
    queue(message, table.seats[seat].player.email, table.game)


def note(config: Config, to: tuple[str, str], subject_line: str, paragraphs: list[str],
         reply_to: str | None = None, in_reply_to: str | None = None):
    """A plain answer that is not about one game's position (help, games, confirmations).
    A bot (`bot:hard`) is never mailed: it needs no invitation."""
    if is_bot(to[1]):
        return None
    message = compose.build(config, to, subject_line, "note", {"paragraphs": paragraphs},
                            reply_to=reply_to, in_reply_to=in_reply_to)
    queue(message, to[1])
