"""Notices that go out at most once a day about one thing, whatever the mail that caused
them: a forger or a stranger who writes a hundred times must not make pbem write to a
player a hundred times.

`once_a_day(key)` claims the day's notice for `key` (what it is about and for whom, e.g.
"unauthenticated:player:17"): true at most once in any 24 hours. The claim is a row of
the `notice` table, so several processes (workers, `pbem ingest`) agree, and it is taken
in the caller's transaction: rolled back with it, it was never taken.

Two notices about mail that was ignored go to a player's registered address, never to
the address the mail came from (that one may be forged, and an answer would be
backscatter; it quotes nothing the sender wrote):

- `tell_of_unauthenticated`: a mail in their name (their reply token, or their address
  as From) failed the DMARC check at our MTA (pbem.intake.authentication);
- `tell_of_other_address`: a mail with their reply token came from an address pbem does
  not know, and how to add a second address (`address add ...`).

And one about a limit a confirmed player reached (pbem.intake.loops, and the rate limit
on mails and page posts, pbem.access): `tell_of_limit` says once a day per limit what the limit is and when it
lifts, so that a person is never left with mail ignored in silence.
"""

from __future__ import annotations

import datetime as dt

from peewee import IntegrityError

from pbem import clock
from pbem.config import Config
from pbem.vocabulary.tokens import read_route
from pbem.players import owner_of
from pbem.policy import letters
from pbem.store import Player, Seat, database
from pbem.store.models import Notice

DAY = dt.timedelta(days=1)


def once_a_day(key: str, now: dt.datetime | None = None) -> bool:
    """True when no notice for `key` went out in the last day (and this one is now
    counted as sent); False otherwise."""
    now = now or clock.now()
    renewed = Notice.update(sent=now).where((Notice.key == key)
                                            & (Notice.sent <= now - DAY)).execute()
    if renewed:
        return True
    if Notice.select().where(Notice.key == key).exists():
        return False
    try:
        with database.atomic():  # a savepoint: a lost race must not end the transaction
            Notice.create(key=key, sent=now)
    except IntegrityError:  # another process took it first
        return False
    return True


def tell_of_unauthenticated(config: Config, mail) -> bool:
    """Tell the player the mail claimed to come from, or was sent to the reply token
    of, that it failed the sender check; True when a notice was queued."""
    player, game_id = _claimed_player(config, mail)
    if player is None or not once_a_day(f"unauthenticated:player:{player.id}"):
        return False
    about = (f"a mail to your reply address for game #{game_id}" if game_id is not None
             else f"a mail from your address {player.email}")
    letters.note(config, player, "[pbem] a mail in your name was not read", [
        f"pbem received {about}, but our mail server could not confirm that it really came "
        f"from you (its sender check, DMARC, did not pass). pbem did not read it and did "
        f"not answer it.",
        "If you sent it, nothing in it was carried out: please send it again, straight "
        "from your own mail provider. Forwarding services, mailing lists and sending "
        "through another provider in your address's name break this check.",
        "If you did not send it, someone wrote in your name, and nothing was done. pbem "
        "tells you of such mail at most once a day.",
    ])
    return True


def tell_of_other_address(config: Config, player: Player, sender: str, game_id: int) -> bool:
    """Tell a seat's player that their reply token came from another address, unknown to
    pbem, and how to add it; True when a notice was queued."""
    if not once_a_day(f"other-address:player:{player.id}"):
        return False
    letters.note(config, player, "[pbem] a mail from another address was ignored", [
        f"pbem received a mail to your reply address for game #{game_id} from {sender}, "
        f"which is not the address pbem knows for you ({player.email}). pbem ignored it "
        f"and sent no answer to {sender}.",
        f"If {sender} is yours too, add it: send a mail saying `address add {sender}` to "
        f"{config.address} from {player.email}. pbem then asks both addresses to confirm; "
        f"after that, mail from either counts as yours.",
        "If it was not you, there is nothing to do. pbem tells you of such mail at most "
        "once a day.",
    ])
    return True


def _claimed_player(config: Config, mail) -> tuple[Player | None, int | None]:
    """The registered player a mail speaks for: the seat of a valid reply token among its
    recipients, else the confirmed player whose address is its From."""
    for address in mail.recipients:
        route = read_route(config.secret_key, address, config.domain)
        if route is not None and route.game is not None:
            seat = (Seat.select(Seat, Player).join(Player)
                    .where((Seat.game == route.game) & (Seat.number == route.seat)).first())
            if seat is not None:
                return seat.player, route.game
    player = owner_of(mail.sender)  # their address, or a confirmed second one
    return (player if player is not None and player.confirmed else None), None


def minute_after(when: dt.datetime) -> str:
    """A time a limit lifts, rounded up to the minute: 'Mon 30 Nov 11:05 UTC'."""
    rounded = when.replace(second=0, microsecond=0)
    if rounded < when:
        rounded += dt.timedelta(minutes=1)
    return rounded.strftime("%a %d %b %H:%M UTC")


def tell_of_limit(config: Config, address: str, limit: str, paragraphs: list[str],
                  in_reply_to: str | None = None) -> bool:
    """Tell the confirmed player of `address` that a mail of theirs reached `limit` (a
    word: "errors-in-a-row", "rate", "rate-unproven") and got no answer, in the caller's
    words (what the limit is, when it lifts); once a day per limit and player. A stranger,
    or an address nobody confirmed, is told nothing: the limits are also what keeps pbem
    from answering floods and robots. True when a notice was queued."""
    player = owner_of(address)
    if player is None or not player.confirmed:
        return False
    if not once_a_day(f"limit:{limit}:player:{player.id}"):
        return False
    letters.note(config, player, "[pbem] your mail was not answered: a limit", paragraphs + [
        "pbem tells you of this limit at most once a day.",
    ], in_reply_to=in_reply_to)
    return True
