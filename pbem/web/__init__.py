"""The web app (Flask app factory): for now a home page saying how to play by mail.

The archive of games comes with its own blueprints; this keeps `pbem serve` useful from
the first run: it names the server's address, the games, and the games being played.
"""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, render_template

from pbem.config import Config
from pbem.engines import ENGINES
from pbem.mail.compose import TEMPLATES
from pbem.store import Game

home = Blueprint("home", __name__)


@home.route("/")
def index():
    games = Game.select().order_by(Game.id.desc()).limit(20)
    return render_template("web/home.html", config=current_app.config["PBEM"],
                           engines=ENGINES.values(), games=games)


@home.route("/health")
def health():
    return {"ok": True, "games": Game.select().count()}


def create_app(config: Config) -> Flask:
    app = Flask(__name__, template_folder=str(TEMPLATES))
    app.config["PBEM"] = config
    app.register_blueprint(home)
    return app
