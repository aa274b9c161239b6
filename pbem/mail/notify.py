"""Who hears about what: the game mails written after moves, starts, endings and chat.

Each seat's mail is written from that seat's view only: the news is each ply as the engine
lets that seat read it (`visible_notation`), the diagram is drawn from `view(state,
seat)`, and the prompt is the engine's. The mover always gets an answer listing what was
applied, what failed and why; the others get a mail when they can see what happened, when
the game now waits for them, or when it ends — not for a secret choice that shows them
nothing.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Callable

from notation.record import format_record
from pbem import clock
from pbem.config import Config
from pbem.engines.base import CHANCE
from pbem.mail import compose
from pbem.mail.outbox import queue
from pbem.mail.tokens import reply_address, seat_token
from pbem.play import Table
from pbem.timekeeping import display, ledger


@dataclass
class Report:
    """The fate of each command line of a player's mail, in order, and notes for them."""
    applied: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)  # waiting for the others to answer
    dropped: list[str] = field(default_factory=list)  # held, then overtaken by events
    notes: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.applied or self.failed or self.skipped or self.held or self.dropped)

    def extend(self, other: "Report") -> None:
        for name in ("applied", "failed", "skipped", "held", "dropped", "notes"):
            getattr(self, name).extend(getattr(other, name))


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


def news(table: Table, viewer: int) -> list[str]:
    """The plies of this transaction as `viewer` may read them."""
    lines = []
    for happening in table.happenings:
        if happening.anonymous and happening.seat != viewer:
            continue  # G39: not even that someone answered; the outcome is news of its own
        text = happening.seen_by(viewer)
        if happening.seat == CHANCE:
            line = f"#{happening.ply} Dealer: {text}" if text else "The dealer dealt."
        elif happening.seat == viewer:
            line = f"#{happening.ply} You: {text}"
        else:
            name = table.names[happening.seat]
            line = f"#{happening.ply} {name}: {text}" if text else f"{name} chose in secret."
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def status(table: Table, viewer: int) -> str:
    game = table.game
    if game.status == "finished":
        return f"Game over: {game.termination or 'the game has ended'}. Result: {game.result}"
    if game.status == "cancelled":
        return f"Game cancelled: {game.termination}."
    if game.status == "inviting":
        waiting = [s.player.name for s in table.seats if s.answer is None]
        return f"Waiting for {', '.join(waiting)} to accept."
    if viewer in table.to_act:
        return f"It is your turn (move #{table.next_ply})."
    shown = table.engine.shown_to_act(table.state, viewer)
    if shown is None:
        return f"Waiting for the answers to a reaction window (move #{table.next_ply})."
    names = [table.names[s] for s in sorted(shown) if s != CHANCE]
    return f"Waiting for {', '.join(names)} (move #{table.next_ply})."


def game_mail(config: Config, table: Table, seat: int, report: Report | None = None,
              notes: list[str] | tuple = (), in_reply_to: str | None = None):
    """The mail for `seat`: news, diagram, whose turn, what to do; the record at the end."""
    engine, game = table.engine, table.game
    finished = game.status == "finished"
    view_seat = None if finished else seat  # after the end, everything is shown
    diagram = engine.text_diagram(engine.view(table.state, view_seat)) if table.state else ""
    prompt = (engine.prompt(table.state, seat, names=table.names)
              if game.status == "running" and seat in table.to_act else "")
    context = {
        "report": report, "notes": list(notes), "news": news(table, seat),
        "diagram": diagram.rstrip("\n"), "status": status(table, seat), "prompt": prompt,
        "clock": display.clock_line(table, seat),  # the time control, and whose time runs
        "move_number": table.next_ply, "finished": finished,
        "game": {"id": game.id, "title": engine.title},
        "players": ", ".join(f"{n + 1} {name}{' (you)' if n == seat else ''}"
                             for n, name in enumerate(table.names)),
        "url": f"{config.web_url}/games/{game.id}",
        "record": format_record(table.record_game().record()) if finished else "",
        "seed": game.seed if finished else "", "commitment": game.commitment,
    }
    player = table.seats[seat].player
    token = seat_token(config.secret_key, game.id, seat)
    return compose.build(config, (player.name, player.email), subject(table), "game", context,
                         reply_to=reply_address(token, config.domain), game_id=game.id,
                         ply=game.plies, seat=seat, in_reply_to=in_reply_to)


def send_game_mail(config: Config, table: Table, seat: int, **kwargs) -> None:
    message = game_mail(config, table, seat, **kwargs)
    queue(message, table.seats[seat].player.email, table.game)
    table.mailed.add(seat)


def after_moves(config: Config, table: Table, reports: dict[int, Report],
                waiting_before: frozenset[int], in_reply_to: str | None = None,
                announce: list[str] | tuple = ()) -> None:
    """Mail every seat that should hear of this transaction: each player whose commands
    ran gets their report; the others hear of what they can see, of a turn that is now
    theirs, and of a game that started or ended. Players who chose the daily digest hear
    of others' moves only in it (pbem.digest says what stays immediate)."""
    status_changed = table.game.status != table.status_before  # started, ended
    broadcast = list(announce) + [note for report in reports.values() for note in report.notes]
    for seat in table.seats:
        number = seat.number
        if number in reports:
            report = reports[number]
            send_game_mail(config, table, number, report=report or None, notes=report.notes,
                           in_reply_to=in_reply_to)
        elif status_changed:
            send_game_mail(config, table, number, notes=broadcast)
        elif number in table.mailed and not table.happenings:
            continue  # already sent the position (an undo, a comment) in this transaction
        elif seat.player.digest and not _short_wait_begins(table, number, waiting_before):
            continue  # the news of others' moves waits for their daily digest
        elif ((number in table.to_act and number not in waiting_before)
              or (any(h.seen_by(number) or h.reveals for h in table.happenings)
                  and not seat.quiet)):
            send_game_mail(config, table, number)


def _short_wait_begins(table: Table, seat: int, waiting_before: frozenset[int]) -> bool:
    """Whether the game has just begun to wait for `seat` with less than a day to its
    deadline (a reaction window, a short time control): a digest would come too late."""
    if seat not in table.to_act or seat in waiting_before:
        return False
    deadline = next((w.deadline for w in ledger.waiting_on(table.game.id) if w.seat == seat),
                    None)
    return deadline is not None and deadline - clock.now() < dt.timedelta(days=1)


def to_everyone(config: Config, table: Table, notes_for: Callable[[int], list[str]],
                skip: int | None = None) -> None:
    """A game mail with notes (a comment, an undo request) to every seat but `skip`;
    `notes_for(seat)` words them for each, so each reads only what they may know."""
    for seat in table.seats:
        if seat.number != skip:
            send_game_mail(config, table, seat.number, notes=notes_for(seat.number))


def note(config: Config, to: tuple[str, str], subject_line: str, paragraphs: list[str],
         reply_to: str | None = None, in_reply_to: str | None = None):
    """A plain answer that is not about one game's position (help, games, confirmations)."""
    message = compose.build(config, to, subject_line, "note", {"paragraphs": paragraphs},
                            reply_to=reply_to, in_reply_to=in_reply_to)
    queue(message, to[1])
