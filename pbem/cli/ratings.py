"""`pbem ratings rebuild|show`: the operator's side of the ratings, beside the code it wraps.

    pbem ratings rebuild        every rating again from the archive's finished games
    pbem ratings show GAME      the leaders of GAME (onyx, onix, …), as /ratings/GAME lists them
"""

from __future__ import annotations

import sys

from pbem.terminal import say


def add_commands(commands) -> None:
    ratings = commands.add_parser("ratings", help="rebuild the ratings from the archive, or "
                                  "list a game's leaders").add_subparsers(dest="action",
                                                                          required=True)
    ratings.add_parser("rebuild", help="compute every rating again from the finished games "
                       "(the same numbers as the live ones)").set_defaults(run=_ratings)
    show = ratings.add_parser("show", help="a game's leaders")
    show.add_argument("game", metavar="GAME")
    show.add_argument("--min-games", type=int, default=1, metavar="N",
                      help="only players with N rated games or more (default 1)")
    show.set_defaults(run=_ratings)


def _ratings(args) -> int:
    from pbem.bookkeeping import rated
    from pbem.config import Config
    from pbem.engines import UnknownGame, get_engine
    from pbem.store import transaction
    from pbem.store.database import NoStore, open_existing
    config = Config.from_environment(make_secret=False)
    try:
        open_existing(config.database_url)  # never a new, empty store
    except NoStore as missing:  # the wrong directory or settings
        say(f"pbem ratings {args.action}: {missing}", file=sys.stderr)
        return 1
    if args.action == "rebuild":
        with transaction():
            counted = rated.rebuild()
        say(f"ratings rebuilt from {counted} finished rated game{'' if counted == 1 else 's'}")
        return 0
    try:
        engine = get_engine(args.game)
    except UnknownGame as error:
        say(f"pbem ratings show: {error}", file=sys.stderr)
        return 2
    for place, (player, rating) in enumerate(rated.leaders(engine.id, args.min_games), 1):
        games = f"{rating.games} rated game{'' if rating.games == 1 else 's'}"
        say(f"{place:3}. {player.name}  {rating}  ({games})")
    return 0
