"""The `pbem` command: check and show game records, self-play, and (later) the server.

    pbem record check FILE...            exit 0 when every record is legal and true
    pbem record show FILE [--game N] [--ply N [--variation V/M]] [--json]
    pbem selfplay GAME [--players N] [--seed S] [--option K=V]...
    pbem games                           the games and their options
    pbem serve                           web, mail in and scheduler in one process
    pbem worker                          mail in and scheduler, no web (production)
    pbem status                          database, outbox backlog; exit 1 when unreachable
    pbem new GAME --player EMAIL... [--option K=V]...   start a game at once; prints its id
                                         (a player may be a bot: bot:easy|normal|hard)
    pbem arena GAME --players bot:hard,heuristic [--games N] [--seats N] [--fill WHO]
                                         win shares of bots, heuristic and random players
    pbem ingest < MESSAGE                one mail from an MTA pipe (exit 75: try later)
    pbem deliver                         send every mail waiting now (the relay was mended)
    pbem outbox [list|retry|drop|bounces|clear] ...   the mail waiting, given up, bouncing
    pbem export ID [--format record|sgf|svg|html] [--output FILE]   a game, as the web has it
    pbem export --all [--game GAME] --output FILE.zip   every finished game's record
    pbem admin cancel|adjudicate|ban|unban|bans|merge|forget ...   the operator's tools
    pbem backup DIRECTORY|FILE [--keep N]   a consistent copy of the database, while it runs
    pbem restore FILE                    a backup put back: waiting mail held, deadlines moved
                                         on, the players of running games told
    pbem ratings rebuild|show GAME       the ratings again from the archive; a game's leaders
    pbem migrate [--back-to N [--yes]]   the schema up to date once (a rolling upgrade), or back
    pbem --version

The server commands read their settings from PBEM_* environment variables (README.md), or
with `--env-file FILE` from an environment file read literally, as systemd reads it.
Settings are checked before anything starts: a bad one is named, with what it must be,
and the command exits 78 (EX_CONFIG; `pbem ingest` exits 75 so the MTA keeps the mail),
as every command does on a database whose schema a newer pbem migrated.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from notation.record import RecordSyntaxError, format_record, parse_records
from pbem import build
from pbem.bots import NotABot, is_bot
from pbem.competition.command import add_commands as competition_commands  # light too
from pbem.outbox_command import add_commands as outbox_commands  # light too
from pbem.restore_command import add_commands as restore_commands  # light too
from pbem.config import SettingsError, read_env_file, unknown_settings
from pbem.config import existing_store_config as _server_config  # imports the store when run
from pbem.engines import ENGINES, UnknownGame, get_engine
from pbem.engines.base import OptionError
from pbem.engines.game import Game, RecordError, replay_variation, selfplay
from pbem.export.command import add_arguments as export_arguments  # light: no store
from pbem.schema_command import add_commands as schema_commands  # light too
from pbem.store.database import (DatabaseRefused, DatabaseUnreachable, NoStore,  # light
                                  SchemaTooNew)
from pbem.terminal import say  # light: notation only

EX_CONFIG = 78  # sysexits.h: a configuration error (systemd: do not restart for it)
EX_SIGPIPE = 128 + 13  # what a shell reports for a writer whose reader went away


def main(argv: list[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, not at exit: a closed pipe is caught below
        return code
    except BrokenPipeError:
        # `pbem games | head`: the reader has all it wanted. Point stdout at /dev/null so
        # the interpreter's final flush does not complain, and stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EX_SIGPIPE


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        if args.env_file:
            os.environ.update(read_env_file(args.env_file))  # the file wins, as in systemd
        for warning in unknown_settings(os.environ):
            say(f"pbem: {warning}", file=sys.stderr)
        return args.run(args)
    except SchemaTooNew as error:  # a newer pbem migrated it: this one must not run on it
        say(f"pbem {_name(args)}: {error}", file=sys.stderr)
        return EX_TEMPFAIL if args.run is _ingest else EX_CONFIG
    except DatabaseRefused as error:  # the URL's password, role or database: a setting
        say(f"pbem {_name(args)}: {error}", file=sys.stderr)
        return EX_TEMPFAIL if args.run is _ingest else EX_CONFIG
    except DatabaseUnreachable as error:  # the server may come back: restart, retry
        say(f"pbem {_name(args)}: {error}", file=sys.stderr)
        return EX_TEMPFAIL if args.run is _ingest else 1
    except NoStore as error:  # only serve and worker make a store: nothing was created
        if args.run is _ingest:
            say(f"pbem ingest: try again later: {error}", file=sys.stderr)
            return EX_TEMPFAIL  # the MTA keeps the mail until the settings are mended
        say(f"pbem {_name(args)}: {error}", file=sys.stderr)
        return 1
    except SettingsError as error:
        say("pbem: the settings cannot be used:", file=sys.stderr)
        for problem in error.problems:
            say(f"  {problem}", file=sys.stderr)
        return EX_TEMPFAIL if args.run is _ingest else EX_CONFIG


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pbem", description="Play-by-email game server "
                                     "and notation tools.")
    parser.add_argument("--version", action="version", version=f"pbem {build.describe()}")
    parser.add_argument("--env-file", metavar="FILE",
                        help="read PBEM_* settings from this file, KEY=value a line, "
                        "literally (no shell expansion), as systemd's EnvironmentFile= does; "
                        "the file's settings win over the same ones in the environment "
                        "(PBEM_DATABASE_URL=X pbem --env-file F uses F's database, as the "
                        "services do): for another database, copy the file and change it")
    commands = parser.add_subparsers(title="commands")

    record = commands.add_parser("record", help="check or show game records").add_subparsers(
        title="record commands")
    check = record.add_parser("check", help="exit 0 when every record is legal and true")
    check.add_argument("files", nargs="+", metavar="FILE",
                       help="record files (several games each, if you like); - reads stdin")
    check.set_defaults(run=_record_check)
    show = record.add_parser("show", help="the position after N plies (default: the end)")
    show.add_argument("file", metavar="FILE", help="a record file; - reads stdin")
    show.add_argument("--game", type=int, default=1, help="which game of the file (1)")
    show.add_argument("--ply", type=int, help="plies to replay (default: all)")
    show.add_argument("--variation", metavar="V/M", help="with --ply: after move M of "
                      "variation V of that ply (2/3; 2/3/1/1 for one inside it)")
    show.add_argument("--json", action="store_true", help="the position as JSON")
    show.set_defaults(run=_record_show)

    play = _game_parser(commands, "selfplay", "print the record of a seeded random game")
    play.add_argument("--players", type=int, help="number of players")
    play.add_argument("--seed", default="1", help="the same seed gives the same game")
    play.set_defaults(run=_selfplay)

    games = commands.add_parser("games", help="list the games and their options")
    games.set_defaults(run=_games)

    serve = commands.add_parser("serve", help="run the server: web, mail in, scheduler")
    serve.set_defaults(run=_serve)

    worker = commands.add_parser("worker", help="run mail in and the scheduler, without the "
                                 "web (which runs under gunicorn: pbem.web.wsgi:app)")
    worker.set_defaults(run=_worker)

    status = commands.add_parser("status", help="is the database reachable, how much mail "
                                 "waits to go out (exit 1: the database does not answer)")
    status.set_defaults(run=_status)

    new = _game_parser(commands, "new", "start a game at once and mail its players")
    new.add_argument("--player", action="append", default=[], metavar="EMAIL",
                     help="a player's address, in seat order (Onyx: Black first); "
                     "bot:easy, bot:normal or bot:hard seats a bot")
    new.set_defaults(run=_new)

    arena = _game_parser(commands, "arena", "play bots against each other and print "
                         "their win shares with 95%% confidence intervals")
    arena.add_argument("--players", default="bot:hard,bot:normal",
                       help="contestants, comma-separated: bot:LEVEL or random")
    arena.add_argument("--games", type=int, default=200, help="games to play (200)")
    arena.add_argument("--seats", type=int, help="players per game (default: the "
                       "contestants; more seats are random players)")
    arena.add_argument("--seed", default="arena", help="the same seed gives the same games")
    arena.add_argument("--fill", default="random", help="who takes the seats beyond "
                       "--players: random (default), heuristic (a card game's plain "
                       "habit) or bot:LEVEL")
    arena.set_defaults(run=_arena)

    ingest = commands.add_parser("ingest", help="take one mail on standard input (MTA pipe)")
    ingest.set_defaults(run=_ingest)

    export = commands.add_parser("export", help="a game's record, SGF, SVG or print page; "
                                 "--all: a zip of finished records")
    export_arguments(export)
    export.set_defaults(run=_export)

    backup = commands.add_parser("backup", help="a consistent copy of the database while "
                                 "pbem runs (SQLite's online backup, or pg_dump)")
    backup.add_argument("target", metavar="DIRECTORY|FILE",
                        help="a directory (a dated file is made in it) or the file to write")
    backup.add_argument("--keep", type=int, metavar="N",
                        help="in a directory, keep only the N newest backups")
    backup.set_defaults(run=_backup)

    _admin_parser(commands)
    competition_commands(commands)
    outbox_commands(commands)
    restore_commands(commands)
    schema_commands(commands)
    return parser


def _admin_parser(commands) -> None:
    admin = commands.add_parser("admin", help="the operator's tools: cancel, adjudicate, "
                                "ban, merge, forget").add_subparsers(title="admin commands")
    cancel = admin.add_parser("cancel", help="end a game without a result; the players are "
                              "told the reason")
    cancel.add_argument("game", type=int, metavar="ID")
    cancel.add_argument("--reason", required=True, help="told to the players, kept with the game")
    cancel.set_defaults(run=_admin, action="cancel")
    judge = admin.add_parser("adjudicate", help="end a running game with a result; the record "
                             "carries it and the reason (Termination)")
    judge.add_argument("game", type=int, metavar="ID")
    judge.add_argument("--result", required=True,
                       help="each seat's share of the win in seat order: 1-0, 0-1, 1/2-1/2, 0-1-0")
    judge.add_argument("--reason", required=True, help="told to the players, kept in the record")
    judge.set_defaults(run=_admin, action="adjudicate")
    ban = admin.add_parser("ban", help="drop mail from an address (or @domain), unanswered")
    ban.add_argument("address", metavar="ADDRESS")
    ban.add_argument("--reason", default="", help="a note for the operators")
    ban.set_defaults(run=_admin, action="ban")
    unban = admin.add_parser("unban", help="take mail from a banned address again")
    unban.add_argument("address", metavar="ADDRESS")
    unban.set_defaults(run=_admin, action="unban")
    admin.add_parser("bans", help="list the banned addresses").set_defaults(
        run=_admin, action="bans")
    merge = admin.add_parser("merge", help="one player, two addresses: move every seat, game "
                             "and request of ADDRESS to the player at --into")
    merge.add_argument("address", metavar="ADDRESS")
    merge.add_argument("--into", required=True, metavar="ADDRESS",
                       help="the address the player goes on with")
    merge.set_defaults(run=_admin, action="merge")
    forget = admin.add_parser("forget", help="erase a player's address, name and raw mail; "
                              "their games stay, with 'a former player'")
    forget.add_argument("address", metavar="ADDRESS")
    forget.add_argument("--resign", action="store_true",
                        help="resign their running games for them (else they must have ended)")
    forget.set_defaults(run=_admin, action="forget")
    annotator = admin.add_parser("annotator", help="let ADDRESS annotate game ID by mail "
                                 "(`annotate ID`) although they did not play it")
    annotator.add_argument("game", type=int, metavar="ID")
    annotator.add_argument("address", metavar="ADDRESS")
    annotator.set_defaults(run=_admin, action="annotator")


def _game_parser(commands, name: str, help: str) -> argparse.ArgumentParser:
    """A command about one game: its name and its options."""
    parser = commands.add_parser(name, help=help)
    parser.add_argument("game", metavar="GAME", help=f"one of: {', '.join(ENGINES)}")
    parser.add_argument("--option", action="append", default=[], metavar="K=V",
                        help="a game option, e.g. board=16 or setup=open")
    return parser


def _load(path: str):
    """(records, None) or (None, error message) for one file; `-` is standard input."""
    try:
        if path == "-":
            text = sys.stdin.buffer.read().decode("utf-8-sig")
        else:
            with open(path, encoding="utf-8-sig") as file:
                text = file.read()
        return parse_records(text), None
    except OSError as error:
        return None, f"cannot read it: {error.strerror or error}"
    except UnicodeDecodeError:
        return None, "cannot read it: a record is UTF-8 text"
    except RecordSyntaxError as error:
        return None, str(error)


def _record_check(args) -> int:
    failures = 0
    for path in args.files:
        records, error = _load(path)
        if records is None:
            failures += 1
            say(f"{path}: {error}", file=sys.stderr)
            continue
        for number, record in enumerate(records, start=1):
            name = path if len(records) == 1 else f"{path} game {number}"
            for warning in record.warnings:
                say(f"{name}: warning: {warning}", file=sys.stderr)
            try:
                Game.from_record(record).check_result(record)
            except RecordError as failure:
                failures += 1
                say(f"{name}: {failure}", file=sys.stderr)
            else:
                say(f"{name}: ok, {len(record.moves)} plies, result {record.result}")
    return 1 if failures else 0


def _record_show(args) -> int:
    records, error = _load(args.file)
    if records is not None and not 1 <= args.game <= len(records):
        error = f"--game must be from 1 to {len(records)}"
    if error is not None:
        say(f"{args.file}: {error}", file=sys.stderr)
        return 1
    record = records[args.game - 1]
    if args.ply is not None and not 0 <= args.ply <= len(record.moves):
        say(f"{args.file}: --ply must be from 0 to {len(record.moves)}", file=sys.stderr)
        return 1
    try:
        if args.variation is not None:
            game = _variation_game(record, args.ply, args.variation)
        else:
            game = Game.from_record(record, plies=args.ply)
    except (RecordError, ValueError) as failure:
        say(f"{args.file}: {failure}", file=sys.stderr)
        return 1
    if args.json:
        say(json.dumps(game.engine.position(game.state)))
    else:
        say(game.engine.text_diagram(game.engine.view(game.state, None)))
    return 0


def _variation_game(record, ply: int | None, variation: str) -> Game:
    """`--ply 31 --variation 2/3`: inside the second variation of ply 31, after its third
    move (the variation replaces ply 31, so it starts after 30 plies)."""
    if ply is None:
        raise ValueError("--variation needs --ply: the ply whose variation it is")
    try:
        path = [int(part) for part in variation.split("/")]
    except ValueError:
        raise ValueError(f"--variation {variation!r}: write VARIATION/MOVES, such as 2/3"
                         ) from None
    return replay_variation(record, ply, path)


def _selfplay(args) -> int:
    try:
        engine = get_engine(args.game)
        options = dict(_option_pair(text) for text in args.option)
        players = args.players or engine.min_players
        game = selfplay(engine, options, players, args.seed)
    except (UnknownGame, OptionError) as error:
        say(f"pbem selfplay: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(format_record(game.record()))
    return 0


def _option_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise OptionError(f"options are written K=V, such as board=16; not {text!r}")
    return key.strip(), value.strip()


def _games(args) -> int:
    from pbem.timekeeping.controls import DEFAULTS, FALLBACK  # the server's own options
    for engine in ENGINES.values():
        players = (f"{engine.min_players}" if engine.min_players == engine.max_players
                   else f"{engine.min_players}-{engine.max_players}")
        say(f"{engine.id}: {engine.title}, {players} players")
        for option in engine.options:
            say(f"    {option.name}={option.default}  {option.help}")
        time, timeout = DEFAULTS.get(engine.id, FALLBACK)
        say(f"    time={time}  the clock: 3d for each move, 10d+2d a bank of 10 days plus "
              f"2 after each move, or none")
        say(f"    timeout={timeout}  when a player's time runs out: forfeit (they lose), "
              f"auto (a move is played for them) or bot (a bot plays it)")
    return 0


EX_TEMPFAIL = 75  # sysexits.h: the MTA keeps the mail and tries again

# The server commands import the server (peewee, aiosmtpd, Flask) only when run, so the
# record tools start quickly and work without a database.


def _name(args) -> str:
    """The command as the operator typed it, for a refusal: `admin ban`, `new`."""
    if getattr(args, "action", None) and args.run is _admin:
        return f"admin {args.action}"
    return args.run.__name__.lstrip("_")  # each command's runner is named after it


def _serve(args) -> int:
    from pbem.config import Config
    from pbem.server import serve
    serve(Config.from_environment())
    return 0


def _worker(args) -> int:
    from pbem.config import Config
    from pbem.worker import work
    config = Config.from_environment()  # a bad setting: named by main, exit 78
    try:
        work(config)
    except (ValueError, OSError) as error:  # a setting we cannot use, a port taken
        say(f"pbem worker: {error}", file=sys.stderr)
        return 1
    return 0


def _status(args) -> int:
    from pbem.config import Config
    from pbem.status import print_status
    return print_status(Config.from_environment(make_secret=False))  # status creates nothing


def _admin(args) -> int:
    from pbem import admin, forget
    from pbem.policy.delivery import deliver_due
    config = _server_config()  # NoStore: main says what is missing
    try:
        if args.action == "cancel":
            admin.cancel_game(config, args.game, args.reason)
            said = f"game #{args.game} cancelled; its players are told why"
        elif args.action == "adjudicate":
            table = admin.adjudicate_game(config, args.game, args.result, args.reason)
            said = f"game #{args.game} adjudicated {table.game.result}; its players are told"
        elif args.action == "ban":
            admin.ban(args.address, args.reason)
            said = f"mail from {args.address.strip().lower()} is dropped from now on"
        elif args.action == "unban":
            admin.unban(args.address)
            said = f"mail from {args.address.strip().lower()} is taken again"
        elif args.action == "bans":
            for ban in admin.bans():
                say(f"{ban.address}  since {ban.created:%Y-%m-%d}  {ban.reason}".rstrip())
            return 0
        elif args.action == "annotator":
            admin.add_annotator(args.game, args.address)
            said = (f"{args.address.strip().lower()} may annotate game #{args.game} "
                    f"(`annotate {args.game}`)")
        elif args.action == "merge":
            kept = admin.merge_players(config, args.address, args.into)
            said = f"{args.address.strip().lower()} merged into {kept.email}"
        else:
            games = forget.forget_player(config, args.address, resign=args.resign)
            said = (f"{args.address.strip().lower()} forgotten; "
                    + (f"games {', '.join(f'#{n}' for n in games)} now show "
                       f"'{forget.FORMER_PLAYER}'" if games else "they played in no game"))
    except admin.AdminError as error:
        say(f"pbem admin {args.action}: {error}", file=sys.stderr)
        return 1
    try:
        deliver_due(config)
    except Exception as error:  # the outbox keeps the mail; the worker retries it
        say(f"pbem admin: mail waits in the outbox ({error})", file=sys.stderr)
    say(said)
    return 0


def _backup(args) -> int:
    from pbem.backup import BackupError, backup
    from pbem.config import Config
    config = Config.from_environment(make_secret=False)
    try:
        done = backup(config.database_url, args.target, keep=args.keep)
    except BackupError as error:
        say(f"pbem backup: {error}", file=sys.stderr)
        return 1
    say(f"backed up to {done}")
    return 0


def _new(args) -> int:
    from pbem.admin import start_game
    from pbem.policy.delivery import deliver_due
    try:
        engine = get_engine(args.game)
        options = dict(_option_pair(text) for text in args.option)
        config = _server_config()
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
        options = engine.resolve_options(dict(_option_pair(t) for t in args.option))
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


def _ingest(args) -> int:
    from peewee import OperationalError

    from pbem.admin import ingest
    from pbem.intake.pipeline import TemporaryFailure
    raw = sys.stdin.buffer.read()
    try:
        outcome = ingest(_server_config(), raw)
    except (TemporaryFailure, OperationalError) as error:
        say(f"pbem ingest: try again later: {error}", file=sys.stderr)
        return EX_TEMPFAIL
    say(outcome)
    return 0


def _export(args) -> int:
    from pbem.export.command import run
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
