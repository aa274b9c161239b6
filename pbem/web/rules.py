"""The rules pages: a summary per game (`/rules/<engine>`) and its notation guide
(`/rules/<engine>/notation`), plus the record format they share (`/rules/record`).

The guides are the very files in `notation/` (package data of the `notation` package),
rendered with the `markdown` library, so the page and the repository never disagree.
Their links to each other (`onix.md`, `README.md`) become links between these pages.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

import markdown
from flask import Blueprint, abort, render_template, request, url_for
from markupsafe import Markup

from pbem.engines import ENGINES
from pbem.web.archive import refused

rules = Blueprint("rules", __name__)
rules.register_error_handler(404, refused)

GUIDE_LINK = re.compile(r'href="([a-z]+)\.md(#[^"]*)?"', re.IGNORECASE)


@lru_cache(maxsize=None)
def guide_html(name: str, script_root: str) -> str:
    """notation/<name>.md as HTML (the files ship with pbem, so read once)."""
    text = resources.files("notation").joinpath(f"{name}.md").read_text(encoding="utf-8")
    html = markdown.markdown(text, extensions=["tables", "fenced_code"])

    def relink(match: re.Match) -> str:
        target, anchor = match.group(1).lower(), match.group(2) or ""
        if target in ENGINES:
            return f'href="{script_root}/rules/{target}/notation{anchor}"'
        if target == "readme":
            return f'href="{script_root}/rules/record{anchor}"'
        if target == "dealing":
            return f'href="{script_root}/rules/dealing{anchor}"'
        return match.group(0)
    return GUIDE_LINK.sub(relink, html)


def engine_or_404(engine_id: str):
    engine = ENGINES.get(engine_id.lower())
    if engine is None:
        abort(404, f"There is no game {engine_id!r} here; the games are: {', '.join(ENGINES)}.")
    return engine


@rules.route("/rules")
def index():
    return render_template("web/rules.html", engines=ENGINES.values())


@rules.route("/rules/<engine_id>")
def game(engine_id: str):
    if engine_id == "record":
        return guide("README", "The game record")
    if engine_id == "dealing":
        return guide("dealing", "Checking the deal")
    engine = engine_or_404(engine_id)
    return render_template("web/rules_game.html", engine=engine,
                           summary=f"web/rules/{engine.id}.html")


@rules.route("/rules/<engine_id>/notation")
def notation(engine_id: str):
    engine = engine_or_404(engine_id)
    return guide(engine.id, f"{engine.title} notation", engine)


def guide(name: str, title: str, engine=None):
    html = Markup(guide_html(name, request.script_root))
    return render_template("web/notation.html", title=title, html=html, engine=engine,
                           record_url=url_for("rules.game", engine_id="record"))
