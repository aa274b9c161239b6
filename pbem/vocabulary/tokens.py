"""Reply tokens: the part after `pbem+` in the address a player replies to.

A token names a seat of a game (`12-1-<mac>`: game 12, seat 1), a pending request (a
confirmation, a tournament's invitation: `r-<key>`, its random key, so that it says
nothing of other mail and is never reused; `c-5-<mac>`, by id, was mailed before keys) or a player's account (`a-<mac>`: the reply address of every mail to a
player that is not about one seat; which player, the mail's From says, and the MAC must
be theirs under their links' generation, so `link new` cuts these too), signed with an HMAC under `PBEM_SECRET_KEY` so it cannot be guessed or
forged. Each mail we send also carries a return path of its own (VERP,
`pbem-bounce+b-<key>-<mac>@`): a delivery report that comes back later names the very
mail that bounced, and a report nobody could sign changes nothing. The key is the mail's
own random one (outbox.return_key), not its row's id: a player sees their return paths,
and ids in them would count the mail others got in between; an id is also given again
(SQLite's next row after a dropped newest one, every row after a restore), where a key
is never. Tokens use only digits, lower-case letters and hyphens, so they survive MTAs
that lower-case addresses; they are read case-insensitively.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from functools import lru_cache

MAC_CHARS = 16  # 80 bits of base32: unguessable, short enough for an address
TOKEN = re.compile(r"^(?:(?P<game>\d+)-(?P<seat>\d+)|c-(?P<request>\d+)|(?P<account>a)"
                   r"|(?P<keyed>r))-(?P<mac>[a-z2-7]+)$")


@dataclass(frozen=True)
class Route:
    """Where a reply goes: a seat of a game, or a confirmation request."""
    game: int | None = None
    seat: int | None = None  # 1-based as players count, in the token
    request: int | None = None
    account: str = ""  # an account token's MAC, checked against the From's player
    request_key: str = ""  # a request's random key (`r-<key>`): which request, unguessably


@lru_cache(maxsize=4096)  # a pure function; every game mail and reply asks for a few
def _mac(secret: str, message: str) -> str:
    digest = hmac.new(secret.encode(), message.encode(), hashlib.sha256).digest()
    return base64.b32encode(digest).decode().lower()[:MAC_CHARS]


def seat_token(secret: str, game: int, seat: int) -> str:
    """The token of a 0-based seat (written 1-based)."""
    return f"{game}-{seat + 1}-{_mac(secret, f'seat/{game}/{seat + 1}')}"


def play_token(secret: str, game: int, seat: int, generation: int = 0) -> str:
    """The token of a 0-based seat's page (`/play/<token>`, pbem.web.seat_page): derived
    like the reply token but under its own name, so neither link gives away the other.
    `generation` is the seat's player's (`player.links`): `link new` adds one, and the
    tokens of the generations before no longer match. Generation 0 is the token as it
    was before links could be renewed, so links mailed then go on working."""
    name = f"play/{game}/{seat + 1}" + (f"/{generation}" if generation else "")
    return f"{game}-{seat + 1}-{_mac(secret, name)}"


def play_route(token: str) -> Route | None:
    """The seat a page token names, if it has a token's shape; whether it is genuine,
    `is_play_token` says, once the seat's player (and so the generation) is known."""
    match = TOKEN.match(token.strip().lower())
    if not match or not match["seat"] or int(match["seat"]) < 1:
        return None
    return Route(game=int(match["game"]), seat=int(match["seat"]) - 1)


def is_play_token(secret: str, token: str, route: Route, generation: int) -> bool:
    """Whether `token` is the page token of the route's seat under `generation`."""
    expected = play_token(secret, route.game, route.seat, generation)
    return hmac.compare_digest(expected, token.strip().lower())


def request_token(key: str) -> str:
    """The reply token of a request (a confirmation, an invitation to a tournament)."""
    return f"r-{key}"


def confirm_token(secret: str, request: int) -> str:
    """The reply token requests were mailed with before they had keys (`c-<id>-<mac>`):
    still read for a request without a key, never made any more."""
    return f"c-{request}-{_mac(secret, f'confirm/{request}')}"


def account_token(secret: str, player: int, generation: int = 0) -> str:
    """The token of a player's account under their links' generation (`player.links`)."""
    return f"a-{_mac(secret, f'account/{player}/{generation}')}"


def is_account_token(secret: str, route: Route, player: int, generation: int) -> bool:
    """Whether the account token a route carries is `player`'s under `generation`."""
    expected = account_token(secret, player, generation).partition("-")[2]
    return bool(route.account) and hmac.compare_digest(expected, route.account)


def reply_address(token: str, domain: str) -> str:
    return f"pbem+{token}@{domain}"


def read_route(secret: str, address: str, domain: str) -> Route | None:
    """The route of `pbem+TOKEN@domain` if its token is genuine; None otherwise."""
    local, _, host = address.strip().lower().rpartition("@")
    if host != domain.lower() or not local.startswith("pbem+"):
        return None
    match = TOKEN.match(local[len("pbem+"):])
    if not match:
        return None
    if match["account"]:
        return Route(account=match["mac"])  # whose, the pipeline checks (is_account_token)
    if match["keyed"]:
        return Route(request_key=match["mac"])  # which, the pipeline looks up
    if match["request"]:
        expected = confirm_token(secret, int(match["request"]))
        route = Route(request=int(match["request"]))
    else:
        expected = seat_token(secret, int(match["game"]), int(match["seat"]) - 1)
        route = Route(game=int(match["game"]), seat=int(match["seat"]) - 1)
    given = local[len("pbem+"):]
    return route if hmac.compare_digest(expected, given) else None


BOUNCE_LOCAL = "pbem-bounce"
# b-<key>-<mac>; b-<outbox id>-<mac> as mail queued before the keys (0039) has it
BOUNCE_TOKEN = re.compile(r"^b-(?:(?P<key>[a-z2-7]{24})|(?P<outbox>\d{1,19}))-[a-z2-7]+$")


@dataclass(frozen=True)
class ReturnPath:
    """The mail a return path names: by its key, or (mail queued before the keys) its id."""
    key: str | None = None
    outbox: int | None = None


def return_path(secret: str, key: str, domain: str) -> str:
    """The envelope sender of one queued mail, by its key (outbox.return_key): where its
    delivery report comes back."""
    return f"{BOUNCE_LOCAL}+b-{key}-{_mac(secret, f'bounce/{key}')}@{domain}"


def read_return_path(secret: str, address: str, domain: str) -> ReturnPath | None:
    """The mail a delivery report's recipient names, if it is a return path of ours and
    genuine; None otherwise."""
    local, _, host = address.strip().lower().rpartition("@")
    if host != domain.lower() or not local.startswith(BOUNCE_LOCAL + "+"):
        return None
    match = BOUNCE_TOKEN.match(local[len(BOUNCE_LOCAL) + 1:])
    if not match:
        return None
    # the id's own signature was bounce/<id>: the two kinds cannot stand for each other
    named = match["key"] or match["outbox"]
    expected = f"{BOUNCE_LOCAL}+b-{named}-{_mac(secret, f'bounce/{named}')}"
    if not hmac.compare_digest(expected, local):
        return None
    return ReturnPath(key=match["key"]) if match["key"] else ReturnPath(
        outbox=int(match["outbox"]))


def is_return_path(address: str, domain: str) -> bool:
    """Whether mail to `address` is addressed to our return paths (genuine or not)."""
    local, _, host = address.strip().lower().rpartition("@")
    return host == domain.lower() and (local == BOUNCE_LOCAL
                                       or local.startswith(BOUNCE_LOCAL + "+"))
