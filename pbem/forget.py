"""Forgetting a player on request (`pbem admin forget`): the address (and any second
address), the name and the raw mail go; the games stay, with "a former player" in the seat.

Pages, exports, records and mails all name players by `Player.name`, so renaming the row
is enough for everything written from now on. What was stored with the address or the
name is erased: the raw bytes of every inbound mail from the address or mentioning it,
and the copies of mail already sent to them, about their games, or mentioning them.
Their running games must end first (`--resign` resigns them, through `pbem.play`, so the
opponents are told and the clocks stop), because a game cannot wait for someone nobody
can write to. Unsent mail to others goes out as it was written.
"""

from __future__ import annotations

from pbem.admin import AdminError, _announce_end, _player
from pbem.config import Config
from pbem.play import Table
from pbem.store import Address, Game, Inbound, Move, Outbox, Request, Seat, transaction

FORMER_PLAYER = "a former player"


def forget_player(config: Config, address: str, resign: bool = False) -> list[int]:
    """Erase the player at `address`; returns the games they were in (now ended or kept)."""
    address = address.strip().lower()
    with transaction():
        player = _player(address)
        seats = list(Seat.select(Seat, Game).join(Game).where(Seat.player == player))
        unfinished = sorted(s.game.id for s in seats if s.game.status in ("running", "inviting"))
        if unfinished and not resign:
            raise AdminError(f"{address} plays in game {', '.join(f'#{n}' for n in unfinished)}, "
                             f"which has not ended: end it first (pbem admin adjudicate or "
                             f"cancel), or add --resign to resign it for them")
        addresses = [address] + [row.email for row in player.addresses]  # and second ones
        Address.delete().where(Address.player == player).execute()
        player.email = f"former-{player.id}@forgotten.invalid"  # unique; never delivered
        player.name = FORMER_PLAYER
        player.confirmed = player.digest = False
        player.save()
        for seat in seats:
            if seat.game.id in unfinished:
                _leave(config, seat)
        Request.update(open=False).where(Request.player == player).execute()
        Outbox.delete().where((Outbox.recipient.in_(addresses) & Outbox.sent.is_null())
                              | (Outbox.recipient == player.email)).execute()
        for each in addresses:
            _erase(each, [seat.game.id for seat in seats])
    return sorted(seat.game.id for seat in seats)


def _leave(config: Config, seat: Seat) -> None:
    """Their game ends: a running one as a resignation, one still inviting is cancelled."""
    table = Table.load(seat.game.id)
    if table.game.status == "running":
        table.resign(seat.number, f"{FORMER_PLAYER} left the game")
        note = f"Game #{table.game.id} is over: {FORMER_PLAYER} left it."
    else:
        table.cancel(f"{FORMER_PLAYER} left before it started")
        note = f"Game #{table.game.id} is cancelled: {FORMER_PLAYER} left before it started."
    _announce_end(config, table, note)


def _erase(address: str, game_ids: list[int]) -> None:
    """The raw mail from or about them; copies of mail sent to them or naming them."""
    needle = address.encode()
    rows = Inbound.select(Inbound.id, Inbound.message_id, Inbound.sender, Inbound.raw)
    for row in rows.iterator():
        if row.sender == address or needle in bytes(row.raw).lower():
            erased = {"raw": b"", "sender": ""}
            if address in row.message_id.lower():  # some clients build it from the address
                erased["message_id"] = f"<forgotten.{row.id}@forgotten.invalid>"
            Inbound.update(**erased).where(Inbound.id == row.id).execute()
    # A move keeps the Message-ID it came in (its source); one that names them goes.
    Move.update(source="mail").where(Move.source.contains(address)).execute()
    sent = Outbox.select(Outbox.id, Outbox.game, Outbox.recipient, Outbox.message).where(
        Outbox.sent.is_null(False) | Outbox.failed.is_null(False))  # failed: given up
    for row in sent.iterator():
        if (row.recipient == address or row.game_id in game_ids
                or needle in bytes(row.message).lower()):
            Outbox.update(message=b"", recipient="").where(Outbox.id == row.id).execute()
