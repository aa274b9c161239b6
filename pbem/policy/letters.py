"""Every mail that is not a game's position, decided here: answers to a player's own
mail, what the operator did to their games, tournament news, an expired seek.

`note` is the door they all go through (and so do the invitations, pbem.policy.
invitations, and the notices, pbem.policy.notices), and `reachable` is asked of every
mail, game mail and digests too: a bot reads no mail and is never written to, and an
address our mail bounces from (pbem.policy.bounces.scores) gets nothing until it works again,
nor does a forgotten player's row. The other functions say who hears of a thing; the words are the caller's,
and mail out (pbem.mail.letters) writes and queues them.
"""

from __future__ import annotations

from pbem.bots import is_bot
from pbem.config import Config
from pbem.mail import letters
from pbem.players import is_forgotten
from pbem.policy.bounces import scores
from pbem.store import Player
from pbem.store.models import Ban
from pbem.store.prepared import Prepared


def reachable(address: str) -> bool:
    """Whether any mail may go to `address`: not a bot's, not a forgotten player's (the
    row of someone `pbem admin forget` erased: a tournament's news or a game's mail to
    them would only bounce), not banned (`pbem admin ban`: a ban ends the address's
    mail both ways; its seat links answer 403, pbem.access), not marked bouncing."""
    if is_bot(address) or is_forgotten(address):
        return False
    return _BANNED_OR_BOUNCING.scalar(*Ban.keys(address)) is None


# Ban.covers and scores.may_mail in one statement: a row of either says no.
_BANNED_OR_BOUNCING = Prepared(lambda address, domain: (
    Ban.banning(address, domain) + scores.marked(address)).limit(1))


def note(config: Config, to: Player | tuple[str, str], subject: str, paragraphs: list[str],
         reply_to: str | None = None, in_reply_to: str | None = None) -> bool:
    """A plain mail to a player (or to a name and an address); False when nobody is
    mailed: a bot (`bot:hard`) needs no invitation and reads no answer, and an address
    that bounces is not written to. A player's mail, unless it asks for an answer of
    its own (a request's token), is answered at their account's reply address: a reply
    from their address to it proves to be theirs (pbem.authority)."""
    name, address = (to.name, to.email) if isinstance(to, Player) else to
    if not reachable(address):
        return False
    if reply_to is None and isinstance(to, Player):
        reply_to = letters.account_reply(config, to)
    letters.note(config, (name, address), subject, paragraphs, reply_to=reply_to,
                 in_reply_to=in_reply_to)
    return True


def answer(config: Config, player: Player, subject: str, paragraphs: list[str],
           in_reply_to: str | None = None) -> bool:
    """The answer to a player's own mail (their commands to `pbem@`, an invitation's
    reply): it goes to the writer, in the thread of what they wrote."""
    return note(config, player, subject, paragraphs, in_reply_to=in_reply_to)


def refused_mail(config: Config, sender: str, subject: str, paragraphs: list[str],
                 in_reply_to: str | None = None) -> bool:
    """A mail that was not read (too large, malformed): a player we know is told why;
    a stranger gets nothing (their From may be anyone's)."""
    player = Player.get_or_none(Player.email == sender)
    if player is None or not player.confirmed:
        return False
    return note(config, player, subject, paragraphs, in_reply_to=in_reply_to)


def address_confirmed(config: Config, player: Player, address: str) -> bool:
    """A second address answered its request (`address add`): the player hears so at
    the address their game mail goes to, which is the one that asked for it."""
    return note(config, player, f"[pbem] {address} is one of your addresses", [
        f"{address} answered: mail from it now counts as yours, in every game. Your game "
        f"mail still comes to {player.email}; `address remove {address}` undoes it."])


def games_moved(config: Config, player: Player, old_address: str, games: list[int]) -> bool:
    """The operator merged an old address into this player's (`pbem admin merge`)."""
    return note(config, player, "[pbem] your games moved", [
        f"The administrator moved your games from {old_address} to this address: "
        f"{', '.join(f'#{n}' for n in games)}. Reply to their mails from here; mail from "
        f"the old address is no longer taken as yours."])


def seek_expired(config: Config, seek, description: str) -> bool:
    """Nobody joined a seek in time: its writer is told."""
    return note(config, seek.player, f"[pbem] seek #{seek.id} expired", [
        f"Nobody joined your seek #{seek.id} ({description}); it has expired. Post it "
        f"again with `seek {seek.engine} …`."])


def tournament_news(config: Config, tournament, subject: str, paragraphs: list[str]) -> int:
    """A tournament's news (a round begun, the standings, its end or cancellation): one
    mail to each player who accepted, and to the organiser; returns how many."""
    people = {e.player_id: e.player for e in tournament.entrants if e.answer == "accepted"}
    people.setdefault(tournament.organiser_id, tournament.organiser)
    return sum(note(config, player, subject, paragraphs) for player in people.values())


def account_link(config: Config, player: Player, url: str, hours: int) -> bool:
    """A link to the player's account page, asked for from one of their seats' pages:
    it goes to their registered address alone (pbem.web.account_page)."""
    return note(config, player, "[pbem] a link to your account", [
        f"You asked, on one of your seats' pages, for a link to your account's page, where "
        f"you can switch pictures in mail, make new links for all your seats and open "
        f"each of your games:\n  {url}",
        f"It works for {hours} hour, and until you ask for new links. If you did not ask "
        f"for it, someone has a link to one of your seats: open it and make new links.",
    ])
