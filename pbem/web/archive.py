"""The archive's lists: the index of games (`/games`), a player's page (`/players/<id>`),
and the one stylesheet every page links to.

Speed: a page of the index costs two queries whatever its length — the games of that
page (without their snapshots), then the seats and names of those games only. Privacy:
players are named by their display name and linked by number; no query here selects an
address (the search compares one, and answers with a player number), so no page can
show one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from flask import (
    Blueprint,
    Response,
    abort,
    redirect,
    render_template,
    request,
    url_for,
)

from pbem import templating
from pbem.engines import ENGINES
from pbem.export.public import public_listing
from pbem.export.search import STATUSES, FilterError, GameFilters, page_of
from pbem.play import display_name
from pbem.play import outcome_words as won_words
from pbem.store import Game, Player, Seat
from pbem.web.competition import player_ratings

archive = Blueprint("archive", __name__)

#: What a row of the index needs: never the snapshot (large) nor the seed (secret).
LISTED = (Game.id, Game.engine, Game.status, Game.result, Game.termination, Game.plies,
          Game.shown_plies,
          Game.created, Game.updated)


@dataclass(frozen=True)
class Seated:
    """A player at a game as the archive names them: seat, number for links, name, and
    their share of the win once the game is over (Seat.share: theirs, whatever colour)."""
    number: int
    player_id: int
    name: str
    share: str | None = None


def seats_of(game_ids: list[int]) -> dict[int, list[Seated]]:
    """The seats of these games, in one query, by game id (in seat order)."""
    seated: dict[int, list[Seated]] = {game_id: [] for game_id in game_ids}
    if not game_ids:
        return seated
    rows = (Seat.select(Seat.game, Seat.number, Player.id, Player.name, Seat.share)
            .join(Player).where(Seat.game.in_(game_ids)).order_by(Seat.game, Seat.number)
            .tuples())
    for game_id, number, player_id, name, share in rows:
        seated[game_id].append(Seated(number, player_id, display_name(name), share))
    return seated


def shares(result: str) -> list[Fraction] | None:
    """Each seat's share of the win from a result token (`1-0`, `0-1/2-1/2`); None: `*`."""
    try:
        return [Fraction(part) for part in result.split("-")] if result != "*" else None
    except (ValueError, ZeroDivisionError):
        return None


def seat_shares(result: str, seated: list[Seated]) -> list[Fraction] | None:
    """Each player's share of the win: kept on their seat when the game ended (a result
    token is by colour in Onyx, so after a swap its order is not the seats')."""
    if seated and all(seat.share is not None for seat in seated):
        return [Fraction(seat.share) for seat in seated]
    return shares(result)


def outcome_words(result: str, seated: list[Seated]) -> str:
    """`alice won`, `alice and bob shared the win`, or '' while there is no result."""
    return won_words([seat.name for seat in seated], seat_shares(result, seated))


def seat_outcome(result: str, number: int, share: str | None = None) -> str:
    """How one seat did: won, lost, or its share of a shared win (its kept share, else
    read from the token)."""
    if share is not None:
        share = Fraction(share)
    else:
        split = shares(result)
        if not split or number >= len(split):
            return ""
        share = split[number]
    return "won" if share == 1 else "lost" if share == 0 else f"shared ({share})"


def listing(filters: GameFilters) -> tuple[list[dict], bool]:
    """The rows of one index page, ready for the template, and whether more follow."""
    games, more = page_of(filters, *LISTED)
    games = public_listing(games)  # running games as of their last ply the public may know
    seated = seats_of([game.id for game in games])
    rows = [{"game": game, "title": ENGINES[game.engine].title if game.engine in ENGINES
             else game.engine, "seats": seated[game.id],
             "outcome": outcome_words(game.result, seated[game.id])
             if game.status == "finished" else ""} for game in games]
    return rows, more


def filters_or_400() -> GameFilters:
    try:
        return GameFilters.from_args(request.args)
    except FilterError as error:
        abort(400, str(error))


@archive.route("/games")
def index():
    filters = filters_or_400()
    unknown_address = False
    if filters.q is not None and "@" in filters.q:
        # An address typed in the search box must not stay in the page's links (the pager,
        # the zip): the search turns into the player's number, or into nothing.
        found = Player.select(Player.id).where(Player.email == filters.q.lower()).scalar()
        if found is not None:
            return redirect(url_for("archive.index",
                                    **filters.to_args(q=None, player=found, page=1)))
        filters, unknown_address = replace(filters, q=None, page=1), True
    rows, more = listing(filters) if not unknown_address else ([], False)
    player = None
    if filters.player is not None:
        player = Player.select(Player.id, Player.name).where(
            Player.id == filters.player).first()
    return render_template("web/games.html", rows=rows, more=more, filters=filters,
                           player=player, engines=ENGINES.values(), statuses=STATUSES,
                           name=display_name, unknown_address=unknown_address)


@archive.route("/players/<int(max=2147483647):player_id>")  # 32-bit ids, as games
def player_page(player_id: int):
    player = Player.select(Player.id, Player.name).where(Player.id == player_id).first()
    if player is None:
        abort(404, f"There is no player number {player_id}.")
    try:
        filters = GameFilters(player=player_id,
                              page=GameFilters.from_args({"page": request.args.get("page")}).page)
    except FilterError as error:
        abort(400, str(error))
    rows, more = listing(filters)
    for row in rows:
        mine = next(s for s in row["seats"] if s.player_id == player_id)
        row["mine"] = seat_outcome(row["game"].result, mine.number, mine.share) \
            if row["game"].status == "finished" else ""
    return render_template("web/player.html", player=player, name=display_name(player.name),
                           rows=rows, more=more, pages=GameFilters(page=filters.page),
                           record=tally(player_id), ratings=player_ratings(player))


def tally(player_id: int) -> dict[str, int]:
    """A player's finished games: how many, won, shared, lost (one query)."""
    counts = {"finished": 0, "won": 0, "shared": 0, "lost": 0, "running": 0}
    rows = (Seat.select(Seat.number, Game.status, Game.result, Seat.share).join(Game)
            .where(Seat.player == player_id, Game.status.in_(("finished", "running")))
            .tuples())
    for number, status, result, share in rows:
        if status == "running":
            counts["running"] += 1
            continue
        counts["finished"] += 1
        outcome = seat_outcome(result, number, share)
        key = outcome.split(" ")[0] if outcome else ""
        if key in counts:
            counts[key] += 1
    return counts


@archive.route("/archive.css")
def stylesheet():
    # A day's caching: pages load it once; a new version shows within a day.
    return served("web/style.css", "text/css")


def served(name: str, mimetype: str) -> Response:
    """A file of the templates as this process read them at its start (pbem.templating:
    an upgrade installed meanwhile does not reach a process before its restart)."""
    response = Response(templating.source(name), mimetype=mimetype)
    response.cache_control.public = True
    response.cache_control.max_age = 86400
    response.add_etag()
    return response.make_conditional(request)


@archive.errorhandler(400)
@archive.errorhandler(404)
def refused(error):
    return render_template("web/error.html", error=error), error.code
