"""The web app (Flask app factory): the home page, and the blueprints of the archive.

The home page names the server's address, the games and the latest games; the archive
(index, game pages, players, rules), the exports and the health check are blueprints of
their own. `pbem serve` runs this app; gunicorn runs it through pbem.web.wsgi.
"""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, render_template

from pbem.config import Config
from pbem.engines import ENGINES
from pbem import TEMPLATES
from pbem.store import Game
from pbem.web.archive import archive
from pbem.web.competition import competition
from pbem.web.exports import exports
from pbem.web.game_page import game_page
from pbem.web.health import health_check
from pbem.web.metrics import metrics
from pbem.web.rules import rules

home = Blueprint("home", __name__)


@home.route("/")
def index():
    # Not the snapshots: a game's state can be large, and the list shows none of it.
    games = (Game.select(Game.id, Game.engine, Game.status, Game.result)
             .order_by(Game.id.desc()).limit(20))
    return render_template("web/home.html", config=current_app.config["PBEM"],
                           engines=ENGINES.values(), games=games)


@home.route("/health")
def health():
    return {"ok": True, "games": Game.select().count()}


def create_app(config: Config) -> Flask:
    app = Flask(__name__, template_folder=str(TEMPLATES))
    app.config["PBEM"] = config
    app.register_blueprint(home)
    app.register_blueprint(health_check)  # /healthz, for monitors and load balancers
    app.register_blueprint(metrics)  # /metrics, for Prometheus
    app.register_blueprint(exports)  # records, SGF, SVG, print pages, zip
    app.register_blueprint(archive)  # /games, /players/<id>: the archive's lists
    app.register_blueprint(game_page)  # /games/<id>: one game, any ply
    app.register_blueprint(rules)  # /rules/<engine>, its notation guide
    app.register_blueprint(competition)  # /ratings/<engine>, /tournaments, /seeks
    return app
