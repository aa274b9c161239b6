"""One HTML page of a whole game, made for paper: who played, how it ended, the options,
every ply with the players' comments, and a diagram every N plies.

The same page for the web (`/games/ID/print?every=N`) and for `pbem export --format
html`, rendered from templates/web/print.html outside any Flask request so the CLI needs
no app. What it shows follows the other exports: while a game runs, each ply as the
public may read it (a secret choice stays one, and a reaction window's answer names
nobody), diagrams from the public view, no seed; after the end, every ply in full, by
name, and the seed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jinja2 import Environment, StrictUndefined, select_autoescape
from markupsafe import Markup

from pbem.export.diagram import compact_svg, move_seen, ply_svg
from pbem.export.public import shown_moves, shown_numbers
from pbem.export.source import ExportError, is_over
from pbem import templating
from pbem.play import Table, actor_name, display_name, outcome_words
from pbem.store import Comment, Move

DEFAULT_EVERY = 20
MAX_DIAGRAMS = 100  # a page of a 700-ply game with a diagram every ply is not a print
DIAGRAM_PIXELS = 360  # drawn at this size; the print CSS sets the width on paper

_ENV = Environment(loader=templating.loader(), undefined=StrictUndefined,
                   autoescape=select_autoescape(["html"]), trim_blocks=True,
                   lstrip_blocks=True, auto_reload=False)  # as pbem.mail.compose's


@dataclass
class PlyLine:
    ply: int
    who: str
    text: str
    comments: list[str] = field(default_factory=list)


@dataclass
class Stretch:
    """Plies printed together, and the diagram of the position after the last of them."""
    plies: list[PlyLine]
    diagram: Markup | None = None
    after: int = 0


def parse_every(text: str | None, plies: int) -> int:
    """`every=N`: a diagram after every N plies (0: none); ExportError 400 otherwise."""
    if text is None or not text.strip():
        return DEFAULT_EVERY
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        raise ExportError(400, f"every={text!r} is not a number: write every=20 for a "
                               f"diagram every 20 plies, or every=0 for none.")
    every = int(text)
    if every and -(-plies // every) > MAX_DIAGRAMS:
        raise ExportError(400, f"every={every} would print {-(-plies // every)} diagrams; "
                               f"at most {MAX_DIAGRAMS}: write every="
                               f"{-(-plies // MAX_DIAGRAMS)} or more.")
    return every


def parse_numbered(text: str | None, engine) -> bool:
    """`numbers=1`: each Onyx diagram numbers the stones of the plies printed above it."""
    if text is None or text.strip() in ("", "0"):
        return False
    if text.strip() != "1":
        raise ExportError(400, f"numbers={text!r}: write numbers=1 to number the stones of "
                               f"each diagram's plies, numbers=0 for none.")
    if engine.id != "onyx":
        raise ExportError(400, f"numbers=1 numbers the stones of Onyx diagrams; "
                               f"{engine.title} has none.")
    return True


def print_page(table: Table, every: int = DEFAULT_EVERY, base_url: str = "",
               numbered: bool = False, compact: bool = False) -> str:
    """The whole page as HTML text; `numbered`: Onyx diagrams number their plies;
    `compact`: card games' diagrams in their compact print form."""
    game, names = table.game, table.names
    comments = _comments(table)
    lines = [PlyLine(move.number, actor(table, move), move_seen(table, move),
                     comments.get(move.number, []))
             for move in shown_moves(game, Move.seat, Move.text, Move.visible, Move.anonymous)]
    stretches = _stretches(table, lines, every, numbered, compact)
    options = [(option.name, game.options.get(option.name, option.default))
               for option in table.engine.options]
    # The players as the record names their seats: Onyx's Black and White, else Seat 1…
    seats = [(re.sub(r"(\D)(\d)", r"\1 \2", tag), name) for tag, name
             in table.engine.record_tags(game.options, names)[-len(names):]]
    if table.state is not None:  # … and as they ended: after an Onyx swap, ann plays White
        seats = [(label, f"{name} (played {table.engine.seat_label(table.state, n)})"
                  if table.engine.seat_label(table.state, n) != label else name)
                 for n, (label, name) in enumerate(seats)]
    return _ENV.get_template("web/print.html").render(
        game=game, title=table.engine.title, names=names, seats=seats, options=options,
        outcome=outcome_words([display_name(n) for n in names], table.shares()),
        over=is_over(table), dealt=table.engine.dealt, opening=comments.get(0, []),
        stretches=stretches, every=every, base_url=base_url.rstrip("/"))


def actor(table: Table, move: Move) -> str:
    """Who made a ply, as the public may know it: "Someone" for a reaction window's
    answer while the game runs (RULINGS G39: who was asked, and who answered, is never
    told; the game page says the same), the player's name once it is over."""
    return actor_name(table.names, move.seat, move.anonymous, over=is_over(table))


def _comments(table: Table) -> dict[int, list[str]]:
    """The players' `say` comments by the public's number of the ply they follow (0:
    before the first move)."""
    said = list(Comment.select().where(Comment.game == table.game)
                .order_by(Comment.created, Comment.id))
    numbers = shown_numbers(table.game, {comment.ply for comment in said if comment.ply > 0})
    by_ply: dict[int, list[str]] = {}
    for comment in said:
        by_ply.setdefault(numbers.get(comment.ply, 0), []).append(
            f"{table.names[comment.seat]}: {comment.text}")
    return by_ply


def _stretches(table: Table, lines: list[PlyLine], every: int,
               numbered: bool = False, compact: bool = False) -> list[Stretch]:
    if not every:
        return [Stretch(lines)]
    stretches = []
    for start in range(0, len(lines), every):
        part = lines[start:start + every]
        after = part[-1].ply
        numbers = (part[0].ply, after) if numbered else None
        svg = (compact_svg(table, after, DIAGRAM_PIXELS) if compact
               else ply_svg(table, after, DIAGRAM_PIXELS, numbers=numbers))
        stretches.append(Stretch(part, Markup(svg), after))
    return stretches or [Stretch([], Markup(ply_svg(table, 0, DIAGRAM_PIXELS)), 0)]
