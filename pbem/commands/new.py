"""`new GAME with ADDRESS… [option=value …]`: a game created by mail, and its invitations.

A bot (`bot`, `bot:easy`, `bot:hard`) named among the addresses takes a seat at once:
it needs no invitation. The writer always plays, so a game by mail is never bots only.
A bot's search costs CPU for as long as its game runs, so the games with a bot seat are
limited: `PBEM_BOT_GAMES_PER_PLAYER` running (or inviting) at once for one player,
`PBEM_BOT_GAMES_TOTAL` on the whole server (the operator's `pbem new` is not refused, but
its games count); beyond either, `new … with bot` is refused, naming the limit.
"""

from __future__ import annotations

from pbem.bot_turns import bot_games
from pbem.bots import is_bot
from pbem.commands.speaker import OPTION, Refused, Speaker, named_players
from pbem.commands.tournaments import new_tournament
from pbem.bookkeeping.rated import split_rated
from pbem.engines import UnknownGame, get_engine
from pbem.play import Table, create_game
from pbem.players import player_for
from pbem.policy import conversation, invitations
from pbem.bookkeeping import controls


def new_game(speaker: Speaker, rest: str) -> list[str]:
    """Create the game and invite the others; the writer plays first."""
    words = rest.split()
    if not words:
        raise Refused("say which game, e.g. `new onyx with bob@example.org`.")
    if words[0].lower() == "tournament":  # `new tournament onyx swiss rounds=5 with …`
        return new_tournament(speaker, rest.split(None, 1)[1] if len(words) > 1 else "")
    engine, after = _game_named(words)
    options, is_rated = split_rated(dict(OPTION.findall(rest)))
    options, time_options = controls.split_options(options)
    control = controls.resolve(engine.id, time_options)  # the server's options, not the game's
    invited, robots = named_players(after, speaker.player.email)
    count = len(invited) + len(robots) + 1
    if not engine.min_players <= count <= engine.max_players:
        raise Refused(f"{engine.title} is for {engine.min_players} to {engine.max_players} "
                      f"players; you named {count} (you and {count - 1} others).")
    engine.check_options(engine.resolve_options(options))
    refusal = invitations.refusal(speaker.config, invitations.GAME, speaker.player,
                                  invited)  # no mail cannon
    if refusal:
        raise Refused(refusal)
    if robots:
        _room_for_bots(speaker)
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
            invitations.to_game(speaker.config, table, seat.number, describe_options(table))
    if not invited:  # you and bots only: the game starts now
        table.start()
        conversation.after_write(speaker.config, table)
        return [f"Game #{game.id} ({engine.title}, {describe_options(table)}) has "
                f"started with {', '.join(table.names[1:])}."]
    return [f"Game #{game.id} ({engine.title}, {describe_options(table)}) is created; "
            f"invitations went to {', '.join(invited)}. It starts when all accept."]


def _game_named(words: list[str]):
    """The game the first words name (one to four: "6 nimmt! Baron Oxx") and the words
    after them; UnknownGame names the first word and the games."""
    for count in range(min(len(words), 4), 1, -1):
        try:
            return get_engine(" ".join(words[:count])), words[count:]
        except UnknownGame:
            continue
    return get_engine(words[0]), words[1:]


def _room_for_bots(speaker: Speaker) -> None:
    """Refuse a game with a bot beyond the limits on bot load (Refused names the limit)."""
    config = speaker.config
    mine = bot_games(speaker.player)
    if mine >= config.bot_games_per_player:
        raise Refused(f"you have {mine} games with a bot running or starting, and a player "
                      f"may have at most {config.bot_games_per_player} at once (the server's "
                      f"limit on bot games per player); finish or `resign` one first.")
    if bot_games() >= config.bot_games_total:
        raise Refused(f"the server runs its limit of {config.bot_games_total} games with a "
                      f"bot (all players together) already; try again when one has ended.")


def describe_options(table: Table) -> str:
    control = controls.of(table.game.id)
    return ", ".join([f"{k}={v}" for k, v in table.game.options.items()]
                     + [f"time={control.text}", f"timeout={control.timeout}"]
                     + ["rated=no"] * (not table.game.rated))
