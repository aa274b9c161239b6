"""One game's page (`/games/<id>`, `?ply=N`): players, options, status, whose turn, the move
list with comments, and the position at any ply as the public may see it.

What is public when (the engines decide what is secret; this page only chooses whose view
to draw): while a game runs, the diagram is drawn from the public view (`view(state,
None)`) and each move shows its public text (`Move.visible['public']`; None: something
happened, not what). Once it is finished, every move's full text (the dealer's moves are
the deck orders), every seat's view at every ply (their hands), and the revealed seed
with how to check the deal against the commitment published at the start. A cancelled
game keeps its secrets: it never ended by its rules, and nobody agreed to show them.

Speed: the page never replays the game. Each move row keeps the snapshot after it, so
the position at ply N is one row's `state`; the move list reads only the small columns.
"""

from __future__ import annotations

import datetime as dt
import json
import shlex
from dataclasses import dataclass

from flask import Blueprint, abort, render_template, request
from markupsafe import Markup, escape
from peewee import fn

from pbem.annotations import annotations_of
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE, Engine
from pbem.play import Table, actor_name
from pbem.store import Comment, Game, Move, Player, Seat
from pbem.store.database import is_postgres
from pbem.timekeeping.display import clock_summary
from pbem.bookkeeping.ledger import waiting_on
from pbem.web.archive import Seated, outcome_words, refused, seats_of
from pbem.web.diagrams import for_any_width
from pbem.export.public import as_public, real_ply, shown_moves, shown_numbers

game_page = Blueprint("game_page", __name__)
game_page.register_error_handler(400, refused)
game_page.register_error_handler(404, refused)

DIAGRAM = 480  # px: the public diagram; each seat's view is drawn smaller beside it
SEAT_DIAGRAM = 360


@dataclass
class Ply:
    """One line of the move list, as this page may show it."""
    number: int
    actor: str  # a player's name or "Dealer"
    text: str | None  # None: hidden (a secret choice, a deal) until the game ends
    dealer: bool
    comments: list[str]


def clock_for(game: Game, engine: Engine, state, seated: list[Seated]) -> str | None:
    """The time control and the public clock of a game (whose time runs, how much is
    left; never whom a reaction window asks), for the page's clock block."""
    if game.status == "inviting":
        return None
    # The page has read the game, its state and its players already: a read-only Table
    # of those, rather than clock_summary loading them all again.
    seats = [Seat(game=game, number=s.number, player=Player(id=s.player_id, name=s.name))
             for s in seated]
    summary = clock_summary(Table(game, engine, state, seats))
    return summary.removeprefix("Time: ") or None  # under a "Time" heading


def requested_ply(plies: int) -> int:
    """`?ply=N` (0 = the start, default: the last); anything else is a page that does
    not exist: 404, not a guess."""
    text = request.args.get("ply")
    if text is None:
        return plies
    if not (text.isascii() and text.isdigit()) or int(text) > plies:
        abort(404, f"This game has plies 0 to {plies}; there is no ply {text!r}.")
    return int(text)


def seat_labels(engine: Engine, options: dict, count: int, state=None) -> list[str]:
    """How the game names its seats: Onyx's Black and White (its record tags), P1, P2 …;
    at `state`, a seat's name that the game changed (Onyx's colours after a swap)."""
    marks = [f"\x00{n}" for n in range(count)]
    by_mark = {value: tag for tag, value in engine.record_tags(options, marks)}
    labels = []
    for n, mark in enumerate(marks):
        tag = by_mark.get(mark, f"Seat{n + 1}")
        labels.append(f"P{tag[4:]}" if tag.startswith("Seat") else tag)
        if state is not None and engine.seat_label(state, n) != engine.seat_label(None, n):
            labels[-1] = engine.seat_label(state, n)
    return labels


def move_list(game: Game, seated: list[Seated], finished: bool) -> tuple[list[Ply], list[str]]:
    """Every ply as the public may read it (all of it once finished), numbered as the
    public may know it (pbem.export.public), with comments; and the comments made before
    the first move."""
    names = {seat.number: seat.name for seat in seated}
    # Of a running game only the public text leaves the database (each seat's own texts
    # stay there); once it is over, the full text.
    shown = Move.text if finished else public_text()
    plies = [Ply(number, actor_name(names, seat, anonymous, over=finished), text,
                 seat == CHANCE, [])
             for number, seat, text, anonymous
             in shown_moves(game, Move.seat, shown, Move.anonymous).tuples()]
    comments = list(Comment.select(Comment.ply, Comment.seat, Comment.text)
                    .where(Comment.game == game).order_by(Comment.created, Comment.id).tuples())
    numbers = shown_numbers(game, {ply for ply, _, _ in comments if ply > 0})
    before: list[str] = []
    for ply, seat, text in comments:
        said = f"{names.get(seat, f'#{seat + 1}')}: {text}"
        number = numbers.get(ply, ply)
        if 0 < number <= len(plies):
            plies[number - 1].comments.append(said)
        elif number <= 0:
            before.append(said)
    return plies, before


def move_items(plies: list[Ply], current: int | None, here: str) -> Markup:
    """The move list's items, one `<li>` a ply. Written here rather than looped in the
    template: a 300-ply game's list was half the page's time in Jinja (six escapes and
    as many lookups a ply); here each ply's text is escaped once."""
    items = []
    for ply in plies:
        number = ply.number
        step = ' aria-current="step"' if number == current else ""
        if ply.text is not None:
            text = escape(ply.text)
        elif ply.dealer:
            text = '<span class="hidden-move">dealt (hidden)</span>'
        else:
            text = '<span class="hidden-move">chose in secret</span>'
        said = "".join(f'<span class="said">{escape(c)}</span>' for c in ply.comments)
        items.append(f'<li value="{number}"{step}><a href="{here}?ply={number}">'
                     f'{escape(ply.actor)}: {text}</a>{said}</li>\n')
    return Markup("".join(items))


def public_text():
    """`Move.visible['public']` read by the database (JSON null: None)."""
    if is_postgres():
        return fn.json_extract_path_text(Move.visible.cast("json"), "public").coerce(False)
    return fn.json_extract(Move.visible, "$.public").coerce(False)


def state_at(game: Game, engine: Engine, ply: int, players: int):
    """The state after the public's ply `ply`: the game's snapshot, a move's snapshot, or
    the start."""
    if ply == game.plies:
        return engine.from_json(game.state)
    if ply == 0:
        return engine.start(game.options, players)  # no deal yet, so no seed needed
    row = Move.select(Move.state).where(Move.game == game,
                                        Move.ply == real_ply(game, ply)).get()
    return engine.from_json(row.state)


def diagrams(engine: Engine, state, labels: list[str], seated: list[Seated], caption: str,
             everything: bool) -> tuple[Markup, list[tuple[str, Markup]]]:
    """The public diagram, and once everything may be shown, each seat's own view where it
    shows more than the public one (their hand, their secret choices)."""
    public = engine.view(state, None)
    svg = for_any_width(engine, public, engine.svg_diagram(public, size=DIAGRAM,
                                                           caption=caption), caption)
    seats = []
    if everything and engine.dealt:
        bare = {k: v for k, v in public.items() if k != "you"}
        for seat in seated:
            own = engine.view(state, seat.number)
            if {k: v for k, v in own.items() if k != "you"} != bare:
                seats.append((f"{labels[seat.number]} {seat.name}",
                              for_any_width(engine, own,
                                            engine.svg_diagram(own, size=SEAT_DIAGRAM))))
    return svg, seats


def waiting_for(engine: Engine, game: Game, state, seated: list[Seated]) -> str:
    """Whose turn it is, as the public may know it."""
    if game.status == "inviting":
        answers = dict(Seat.select(Seat.number, Seat.answer).where(Seat.game == game).tuples())
        names = [s.name for s in seated if answers.get(s.number) is None]
        return f"waiting for {', '.join(names)} to accept" if names else "starting"
    if game.status != "running" or state is None:
        return ""
    shown = engine.shown_to_act(state, None)
    if shown is None:
        return "waiting for the answers to a reaction window"
    names = [s.name for s in seated if s.number in shown]
    if CHANCE in shown:
        names.append("the dealer")
    return f"{', '.join(names)} to move" if names else ""


def waiting_since(engine: Engine, game: Game, state) -> dt.datetime:
    """Since when the game waits for the seats the public may know it waits for: the
    earliest start of their clocks' waits (one query). A reaction window's seats are
    never looked at (RULINGS G39); a game without clock rows falls back to its last
    write."""
    if game.status != "running" or state is None:
        return game.updated
    shown = engine.shown_to_act(state, None)
    if not shown:  # a window (None): whom it asks, and since when, stays unsaid
        return game.updated
    starts = [wait.since for wait in waiting_on(game.id)
              if wait.seat in shown and not wait.window and wait.since]
    return min(starts, default=game.updated)


def record_name(game: Game, suffix: str = "txt") -> str:
    """The downloaded record's file name, as the export names it (its Content-Disposition
    wins over a link's `download` name, so the two must agree)."""
    return f"pbem-{game.id}-{game.engine}.{suffix}"


def deal_check(game: Game, engine: Engine, finished: bool) -> dict | None:
    """What a reader needs to check the deal: the commitment, and once the game is over
    the seed and the commands that check it."""
    if not engine.dealt:
        return None
    check = {"commitment": game.commitment, "seed": None, "generator": game.generator}
    if finished:
        # A JSON string is a Python string literal too, in double quotes: the shell's
        # single quotes around the program then only need escaping in odd seeds.
        program = (f"import hashlib; print(hashlib.sha256({json.dumps(game.seed)}.encode())"
                   f".hexdigest())")
        check.update(seed=game.seed, hash_command=f"python3 -c {shlex.quote(program)}",
                     record=record_name(game))
    return check


@game_page.route("/games/<int(max=2147483647):game_id>")  # ids are 32-bit in PostgreSQL
def show(game_id: int):
    game = Game.get_or_none(Game.id == game_id)
    if game is None or game.engine not in ENGINES:
        abort(404, f"There is no game number {game_id}.")
    game = as_public(game)  # a running game as of its last ply the public may know of
    engine = ENGINES[game.engine]
    seated = seats_of([game.id])[game.id]
    finished = game.status == "finished"
    started = game.state is not None
    ply = requested_ply(game.plies)  # 0 until it starts
    plies, before = move_list(game, seated, finished)
    current = engine.from_json(game.state) if started else None
    labels = seat_labels(engine, game.options, len(seated), current)  # as the game ended
    position = None
    if started:
        state = current if ply == game.plies else state_at(game, engine, ply, len(seated))
        shown = plies[ply - 1] if ply else None
        caption = (f"after ply {ply}" if ply else "the start")
        svg, seats = diagrams(engine, state, seat_labels(engine, game.options, len(seated),
                                                         state), seated, caption, finished)
        position = {"ply": ply, "last": game.plies, "svg": svg, "seats": seats,
                    "move": shown}
    waiting = waiting_for(engine, game, current, seated)
    return render_template(
        "web/game.html", game=game, engine=engine, seated=seated, labels=labels,
        move_items=move_items,
        options=[(option, game.options.get(option.name, option.default))
                 for option in engine.options],
        finished=finished, plies=plies, before=before, position=position,
        waiting=waiting, since=waiting_since(engine, game, current) if waiting else None,
        outcome=outcome_words(game.result, seated) if finished else "",
        deal=deal_check(game, engine, finished), clock=clock_for(game, engine, current, seated),
        record=record_name(game), sgf=record_name(game, "sgf"),
        annotations=annotations_of(game.id) if finished else [])
