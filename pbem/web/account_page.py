"""A player's account on the web (`/play/account/<token>`): their settings, new links,
and every game of theirs with its seat's link — reached only with the account's own
proof (pbem.authority.ACCOUNT_LINK), never with a seat's link.

A seat's link travels with every forwarded mail, so it acts for its seat alone
(pbem.access, pbem.authority.SEAT_LINK): it cannot change the account, cut every link,
or reach the player's other seats. Its page offers instead to mail the registered
address a link to this page (`ask`), valid for LINK_HOURS and signed with the player's
links generation, so `link new` (here or by mail) ends it too. The token names the
player by their public number (the archive's `/players/<id>`) and its expiry; its MAC
is what proves it. The forms carry the same CSRF token as the seat pages' (the cookie
lives under `/play`), and each post counts against PBEM_RATE_LIMIT as a seat page's
does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re

from flask import abort, redirect, render_template, request, url_for

from pbem import access
from pbem.authority import ACCOUNT, ACCOUNT_LINK, Proof, may
from pbem.commands.web import choose_pictures
from pbem.players import is_forgotten
from pbem.policy import letters
from pbem.store import Game, Player, Seat, transaction
from pbem.store.models import utcnow
from pbem.web.seat_page import (config, csrf_refusal, csrf_token, form_cookie, game_rows,
                                kick_delivery, live_seat, post_refusal, render, seat_page,
                                with_form_cookie)

LINK_HOURS = 1
TOKEN = re.compile(r"^(?P<player>\d{1,10})-(?P<expires>\d{1,12})-(?P<mac>[0-9a-f]{32})$")


def account_token(player: Player, expires: int | None = None) -> str:
    """A link's token for the player's account page, valid until `expires` (epoch
    seconds; LINK_HOURS from now by default) and while their links' generation stands."""
    if expires is None:
        expires = int((utcnow() + dt.timedelta(hours=LINK_HOURS))
                      .replace(tzinfo=dt.timezone.utc).timestamp())
    return f"{player.id}-{expires}-{_mac(player, expires)}"


def _mac(player: Player, expires: int) -> str:
    message = f"account-page/{player.id}/{player.links}/{expires}".encode()
    return hmac.new(config().secret_key.encode(), message, hashlib.sha256).hexdigest()[:32]


def account_of(token: str) -> Player | None:
    """The player whose account page `token` opens now, or None: a token of another
    generation, expired, forged, or of a player who is barred or forgotten."""
    found = TOKEN.match(token)
    if not found:
        return None
    player = Player.get_or_none(Player.id == int(found["player"]))
    expires = int(found["expires"])
    now = utcnow().replace(tzinfo=dt.timezone.utc).timestamp()
    if player is None or expires < now or expires > now + LINK_HOURS * 3600 + 60:
        return None
    if not hmac.compare_digest(_mac(player, expires), found["mac"]):
        return None
    if access.barred(player) or is_forgotten(player.email):
        return None
    return player


def proven_account(token: str) -> Player:
    """The account page's player, asked of the one table (pbem.authority): 404 else."""
    player = account_of(token)
    if player is None or not may(Proof(ACCOUNT_LINK), ACCOUNT):
        abort(404, "This link to an account's page is not valid: it works for an hour, "
                   "and until its player asks for new links. Ask for a new one from any "
                   "of your seats' pages.")
    return player


# -- asked for from a seat's page -------------------------------------------------------

@seat_page.route("/play/<token>/account", methods=["POST"])
@live_seat
def ask(token: str, game: Game, seat: Seat):
    """Mail the seat's player a link to their account's page, at their registered
    address: whoever holds this seat's link learns nothing of it."""
    refused = post_refusal(token, seat)
    if refused:
        return render(token, game, seat, refusal=f"No link was mailed: {refused[0]}.",
                      status=refused[1])
    with transaction():
        url = f"{config().web_url}{url_for('seat_page.account', token=account_token(seat.player))}"
        letters.account_link(config(), seat.player, url, LINK_HOURS)
    kick_delivery()
    return render(token, game, seat, notice=(
        f"A link to your account's page went to your address; it works for "
        f"{LINK_HOURS} hour and until you ask for new links."))


# -- the page ------------------------------------------------------------------------------

@seat_page.route("/play/account/<token>")
def account(token: str):
    player = proven_account(token)
    cookie, new = form_cookie()
    page = render_template("web/account.html", player=player, rows=game_rows(player, private=True),
                           token=token, csrf=csrf_token(cookie, token),
                           renewed=request.args.get("links") == "new",
                           done=request.args.get("done") == "pictures")
    return with_form_cookie(page, cookie, new)


def _posted(token: str) -> Player:
    """The account page's player for a post from its own form, within the rate limit."""
    player = proven_account(token)
    why = csrf_refusal(token)
    if why:
        abort(403, f"Nothing was changed: {why}.")
    with transaction():
        limit = access.post_refusal(config(), player)
    if limit:
        kick_delivery()
        abort(429, "Nothing was changed: " + " ".join(limit[:2]))
    return player


@seat_page.route("/play/account/<token>/pictures", methods=["POST"])
def pictures(token: str):
    """`pictures on|off`: the same setting and words as by mail."""
    player = _posted(token)
    choice = request.form.get("pictures", "")
    if choice not in ("on", "off"):
        abort(400, "The form said neither on nor off.")
    with transaction():
        choose_pictures(player, choice == "on")
    return redirect(url_for("seat_page.account", token=token, done="pictures"), 303)


@seat_page.route("/play/account/<token>/links", methods=["POST"])
def links(token: str):
    """`link new`: every link of the player's seats made before, and this page's, stop
    working now (pbem.access.renew_links); the page moves to its own new link."""
    player = _posted(token)
    with transaction():
        access.renew_links(player)
    return redirect(url_for("seat_page.account", token=account_token(player), links="new"),
                    303)
