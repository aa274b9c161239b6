"""Forgetting a player on request (`pbem admin forget`): the address (and any second
address), the name and the raw mail go; the games stay, with "a former player" in the seat.

Pages, exports, records and mails all name players by `Player.name`, so renaming the row
is enough for everything written from now on. What was stored with the address or the
name is erased: the raw bytes of every inbound mail from the address or mentioning it,
and the copies of mail already sent to them, about their games, or mentioning them.
Their running games must end first (`--resign` resigns them, through `pbem.play`, so the
opponents are told and the clocks stop), because a game cannot wait for someone nobody
can write to. They also leave every tournament and open challenge exactly as their own
`withdraw` would (pbem.competition.rounds.withdraw): a running tournament pairs them no
more, a tournament still inviting counts them as having declined (and starts, or is
cancelled, when that was the last answer missing), an open seek is withdrawn. No mail
goes to the forgotten row's address: the policy's `reachable` refuses it, for every
kind of mail. Unsent mail to others goes out as it was written.

The stored mail is searched before the write begins (reading needs no lock), and the
write then erases the rows found, and searches only the mail that came in meanwhile: the
store is locked for the erasing, not for reading every mail ever kept.
"""

from __future__ import annotations

from pbem.operator.admin import AdminError, _announce_end, _player
from pbem.competition import rounds
from pbem.config import Config
from pbem.play import Table
from pbem.players import forgotten_address
from pbem.policy.limits import ERASED
from pbem.store import (Address, Game, Inbound, Move, Outbox, Player, Request, Seat,
                        transaction)
from pbem.store.models import Invitation, PagePost
from pbem.store.competition_models import Entrant, Seek, Tournament

FORMER_PLAYER = "a former player"


def forget_player(config: Config, address: str, resign: bool = False) -> list[int]:
    """Erase the player at `address`; returns the games they were in (now ended or kept)."""
    address = address.strip().lower()
    _, addresses, seats, _ = _who(address, resign)
    found = Found()
    found.search(addresses, [seat.game.id for seat in seats])  # the long part, unlocked
    with transaction():
        player, addresses, seats, unfinished = _who(address, resign)  # again, under the write
        Address.delete().where(Address.player == player).execute()
        player.email = forgotten_address(player.id)  # unique; never delivered
        player.name = FORMER_PLAYER
        player.confirmed = player.digest = False
        player.save()
        _leave_competitions(config, player)
        for seat in seats:
            if seat.game.id in unfinished:
                _leave(config, seat)
        Request.update(open=False).where(Request.player == player).execute()
        # Invitations to them still count against their inviters' limits, but name no one.
        (Invitation.update(address=player.email, waiting=False)
         .where(Invitation.address.in_(addresses)).execute())
        Outbox.delete().where((Outbox.recipient.in_(addresses) & Outbox.sent.is_null())
                              | (Outbox.recipient == player.email)).execute()
        PagePost.delete().where(PagePost.address.in_(addresses)).execute()  # rate counts
        found.search(addresses, [seat.game.id for seat in seats])  # what came since
        found.erase(addresses)
    return sorted(seat.game.id for seat in seats)


def _who(address: str, resign: bool) -> tuple[Player, list[str], list[Seat], list[int]]:
    """The player, their addresses, seats, and the games not ended; AdminError if those
    must end first."""
    player = _player(address)
    seats = list(Seat.select(Seat, Game).join(Game).where(Seat.player == player))
    unfinished = sorted(s.game.id for s in seats if s.game.status in ("running", "inviting"))
    if unfinished and not resign:
        raise AdminError(f"{address} plays in game {', '.join(f'#{n}' for n in unfinished)}, "
                         f"which has not ended: end it first (pbem admin adjudicate or "
                         f"cancel), or add --resign to resign it for them")
    return player, [address] + [row.email for row in player.addresses], seats, unfinished


def _leave_competitions(config: Config, player: Player) -> None:
    """They leave every tournament not over, as `withdraw tournament N` would (their
    running games in it are lost), or decline one still inviting; their open seeks are
    withdrawn. Before the games they play outside tournaments end (`_leave`)."""
    entered = (Entrant.select(Entrant, Tournament).join(Tournament)
               .where((Entrant.player == player)
                      & Tournament.status.in_(("inviting", "running"))))
    for entrant in entered:
        tournament = entrant.tournament
        if tournament.status == "inviting":
            entrant.answer, entrant.why = "declined", "left"
            entrant.save()
            rounds.start_when_answered(config, tournament)  # it may have been the last
        elif entrant.answer == "accepted" and entrant.withdrawn is None:
            rounds.withdraw(config, tournament, entrant, "withdrew")
    Seek.update(status="withdrawn").where((Seek.player == player)
                                          & (Seek.status == "open")).execute()


def _leave(config: Config, seat: Seat) -> None:
    """Their game ends: a running one as a resignation, one still inviting is cancelled
    (one their tournament's withdrawal ended already is left as it is)."""
    table = Table.load(seat.game.id)
    if table.game.status in ("finished", "cancelled"):
        return
    if table.game.status == "running":
        table.resign(seat.number, f"{FORMER_PLAYER} left the game")
        note = f"Game #{table.game.id} is over: {FORMER_PLAYER} left it."
    else:
        table.cancel(f"{FORMER_PLAYER} left before it started")
        note = f"Game #{table.game.id} is cancelled: {FORMER_PLAYER} left before it started."
    _announce_end(config, table, note)


class Found:
    """The stored mail from or about them: inbound rows (and whether their Message-ID
    carries an address), copies of mail sent; a second search reads only the rows new
    since the first, and the mail that was waiting to go out then."""

    def __init__(self):
        self.inbound: dict[int, bool] = {}  # id -> its Message-ID names them
        self.sent: set[int] = set()
        self.unsent: set[int] = set()  # not gone out at the last search: look again
        self.inbound_after = self.outbox_after = 0

    def search(self, addresses: list[str], game_ids: list[int]) -> None:
        needles = [address.encode() for address in addresses]
        for row in (Inbound.select(Inbound.id, Inbound.message_id, Inbound.sender, Inbound.raw)
                    .where(Inbound.id > self.inbound_after).order_by(Inbound.id).iterator()):
            self.inbound_after = row.id
            raw = bytes(row.raw).lower()
            if row.sender in addresses or any(needle in raw for needle in needles):
                self.inbound[row.id] = any(a in row.message_id.lower() for a in addresses)
        rows = (Outbox.select(Outbox.id, Outbox.game, Outbox.recipient, Outbox.message,
                              Outbox.sent, Outbox.failed)
                .where((Outbox.id > self.outbox_after) | Outbox.id.in_(sorted(self.unsent)))
                .order_by(Outbox.id))
        self.unsent = set()
        for row in rows.iterator():
            self.outbox_after = max(self.outbox_after, row.id)
            if row.sent is None and row.failed is None:  # goes out as written (or not at all)
                self.unsent.add(row.id)
            elif (row.recipient in addresses or row.game_id in game_ids
                  or any(needle in bytes(row.message).lower() for needle in needles)):
                self.sent.add(row.id)

    def erase(self, addresses: list[str]) -> None:
        """Blank what was found (inside the write's transaction)."""
        for row_id, named in self.inbound.items():
            erased = {"raw": b"", "sender": ""}
            if named:  # some clients build the Message-ID from the address
                erased["message_id"] = f"<forgotten.{row_id}@forgotten.invalid>"
            Inbound.update(**erased).where(Inbound.id == row_id).execute()
        for each in addresses:  # a move keeps the Message-ID it came in; one naming them goes
            Move.update(source="mail").where(Move.source.contains(each)).execute()
        if self.sent:
            (Outbox.update(message=b"", recipient=ERASED)  # nobody's (pbem.policy.limits)
             .where(Outbox.id.in_(sorted(self.sent))).execute())
