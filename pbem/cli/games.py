"""`pbem new` and `pbem arena`: a game started at once, and bots matched offline."""

from __future__ import annotations

import sys

from pbem.bots import NotABot, is_bot
from pbem.cli.arguments import game_parser, option_pair
from pbem.config import existing_store_config
from pbem.engines import UnknownGame, get_engine
from pbem.engines.base import OptionError
from pbem.terminal import say


def add_commands(commands) -> None:
    new = game_parser(commands, "new", "start a game at once and mail its players")
    new.add_argument("--player", action="append", default=[], metavar="EMAIL",
                     help="a player's address, in seat order (Onyx: Black first); "
                     "bot:easy, bot:normal or bot:hard seats a bot")
    new.set_defaults(run=_new)

    arena = game_parser(commands, "arena", "play bots against each other and print "
                        "their win shares with 95%% confidence intervals")
    arena.add_argument("--players", default="bot:hard,bot:normal",
                       help="contestants, comma-separated: bot:LEVEL, random, and in "
                       "the card games heuristic (the plain habit) or style:NAME (one "
                       "of the game's family of opponent styles, e.g. style:keeper)")
    arena.add_argument("--games", type=int, default=200, help="games to play (200)")
    arena.add_argument("--seats", type=int, help="players per game (default: the "
                       "contestants; --fill takes the seats beyond them)")
    arena.add_argument("--seed", default="arena", help="the same seed gives the same games")
    arena.add_argument("--fill", default="random", help="who takes the seats beyond "
                       "--players: random (default), heuristic (a card game's plain "
                       "habit), style:NAME, mixed (the game's styles in turn, a "
                       "different mix each game) or bot:LEVEL")
    arena.set_defaults(run=_arena)


def _new(args) -> int:
    from pbem.operator.admin import start_game
    from pbem.policy.delivery import deliver_due
    try:
        engine = get_engine(args.game)
        options = dict(option_pair(text) for text in args.option)
        config = existing_store_config()
        game_id = start_game(config, engine, options, args.player)
    except (UnknownGame, OptionError, NotABot) as error:
        say(f"pbem new: {error}", file=sys.stderr)
        return 2
    deliver_due(config)
    people = [address for address in args.player if not is_bot(address)]
    say(f"game #{game_id} started; mail went to {', '.join(people) or 'nobody (bots only)'}")
    say(game_id)
    return 0


def _arena(args) -> int:
    from pbem.bots.arena import arena, summary
    try:
        engine = get_engine(args.game)
        options = engine.resolve_options(dict(option_pair(t) for t in args.option))
        contestants = [c for c in args.players.split(",") if c.strip()]
        seats = args.seats or max(len(contestants), engine.min_players)
        if not engine.min_players <= seats <= engine.max_players:
            raise OptionError(f"{engine.title} is for {engine.min_players} to "
                              f"{engine.max_players} players, not {seats}.")
        if len(contestants) > seats:
            raise OptionError(f"{len(contestants)} contestants need --seats "
                              f"{len(contestants)} or more.")
        standings = arena(engine, contestants, args.games, options, seats, seed=args.seed,
                          fill=args.fill)
    except (UnknownGame, OptionError, ValueError) as error:
        say(f"pbem arena: {error}", file=sys.stderr)
        return 2
    say(f"{engine.title}, {seats} players, {args.games} games:")
    for line in summary(standings, seats):
        say(line)
    return 0
