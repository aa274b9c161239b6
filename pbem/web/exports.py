"""The archive's downloads: a game's record, its SGF (Onyx), the SVG of any ply, a
printable page, and a zip of finished records matching the index's filters.

    /games/<id>.txt               the record (403 while a card game runs)
                                  ?annotated=N: its Nth published annotation
    /games/<id>.sgf               Onyx only (404 for other games); ?annotated=N too
    /games/<id>/ply/<n>.svg       ?size=480|8cm  ?caption=0|1  ?numbers=41-60 (Onyx)
                                  ?form=compact (card games: hands shown after the end)
    /games/<id>/print             ?every=N: a diagram every N plies (0: none)
                                  ?numbers=1: Onyx diagrams number their plies' stones
                                  ?form=compact: card games' compact diagrams
    /games/export.zip             the index's filters: game, player, result, q

What each may show is decided in pbem.export (public while a game runs, everything after
it ends); this module only turns its answers and refusals into HTTP. A refusal is
text/plain with the status it deserves and a sentence saying why.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request, stream_with_context

from notation.record import parse_record
from pbem.annotations import PastLimits, annotated_text, annotations_of
from pbem.export import bulk, diagram, printable
from pbem.export.record import file_name, game_record, record_text
from pbem.export.search import FilterError, GameFilters
from pbem.export.sgf import onyx_sgf
from pbem.export.source import ExportError, is_over, load_table, parse_ply

exports = Blueprint("exports", __name__)

TEXT = "text/plain; charset=utf-8"


@exports.errorhandler(ExportError)
def refused(error: ExportError):
    return Response(error.message + "\n", status=error.status, content_type=TEXT)


@exports.errorhandler(FilterError)
def bad_filter(error: FilterError):
    return Response(f"{error}\n", status=400, content_type=TEXT)


def _answer(body: str, content_type: str, table, download: str | None = None) -> Response:
    response = Response(body, content_type=content_type)
    # A finished game never changes again; a running one changes with its next move.
    response.cache_control.public = True
    response.cache_control.max_age = 86400 if is_over(table) else 0
    if download:
        response.headers["Content-Disposition"] = f'inline; filename="{download}"'
    return response


@exports.route("/games/<int(max=2147483647):game_id>.txt")  # ids are 32-bit in PostgreSQL
def record(game_id: int):
    table = load_table(game_id)
    wanted = request.args.get("annotated")
    if wanted is not None:
        return _answer(annotation_text(table, wanted), TEXT, table,
                       file_name(table, "txt").replace(".txt", f"-annotated-{wanted}.txt"))
    return _answer(record_text(table), TEXT, table, file_name(table, "txt"))


def annotation_text(table, wanted: str) -> str:
    """`?annotated=N`: the Nth annotation published of the game (pbem.annotations)."""
    found = annotations_of(table.game.id)
    if not (wanted.isascii() and wanted.isdigit()) or not 1 <= int(wanted) <= len(found):
        raise ExportError(404, f"Game #{table.game.id} has "
                               f"{len(found) or 'no'} annotation{'s' * (len(found) != 1)}; "
                               f"?annotated= takes 1 to {len(found)}, not {wanted!r}."
                          if found else f"Game #{table.game.id} has no annotations yet.")
    try:
        return annotated_text(found[int(wanted) - 1])
    except PastLimits as error:
        raise ExportError(404, str(error)) from None


@exports.route("/games/<int(max=2147483647):game_id>.sgf")
def sgf(game_id: int):
    table = load_table(game_id)
    if table.engine.id != "onyx":
        raise ExportError(404, f"Game #{game_id} is {table.engine.title}; SGF is written for "
                               f"Onyx only. Its record is at /games/{game_id}.txt.")
    wanted = request.args.get("annotated")
    record = (parse_record(annotation_text(table, wanted)) if wanted is not None
              else game_record(table))
    text = onyx_sgf(record, game_name=f"Onyx #{game_id}",
                    date=table.game.created.strftime("%Y-%m-%d"))
    return _answer(text, "application/x-go-sgf; charset=utf-8", table,
                   file_name(table, "sgf"))


@exports.route("/games/<int(max=2147483647):game_id>/ply/<ply>.svg")
def ply_svg(game_id: int, ply: str):
    table = load_table(game_id)
    number = parse_ply(table, ply)
    pixels, print_width = diagram.parse_size(request.args.get("size"))
    with_caption = diagram.parse_caption(request.args.get("caption"))
    numbers = diagram.parse_numbers(request.args.get("numbers"), table, number)
    if diagram.parse_form(request.args.get("form"), table) == "compact":
        svg = diagram.compact_svg(table, number, pixels, with_caption)
        return _answer(diagram.printed_at(svg, print_width) if print_width else svg,
                       "image/svg+xml", table)
    return _answer(diagram.ply_svg(table, number, pixels, print_width, with_caption, numbers),
                   "image/svg+xml", table)


@exports.route("/games/<int(max=2147483647):game_id>/print")
def print_page(game_id: int):
    table = load_table(game_id)
    every = printable.parse_every(request.args.get("every"), table.game.plies)
    numbered = printable.parse_numbered(request.args.get("numbers"), table.engine)
    compact = diagram.parse_form(request.args.get("form"), table) == "compact"
    return _answer(printable.print_page(table, every, numbered=numbered, compact=compact),
                   "text/html; charset=utf-8", table)


@exports.route("/games/export.zip")
def export_zip():
    filters = GameFilters.from_args(request.args)
    games = bulk.finished_games(filters)
    current_app.logger.info("export.zip of %s", filters.to_args() or "every finished game")
    response = Response(stream_with_context(bulk.zip_chunks(games)),
                        mimetype="application/zip")
    response.headers["Content-Disposition"] = 'attachment; filename="pbem-games.zip"'
    return response
