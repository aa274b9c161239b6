"""`new GAME with ADDRESS… [option=value …]`: a game created by mail, and its invitations."""

from __future__ import annotations

import re

from pbem.commands.speaker import ADDRESS, Refused, Speaker, player_for
from pbem.config import Config
from pbem.engines import get_engine
from pbem.mail import notify
from pbem.mail.limits import invitation_refusal
from pbem.mail.tokens import reply_address, seat_token
from pbem.play import Table, create_game
from pbem.timekeeping import controls

OPTION = re.compile(r"(\w+)=(\S+)")


def new_game(speaker: Speaker, rest: str) -> list[str]:
    """Create the game and invite the others; the writer plays first."""
    words = rest.split()
    if not words:
        raise Refused("say which game, e.g. `new onyx with bob@example.org`.")
    engine = get_engine(words[0])
    options, time_options = controls.split_options(dict(OPTION.findall(rest)))
    control = controls.resolve(engine.id, time_options)  # the server's options, not the game's
    invited = [a.lower() for a in ADDRESS.findall(rest) if a.lower() != speaker.player.email]
    invited = list(dict.fromkeys(invited))
    count = len(invited) + 1
    if not engine.min_players <= count <= engine.max_players:
        raise Refused(f"{engine.title} is for {engine.min_players} to {engine.max_players} "
                      f"players; you named {count} (you and {len(invited)} others).")
    engine.check_options(engine.resolve_options(options))
    refusal = invitation_refusal(speaker.config, speaker.player, invited)  # no mail cannon
    if refusal:
        raise Refused(refusal)
    players = [speaker.player] + [player_for(address) for address in invited]
    game = create_game(engine, options, players, speaker.player, accepted=False)
    controls.keep(game, control)
    table = Table.load(game.id)
    for seat in table.seats[1:]:
        invite(speaker.config, table, seat.number)
    return [f"Game #{game.id} ({engine.title}, {describe_options(table)}) is created; "
            f"invitations went to {', '.join(invited)}. It starts when all accept."]


def describe_options(table: Table) -> str:
    control = controls.of(table.game.id)
    return ", ".join([f"{k}={v}" for k, v in table.game.options.items()]
                     + [f"time={control.text}", f"timeout={control.timeout}"])


def invite(config: Config, table: Table, seat: int) -> None:
    player = table.seats[seat].player
    host = table.seats[0].player
    token = seat_token(config.secret_key, table.game.id, seat)
    notify.note(config, (player.name, player.email), notify.subject(table), [
        f"{host.name} <{host.email}> invites you to play {table.engine.title} "
        f"({describe_options(table)}) with {', '.join(table.names)}.",
        "Reply to this mail with `accept` or `decline` on the first line.",
        "You got this because someone typed your address; if you do not know them, "
        "ignore this mail and nothing more will come.",
    ], reply_to=reply_address(token, config.domain))
