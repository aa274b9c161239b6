"""The competition's pages: a game's leaders (`/ratings/<game>`), the tournaments
(`/tournaments`, `/tournaments/<id>`) and the open challenges (`/seeks`). Players are
named by display name and linked by number, never by address, as in the archive."""

from __future__ import annotations

from flask import Blueprint, abort, render_template

from pbem.competition import rounds, seeks
from pbem.bookkeeping import rated
from pbem.competition.plot import history_svg
from pbem.competition.standings import number
from pbem.competition.tournaments import describe
from pbem.engines import ENGINES
from pbem.play import display_name
from pbem.store import Game
from pbem.store.models import Player
from pbem.store.competition_models import Pairing, Tournament

competition = Blueprint("competition", __name__)

MIN_GAMES = 3  # rated games a player needs to appear among a game's leaders


@competition.route("/ratings")
def ratings_index():
    return render_template("web/ratings.html", engine=None, engines=ENGINES.values(),
                           leaders=[], min_games=MIN_GAMES, name=display_name)


@competition.route("/ratings/<engine_id>")
def leaders(engine_id: str):
    engine = ENGINES.get(engine_id)
    if engine is None:
        abort(404, f"There is no game {engine_id!r}; the games: {', '.join(ENGINES)}.")
    return render_template("web/ratings.html", engine=engine, engines=ENGINES.values(),
                           leaders=rated.leaders(engine.id, MIN_GAMES), min_games=MIN_GAMES,
                           name=display_name)


def player_ratings(player: Player) -> list[dict]:
    """A player's rating in each game, with its history drawn (the player's page)."""
    shown = []
    for engine_id, rating in rated.ratings_of(player):
        points = [(mu, sigma) for _, mu, sigma in rated.history(player.id, engine_id)]
        title = ENGINES[engine_id].title if engine_id in ENGINES else engine_id
        shown.append({"engine": title, "engine_id": engine_id, "rating": rating,
                      "svg": history_svg(points, f"{title} rating")})
    return shown


@competition.route("/tournaments")
def tournaments():
    rows = Tournament.select().order_by(Tournament.id.desc()).limit(100)
    return render_template("web/tournaments.html", rows=[(t, describe(t)) for t in rows])


@competition.route("/tournaments/<int(max=2147483647):tournament_id>")
def tournament(tournament_id: int):
    found = Tournament.get_or_none(Tournament.id == tournament_id)
    if found is None:
        abort(404, f"There is no tournament number {tournament_id}.")
    table, names = rounds.table_of(found)
    entrants = {e.player_id: e for e in found.entrants}
    played = {}
    for row in Pairing.select().where(Pairing.tournament == found).order_by(Pairing.round,
                                                                           Pairing.id):
        game = Game.get_or_none(Game.id == row.game_id) if row.game_id else None
        played.setdefault(row.round, []).append({
            "players": [(p, names.get(p, display_name(entrants[p].player.name))
                         if p in entrants else "?") for p in row.players],
            "game": game, "shares": row.shares})
    return render_template("web/tournament.html", tournament=found, about=describe(found),
                           table=table, names=names, rounds=played, number=number,
                           swiss=found.kind == "swiss",
                           waiting=[display_name(e.player.name) for e in found.entrants
                                    if e.answer is None])


@competition.route("/seeks")
def open_seeks():
    return render_template("web/seeks.html", seeks=seeks.open_seeks(), describe=seeks.describe)

