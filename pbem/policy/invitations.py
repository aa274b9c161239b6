"""Mail to addresses that may never have written to pbem: invitations to a game or a
tournament, a seek's game (its writer is mailed when someone joins), the request to
confirm a new address, and a second address's confirmation.

Each could make pbem a tool for mailing strangers, so each is checked here against the
limits on such mail (pbem.policy.limits) before anything is created, and written here:
`refusal(...)` says why not (for the writer to read), or None; the caller then creates
its game, tournament or request and calls the matching function below, which counts the
invitation (an `invitation` row, when the address never confirmed) as it writes it: one
count for every kind, so the limits are the same whichever way a stranger is named.
Nothing the inviter wrote reaches the invited but their name and address and the game's
options.
"""

from __future__ import annotations

from pbem.config import Config
from pbem.vocabulary.tokens import reply_address, request_token, seat_token
from pbem.vocabulary.words import subject
from pbem.play import Table
from pbem.players import is_forgotten
from pbem.policy import limits
from pbem.policy.letters import note
from pbem.store import Player

GAME, TOURNAMENT, SEEK, ADDRESS = "game", "tournament", "seek", "address"
CONFIRMATION = "confirmation"  # a first mail's sender asked to confirm: no inviter
STRANGER = ("You got this because someone typed your address; if you do not know them, "
            "ignore this mail and nothing more will come.")


def refusal(config: Config, kind: str, inviter: Player | None = None,
            addresses: list[str] = ()) -> str | None:
    """Why `inviter` may not have pbem write to `addresses` now (a `kind` of mail from
    this module), for them to read; None if they may. Every invitation by a player counts
    alike (pbem.policy.limits); a confirmation request, which nobody sent, only against
    the hourly cap."""
    gone = [address for address in addresses if is_forgotten(address)]
    if gone:  # a forgotten player's row: it reads no mail and would keep a game waiting
        return (f"{', '.join(gone)} cannot be invited: no mail reaches that address (the "
                f"player there asked to be forgotten).")
    if kind in (GAME, TOURNAMENT, SEEK, ADDRESS):
        return limits.invitation_refusal(config, inviter, list(addresses))
    if limits.unconfirmed_cap_reached(config):  # a sender's confirmation
        return limits.CAP_WORDS
    return None


def to_game(config: Config, table: Table, seat: int, options: str) -> bool:
    """The invitation to a seat of a game being created (`new onyx with …`)."""
    player, host = table.seats[seat].player, table.seats[0].player
    limits.record_invitation(table.game.creator or host, player.email, GAME, table.game.id)
    token = seat_token(config.secret_key, table.game.id, seat)
    return note(config, player, subject(table), [
        f"{host.name} <{host.email}> invites you to play {table.engine.title} ({options}) "
        f"with {', '.join(table.names)}.",
        "Reply to this mail with `accept` or `decline` on the first line.",
        STRANGER,
    ], reply_to=reply_address(token, config.domain))


def to_tournament(config: Config, tournament, entrant, request, subject: str,
                  description: str) -> bool:
    """The invitation to a tournament: a reply token of its own, answered like a game's."""
    token = request_token(request.key)
    names = ", ".join(e.player.name for e in tournament.entrants.order_by("number"))
    organiser = tournament.organiser
    limits.record_invitation(organiser, entrant.player.email, TOURNAMENT, tournament.id)
    return note(config, entrant.player, subject, [
        f"{organiser.name} <{organiser.email}> invites you to tournament #{tournament.id}: "
        f"{description}, with {names}.",
        "Each round's games are ordinary games by mail, with their clocks; the next round "
        "starts when the last game of a round has ended, and everyone gets the standings.",
        "Reply to this mail with `accept` or `decline` on the first line.",
        STRANGER,
    ], reply_to=reply_address(token, config.domain))


def to_seek(joiner: Player, seeker: Player, game_id: int) -> None:
    """`join seek N` started game `game_id`, whose first mail goes to the seek's writer
    (the conversation writes it): counted like an invitation if that address never
    confirmed."""
    limits.record_invitation(joiner, seeker.email, SEEK, game_id)


def to_confirm(config: Config, player: Player, request, in_reply_to: str) -> bool:
    """A first mail from an address: ask once whether it is really theirs. Nothing the
    sender wrote (not even the Subject): the From may be a victim's, and pbem must not
    carry a forger's text to them."""
    token = request_token(request.key)
    return note(config, player, "[pbem] please confirm", [
        f"Someone, probably you, sent pbem a mail from {player.email}.",
        "Before pbem acts on mail from a new address, it asks once: reply to this mail "
        "(anything will do) and your mail will be carried out, with any other you send "
        "before you answer, in the order you sent them.",
        "If it was not you, ignore this mail; nothing more will come.",
    ], reply_to=reply_address(token, config.domain), in_reply_to=in_reply_to)


def to_confirm_commands(config: Config, player: Player, request, lines: list[str],
                        in_reply_to: str | None = None) -> bool:
    """Lines from the player's address that need a proof their mail did not carry
    (pbem.commands.confirm): the registered address alone is asked, and shown each line
    (cut short, so that a forger cannot carry a text of their own to the player)."""
    token = request_token(request.key)
    shown = "\n".join(f"  {line[:80]}{'…' if len(line) > 80 else ''}" for line in lines)
    return note(config, player, "[pbem] please confirm your commands", [
        f"pbem got a mail from {player.email} with these commands:",
        shown,
        "They change your account or act for you, and the mail carried no proof that it "
        "was yours: a From line can be written by anyone. Nothing was done yet.",
        "If you sent them, reply to this mail (anything will do) within 7 days, and they "
        "will be carried out. If not, ignore this mail: nothing will be done, and nobody "
        "else was told.",
        "Next time, send commands in a reply to any mail from pbem: its reply address "
        "proves that the mail is yours, and they run at once.",
    ], reply_to=reply_address(token, config.domain), in_reply_to=in_reply_to)


def to_confirm_address(config: Config, player: Player, address: str, request) -> bool:
    """`address add`: the new address is asked whether it is the player's."""
    limits.record_invitation(player, address, ADDRESS, request.id)
    token = request_token(request.key)
    return note(config, (player.name, address), "[pbem] is this your address?", [
        f"The pbem player {player.name} asked to receive and send game mail from this "
        f"address too.",
        "If this address is yours, reply to this mail (anything will do). If not, ignore "
        "it; nothing more will come.",
    ], reply_to=reply_address(token, config.domain))
