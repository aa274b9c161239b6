"""Who may act for a player, decided once for every door: a seat's link (its page, its
forms and switches, the list of the player's games) and a mail.

- A **ban** (`pbem admin ban`) covers an address or a whole `@domain`. Mail from a
  banned address is dropped unanswered (`address_barred`, asked by pbem.intake), and a
  player is barred (`barred`) when their address, or a second address they confirmed,
  is banned: every seat page of theirs and their list of games answer 403 and nothing
  can be played or said from them, their mail from any address is dropped too, and
  what they arranged in advance (`if` lines, held commands, queued cards: pbem.commands)
  is not played for them while the ban lasts.
- A **seat's link** (`/play/<token>`, pbem.vocabulary.tokens.play_token) reaches its own seat
  only, and only while that seat is live (`seat_access`): the token is genuine, its
  game is inviting or running, its player is neither barred nor forgotten
  (`pbem admin forget`) and has not chosen `web off`. A link of an ended game shows the
  public page and nothing of its player's other games; the list of a player's games
  answers only to a link that may act.
- A player **cuts every link** they were ever mailed with `link new` (by mail, or the
  button on a seat's page): `renew_links` adds one to their links' generation
  (`player.links`, mixed into every token), so each old link is dead at once, and says
  the new ones. Links mailed before generations existed are generation 0, and go on
  working until their player asks for new ones.
- **How often**: PBEM_RATE_LIMIT counts, within the hour, the mails from an address
  that proved to be its player's (pbem.authority: a reply token of theirs, an aligned
  DMARC pass, a confirmation) and the posts from their seat pages together
  (`sent_last_hour`); past it, mail is dropped and a post refused, and the player is
  told once a day, the same notice whichever door they used (`over_rate`,
  `post_refusal`). Mail that proves nothing (a From header anyone can write) counts
  apart, as a stranger's from that address, against the same number: forged mail
  never spends a player's budget, so it can never lock them out.

The surfaces (pbem.web.seat_page, pbem.intake.pipeline) ask here and only say the answer
in their own form (a status, a redirect, a mail's outcome).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from peewee import fn

from pbem.config import Config
from pbem.engines import ENGINES
from pbem.vocabulary.tokens import is_play_token, play_route, play_token
from pbem.vocabulary.words import status
from pbem.play import Table
from pbem.players import is_forgotten
from pbem.policy import notices
from pbem.store import Address, Game, Inbound, Player, Seat
from pbem.store.models import Ban, PagePost, utcnow
from pbem.store.prepared import Prepared

LIVE = ("inviting", "running")  # a seat's page acts for these games only

#: What a visitor with a link that is no (longer a) seat's is told.
NOT_A_LINK = ("This link to a seat is not valid: a link stops working when its player "
              "asks for new ones (`link new`). The link in your latest game mail is; or "
              "write `games` to the server.")
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
    route = play_route(token)
    game = Game.get_or_none(Game.id == route.game) if route else None
    seat = (Seat.select(Seat, Player).join(Player)
            .where((Seat.game == game) & (Seat.number == route.seat)).first()
            if game is not None and game.engine in ENGINES else None)
    # An old generation's link, a forged one and no seat at all look the same.
    if seat is None or not is_play_token(config.secret_key, token, route, seat.player.links):
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


def barred(player: Player, cleared: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether the player is barred: their address, or a second address of theirs that
    counts as theirs, is banned (the address can act as the player, so the ban is the
    player's). `cleared`: addresses (lower-case) this transaction found not banned
    already, not asked again (the mail's own sender, for pbem.intake)."""
    addresses = [player.email] + [email for (email,) in _ALIASES.rows(player.id)]
    return any(address_barred(address) for address in addresses
               if address.lower() not in cleared)


# Asked of every mail a player sends (pbem.intake): written once (pbem.store.prepared).
_ALIASES = Prepared(lambda player: Address.select(Address.email)
                    .where((Address.player == player) & Address.confirmed).tuples())


# -- the links ---------------------------------------------------------------------------

def page_token(config: Config, game_id: int, seat: int, player: Player) -> str:
    """The token of the seat's page, under its player's current generation."""
    return play_token(config.secret_key, game_id, seat, player.links)


def renew_links(player: Player) -> None:
    """`link new`: every link of the player's seats made before stops working now."""
    Player.update(links=Player.links + 1).where(Player.id == player.id).execute()
    player.links = Player.select(Player.links).where(Player.id == player.id).scalar()


def live_seats(player: Player) -> list[Seat]:
    """The player's seats in games that are inviting or running, with their games."""
    return list(Seat.select(Seat, Game).join(Game)
                .where((Seat.player == player) & Game.status.in_(LIVE)).order_by(Game.id))


def links_words(config: Config, player: Player) -> list[str]:
    """What `link new` answers, by mail and on the page: the new link of every live
    seat of the player."""
    rows = []
    for seat in live_seats(player):
        table = Table.load(seat.game.id, lock=False)
        url = f"{config.web_url}/play/{page_token(config, seat.game.id, seat.number, player)}"
        rows.append(f"#{seat.game.id} {table.engine.title} ({' vs '.join(table.names)}): "
                    f"{status(table, seat.number)}\n  {url}")
    words = ["New links to your seats' pages: every link to them mailed before no longer "
             "works, wherever it was forwarded. Your game mails carry the new ones."]
    if not player.web:
        words.append("You chose `web off`: the links open your seats' pages once you "
                     "write `web on`.")
    words.append("Your games, each with its new link (private, do not share them):\n"
                 + "\n".join(rows) if rows else "You have no game running now.")
    return words


# -- how often -------------------------------------------------------------------------

HOUR = dt.timedelta(hours=1)
_MAILS_SINCE = Prepared(lambda address, since, proven: Inbound.select(fn.COUNT(Inbound.id))
                        .where((Inbound.sender == address) & (Inbound.received >= since)
                               & (Inbound.proven == proven)))
# A player's proven mails and page posts in one statement (a move by mail asks it).
_PROVEN_SINCE = Prepared(lambda address, since: Inbound.select(
    fn.COUNT(Inbound.id) + PagePost.select(fn.COUNT(PagePost.id)).where(
        (PagePost.address == address) & (PagePost.created >= since)))
    .where((Inbound.sender == address) & (Inbound.received >= since) & (Inbound.proven == True)))  # noqa: E712


def sent_last_hour(address: str, now: dt.datetime | None = None, proven: bool = True) -> int:
    """Within the hour: the mails from `address` proven to be its player's and the posts
    from the player's seat pages (`proven`), or the mails from it that proved nothing
    (a stranger's count). Each is a count PBEM_RATE_LIMIT limits."""
    since = (now or utcnow()) - HOUR
    if not proven:
        return _MAILS_SINCE.scalar(address, since, False)
    return _PROVEN_SINCE.scalar(address, since)


def over_rate(config: Config, address: str, proven: bool = True, unmarked: int = 0,
              in_reply_to: str | None = None) -> int:
    """How many mails (and posts) `address` sent within the hour, in the count of the one
    just recorded, when that passes PBEM_RATE_LIMIT (and its player was told, once a
    day); 0 while it does not. `unmarked`: this request's own mail, when it proved to be
    the player's but is not marked so yet (the pipeline marks it with its outcome, in
    its last statement)."""
    count = sent_last_hour(address, proven=proven) + unmarked
    if count <= config.rate_limit:
        return 0
    words = (rate_words(address, config.rate_limit, unmarked=unmarked) if proven
             else unproven_rate_words(address, config.rate_limit))
    notices.tell_of_limit(config, address, "rate" if proven else "rate-unproven", words,
                          in_reply_to=in_reply_to)
    return count


def post_refusal(config: Config, player: Player) -> list[str]:
    """A post from the player's seat page is counted as a mail from their address is;
    past PBEM_RATE_LIMIT, why it is refused (the limit, when it lifts); else []. Runs in
    the caller's transaction."""
    PagePost.delete().where((PagePost.address == player.email)
                            & (PagePost.created < utcnow() - HOUR)).execute()  # spent
    PagePost.create(address=player.email)
    if not over_rate(config, player.email):
        return []
    return rate_words(player.email, config.rate_limit)


def rate_words(address: str, rate_limit: int, now: dt.datetime | None = None,
               unmarked: int = 0) -> list[str]:
    """The limit on mails and page posts an hour from one address: what it is, and when
    it lifts (when fewer than `rate_limit` of the hour's are left in the hour; `unmarked`
    mails of now not marked proven yet, as over_rate's)."""
    now = now or utcnow()
    since = now - HOUR
    lifts = _lifting([*[now] * unmarked, *Inbound.select(Inbound.received)
                      .where((Inbound.sender == address) & (Inbound.received >= since)
                             & Inbound.proven).scalars(),
                      *PagePost.select(PagePost.created)
                      .where((PagePost.address == address) & (PagePost.created >= since))
                      .scalars()], rate_limit, now)
    return [
        f"pbem reads at most {rate_limit} mails and posts from your seats' pages an hour "
        f"from one address (PBEM_RATE_LIMIT, both counted together), and you have sent "
        f"more: those of the last hour past that number were not read or carried out.",
        f"The limit lifts after {notices.minute_after(lifts)} if you send nothing more "
        f"before then (every mail and post counts, the refused ones too). Then send again "
        f"what was not carried out; a move can carry several lines, and one mail can hold "
        f"several commands.",
        "If you did not send so many, someone wrote in your name; nothing past the limit "
        "was carried out.",
    ]


def unproven_rate_words(address: str, rate_limit: int, now: dt.datetime | None = None) -> list[str]:
    """The limit on mails an hour from one address that prove nothing (pbem.authority):
    what it is, when it lifts, and that the player's own replies are not touched."""
    now = now or utcnow()
    lifts = _lifting(Inbound.select(Inbound.received)
                     .where((Inbound.sender == address) & (Inbound.received >= now - HOUR)
                            & ~Inbound.proven).scalars(), rate_limit, now)
    return [
        f"pbem got more than {rate_limit} mails within an hour from {address} that carried "
        f"no proof of being yours (they were not replies to pbem's mails): those past that "
        f"number were not read or carried out.",
        f"This lifts after {notices.minute_after(lifts)}. Your replies to pbem's mails are "
        f"not affected: their reply address proves them yours, and they count apart.",
        "If you did not send so many, someone wrote in your name; nothing they sent was "
        "carried out without your confirmation.",
    ]


def _lifting(times, rate_limit: int, now: dt.datetime) -> dt.datetime:
    """When a limit of `rate_limit` an hour lifts, given the times of the hour's events:
    when fewer than `rate_limit` of them are left in the hour."""
    latest = sorted(times, reverse=True)[:rate_limit]
    return latest[-1] + HOUR if len(latest) >= rate_limit else now
