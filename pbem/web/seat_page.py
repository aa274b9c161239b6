"""Each seat's private page (`/play/<token>`): that seat's view, the news since its last
mail, the clock, and a move form; and the player's games (`/play/<token>/games`).

The token is the seat's page token (pbem.vocabulary.tokens.play_token), mailed only to the
seat's player in each game mail; it is a secret like the reply address, so these pages
send `Referrer-Policy: no-referrer`, are never cached, may not be framed, load nothing
from elsewhere, and are linked from no public page. What a link may do is pbem.access's
to say, asked once for every route here (`live_seat`): a link acts for its own seat
only, while that seat is live. A game that is over (a resignation ends it too), a
player who chose `web off` or was forgotten gets the public page instead; a barred
player (`pbem admin ban`) gets 403 and nothing else; the list of the player's games
answers only to a link that may act, never to an ended game's.

What the page shows is that seat's view only (`view(state, seat)`, the engine's prompt,
`conversation.news` for the seat): the same words its next mail will carry, read from
the same cursor. A visit only looks: mail clients and link scanners fetch the links in a
mail, and a GET that moved the cursor would take that news out of the player's next
mail unseen. The form is a plain HTML form:
the text goes first to a read-back ("F6: a black stone on F6, capturing E5"), then a
POST with the ply the page showed (the stale guard) and a CSRF token plays it through
pbem.web.seat_moves, the same write path as mail. JavaScript (`/play.js`) only adds
keyboard stepping over the board's points; clicking a point is a link. The read-back
comes first beside the board, and the links and forms that ask for it end in `#answer`,
so that on a phone, where it stands below the board, the page opens at it.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import hmac
import secrets

from flask import (Blueprint, Response, abort, current_app, redirect, render_template, request,
                   url_for)
from markupsafe import Markup

from notation.text import clean_text
from pbem import access
from pbem.vocabulary import words
from pbem.play import Table, display_name
from pbem.policy import conversation
from pbem.store import Game, Seat, transaction
from pbem.timekeeping import display
from pbem.bookkeeping.ledger import waiting_on
from pbem.web.archive import refused, served
from pbem.web.advance import advance
from pbem.web.board_clicks import clickable
from pbem.web.diagrams import column_diagram, for_any_width
from pbem.web.seat_moves import choices, known_ply, play_from_page, points, read_back

seat_page = Blueprint("seat_page", __name__)
seat_page.register_error_handler(400, refused)
seat_page.register_error_handler(403, refused)
seat_page.register_error_handler(404, refused)

DIAGRAM = 480
FORM_COOKIE = "pbem_form"
HEADERS = {
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Robots-Tag": "noindex, nofollow",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # Nothing from elsewhere; the SVG's presentation attributes need inline styles.
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self' "
                               "'unsafe-inline'; img-src 'self' data:; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
}


@seat_page.after_request
def private(response: Response) -> Response:
    for name, value in HEADERS.items():
        response.headers[name] = value
    return response


def config():
    return current_app.config["PBEM"]


def live_seat(view):
    """Every route under `/play/<token>` is wrapped in this: the view runs only for a
    link that may act for its seat (pbem.access.seat_access), as `view(token, game,
    seat)`. Otherwise the visitor gets 404 for no such link, 403 for a barred player,
    and the game's public page for a game over, `web off` or a forgotten player."""
    @functools.wraps(view)
    def checked(token: str):
        found = access.seat_access(config(), token)
        if found.kind == access.UNKNOWN:
            abort(404, found.words)
        if found.kind == access.BANNED:
            abort(403, found.words)
        if not found.may_act:
            return redirect(url_for("game_page.show", game_id=found.game.id), 303)
        return view(token, found.game, found.seat)
    return checked


# -- the CSRF token: a random cookie of this browser, and the form's HMAC of it -------------

def form_cookie() -> tuple[str, bool]:
    """This browser's random form cookie, and whether it is new (to be set)."""
    value = request.cookies.get(FORM_COOKIE, "")
    if len(value) == 32 and value.isalnum():
        return value, False
    return secrets.token_hex(16), True


def with_form_cookie(response: Response, cookie: str, new: bool,
                     path: str = "/play") -> Response:
    """The response, setting the browser's form cookie where it is new (form_cookie), for
    the pages under `path` only (the seat pages; the local mailbox has its own)."""
    if new:
        response.set_cookie(FORM_COOKIE, cookie, httponly=True, samesite="Strict",
                            secure=request.is_secure, path=path)
    return response


def csrf_token(cookie: str, token: str) -> str:
    message = f"form/{cookie}/{token}".encode()
    return hmac.new(config().secret_key.encode(), message, hashlib.sha256).hexdigest()[:32]


def csrf_refusal(token: str) -> str | None:
    """Why a POST is not this page's own form, or None: the form carries the HMAC of the
    browser's cookie (a page elsewhere can neither read the cookie nor compute it), and a
    browser's Origin, where it names one, is this server. (Under `no-referrer` a browser
    sends `Origin: null` for its own form: that says nothing either way.)"""
    origin = request.headers.get("Origin")
    if origin and origin != "null" and origin.rstrip("/") != request.host_url.rstrip("/"):
        return f"the form was sent from another site ({origin})"
    cookie = request.cookies.get(FORM_COOKIE, "")
    given = request.form.get("csrf", "")
    if not cookie or not hmac.compare_digest(csrf_token(cookie, token), given):
        return "the form is not from this page (or your browser refused its cookie)"
    return None


# -- the page --------------------------------------------------------------------------

def board_svg(table: Table, seat: int, token: str) -> Markup:
    view = words.named_view(table, seat)
    svg = table.engine.svg_diagram(view, size=DIAGRAM)
    playable = points(table, seat)
    if playable:
        href = url_for("seat_page.show", token=token) + "?move="
        svg = clickable(svg, view, DIAGRAM, playable, href, "#answer")  # into view
    return for_any_width(table.engine, view, svg)


def render(token: str, game: Game, seat: Seat, text: str = "", report=None,
           done: str = "", refusal: str = "", status: int = 200,
           notice: str = "") -> Response:
    """The seat's page, with the news since its last mail (looked at, not told)."""
    table = Table.load(game.id, lock=False)
    number = seat.number
    news = conversation.news(table, number, advance=False)
    engine = table.engine
    started = table.state is not None
    context = {
        "token": token, "game": table.game, "engine": engine, "seat": number,
        "players": words.players_line(table, number) if started else ", ".join(table.names),
        "identity": (engine.identity(table.state, number) or "") if started else "",
        "news": news, "status": words.status(table, number),
        "clock": display.clock_line(table, number),
        "prompt": (engine.prompt(table.state, number, names=table.names)
                   if started and number in table.to_act else ""),
        "svg": board_svg(table, number, token) if started else None,
        "choices": choices(table, number) if started else [],
        "invited": table.game.status == "inviting" and table.seats[number].answer is None,
        "ply": known_ply(table, number), "read": read_back(table, number, text) if text else None,
        "report": report, "done": done, "refusal": refusal, "notice": notice,
        "public": url_for("game_page.show", game_id=game.id),
        "games": url_for("seat_page.games", token=token),
        "account": url_for("seat_page.ask", token=token),
        "advance": advance(table, number) if started else None,  # its own, to it alone
    }
    read, context["preview"] = context["read"], None
    if read is not None and read.playable and read.after is not None:
        view = table.engine.view(read.after, number)
        view["names"] = [display_name(name) for name in table.names]
        context["preview"] = column_diagram(engine, view, DIAGRAM // 2)
    cookie, new = form_cookie()
    context["csrf"] = csrf_token(cookie, token)
    return with_form_cookie(Response(render_template("web/seat.html", **context),
                                     status=status), cookie, new)


@seat_page.route("/play/<token>")
@live_seat
def show(token: str, game: Game, seat: Seat):
    text = clean_text(request.args.get("move", ""))[:500]
    return render(token, game, seat, text=text,
                  done=clean_text(request.args.get("done", ""))[:500])


@seat_page.route("/play/<token>", methods=["POST"])
@live_seat
def play(token: str, game: Game, seat: Seat):
    refused = post_refusal(token, seat)
    if refused:
        why, status = refused
        again = " Here is the position again; send your move from this page." \
            if status == 403 else ""
        return render(token, game, seat, refusal=f"Nothing was played: {why}.{again}",
                      status=status)
    text = clean_text(request.form.get("move", ""))[:500]  # a page's `say` as a mail's
    shown = request.form.get("ply", "")
    if not (shown.isascii() and shown.isdigit()):
        abort(400, "The form did not say which position it showed; reload the page.")
    with transaction():
        table = Table.load(game.id)
        report = play_from_page(config(), table, seat.number, seat.player, text, int(shown))
    kick_delivery()  # the mails to the others, a bot's answer
    if report.applied and not (report.failed or report.held or report.notes
                               or report.dropped):
        return redirect(url_for("seat_page.show", token=token, done=text), 303)
    status = 409 if report.failed else 200
    return render(token, game, seat, report=report, status=status)


def post_refusal(token: str, seat: Seat) -> tuple[str, int] | None:
    """Why a POST from this page is not carried out, and its status: not this page's own
    form (403), or past PBEM_RATE_LIMIT, where each post counts as a mail from the
    player's address does (429, pbem.access.post_refusal; told once a day as by mail)."""
    why = csrf_refusal(token)
    if why:
        return why, 403
    with transaction():
        limit = access.post_refusal(config(), seat.player)
    if limit:
        kick_delivery()  # the notice of the limit, if one was due, goes now
        return " ".join(limit[:2]).rstrip("."), 429  # the caller ends the sentence
    return None


def kick_delivery() -> None:
    after_move = current_app.config.get("PBEM_AFTER_MOVE")
    if after_move is not None:
        after_move()  # the mails go now, a bot answers now


@seat_page.route("/play/<token>/games")
@live_seat
def games(token: str, game: Game, seat: Seat):
    """All the player's games, those waiting for them first, soonest deadline first: only
    for a link that may act (a finished game's link shows its public page). A seat's
    link reaches its own seat only (pbem.authority): the others are linked by their
    public pages; their seats' links are on the account's page."""
    return render_template("web/my_games.html", rows=game_rows(seat.player, private=False),
                           name=seat.player.name, back=url_for("seat_page.show", token=token))


def game_rows(player, private: bool) -> list[dict]:
    """The player's live games, those waiting for them first, soonest deadline first;
    each linked by its seat's page where `private` (the account's page), else by its
    public page."""
    rows = []
    for mine in access.live_seats(player):
        table = Table.load(mine.game.id, lock=False)
        number = mine.number
        waits = number in table.to_act or (table.game.status == "inviting"
                                           and mine.answer is None)
        deadline = next((w.deadline for w in waiting_on(table.game.id)
                         if w.seat == number), None) if waits else None
        link = (url_for("seat_page.show", token=access.page_token(
            config(), table.game.id, number, player)) if private
            else url_for("game_page.show", game_id=table.game.id))
        rows.append({"id": table.game.id, "title": table.engine.title,
                     "players": " vs ".join(table.names), "yours": waits,
                     "status": words.status(table, number), "deadline": deadline,
                     "link": link})
    far = dt.datetime.max
    rows.sort(key=lambda row: (not row["yours"], row["deadline"] or far, row["id"]))
    return rows


@seat_page.route("/play.js")
def script():
    return served("web/play.js", "text/javascript")  # as read at start: pbem.templating

