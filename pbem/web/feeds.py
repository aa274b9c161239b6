"""Atom feeds of the archive: a game's moves (`/games/<id>.atom`) and a player's games
(`/players/<id>.atom`), for feed readers that follow a game without mail.

A game's feed has an entry for each ply, carrying its news as a spectator's mail words
it (the move's public text, and what it showed everyone: 6 nimmt!'s reveal of a round)
and the link to the position after it; an entry for each comment (`say`), and one for
the game's end (its result, or its cancellation). Newest first, in the order they
happened in the game. Each entry's content is HTML (`type="html"`).

Every link and id is at PBEM_BASE_URL when it is set. Public like the pages they mirror:
a running game as of its last ply the public may know of (as_public), each ply by its
public text and number (move_list, shown_moves), players by display name: a decision
nobody may learn of (RULINGS G39) is neither listed, counted nor dated, and a secret
choice is an entry that says only that it was made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from flask import (Blueprint, Response, abort, current_app, render_template, request,
                   url_for)

from notation.text import clean_text
from pbem.engines import ENGINES
from pbem.engines.base import Engine
from pbem.export.public import as_public, shown_moves, shown_numbers
from pbem.export.search import GameFilters
from pbem.play import display_name
from pbem.store import Comment, Game, Move, Player
from pbem.web.archive import Seated, listing, outcome_words, seats_of
from pbem.web.game_page import Ply, move_list

feeds = Blueprint("feeds", __name__)
ENTRIES = 50  # the newest entries of a game (plies, comments, its end), a player's games
ATOM = "application/atom+xml; charset=utf-8"
TITLE_CHARS = 72  # of a comment, in its entry's title; the content has it whole


@dataclass
class Entry:
    """One entry: `news` its paragraphs, `links` (words, path) after them; `link` the page
    it is about, `id` that page unless the entry needs one of its own (a path with a
    fragment: a comment, the end)."""
    title: str
    updated: object  # a datetime, UTC
    link: str
    news: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    id: str | None = None


def _time(moment) -> str:
    return moment.isoformat(timespec="seconds") + "Z"


def _content(entry: Entry, root: str) -> str:
    """The entry's HTML (escaped once more by the template, as Atom's type="html" wants)."""
    paragraphs = [f"<p>{escape(clean_text(line))}</p>" for line in entry.news if line]
    paragraphs += [f'<p><a href="{escape(root + path)}">{escape(words)}</a></p>'
                   for words, path in entry.links]
    return "".join(paragraphs)


def atom(title: str, here: str, page: str, updated, entries: list[Entry]) -> Response:
    # Links and ids at the archive's public address (PBEM_BASE_URL), never the Host the
    # request named: a feed reader keeps them, and an id must not change with the way in
    # (a proxy's internal name, a port, a forged Host). Only a server without one set
    # (`pbem serve` on loopback) answers with the address it was asked at.
    root = (current_app.config["PBEM"].base_url or request.url_root).rstrip("/")
    # Every text once more without what XML cannot carry (notation.text): a feed that
    # does not parse is broken for every reader, for good.
    updated = max([updated, *(entry.updated for entry in entries)])
    body = render_template("web/feed.xml", title=clean_text(title), id=root + here,
                           feed_url=root + here, page=root + page, updated=_time(updated),
                           entries=[{"title": clean_text(entry.title),
                                     "id": root + (entry.id or entry.link),
                                     "link": root + entry.link,
                                     "content": _content(entry, root),
                                     "updated": _time(entry.updated)} for entry in entries])
    return Response(body, mimetype="application/atom+xml", content_type=ATOM)


@feeds.route("/games/<int(max=2147483647):game_id>.atom")
def game_feed(game_id: int):
    game = Game.get_or_none(Game.id == game_id)
    if game is None or game.engine not in ENGINES:
        abort(404, f"There is no game number {game_id}.")
    ended = game.updated  # a cancellation's time: as_public keeps a cancelled game's secrets
    game = as_public(game)
    engine = ENGINES[game.engine]
    seated = seats_of([game.id])[game.id]
    plies, _ = move_list(game, seated, game.status == "finished")
    page = url_for("game_page.show", game_id=game.id)
    # The game in the order it happened: a ply, the comments said after it, …, its end.
    story = _said(game, seated, len(plies), page)
    story += [(ply.number, 0, _ply_entry(ply, moment, revealed, page))
              for ply, (moment, revealed) in zip(plies, _ply_facts(game, plies))]
    end = _end_entry(game, engine, seated, ended, page)
    if end is not None:
        story.append((len(plies) + 1, 0, end))
    story.sort(key=lambda told: told[:2])
    entries = [entry for _, _, entry in reversed(story[-ENTRIES:])]
    players = " vs ".join(s.name for s in seated)
    return atom(f"{engine.title} #{game.id}: {players}", request.path, page, game.updated,
                entries)


def _ply_facts(game: Game, plies: list[Ply]) -> list[tuple[object, str | None]]:
    """Each listed ply's time and what it showed everyone (Move.revealed), by the
    public's numbers (one query)."""
    facts = {number: (created, revealed) for number, created, revealed
             in shown_moves(game, Move.created, Move.revealed).tuples()}
    return [facts.get(ply.number, (game.updated, None)) for ply in plies]


def _ply_entry(ply: Ply, moment, revealed: str | None, page: str) -> Entry:
    """A ply's entry: its line as the page lists it, what it revealed, and the position."""
    text = ply.text if ply.text is not None else (
        "dealt (hidden until the end)" if ply.dealer else "chose in secret")
    line = f"#{ply.number} {ply.actor}: {text}"
    here = f"{page}?ply={ply.number}"
    # a reader that shows only titles still learns what the round's last choice showed
    title = f"{line}; {revealed}" if revealed else line
    return Entry(title, moment, here, news=[line, revealed or ""],
                 links=[(f"The position after ply {ply.number}", here)])


def _said(game: Game, seated: list[Seated], plies: int, page: str) -> list[tuple]:
    """An entry for each comment, placed after the ply it followed (numbered as the
    public may know it: one said during a window nobody may learn of follows the public
    ply before it, as on the page); with its place in the story, for sorting."""
    names = {seat.number: seat.name for seat in seated}
    rows = list(Comment.select(Comment.ply, Comment.seat, Comment.text, Comment.created)
                .where(Comment.game == game).order_by(Comment.created, Comment.id).tuples())
    numbers = shown_numbers(game, {ply for ply, _, _, _ in rows if ply > 0})
    told = []
    for order, (ply, seat, text, moment) in enumerate(rows, start=1):
        number = max(0, numbers.get(ply, ply))
        if number > plies:
            continue  # as on the page: said after a ply the public may not know of yet
        speaker = names.get(seat, f"#{seat + 1}")
        short = text if len(text) <= TITLE_CHARS else text[:TITLE_CHARS - 1] + "…"
        here = f"{page}?ply={number}"
        where = f"after ply {number}" if number else "before the first move"
        entry = Entry(f"{speaker} says: {short}", moment, here,
                      news=[f"{speaker} says ({where}): {text}"],
                      links=[(f"The position after ply {number}" if number else
                              "The start", here)], id=f"{here}#said-{order}")
        told.append((number, order, entry))
    return told


def _end_entry(game: Game, engine: Engine, seated: list[Seated], ended,
               page: str) -> Entry | None:
    """The game's end: its result and why, or its cancellation (whose secrets stay)."""
    why = f" ({game.termination})" if game.termination else ""
    if game.status == "finished":
        outcome = outcome_words(game.result, seated)
        line = f"Game over: {game.result}{f', {outcome}' if outcome else ''}{why}"
        news = [line, "Its page now shows every move in full, each player's view and the "
                      "dealer's seed, to check the deal." if engine.dealt else ""]
        return Entry(line, game.updated, page, news=news, id=f"{page}#end",
                     links=[("The final position and the whole game", page)])
    if game.status == "cancelled":
        line = f"Cancelled{why}"
        return Entry(line, ended, page, news=[line], id=f"{page}#end",
                     links=[("The game's page", page)])
    return None


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
        title = (f"{row['title']} #{game.id}: "
                 f"{' vs '.join(s.name for s in row['seats'])}, {state}")
        page = url_for("game_page.show", game_id=game.id)
        entries.append(Entry(title, game.updated, page, news=[title, game.termination],
                             links=[("The game's page", page)]))
    updated = max((entry.updated for entry in entries), default=None)
    if updated is None:
        updated = Player.select(Player.created).where(Player.id == player_id).scalar()
    return atom(f"{display_name(player.name)}'s games", request.path,
                url_for("archive.player_page", player_id=player_id), updated, entries)
