"""`accept` and `decline` written to `pbem@` rather than in reply to the invitation: the
one invitation waiting for the writer's answer is answered, `accept 12` answers game
12's, and where several wait (or none) the answer names them, with what to write.

The answer is the game's own `accept` / `decline` (pbem.commands.game, handed in by
the caller: that module asks this one which invitations wait), run on its table as a
reply to the invitation would run it; the others hear of it as they would
then (pbem.policy.conversation), and the writer in the answer to their mail.
"""

from __future__ import annotations

from pbem.commands.speaker import Refused, Speaker
from pbem.play import Table
from pbem.policy import conversation
from pbem.store import Game, Player, Seat


def waiting(player: Player) -> list[Seat]:
    """The player's seats in games that invite them and wait for their answer."""
    return list(Seat.select(Seat, Game).join(Game)
                .where((Seat.player == player) & (Game.status == "inviting")
                       & Seat.answer.is_null()).order_by(Game.id))


def named(seats: list[Seat]) -> str:
    """The invitations, as the player can tell them apart: `#12 Onyx with bob`."""
    rows = []
    for seat in seats:
        table = Table.load(seat.game.id, lock=False)
        others = [name for number, name in enumerate(table.names) if number != seat.number]
        rows.append(f"#{seat.game.id} {table.engine.title} with {', '.join(others)}")
    return "; ".join(rows)


def answer_waiting(speaker: Speaker, word: str, rest: str, handler) -> list[str]:
    """`accept` / `decline` [N] to pbem@: answer the invitation meant (with `handler`,
    the game command's), or say which."""
    seats = waiting(speaker.player)
    number = rest.strip().lstrip("#")
    if number:
        chosen = [seat for seat in seats if str(seat.game.id) == number]
        if not chosen:
            raise Refused(f"no invitation to game #{number} waits for your answer"
                          + (f"; these do: {named(seats)}." if seats else "."))
    elif len(seats) != 1:
        if not seats:
            raise Refused("no invitation waits for your answer.")
        raise Refused(f"{len(seats)} invitations wait for your answer: {named(seats)}. "
                      f"Write `{word} N` with the game's number, e.g. `{word} "
                      f"{seats[0].game.id}`.")
    seat = chosen[0] if number else seats[0]
    table = Table.load(seat.game.id)
    table.seats[seat.number].player = speaker.player
    notes = handler(speaker, table, seat.number, "") or []
    conversation.after_write(speaker.config, table, {}, in_reply_to=speaker.message_id)
    return [f"Game #{seat.game.id}: {'accepted' if word == 'accept' else 'declined'}."] + notes
