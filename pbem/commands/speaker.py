"""Who wrote, and what they wrote: the sender of a mail's lines, and the lines themselves.

Every command runs for a `Speaker` (the player, the mail they answered) inside the
caller's transaction and writes its answers to the outbox through the conversation
policy; a line that cannot be carried out raises `Refused` with words for the player.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pbem.bots import bot_level
from pbem.config import Config
from pbem.store import Player
from pbem.store import Address

NAME = re.compile(r"^[\w][\w .'-]{0,29}$")
ADDRESS = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
MAX_LINES = 20
WEB = "web"  # the message_id (and so Move.source) of a move from a seat's page


class Refused(Exception):
    """A line that cannot be carried out; the message is for the player."""


@dataclass
class Speaker:
    """Who wrote, and about which mail: what every command needs to answer them."""
    config: Config
    player: Player
    message_id: str = ""
    replied_ply: int | None = None  # the ply of our mail they answered, if known
    mail: object | None = None  # the InboundMail itself, for what a command reads below it


def command_lines(text: str) -> list[str]:
    """The command lines of a mail's new text: up to the first blank line after some."""
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            if lines:
                break
            continue
        lines.append(line)
    return lines[:MAX_LINES]


def player_for(email: str, name: str = "") -> Player:
    """The player with this address (or a second address of theirs), created
    (unconfirmed) on first sight; for `bot:LEVEL`, that bot (pbem.bot_turns)."""
    if bot_level(email) is not None:
        from pbem.bot_turns import bot_player
        return bot_player(bot_level(email))
    email = email.lower()
    player = owner_of(email)
    if player is None:
        player = Player.create(email=email, name=clean_name(name) or email.split("@")[0])
    return player


def owner_of(email: str) -> Player | None:
    """The player whose address, or confirmed second address, this is."""
    email = email.lower()
    player = Player.get_or_none(Player.email == email)
    if player is not None:
        return player
    alias = (Address.select(Address, Player).join(Player)
             .where((Address.email == email) & Address.confirmed).first())
    return alias.player if alias is not None else None


def clean_name(name: str) -> str:
    name = " ".join(name.split())[:30]
    return name if NAME.match(name) else ""
