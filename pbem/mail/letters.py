"""Game mails composed and queued: each written from one seat's view only.

Whom to mail, and when, is decided by the conversation policy (pbem.policy.conversation); this
module writes what it is given. The news is each ply as the engine lets that seat read
it (`visible_notation`, gathered by the policy), the diagram is drawn from `view(state,
seat)`, and the prompt is the engine's, so nobody reads what they may not see. With
`picture` (the policy's say: the player did not write `pictures off`), the HTML part
shows the position as a picture drawn from that same view (pbem.mail.pictures).
"""

from __future__ import annotations

import logging

from notation.record import format_record
from pbem.config import Config
from pbem.mail import compose, pictures
from pbem.mail.outbox import queue
from pbem.vocabulary.tokens import account_token, play_token, reply_address, seat_token
from pbem.vocabulary.words import named_view, players_line, public_status, status, subject
from pbem.play import Table, display_name

log = logging.getLogger(__name__)


def position_picture(config: Config, engine, view: dict, name: str,
                     caption: str | None = None) -> tuple[dict | None, dict]:
    """The picture of `view` for a mail's HTML: what its template needs (`cid`, `alt`,
    `width`, `height`, the game's `legend` of its marks) and the image by its
    Content-ID, for compose.build's `images`.
    `name` makes the Content-ID unique within the mail (a digest has several); `caption`
    goes under the position (the seat's identity: Onyx's colour and goal). A picture
    that cannot be drawn is logged and left out (None, {}): the mail goes with the text
    diagram, as with `pictures off`, rather than failing the move that sends it."""
    try:
        drawn = pictures.picture(engine, view, caption=caption)
    except Exception:
        log.exception("no picture of %s for %s: the mail goes without one", engine.id, name)
        return None, {}
    cid = f"{name}@{config.domain}"
    return ({"cid": cid, "alt": drawn.alt, "width": drawn.width, "height": drawn.height,
             "legend": engine.legend()}, {cid: drawn.base64})


def game_mail(config: Config, table: Table, seat: int, news: list[str], clock: str = "",
              report=None, notes: list[str] | tuple = (),
              in_reply_to: str | None = None, picture: bool = False):
    """The mail for `seat`: news, diagram, whose turn, what to do; the record at the end.
    `picture`: the HTML part shows the position as a picture, not as the text diagram."""
    engine, game = table.engine, table.game
    finished = game.status == "finished"
    view_seat = None if finished else seat  # after the end, everything is shown
    view = named_view(table, view_seat) if table.state else None
    if finished and view is not None and view.get("to_move"):
        view["to_move"] = None  # a resignation ends it outside the rules: nobody is to move
    diagram = engine.text_diagram(view) if view is not None else ""
    waits = game.status == "running" and seat in table.to_act
    prompt = engine.prompt(table.state, seat, names=table.names) if waits else ""
    identity = engine.identity(table.state, seat) if table.state is not None else None
    context = {
        "report": report, "notes": list(notes), "news": news, "identity": identity or "",
        "diagram": diagram.rstrip("\n"), "status": status(table, seat), "prompt": prompt,
        "waits": waits,
        "clock": clock, "move_number": table.next_number, "finished": finished,
        # Before the start and after a cancellation there is no move to ask for.
        "stage": game.status, "answered": table.seats[seat].answer is not None,
        "game": {"id": game.id, "title": engine.title}, "dealt": engine.dealt,
        "players": players_line(table, seat),
        "url": f"{config.web_url}/games/{game.id}",
        "record": format_record(table.record()) if finished else "",
        "seed": game.seed if finished else "", "commitment": game.commitment,
        "picture": None,
    }
    images = {}
    if picture and view is not None:
        context["picture"], images = position_picture(
            config, engine, view, f"position.{game.id}.{game.shown_plies}.{seat}", identity)
    player = table.seats[seat].player
    context["play_url"] = seat_page_url(config, table, seat)
    token = seat_token(config.secret_key, game.id, seat)
    return compose.build(config, (player.name, player.email), subject(table), "game", context,
                         reply_to=reply_address(token, config.domain), game_id=game.id,
                         ply=game.shown_plies, seat=seat, in_reply_to=in_reply_to,
                         images=images)


def seat_page_url(config: Config, table: Table, seat: int) -> str:
    """The private link to the seat's page (pbem.web.seat_page), while the game is not
    over and unless the player chose `web off`; else ''."""
    if table.game.status in ("finished", "cancelled") or not table.seats[seat].player.web:
        return ""
    generation = table.seats[seat].player.links  # `link new` adds one (pbem.access)
    token = play_token(config.secret_key, table.game.id, seat, generation)
    return f"{config.web_url}/play/{token}"


def send_game_mail(config: Config, table: Table, seat: int, **kwargs) -> None:
    """game_mail, queued to the seat's player."""
    message = game_mail(config, table, seat, **kwargs)
    queue(message, table.seats[seat].player.email, table.game)


def send_follower_mail(config: Config, table: Table, shown, follower, news: list[str],
                       picture: bool = False) -> None:
    """A spectator's mail (`follow N`): the public view only, drawn from `view(state,
    None)` of the game as the public may know it (as_public), the public news since
    their last mail; everything once the game is over, as on its page. `picture` as
    for a player's game mail."""
    engine, game = table.engine, table.game
    finished = game.status == "finished"
    state = table.state if finished else engine.from_json(shown.state)
    view = engine.view(state, None)
    view["names"] = [display_name(name) for name in table.names]
    context = {
        "news": news, "diagram": engine.text_diagram(view).rstrip("\n"),
        "status": public_status(table, shown), "game": {"id": game.id, "title": engine.title},
        "players": ", ".join(f"{engine.seat_label(state, n)} {display_name(name)}"
                             for n, name in enumerate(table.names)),
        "url": f"{config.web_url}/games/{game.id}", "finished": finished, "picture": None,
    }
    images = {}
    if picture:
        context["picture"], images = position_picture(config, engine, view,
                                                      f"position.{game.id}.{shown.plies}")
    message = compose.build(config, (follower.name, follower.email), subject(table),
                            "follow", context, reply_to=account_reply(config, follower),
                            game_id=game.id,
                            ply=shown.plies, images=images)
    queue(message, follower.email, game)


def account_reply(config: Config, player) -> str:
    """The reply address of every mail to a player that is not a seat's: its account
    token proves a reply from the player's address to be theirs (pbem.authority)."""
    return reply_address(account_token(config.secret_key, player.id, player.links),
                         config.domain)


def note(config: Config, to: tuple[str, str], subject_line: str, paragraphs: list[str],
         reply_to: str | None = None, in_reply_to: str | None = None):
    """A plain mail that is not about one game's position (an answer, an invitation, a
    notice), as the policy (pbem.policy.letters) decided it should go."""
    message = compose.build(config, to, subject_line, "note", {"paragraphs": paragraphs},
                            reply_to=reply_to, in_reply_to=in_reply_to)
    queue(message, to[1])
