"""/verify: a deal checked in the reader's own browser, not by this server.

The page holds templates/web/deal_check.js inline (written from notation/dealing.md,
the same file the tests run with node), so its verdict comes from the visitor's browser
alone, and the page still works saved to disk. The server's only part is to put a
finished game's published record into the box (`/verify?game=N`, or
`/games/N/verify`, which a finished game's page and end mail link to); a running
game's record is refused as the export refuses it, for the seed is not out yet.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, render_template, request

from pbem.export.record import record_text
from pbem.export.source import ExportError, is_over, load_table

verify = Blueprint("verify", __name__)

SCRIPT = "web/deal_check.js"


def deal_check_script() -> str:
    """The checker's source, to inline in the page (read through the template loader, so
    an installed wheel finds it as the app finds its templates)."""
    source, _, _ = current_app.jinja_loader.get_source(current_app.jinja_env, SCRIPT)
    return source


def published_record(game_id: int) -> tuple[str, str | None]:
    """A finished game's record, or why there is none to check yet."""
    try:
        table = load_table(game_id)
    except ExportError as error:
        return "", error.message
    if not is_over(table):
        return "", (f"Game #{game_id} is still running: its seed is revealed when it ends, "
                    f"and its deal can be checked then.")
    return record_text(table), None


@verify.route("/verify")
def page():
    game = request.args.get("game", "")
    if game.isascii() and game.isdigit() and int(game) < 2 ** 31:
        return show(int(game))
    return render_template("web/verify.html", record="", game_id=None, refusal=None,
                           script=deal_check_script())


@verify.route("/verify/deal_check.js")
def script():
    """The checker on its own, to read (the page holds the same text inline)."""
    return Response(deal_check_script(), content_type="text/javascript; charset=utf-8")


@verify.route("/games/<int(max=2147483647):game_id>/verify")
def show(game_id: int):
    record, refusal = published_record(game_id)
    return render_template("web/verify.html", record=record, game_id=game_id,
                           refusal=refusal, script=deal_check_script())
