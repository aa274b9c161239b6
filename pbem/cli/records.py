"""`pbem record check|show`, `pbem selfplay` and `pbem games`: the notation tools.

They need no store and no settings: a record file (or standard input) in, the engines'
judgement out.
"""

from __future__ import annotations

import json
import sys

from notation.record import RecordSyntaxError, format_record, parse_records
from pbem.cli.arguments import game_parser, option_pair
from pbem.engines import ENGINES, UnknownGame, get_engine
from pbem.engines.base import OptionError
from pbem.engines.game import Game, RecordError, replay_variation, selfplay
from pbem.terminal import say


def add_commands(commands) -> None:
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

    play = game_parser(commands, "selfplay", "print the record of a seeded random game")
    play.add_argument("--players", type=int, help="number of players")
    play.add_argument("--seed", default="1", help="the same seed gives the same game")
    play.set_defaults(run=_selfplay)

    games = commands.add_parser("games", help="list the games and their options")
    games.set_defaults(run=_games)


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
        options = dict(option_pair(text) for text in args.option)
        players = args.players or engine.min_players
        game = selfplay(engine, options, players, args.seed)
    except (UnknownGame, OptionError) as error:
        say(f"pbem selfplay: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(format_record(game.record()))
    return 0


def _games(args) -> int:
    from pbem.bookkeeping.controls import DEFAULTS, FALLBACK  # the server's own options
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
