"""Who wrote, and what they wrote: the sender of a mail's lines, and the lines themselves.

Every command runs for a `Speaker` (the player, the mail they answered) inside the
caller's transaction and writes its answers to the outbox through the conversation
policy; a line that cannot be carried out raises `Refused` with words for the player.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pbem.authority import FROM_ALONE, Proof
from pbem.bots import NotABot, bot_address, bot_level
from pbem.config import Config
from pbem.store import Player

OPTION = re.compile(r"(\w+)=(\S+)")  # `board=16`, `time=3d`
ADDRESS = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
MAX_LINES = 20
WEB = "web"  # the message_id (and so Move.source) of a move from a seat's page


class Refused(Exception):
    """A line that cannot be carried out; the message is for the player."""


@dataclass
class Speaker:
    """Who wrote, about which mail, and with what proof: what every command needs."""
    config: Config
    player: Player
    message_id: str = ""
    replied_ply: int | None = None  # the ply of our mail they answered, if known
    mail: object | None = None  # the InboundMail itself, for what a command reads below it
    # Games whose `if` lines this mail has begun: its first replaces the earlier ones.
    conditions_set: set = field(default_factory=set)
    # What the mail or request proved (pbem.authority): it decides which lines run now.
    # The least power unless the door that made the speaker says otherwise.
    proof: Proof = Proof(FROM_ALONE)


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


def named_players(words: list[str], writer: str) -> tuple[list[str], list[str]]:
    """The addresses invited and the bots named (`bot`, `bot:hard`), each in the mail's
    order (the bots sit after the people); refuses a `bot:` that names no level."""
    invited, robots = [], []
    for word in words:
        word = word.strip(",;")
        try:
            level = bot_level(word)
        except NotABot as error:
            raise Refused(str(error)) from None
        if level is not None:
            robots.append(bot_address(level))
            continue
        invited += [a.lower() for a in ADDRESS.findall(word) if a.lower() != writer]
    return list(dict.fromkeys(invited)), robots
