"""The read-only JSON API for tools and viewers: `/api/games` (the index, with its
filters), `/api/games/<id>` (players, options, status, the moves as public text) and
`/api/games/<id>/ply/<n>` (the public view after ply n). Its schema is in the README.

The same secrecy as the pages, from the same functions: a running game is read as of
its last ply the public may know of (pbem.export.public.as_public), its moves by their
public text (pbem.web.game_page.move_list), its position from `view(state, None)`; once
finished, every move in full, the seed, and each seat's view too. No address, no seat
token, nothing a page would not show. Errors are JSON too: `{"error": "…"}` with 400 or
404 and a sentence saying what exists.
"""

from __future__ import annotations

from dataclasses import replace

from flask import Blueprint, abort, jsonify, url_for

from pbem.engines import ENGINES
from pbem.export.public import as_public
from pbem.store import Game, Player
from pbem.web.archive import Seated, filters_or_400, listing, outcome_words, seats_of
from pbem.web.game_page import move_list, seat_labels, state_at, waiting_for

api = Blueprint("api", __name__)
VERSION = 1


@api.errorhandler(400)
@api.errorhandler(404)
def refused(error):
    return jsonify(error=error.description), error.code


def _time(moment) -> str | None:
    return moment.isoformat(timespec="seconds") + "Z" if moment else None


def players(game: Game, seated: list[Seated], state=None) -> list[dict]:
    """The seats, each named as the game names it now (`state`: the public's; after an
    Onyx swap, the colour each plays)."""
    engine = ENGINES[game.engine]
    labels = seat_labels(engine, game.options, len(seated), state)
    return [{"seat": s.number, "label": labels[s.number], "player": s.player_id,
             "name": s.name, "share": s.share if game.status == "finished" else None}
            for s in seated]


def summary(game: Game, seated: list[Seated], state=None) -> dict:
    engine = ENGINES[game.engine]
    return {"id": game.id, "game": game.engine, "title": engine.title, "status": game.status,
            "result": game.result, "plies": game.plies, "created": _time(game.created),
            "updated": _time(game.updated), "players": players(game, seated, state),
            "outcome": outcome_words(game.result, seated) if game.status == "finished" else "",
            "url": url_for("api.game", game_id=game.id, _external=False),
            "page": url_for("game_page.show", game_id=game.id)}


@api.route("/api/games")
def games():
    filters = filters_or_400()
    if filters.q is not None and "@" in filters.q:  # an address: its player, never echoed
        found = Player.select(Player.id).where(Player.email == filters.q.lower()).scalar()
        if found is None:
            return jsonify(version=VERSION, page=1, more=False, games=[])
        filters = replace(filters, q=None, player=found, page=1)
    rows, more = listing(filters)
    # The index reads no options (pbem.web.archive.LISTED); the seat labels need them.
    options = dict(Game.select(Game.id, Game.options)
                   .where(Game.id.in_([row["game"].id for row in rows])).tuples())
    for row in rows:
        row["game"].options = options[row["game"].id]
    states = labelling_states([row["game"] for row in rows])
    return jsonify(version=VERSION, page=filters.page, more=more,
                   games=[summary(row["game"], row["seats"], states.get(row["game"].id))
                          for row in rows])


def labelling_states(games: list[Game]) -> dict:
    """The public state of each game whose seats a move may rename (Onyx after a swap:
    `labels_change`), by id, read in one query; the others need none."""
    ids = [game.id for game in games
           if game.engine in ENGINES and ENGINES[game.engine].labels_change]
    if not ids:
        return {}
    rows = Game.select(Game.id, Game.engine, Game.status, Game.plies, Game.shown_plies,
                       Game.updated, Game.state).where(Game.id.in_(ids))
    return {game.id: ENGINES[game.engine].from_json(game.state)
            for game in map(as_public, rows) if game.state is not None}


def public_game(game_id: int) -> Game:
    game = Game.get_or_none(Game.id == game_id)
    if game is None or game.engine not in ENGINES:
        abort(404, f"There is no game number {game_id}.")
    return as_public(game)


@api.route("/api/games/<int(max=2147483647):game_id>")
def game(game_id: int):
    game = public_game(game_id)
    engine = ENGINES[game.engine]
    seated = seats_of([game.id])[game.id]
    finished = game.status == "finished"
    plies, before = move_list(game, seated, finished)
    current = engine.from_json(game.state) if game.state is not None else None
    body = summary(game, seated, current)
    body.update(
        options={option.name: game.options.get(option.name, option.default)
                 for option in engine.options},
        termination=game.termination, waiting=waiting_for(engine, game, current, seated),
        commitment=game.commitment if engine.dealt else None,
        seed=game.seed if finished and engine.dealt else None,
        comments=before,
        moves=[{"ply": p.number, "actor": p.actor, "dealer": p.dealer, "text": p.text,
                "comments": p.comments} for p in plies])
    return jsonify(version=VERSION, **body)


@api.route("/api/games/<int(max=2147483647):game_id>/ply/<int:ply>")
def position(game_id: int, ply: int):
    game = public_game(game_id)
    engine = ENGINES[game.engine]
    if game.state is None:
        abort(404, f"Game #{game_id} has not started: it has no positions yet.")
    if ply > game.plies:
        abort(404, f"Game #{game_id} has plies 0 to {game.plies}; there is no ply {ply}.")
    seated = seats_of([game.id])[game.id]
    state = state_at(game, engine, ply, len(seated))
    body = {"id": game.id, "game": game.engine, "ply": ply, "last": game.plies,
            "view": engine.view(state, None), "seats": None}
    if game.status == "finished":  # the pages show each player's view once it is over
        labels = seat_labels(engine, game.options, len(seated), state)
        body["seats"] = [{"seat": s.number, "label": labels[s.number], "name": s.name,
                          "view": engine.view(state, s.number)} for s in seated]
    return jsonify(version=VERSION, **body)

