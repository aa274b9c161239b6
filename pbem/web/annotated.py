"""An annotated game's page (`/games/<id>/annotated/<n>`): the annotation's moves with
its comments, glyphs and variations beside them, and the position after any move, on
the main line (`?ply=31`) or inside a variation (`?ply=31&line=2/3`: the third move of
the second variation of ply 31; `2/3/1/1` one deeper). Every move is a link, so a
reader steps into a variation without JavaScript.

Annotations exist only for finished games (pbem.annotations), so every view may be
drawn; the position is replayed from the annotated record, which is checked when it is
published, so a page replays only the line it shows. A page's cost is bounded by the
annotations' limits (pbem.annotations.LIMITS); one published before them that goes past
them is not shown (its size is looked at before a word is read).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import Blueprint, abort, render_template, request

from markupsafe import Markup

from notation.marks import marks_in, without_marks
from notation.record import Move
from pbem.annotations import PastLimits, annotations_of, published_record
from pbem.engines import ENGINES
from pbem.engines.game import Game as GameRecord
from pbem.engines.game import RecordError, replay_variation
from pbem.store import Game
from pbem.web.archive import refused, seats_of
from pbem.web.game_page import DIAGRAM, diagrams, seat_labels

annotated = Blueprint("annotated", __name__)
annotated.register_error_handler(404, refused)


@dataclass
class Entry:
    """One move of the annotation as the page lists it."""
    number: int  # the ply it would be in the game
    actor: str | None
    text: str
    glyphs: list[str]
    comments: list[str]
    href: str
    current: bool
    variations: list["Line"] = field(default_factory=list)


@dataclass
class Line:
    """A variation: the comments before its first move, its moves, the comments after."""
    comments: list[str]
    entries: list[Entry]
    after: list[str]


def entries(moves: list[Move], chosen: tuple) -> list[Entry]:
    """The main line's entries; `chosen` is the (ply, path) the page shows."""
    listed = []
    for index, move in enumerate(moves):
        ply = index + 1
        entry = Entry(ply, move.actor, move.text, move.glyphs, shown(move.comments),
                      f"?ply={ply}", (ply, ()) == chosen)
        for count, variation in enumerate(move.variations, start=1):
            # A variation replaces its move: its first move is that move's ply again.
            entry.variations.append(Line(shown(variation.comments), _variation_entries(
                variation.moves, index, [count], chosen, ply), shown(variation.after)))
        listed.append(entry)
    return listed


def _variation_entries(moves: list[Move], first_ply: int, path: list[int], chosen: tuple,
                       main_ply: int) -> list[Entry]:
    """Moves of a variation after `first_ply` plies; `path` leads to it (variation,
    move, variation …); links name the main line's ply and the path to each move."""
    listed = []
    for index, move in enumerate(moves):
        here = path + [index + 1]
        line = "/".join(map(str, here))
        entry = Entry(first_ply + index + 1, move.actor, move.text, move.glyphs,
                      shown(move.comments), f"?ply={main_ply}&line={line}",
                      (main_ply, tuple(here)) == chosen)
        for count, variation in enumerate(move.variations, start=1):
            entry.variations.append(Line(shown(variation.comments), _variation_entries(
                variation.moves, first_ply + index, here + [count], chosen, main_ply),
                shown(variation.after)))
        listed.append(entry)
    return listed


def shown(comments: list[str]) -> list[str]:
    """Comments as a reader sees them: `[%mark …]` is drawn on the board instead."""
    return [text for text in map(without_marks, comments) if text]


def requested(record) -> tuple[int, tuple]:
    """`?ply=N` and `?line=V/M…`, or 404 naming what there is."""
    plies = len(record.moves)
    text = request.args.get("ply", str(plies))
    if not (text.isascii() and text.isdigit()) or int(text) > plies:
        abort(404, f"This annotation has plies 0 to {plies}; there is no ply {text!r}.")
    line = request.args.get("line", "")
    try:
        path = tuple(int(part) for part in line.split("/")) if line else ()
    except ValueError:
        abort(404, f"A line is written VARIATION/MOVES, such as 2/3, not {line!r}.")
    return int(text), path


@annotated.route("/games/<int(max=2147483647):game_id>/annotated/<int(max=999999):number>")
def show(game_id: int, number: int):
    game = Game.get_or_none(Game.id == game_id)
    found = annotations_of(game_id) if game is not None else []
    if game is None or game.engine not in ENGINES or not 1 <= number <= len(found):
        abort(404, f"Game #{game_id} has no annotation {number}"
                   + (f"; it has {len(found)}." if found else "."))
    annotation = found[number - 1]
    engine = ENGINES[game.engine]
    try:
        record = published_record(annotation)  # within the limits (pbem.annotations)
    except PastLimits as error:
        abort(404, str(error))
    ply, path = requested(record)
    try:  # checked when it was published: only the line shown is replayed
        replayed = (replay_variation(record, ply, list(path), variations=False) if path
                    else GameRecord.from_record(record, plies=ply, variations=False))
    except (RecordError, ValueError) as error:
        abort(404, str(error))
    seated = seats_of([game.id])[game.id]
    labels = seat_labels(engine, game.options, len(seated), replayed.state)
    where = f"variation {'/'.join(map(str, path))} of ply {ply}" if path else f"ply {ply}"
    caption = f"after {where}" if ply or path else "the start"
    svg, seats = diagrams(engine, replayed.state, labels, seated, caption, True)
    said = replayed.plies[-1].comments if replayed.plies else record.comments
    if engine.id == "onyx" and marks_in(said):  # the annotator's [%mark E5] on the board
        svg = Markup(engine.svg_diagram(engine.view(replayed.state, None), size=DIAGRAM,
                                        caption=caption, marks=marks_in(said)))
    chosen = (ply, path)
    return render_template(
        "web/annotated.html", game=game, engine=engine, annotation=annotation,
        number=number, count=len(found), before=record.comments,
        entries=entries(record.moves, chosen), svg=svg, seats=seats,
        where=where, shown=replayed.plies[-1].text if replayed.plies else None)
