"""The commands about the web beside mail: `web on|off` (a link to each seat's page in
the game mails, or mail only), `link new` (new links to every seat's page, the old ones
dead at once: pbem.access), `pictures on|off` (the position as a picture in each game
mail's HTML, drawn as the web draws it, or as text only) and `follow N` / `unfollow N` (a spectator gets the public
view of a game by mail, once per turn; pbem.policy.conversation decides when).

All are account commands: they work in a game's reply and in mail to `pbem@`. Following
needs no seat, only a confirmed address, which the pipeline has asked for already.
"""

from __future__ import annotations

from peewee import fn

from pbem import access
from pbem.commands.speaker import Refused, Speaker
from pbem.store import Comment, Game, Seat
from pbem.store.models import Follow

FOLLOWING_AT_MOST = 50


def web(speaker: Speaker, rest: str) -> list[str]:
    choice = rest.strip().lower()
    player = speaker.player
    if choice not in ("on", "off"):
        state = "on" if player.web else "off"
        raise Refused(f"write `web on` (each game mail links your seat's private page, "
                      f"where you can also move) or `web off` (mail only); yours is {state}.")
    player.web = choice == "on"
    player.save()
    if player.web:
        return ["Your game mails will link your seat's page, where you can also move."]
    return ["Mail only: your game mails carry no link to a seat's page, and the links "
            "sent before show only the public page now."]


def link(speaker: Speaker, rest: str) -> list[str]:
    """`link new`: new links to all the player's seats' pages; every link mailed before
    stops working at once. The answer carries the new links."""
    if rest.strip().lower() != "new":
        raise Refused("write `link new`: every seat of yours gets a new private link, and "
                      "every link mailed before stops working at once.")
    access.renew_links(speaker.player)
    return access.links_words(speaker.config, speaker.player)


def pictures(speaker: Speaker, rest: str) -> list[str]:
    choice = rest.strip().lower()
    player = speaker.player
    if choice not in ("on", "off"):
        state = "on" if player.pictures else "off"
        raise Refused(f"write `pictures on` (each game mail shows the position as a "
                      f"picture) or `pictures off` (as text only); yours is {state}.")
    return choose_pictures(player, choice == "on")


def choose_pictures(player, on: bool) -> list[str]:
    """`pictures on|off`, by mail or from a seat's page: what the player is told."""
    player.pictures = on
    player.save()
    if on:
        return ["Pictures on: your game mails show the position as a picture (their text "
                "part is as before)."]
    return ["Pictures off: your game mails show the position as text only."]


def _game(rest: str, verb: str) -> Game:
    number = rest.strip().lstrip("#")
    if not (number.isascii() and number.isdigit()):
        raise Refused(f"write the game's number after `{verb}`, e.g. `{verb} 12`.")
    game = Game.get_or_none(Game.id == int(number))
    if game is None:
        raise Refused(f"there is no game #{number}; `games` lists yours, and the web "
                      f"archive lists them all.")
    return game


def follow(speaker: Speaker, rest: str) -> list[str]:
    """Mail me the public view of game N once per turn, from its next turn on."""
    game = _game(rest, "follow")
    if game.status in ("finished", "cancelled"):
        raise Refused(f"game #{game.id} is {game.status}: there is nothing left to follow.")
    player = speaker.player
    if Seat.select().where((Seat.game == game) & (Seat.player == player)).exists():
        raise Refused(f"you play in game #{game.id}: its mails reach you already.")
    if Follow.select().where(Follow.player == player).count() >= FOLLOWING_AT_MOST:
        raise Refused(f"you follow {FOLLOWING_AT_MOST} games already; `unfollow N` one first.")
    said = Comment.select(fn.MAX(Comment.id)).where(Comment.game == game).scalar() or 0
    Follow.get_or_create(player=player, game=game,  # from now on: plies and comments
                         defaults={"told": game.plies, "heard": said})
    return [f"You follow game #{game.id}: you will get its public view by mail once per "
            f"turn. `unfollow {game.id}` stops it."]


def unfollow(speaker: Speaker, rest: str) -> list[str]:
    game = _game(rest, "unfollow")
    gone = Follow.delete().where((Follow.player == speaker.player)
                                 & (Follow.game == game)).execute()
    if not gone:
        raise Refused(f"you do not follow game #{game.id}.")
    return [f"You no longer follow game #{game.id}."]
