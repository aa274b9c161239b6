"""What the administrator does from the command line: start a game at once, take one
mail from an MTA pipe, flush the outbox (`pbem new`, `pbem ingest`, `pbem deliver`), and
the `pbem admin` commands: cancel or adjudicate a game, ban an address, merge a player's
two addresses (forgetting a player: pbem.operator.forget).

A game is changed only through `pbem.play.Table` inside one transaction, so its clocks
are settled and its players' mails queued with the change, as after a move. Errors an
administrator can fix are `AdminError`, worded for them.
"""

from __future__ import annotations

from fractions import Fraction

from pbem import clock
from pbem.bots import is_bot
from pbem.bookkeeping.rated import split_rated
from pbem.config import Config
from pbem.engines.base import Engine, OptionError
from pbem.intake.pipeline import receive
from pbem.play import Table, create_game
from pbem.players import player_for
from pbem.policy import conversation, letters
from pbem.policy.delivery import deliver_due
from pbem.store import Address, Game, Player, Request, Seat, transaction
from pbem.store.models import Annotator, Ban, Vacation
from pbem.bookkeeping import controls, ledger


def start_game(config: Config, engine: Engine, options: dict[str, str],
               emails: list[str], seed: str | None = None) -> int:
    """A game between these addresses in this order, started now, everyone mailed.
    The dealer's seed is fresh and secret unless one is given (tests replay deals)."""
    if not engine.min_players <= len(emails) <= engine.max_players:
        raise OptionError(f"{engine.title} is for {engine.min_players} to "
                          f"{engine.max_players} players, not {len(emails)}.")
    people = [e.lower() for e in emails if not is_bot(e)]  # bots may sit more than once
    if len(set(people)) != len(people):
        raise OptionError("each player needs an address of their own.")
    options, is_rated = split_rated(options)  # rated=no: a friendly game
    options, time_options = controls.split_options(options)  # time=, timeout=: the server's
    control = controls.resolve(engine.id, time_options)
    with transaction():
        players = [player_for(email) for email in emails]
        for player in players:  # the administrator vouches for these addresses
            player.confirmed = True
            player.save()
        game = create_game(engine, options, players, creator=None, accepted=True, seed=seed,
                           is_rated=is_rated)
        controls.keep(game, control)
        table = Table.load(game.id)
        table.start()
        conversation.after_write(config, table)
    return game.id


def ingest(config: Config, raw: bytes) -> str:
    """One message from an MTA pipe; mail it caused goes out at once when it can."""
    outcome = receive(config, raw)
    try:
        deliver_due(config)
    except Exception:  # the outbox keeps it; `pbem serve`'s scheduler retries
        pass
    return outcome


# -- games ---------------------------------------------------------------------------------

class AdminError(ValueError):
    """An administrator's command that cannot be carried out; the message says why."""


def cancel_game(config: Config, game_id: int, reason: str) -> Table:
    """End a running or inviting game with no result; every seated player is told why."""
    reason = _reason(reason)
    with transaction():
        table = _table(game_id, ("running", "inviting"), "cancelled")
        table.cancel(f"by the administrator: {reason}")
        _announce_end(config, table, f"The administrator cancelled game #{game_id}: {reason}")
    return table


def adjudicate_game(config: Config, game_id: int, result: str, reason: str) -> Table:
    """End a running game with `result` (the record's token: 1-0, 0-1, 1/2-1/2, 0-1/2-1/2
    with three players…); the record carries it and the reason as its Termination."""
    reason = _reason(reason)
    with transaction():
        table = _table(game_id, ("running",), "adjudicated")
        shares = seat_shares(result, len(table.seats))
        token = record_token(table, shares)
        table.adjudicate(token, f"adjudicated by the administrator: {reason}", shares)
        each = ", ".join(f"{name} {share}" for name, share in zip(table.names, shares))
        _announce_end(config, table, f"The administrator adjudicated game #{game_id} "
                                     f"({each}): {reason}")
    return table


def seat_shares(text: str, players: int) -> list[Fraction]:
    """'1-0', '0.5-0.5' or '1/2-1/2' -> each seat's share of the win, in seat order (the
    order of the players on the game's page), adding up to the one win there is."""
    try:
        shares = [Fraction(part.strip()) for part in text.split("-")]
    except (ValueError, ZeroDivisionError):
        shares = []
    if len(shares) != players or any(s < 0 for s in shares) or sum(shares) != 1:
        example = "-".join(["1"] + ["0"] * (players - 1))
        raise AdminError(f"--result {text!r} is not a result for {players} players: give "
                         f"each player's share of the win, in the order the game lists them, "
                         f"adding up to 1, e.g. {example} or "
                         f"{'-'.join([str(Fraction(1, players))] * players)}")
    return shares


def record_token(table: Table, shares: list[Fraction]) -> str:
    """The record's result token for these shares, in the game's own order: Onyx's is by
    colour, so after a swap seat 0's share comes second. The engine's token for a
    resignation puts the 0 where each seat stands, which tells the order."""
    seats = range(len(shares))
    places = [table.engine.resigned_result(table.state, seat).split("-").index("0")
              for seat in seats]
    if sorted(places) != list(seats):  # no such hint: seat order
        places = list(seats)
    token = [""] * len(shares)
    for seat, place in zip(seats, places):
        token[place] = str(shares[seat])
    return "-".join(token)


def _reason(reason: str) -> str:
    reason = " ".join(reason.split())
    if not reason:
        raise AdminError("--reason is needed: the players are told it, and it is kept "
                         "with the game")
    return reason


def _table(game_id: int, statuses: tuple[str, ...], verb: str) -> Table:
    if not Game.select().where(Game.id == game_id).exists():
        raise AdminError(f"there is no game #{game_id}")
    table = Table.load(game_id)
    if table.game.status not in statuses:
        raise AdminError(f"game #{game_id} is {table.game.status}; only a "
                         f"{' or '.join(statuses)} game can be {verb}")
    return table


def _announce_end(config: Config, table: Table, note: str) -> None:
    """Every seat's mail about the end (pbem.policy.conversation), with `note` in it."""
    table.notices.append(conversation.Notice(lambda seat: note))
    conversation.after_write(config, table)


# -- addresses -------------------------------------------------------------------------------

def ban(address: str, reason: str = "") -> Ban:
    """Drop mail from `address` (or every address `@domain`) unanswered from now on."""
    address = _address(address, domain_ok=True)
    with transaction():
        found = Ban.get_or_none(Ban.address == address)
        if found is not None:
            raise AdminError(f"{address} is already banned (since {found.created:%Y-%m-%d})")
        return Ban.create(address=address, reason=" ".join(reason.split()))


def unban(address: str) -> None:
    address = _address(address, domain_ok=True)
    with transaction():
        if not Ban.delete().where(Ban.address == address).execute():
            raise AdminError(f"{address} is not banned")


def add_annotator(game_id: int, address: str) -> None:
    """Let `address` annotate a game it did not play (pbem.annotations)."""
    address = _address(address)
    with transaction():
        if Game.get_or_none(Game.id == game_id) is None:
            raise AdminError(f"there is no game #{game_id}")
        Annotator.get_or_create(game=game_id, email=address)


def bans() -> list[Ban]:
    return list(Ban.select().order_by(Ban.address))


def _address(text: str, domain_ok: bool = False) -> str:
    address = text.strip().lower()
    local, at, domain = address.partition("@")
    if not at or "." not in domain or " " in address or (not local and not domain_ok):
        wanted = "an address such as alice@example.org" + (
            " or a whole domain such as @example.org" if domain_ok else "")
        raise AdminError(f"{text!r} is not an address: give {wanted}")
    return address


def _player(address: str) -> Player:
    player = Player.get_or_none(Player.email == _address(address))
    if player is None:
        raise AdminError(f"no player has the address {address.strip().lower()}")
    return player


def merge_players(config: Config, address: str, into: str) -> Player:
    """One player with two player rows: everything of `address` (seats, games created,
    requests, vacations, second addresses) moves to the player at `into`, who keeps their
    name and settings and plays on from `into`, with the newer of the two generations of
    seat links (a link either cut stays cut). When nobody has `into` yet, the player
    simply moves there."""
    into = _address(into)
    with transaction():
        old = _player(address)
        kept = Player.get_or_none(Player.email == into)
        second = Address.get_or_none(Address.email == into)
        if second is not None and second.player_id != old.id:
            owner = Player.get_by_id(second.player_id)
            raise AdminError(f"{into} is a second address of the player at {owner.email}: "
                             f"merge into {owner.email}")
        if second is not None:  # their own second address becomes the main one
            second.delete_instance()
        if kept is None:
            old.email = into
            old.confirmed = True  # the administrator vouches for it, as with `pbem new`
            old.save()
            kept = old
        elif kept.id == old.id:
            raise AdminError(f"{into} is the same address")
        else:
            _fold(old, kept)
        games = sorted({seat.game_id for seat in Seat.select().where(Seat.player == kept)
                        if seat.game.status in ("running", "inviting")})
        if games:
            letters.games_moved(config, kept, address.strip().lower(), games)
    return kept


def _fold(old: Player, kept: Player) -> None:
    """Move every row of `old` to `kept`, then drop `old`."""
    shared = sorted(set(_game_ids(old)) & set(_game_ids(kept)))
    if shared:
        raise AdminError(f"{old.email} and {kept.email} both sit in game "
                         f"{', '.join(f'#{n}' for n in shared)}: one player cannot hold two "
                         f"seats of a game; end it first (pbem admin cancel)")
    now = clock.now()
    away = [p.email for p in (old, kept) if ledger.on_vacation(p.id, now)]
    if away:
        raise AdminError(f"{' and '.join(away)} is on vacation, and its clocks stand "
                         f"still; merge once it has ended")
    Seat.update(player=kept).where(Seat.player == old).execute()
    Game.update(creator=kept).where(Game.creator == old).execute()
    Request.update(player=kept).where(Request.player == old).execute()
    Vacation.update(player=kept).where(Vacation.player == old).execute()
    Address.update(player=kept).where(Address.player == old).execute()
    kept.confirmed = True  # the administrator vouches for it, as with `pbem new`
    # A link cut with `link new` stays cut: the seats keep the newer generation of the
    # two (pbem.access). The older one's links die with it; each game mail carries the
    # seat's link as it is now.
    kept.links = max(kept.links, old.links)
    kept.save()
    old.delete_instance()


def _game_ids(player: Player) -> list[int]:
    return [seat.game_id for seat in Seat.select(Seat.game).where(Seat.player == player)]
