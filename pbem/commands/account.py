"""The commands about the writer rather than one game: `games`, `name`, `address`,
`remind`, `digest` and `vacation`. They work in a game's reply and in mail to `pbem@`.
"""

from __future__ import annotations

from pbem.commands.speaker import ADDRESS, Refused, Speaker
from pbem.config import Config
from pbem.vocabulary.words import status
from pbem.play import Table
from pbem.players import clean_name, owner_of
from pbem.policy import digest, invitations, letters, remind
from pbem.store import Address, Game, Player, Request, Seat
from pbem.timekeeping import vacations

MAX_ADDRESSES = 3


def games(speaker: Speaker, rest: str) -> list[str]:
    return [games_text(speaker.player)]


def games_text(player: Player) -> str:
    seats = (Seat.select(Seat, Game).join(Game).where((Seat.player == player)
             & Game.status.in_(["inviting", "running"])).order_by(Game.id))
    lines = []
    for seat in seats:
        table = Table.load(seat.game.id, lock=False)
        lines.append(f"#{table.game.id} {table.engine.title} ({' vs '.join(table.names)}): "
                     + status(table, seat.number))
    return "Your games:\n" + ("\n".join(lines) if lines else "(none running)")


def name(speaker: Speaker, rest: str) -> list[str]:
    player = speaker.player
    chosen = clean_name(rest)
    if not chosen:
        raise Refused("a name is 1 to 30 letters, digits, spaces, dots, hyphens or "
                      "apostrophes, e.g. `name Alice B.`")
    player.name = chosen
    player.save()
    return [f"Your name is now {chosen}."]


def remind_me(speaker: Speaker, here: Table | None = None) -> list[str]:
    return remind.remind(speaker.config, speaker.player, here) or [
        "No game is waiting for you.", games_text(speaker.player)]


def remind_anywhere(speaker: Speaker, rest: str) -> list[str]:
    return remind_me(speaker)


def vacation(speaker: Speaker, rest: str) -> list[str]:
    """`vacation 7d` / `vacation off`: the clocks of all the player's games stand still."""
    try:
        return vacations.command(speaker.config, speaker.player, rest)
    except vacations.NotPossible as error:
        raise Refused(str(error)) from None


def set_digest(speaker: Speaker, rest: str) -> list[str]:
    choice = rest.strip().lower()
    if choice not in ("on", "off"):
        state = "on" if speaker.player.digest else "off"
        raise Refused(f"write `digest on` (one mail a day listing the games waiting for "
                      f"you, instead of a mail after each move) or `digest off`; yours is "
                      f"{state}.")
    return digest.choose(speaker.config, speaker.player, choice == "on")


# -- second addresses ------------------------------------------------------------------

def address(speaker: Speaker, rest: str) -> list[str]:
    """`address add ADDR`, `address remove ADDR`, or `address` alone to list them.

    A second address counts as the player's once both have said so: the `add` comes
    from the player's own address, and the new address answers the request mailed to it.
    Mail to the player still goes to their first address.
    """
    verb, _, text = rest.strip().partition(" ")
    verb = verb.lower()
    found = ADDRESS.findall(text)
    player = speaker.player
    if verb == "add" and len(found) == 1:
        return _add_address(speaker, found[0].lower())
    if verb == "remove" and len(found) == 1:
        gone = (Address.delete().where((Address.player == player)
                                       & (Address.email == found[0].lower())).execute())
        return [f"{found[0]} is no longer one of your addresses." if gone else
                f"{found[0]} was not one of your addresses."]
    if verb:
        raise Refused("write `address add bob.smith@work.example`, `address remove "
                      "bob.smith@work.example`, or `address` to list your addresses.")
    rows = Address.select().where(Address.player == player).order_by(Address.id)
    listed = [f"{row.email}{'' if row.confirmed else ' (waiting for its confirmation)'}"
              for row in rows]
    return [f"Your address: {player.email}. Also yours: "
            + (", ".join(listed) if listed else "none") + "."]


def _add_address(speaker: Speaker, email: str) -> list[str]:
    player, config = speaker.player, speaker.config
    if email == player.email:
        raise Refused(f"{email} is your address already.")
    owner = owner_of(email)
    taken = Address.get_or_none(Address.email == email)
    if owner is not None or (taken is not None and taken.player_id != player.id):
        raise Refused(f"{email} belongs to another player of this server; the operator can "
                      f"merge two players (`pbem admin merge`).")
    if taken is None:
        if Address.select().where(Address.player == player).count() >= MAX_ADDRESSES:
            raise Refused(f"you have {MAX_ADDRESSES} other addresses already; remove one "
                          f"first (`address remove …`).")
        taken = Address.create(player=player, email=email)
    if taken.confirmed:
        return [f"{email} is one of your addresses already."]
    open_request = Request.get_or_none((Request.kind == "address") & Request.open
                                       & (Request.player == player)
                                       & (Request.lines == [email]))
    if open_request is None:
        refusal = invitations.refusal(config, invitations.ADDRESS, player, [email])
        if refusal:  # no mail cannon through `address add`
            raise Refused(refusal)
        open_request = Request.create(kind="address", player=player, lines=[email])
        invitations.to_confirm_address(config, player, email, open_request)
    return [f"A mail went to {email}: answer it from there, and mail from {email} will "
            f"count as yours. Your game mail still comes to {player.email}."]


def confirm_address(config: Config, request: Request, sender: str) -> bool:
    """The new address answered its request: it is the player's now, and they are told
    so. False if the answer did not come from that address."""
    email = request.lines[0] if request.lines else ""
    if sender != email:
        return False
    Address.update(confirmed=True).where((Address.email == email)
                                         & (Address.player == request.player)).execute()
    request.open = False
    request.save()
    letters.address_confirmed(config, request.player, email)
    return True
