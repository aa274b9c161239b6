"""The web app (Flask app factory): the home page, and the blueprints of the archive.

The home page names the server's address, the games and the latest games; the archive
(index, game pages, players, rules), the exports and the health check are blueprints of
their own. `pbem serve` runs this app; gunicorn runs it through pbem.web.wsgi.
"""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, render_template

from pbem.config import Config
from pbem.web.api import api
from pbem.engines import ENGINES
from pbem import templating
from pbem.store import Game
from pbem.web.annotated import annotated
from pbem.web.archive import archive
from pbem.web.competition import competition
from pbem.web.exports import exports
from pbem.web.feeds import feeds
from pbem.web.game_page import game_page
from pbem.web.health import health_check
from pbem.web.mailbox import available, mailbox
from pbem.web.metrics import metrics
from pbem.web.rules import rules
from pbem.web.seat_page import seat_page
from pbem.web import seat_lines  # noqa: F401  (its routes are the seat page's: /play/<token>/lines)
from pbem.web import account_page  # noqa: F401  (the account's page: /play/account/<token>)
from pbem.web.verify import verify

home = Blueprint("home", __name__)


@home.route("/")
def index():
    # Not the snapshots: a game's state can be large, and the list shows none of it.
    games = (Game.select(Game.id, Game.engine, Game.status, Game.result)
             .order_by(Game.id.desc()).limit(20))
    return render_template("web/home.html", config=current_app.config["PBEM"],
                           engines=ENGINES.values(), games=games,
                           mailbox=current_app.config.get("PBEM_MAILBOX"))


@home.route("/health")
def health():
    return {"ok": True, "games": Game.select().count()}


def create_app(config: Config, after_move=None, with_mailbox: bool = False) -> Flask:
    """`after_move`: called after a move from a seat's page has been committed (`pbem
    serve` kicks its delivery and bots, as after mail in; without it, the worker's
    scheduler finds the outbox and the bots' turns at its next tick). `with_mailbox`:
    the local mailbox (pbem.web.mailbox), which `pbem serve` alone asks for, and gets only
    where `mailbox.available` allows it."""
    app = Flask(__name__, template_folder=None)
    # Every template read now and kept: an upgrade installed under the running web does
    # not reach it before its restart (pbem.templating).
    app.jinja_loader = templating.loader()
    app.config["PBEM"] = config
    app.config["PBEM_AFTER_MOVE"] = after_move
    app.register_blueprint(home)
    app.register_blueprint(health_check)  # /healthz, for monitors and load balancers
    app.register_blueprint(metrics)  # /metrics, for Prometheus
    app.register_blueprint(exports)  # records, SGF, SVG, print pages, zip
    app.register_blueprint(archive)  # /games, /players/<id>: the archive's lists
    app.register_blueprint(game_page)  # /games/<id>: one game, any ply
    app.register_blueprint(rules)  # /rules/<engine>, its notation guide
    app.register_blueprint(competition)  # /ratings/<engine>, /tournaments, /seeks
    app.register_blueprint(seat_page)  # /play/<token>: a seat's private page
    app.register_blueprint(api)  # /api/games…: the read-only JSON API
    app.register_blueprint(feeds)  # /games/<id>.atom, /players/<id>.atom
    app.register_blueprint(annotated)  # /games/<id>/annotated/<n>: published annotations
    app.register_blueprint(verify)  # /verify: a deal checked in the visitor's browser
    app.config["PBEM_MAILBOX"] = with_mailbox and available(config) is None
    if app.config["PBEM_MAILBOX"]:
        app.register_blueprint(mailbox)  # /mailbox: the kept mail, on loopback only
    return app
