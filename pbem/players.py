"""Who a player is: the row behind an address, a confirmed second address, or a bot.

Mail in (pbem.intake), the commands, the operator's tools and the policy all ask the
same questions, so they are answered here, once: whose address this is (`owner_of`),
the player for an address seen for the first time (`player_for`, created unconfirmed
and named by the From header's display name; an invited player is named so when they
first write: `heard_from`), a bot's player row (`bot_player`), a display name as a
player may write it, and whether a row is a forgotten player's (`is_forgotten`: `pbem
admin forget` gives it an address that no mail reaches; the policy mails it nothing,
pbem.policy.letters).
"""

from __future__ import annotations

import re

from pbem import bots
from pbem.store import Address, Player

NAME = re.compile(r"^[\w][\w .'-]{0,29}$")
FORGOTTEN_DOMAIN = "forgotten.invalid"  # RFC 2606: no mail is ever delivered there


def player_for(email: str, name: str = "") -> Player:
    """The player with this address (or a second address of theirs), created
    (unconfirmed) on first sight, named by `name`, the display name of their From
    header (header_name); for `bot:LEVEL`, that bot."""
    level = bots.bot_level(email)
    if level is not None:
        return bot_player(level)
    email = email.lower()
    player = owner_of(email)
    if player is None:
        player = Player.create(email=email, name=header_name(name) or email.split("@")[0])
    else:
        heard_from(player, name)
    return player


def heard_from(player: Player, name: str) -> None:
    """A mail of the player's own before they confirmed their address (an invitation's
    answer, their first mail to pbem@): a player who was only named after their address,
    because someone else wrote it (`new onyx with bob@…`), takes the display name of its
    From header, as one who writes first is named. A confirmed player's name, and one
    chosen with `name`, are left alone."""
    if player.confirmed or player.name != player.email.split("@")[0]:
        return
    chosen = header_name(name)
    if chosen and chosen != player.name:
        player.name = chosen
        player.save()


def owner_of(email: str) -> Player | None:
    """The player whose address, or confirmed second address, this is."""
    email = email.lower()
    player = Player.get_or_none(Player.email == email)
    if player is not None:
        return player
    alias = (Address.select(Address, Player).join(Player)
             .where((Address.email == email) & Address.confirmed).first())
    return alias.player if alias is not None else None


def bot_player(level: str) -> Player:
    """The player row of the bot of `level`, created on first use: confirmed, named
    "Bot (hard)", never mailed (pbem.policy) and never invited."""
    address = bots.bot_address(level)
    player = Player.get_or_none(Player.email == address)
    if player is None:
        player = Player.create(email=address, name=bots.bot_name(level), confirmed=True)
    return player


def clean_name(name: str) -> str:
    """A display name as written (spaces folded, at most 30 characters), or '' when it is
    not one a player may have (no '@', no control characters)."""
    name = " ".join(name.split())[:30]
    return name if NAME.match(name) else ""


def header_name(display: str) -> str:
    """The display name of a From header as a player's name: "Last, First" (Outlook's
    directories: `Jones, Bob`) turned to "Bob Jones"; '' when it is not one a player may
    have (clean_name)."""
    last, comma, first = display.partition(",")
    if comma and last.strip() and first.strip() and "," not in first:
        display = f"{first.strip()} {last.strip()}"
    return clean_name(display)


def forgotten_address(player_id: int) -> str:
    """The address a forgotten player's row keeps: unique, and reaching nobody."""
    return f"former-{player_id}@{FORGOTTEN_DOMAIN}"


def is_forgotten(address: str) -> bool:
    """Whether `address` is a forgotten player's (`forgotten_address`)."""
    return address.lower().endswith("@" + FORGOTTEN_DOMAIN)
