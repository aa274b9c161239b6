"""Onyx's conditional lines built on a seat's page by clicking (#32 item 5), on the seat
page's own blueprint (its link check, headers, CSRF token and rate limit).

    GET  /play/<token>/lines?line=E5+F6+G7   the builder: the position after the line so
                                             far, drawn, its next points to click (the
                                             opponent's move, then the answer, in turn),
                                             and the tree of the lines kept
    POST /play/<token>/lines                 `lines`: `if …` lines (or `conditions off`),
                                             split by `;`, run as the lines of one mail

The POST runs its lines exactly as a mail's (pbem.commands.lines.run_lines: the first
`if` replaces the lines kept before, so keeping a branch posts the whole tree with it,
and removing one posts the rest), then the conversation policy mails whoever should
hear of it. Nothing else may be posted here: moves go through the seat page's form.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from flask import abort, current_app, redirect, render_template, request, url_for
from markupsafe import Markup

from notation.text import clean_text
from pbem.authority import SEAT_LINK, Proof
from pbem.commands.lines import after_moves, run_lines
from pbem.commands.speaker import WEB, Speaker
from pbem.vocabulary import words
from pbem.play import Table, display_name
from pbem.policy import conversation
from pbem.store import Game, Seat, transaction
from pbem.web.advance import advance, build
from pbem.web.board_clicks import clickable
from pbem.web.seat_page import (DIAGRAM, config, csrf_token, form_cookie, kick_delivery,
                                live_seat, post_refusal, seat_page, with_form_cookie)

LINE = re.compile(r"^(if( [\w*-]+)+|conditions off)$", re.I)
MAX_POSTED = 40  # lines a post may carry: the tree's most, and a few to spare


def render(token: str, game: Game, seat: Seat, text: str = "", report=None,
           done: str = "", refusal: str = "", status: int = 200):
    table = Table.load(game.id, lock=False)
    number = seat.number
    if not table.engine.conditional_moves or table.game.status != "running":
        return redirect(url_for("seat_page.show", token=token), 303)
    built = build(table, number, text)
    here = url_for("seat_page.lines", token=token)
    view = words.named_view(table, number) if built.state is table.state else \
        dict(table.engine.view(built.state, number),
             names=[display_name(name) for name in table.names])
    svg = table.engine.svg_diagram(view, size=DIAGRAM)
    if built.points:
        prefix = " ".join(built.plies)
        href = here + "?line=" + quote(prefix + " " if prefix else "")
        svg = clickable(svg, view, DIAGRAM, built.points, href, "#board")
    kept = advance(table, number)
    line_text = "if " + " ".join(built.plies)
    steps = [{"theirs": i % 2 == 0, "move": ply,
              "back": here + "?line=" + quote(" ".join(built.plies[:i + 1])) + "#board"}
             for i, ply in enumerate(built.plies)]
    cookie, new = form_cookie()
    response = current_app.make_response((render_template(
        "web/lines.html", engine=table.engine, game=table.game, built=built, steps=steps,
        svg=Markup(svg), kept=kept, here=here, line_text=line_text,
        keep=kept["lines"] + ([line_text] if line_text not in kept["lines"] else []),
        undo=here + "?line=" + quote(" ".join(built.plies[:-1])) + "#board",
        swap=here + "?line=" + quote(" ".join([*built.plies, "swap"])) + "#board",
        seat_link=url_for("seat_page.show", token=token), report=report, done=done,
        refusal=refusal, csrf=csrf_token(cookie, token),
        opponent=table.names[1 - number]), status))
    return with_form_cookie(response, cookie, new)


@seat_page.route("/play/<token>/lines")
@live_seat
def lines(token: str, game: Game, seat: Seat):
    text = clean_text(request.args.get("line", ""))[:400]
    return render(token, game, seat, text=text,
                  done=clean_text(request.args.get("done", ""))[:200])


@seat_page.route("/play/<token>/lines", methods=["POST"])
@live_seat
def keep_lines(token: str, game: Game, seat: Seat):
    refused = post_refusal(token, seat)  # the page's CSRF token, and PBEM_RATE_LIMIT
    if refused:
        return render(token, game, seat, refusal=f"Nothing was changed: {refused[0]}.",
                      status=refused[1])
    posted = [" ".join(clean_text(line).split())
              for line in re.split(r"[;\n]", request.form.get("lines", ""))]
    posted = [line for line in posted if line][:MAX_POSTED]
    if not posted or not all(LINE.match(line) for line in posted):
        abort(400, "Only `if` lines (or `conditions off`) are kept here; play moves on "
                   "your seat's page.")
    with transaction():
        table = Table.load(game.id)
        table.seats[seat.number].player = seat.player
        speaker = Speaker(config(), seat.player, message_id=WEB,
                          proof=Proof(SEAT_LINK, game.id, seat.number))
        reports = {seat.number: run_lines(speaker, table, seat.number, posted)}
        after_moves(config(), table, reports)
        mine = reports.pop(seat.number)
        conversation.after_write(config(), table, reports)
    kick_delivery()  # whatever the lines' commands mailed goes now
    if mine.failed:
        return render(token, game, seat, report=mine, status=409)
    said = "Lines cleared." if posted == ["conditions off"] else "Lines kept."
    return redirect(url_for("seat_page.lines", token=token, done=said), 303)
