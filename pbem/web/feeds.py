"""Atom feeds of the archive: a game's moves (`/games/<id>.atom`) and a player's games
(`/players/<id>.atom`), for feed readers that follow a game without mail.

Every link and id is at PBEM_BASE_URL when it is set. Public like the pages they mirror: a running game as of its last ply the public may know
of (as_public), each ply by its public text and number (move_list, shown_moves), players
by display name: a decision nobody may learn of (RULINGS G39) is neither listed, counted
nor dated.
"""

from __future__ import annotations

from flask import (Blueprint, Response, abort, current_app, render_template, request,
                   url_for)

from notation.text import clean_text
from pbem.engines import ENGINES
from pbem.export.public import as_public, shown_moves
from pbem.export.search import GameFilters
from pbem.play import display_name
from pbem.store import Game, Move, Player
from pbem.web.archive import listing, seats_of
from pbem.web.game_page import move_list

feeds = Blueprint("feeds", __name__)
ENTRIES = 50  # the newest plies of a game, the newest games of a player
ATOM = "application/atom+xml; charset=utf-8"


def _time(moment) -> str:
    return moment.isoformat(timespec="seconds") + "Z"


def atom(title: str, here: str, page: str, updated, entries: list[dict]) -> Response:
    # Links and ids at the archive's public address (PBEM_BASE_URL), never the Host the
    # request named: a feed reader keeps them, and an id must not change with the way in
    # (a proxy's internal name, a port, a forged Host). Only a server without one set
    # (`pbem serve` on loopback) answers with the address it was asked at.
    root = (current_app.config["PBEM"].base_url or request.url_root).rstrip("/")
    # Every text once more without what XML cannot carry (notation.text): a feed that
    # does not parse is broken for every reader, for good.
    body = render_template("web/feed.xml", title=clean_text(title), id=root + here,
                           feed_url=root + here, page=root + page, updated=_time(updated),
                           entries=[{**entry, "title": clean_text(entry["title"]),
                                     "summary": clean_text(entry["summary"]),
                                     "link": root + entry["link"],
                                     "updated": _time(entry["updated"])} for entry in entries])
    return Response(body, mimetype="application/atom+xml", content_type=ATOM)


@feeds.route("/games/<int(max=2147483647):game_id>.atom")
def game_feed(game_id: int):
    game = Game.get_or_none(Game.id == game_id)
    if game is None or game.engine not in ENGINES:
        abort(404, f"There is no game number {game_id}.")
    game = as_public(game)
    engine = ENGINES[game.engine]
    seated = seats_of([game.id])[game.id]
    plies, _ = move_list(game, seated, game.status == "finished")
    stamps = dict(shown_moves(game, Move.created).tuples())  # by the public's numbers
    page = url_for("game_page.show", game_id=game.id)
    entries = []
    for ply in reversed(plies[-ENTRIES:]):
        text = ply.text if ply.text is not None else (
            "dealt (hidden until the end)" if ply.dealer else "chose in secret")
        entries.append({"title": f"#{ply.number} {ply.actor}: {text}",
                        "updated": stamps.get(ply.number, game.updated),
                        "link": f"{page}?ply={ply.number}",
                        "summary": " ".join(ply.comments)})
    players = " vs ".join(s.name for s in seated)
    return atom(f"{engine.title} #{game.id}: {players}", request.path, page, game.updated,
                entries)


@feeds.route("/players/<int(max=2147483647):player_id>.atom")
def player_feed(player_id: int):
    player = Player.select(Player.id, Player.name).where(Player.id == player_id).first()
    if player is None:
        abort(404, f"There is no player number {player_id}.")
    rows, _ = listing(GameFilters(player=player_id))
    entries = []
    for row in rows[:ENTRIES]:
        game = row["game"]
        state = game.status + (f": {game.result}" if game.status == "finished" else "")
        if row["outcome"]:
            state += f" ({row['outcome']})"
        entries.append({"title": f"{row['title']} #{game.id}: "
                                 f"{' vs '.join(s.name for s in row['seats'])}, {state}",
                        "updated": game.updated, "summary": game.termination,
                        "link": url_for("game_page.show", game_id=game.id)})
    updated = max((entry["updated"] for entry in entries), default=None)
    if updated is None:
        updated = Player.select(Player.created).where(Player.id == player_id).scalar()
    return atom(f"{display_name(player.name)}'s games", request.path,
                url_for("archive.player_page", player_id=player_id), updated, entries)
