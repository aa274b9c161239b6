"""`new GAME with ADDRESS… [option=value …]`: a game created by mail, and its invitations.

A bot (`bot`, `bot:easy`, `bot:hard`) named among the addresses takes a seat at once:
it needs no invitation. The writer always plays, so a game by mail is never bots only.
"""

from __future__ import annotations

import re

from pbem.bots import NotABot, bot_address, bot_level, is_bot
from pbem.competition.rated import split_rated
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
    if words[0].lower() == "tournament":  # `new tournament onyx swiss rounds=5 with …`
        from pbem.competition.tournaments import new_tournament
        return new_tournament(speaker, rest.split(None, 1)[1] if len(words) > 1 else "")
    engine = get_engine(words[0])
    options, is_rated = split_rated(dict(OPTION.findall(rest)))
    options, time_options = controls.split_options(options)
    control = controls.resolve(engine.id, time_options)  # the server's options, not the game's
    invited, robots = named_players(words[1:], speaker.player.email)
    count = len(invited) + len(robots) + 1
    if not engine.min_players <= count <= engine.max_players:
        raise Refused(f"{engine.title} is for {engine.min_players} to {engine.max_players} "
                      f"players; you named {count} (you and {count - 1} others).")
    engine.check_options(engine.resolve_options(options))
    refusal = invitation_refusal(speaker.config, speaker.player, invited)  # no mail cannon
    if refusal:
        raise Refused(refusal)
    players = ([speaker.player] + [player_for(address) for address in invited]
               + [player_for(bot) for bot in robots])
    game = create_game(engine, options, players, speaker.player, accepted=False,
                       is_rated=is_rated)
    controls.keep(game, control)
    table = Table.load(game.id)
    for seat in table.seats[1:]:
        if is_bot(seat.player.email):  # a bot needs no invitation: it has accepted
            seat.answer = "accepted"
            seat.save()
        else:
            invite(speaker.config, table, seat.number)
    if not invited:  # you and bots only: the game starts now
        from pbem import conversation  # the policy imports the commands' neighbours
        table.start()
        conversation.after_write(speaker.config, table)
        return [f"Game #{game.id} ({engine.title}, {describe_options(table)}) has "
                f"started with {', '.join(table.names[1:])}."]
    return [f"Game #{game.id} ({engine.title}, {describe_options(table)}) is created; "
            f"invitations went to {', '.join(invited)}. It starts when all accept."]


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


def describe_options(table: Table) -> str:
    control = controls.of(table.game.id)
    return ", ".join([f"{k}={v}" for k, v in table.game.options.items()]
                     + [f"time={control.text}", f"timeout={control.timeout}"]
                     + ["rated=no"] * (not table.game.rated))


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
