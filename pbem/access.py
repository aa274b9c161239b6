"""Who may act for a player, decided once for every door: a seat's link (its page, its
forms and switches, the list of the player's games) and a mail.

- A **ban** (`pbem admin ban`) covers an address or a whole `@domain`. Mail from a
  banned address is dropped unanswered (`address_barred`, asked by pbem.intake), and a
  player is barred (`barred`) when their address, or a second address they confirmed,
  is banned: every seat page of theirs and their list of games answer 403 and nothing
  can be played or said from them, and their mail from any address is dropped too.
- A **seat's link** (`/play/<token>`, pbem.mail.tokens.play_token) reaches its own seat
  only, and only while that seat is live (`seat_access`): the token is genuine, its
  game is inviting or running, its player is neither barred nor forgotten
  (`pbem admin forget`) and has not chosen `web off`. A link of an ended game shows the
  public page and nothing of its player's other games; the list of a player's games
  answers only to a link that may act.

The surfaces (pbem.web.seat_page, pbem.intake.pipeline) ask here and only say the answer
in their own form (a status, a redirect, a mail's outcome).
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.config import Config
from pbem.engines import ENGINES
from pbem.mail.tokens import read_play_token
from pbem.players import is_forgotten
from pbem.store import Address, Game, Player, Seat
from pbem.store.models import Ban

LIVE = ("inviting", "running")  # a seat's page acts for these games only

#: What a visitor with a link that is no (longer a) seat's is told.
NOT_A_LINK = ("This link to a seat is not valid. The link in your latest game mail is; "
              "or write `games` to the server.")
BARRED = ("This address is barred from this server by its administrator: its seat pages, "
          "its list of games and its mail are closed. Nothing can be played, said or "
          "changed from here.")

MAY_ACT, UNKNOWN, BANNED, PUBLIC = "", "unknown", "barred", "public"


@dataclass(frozen=True)
class SeatAccess:
    """What a seat's link may do: act (`kind` MAY_ACT), nothing at all (UNKNOWN: no such
    link; BANNED: its player is barred), or show the public page of its game (PUBLIC:
    the game is over, or its player chose `web off` or was forgotten)."""
    kind: str
    game: Game | None = None
    seat: Seat | None = None  # with its player

    @property
    def may_act(self) -> bool:
        return self.kind == MAY_ACT

    @property
    def words(self) -> str:
        """Why it may not act, for the visitor."""
        return {UNKNOWN: NOT_A_LINK, BANNED: BARRED}.get(self.kind, "")


def seat_access(config: Config, token: str) -> SeatAccess:
    """What the link with `token` may do now (see the module's docstring)."""
    route = read_play_token(config.secret_key, token)
    game = Game.get_or_none(Game.id == route.game) if route else None
    seat = (Seat.select(Seat, Player).join(Player)
            .where((Seat.game == game) & (Seat.number == route.seat)).first()
            if game is not None and game.engine in ENGINES else None)
    if seat is None:
        return SeatAccess(UNKNOWN)
    player = seat.player
    if barred(player):
        return SeatAccess(BANNED, game, seat)
    if is_forgotten(player.email) or not player.web or game.status not in LIVE:
        return SeatAccess(PUBLIC, game, seat)
    return SeatAccess(MAY_ACT, game, seat)


# -- bans ------------------------------------------------------------------------------

def address_barred(address: str) -> bool:
    """Whether the operator banned `address`, or its whole domain."""
    return Ban.covers(address)


def barred(player: Player) -> bool:
    """Whether the player is barred: their address, or a second address of theirs that
    counts as theirs, is banned (the address can act as the player, so the ban is the
    player's)."""
    addresses = [player.email] + list(
        Address.select(Address.email)
        .where((Address.player == player) & Address.confirmed).scalars())
    return any(address_barred(address) for address in addresses)
