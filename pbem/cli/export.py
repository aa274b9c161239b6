"""`pbem export`: the web's exports, offline, from the configured database.

    pbem export ID [--format record|sgf|svg|html] [--ply N] [--size 480|8cm] [--caption]
                   [--every N] [--output FILE]
    pbem export --all [--game GAME] [--player ID] [--result 1-0] [--q TEXT]
                      [--status finished] --output FILE.zip

The same rules as the web: a running card game's record is refused, diagrams are the
public view, players appear by name. --all takes the archive index's filters through
the same GameFilters and query (pbem.export.search), so its zip holds what
/games/export.zip gives for the same arguments. Output goes to standard output unless
--output names a file. A refusal or a bad argument is one line on standard error and
exit 1 (exit 2 for arguments that cannot mean anything).
"""

from __future__ import annotations

import sys

from pbem.terminal import say

# Only the argument list is needed to build `pbem`'s parser; the store, the engines and
# Flask's search module are imported when an export runs, so `pbem record check` starts
# as quickly as before.

FORMATS = ("record", "sgf", "svg", "html")


def add_arguments(parser) -> None:
    """The options of `pbem export`, declared beside the code that reads them."""
    parser.add_argument("game_id", nargs="?", metavar="ID", help="the game's number")
    parser.add_argument("--format", choices=FORMATS, default="record",
                        help="record (default), sgf (Onyx), svg (one ply), html (print)")
    parser.add_argument("--ply", help="svg: the ply to draw (0: the start; default: last)")
    parser.add_argument("--size", help="svg: pixels (480) or a print width (8cm, 3.5in)")
    parser.add_argument("--caption", action="store_true", help="svg: a caption under it")
    parser.add_argument("--every", help="html: a diagram every N plies (0: none; 20)")
    parser.add_argument("--all", action="store_true",
                        help="a zip of every finished game's record (needs --output)")
    parser.add_argument("--game", dest="engine", help="--all: only this game, e.g. onyx")
    parser.add_argument("--player", help="--all: only this player's games (a number)")
    parser.add_argument("--result", help="--all: only games with this result, e.g. 1-0")
    parser.add_argument("--q", "--search", dest="q", metavar="TEXT",
                        help="--all: the index's search: a game number, part of a "
                             "name, or a whole address")
    parser.add_argument("--status", help="--all: finished (the only status zipped)")
    parser.add_argument("--output", metavar="FILE", help="write here, not to stdout")


def add_commands(commands) -> None:
    export = commands.add_parser("export", help="a game's record, SGF, SVG or print page; "
                                 "--all: a zip of finished records")
    add_arguments(export)
    export.set_defaults(run=run)


def run(args, config=None) -> int:
    """Run `pbem export` with parsed `args`; the exit status."""
    from pbem.config import Config
    from pbem.export.search import FilterError
    from pbem.export.source import ExportError
    from pbem.store.database import NoStore, open_existing
    config = config or Config.from_environment(make_secret=False)  # it signs nothing
    try:
        if args.all:
            return _zip(args, config)
        if args.game_id is None:
            return _fail("name a game (pbem export 12), or --all for a zip", 2)
        if not (args.game_id.isascii() and args.game_id.isdigit()):
            return _fail(f"{args.game_id!r} is not a game number (pbem export 12)", 2)
        open_existing(config.database_url)  # never a new, empty store
        text = _one(args, int(args.game_id), config)
        if args.output:
            with open(args.output, "w", encoding="utf-8") as file:
                file.write(text)
        else:
            sys.stdout.write(text)
    except (ExportError, FilterError, NoStore) as error:
        return _fail(str(error), 1)
    except OSError as error:
        return _fail(f"cannot write {args.output}: {error.strerror or error}", 1)
    return 0


def _one(args, game_id: int, config) -> str:
    from pbem.export import diagram, printable
    from pbem.export.record import game_record, record_text
    from pbem.export.sgf import onyx_sgf
    from pbem.export.source import ExportError, load_table, parse_ply
    table = load_table(game_id)
    if args.format == "record":
        return record_text(table)
    if args.format == "sgf":
        if table.engine.id != "onyx":
            raise ExportError(404, f"game #{game_id} is {table.engine.title}; SGF is "
                                   f"written for Onyx only (try --format record)")
        return onyx_sgf(game_record(table), game_name=f"Onyx #{game_id}",
                        date=table.game.created.strftime("%Y-%m-%d"))
    if args.format == "svg":
        pixels, print_width = diagram.parse_size(args.size)
        return diagram.ply_svg(table, parse_ply(table, args.ply), pixels, print_width,
                               args.caption) + "\n"
    every = printable.parse_every(args.every, table.game.plies)
    return printable.print_page(table, every, base_url=config.web_url)


def _zip(args, config) -> int:
    from pbem.export import bulk
    from pbem.export.search import GameFilters
    from pbem.store.database import open_existing
    if not args.output:
        return _fail("--all writes a zip: name it with --output FILE.zip", 2)
    filters = GameFilters.from_args({"game": args.engine, "status": args.status,
                                     "player": args.player, "result": args.result,
                                     "q": args.q})
    open_existing(config.database_url)  # never a new, empty store
    games = bulk.finished_games(filters)
    with open(args.output, "wb") as file:
        bulk.write_zip(games, file)
    say(f"{games.count()} records written to {args.output}")
    return 0


def _fail(message: str, code: int) -> int:
    say(f"pbem export: {message}", file=sys.stderr)
    return code
