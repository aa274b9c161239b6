"""`pbem admin cancel|adjudicate|ban|unban|bans|merge|forget|annotator`: the operator's
tools (pbem.operator) from the shell, which proves the operator (pbem.authority.SHELL).
What they change is mailed to the players at once, or waits in the outbox for the worker.
"""

from __future__ import annotations

import sys

from pbem.config import existing_store_config
from pbem.terminal import say


def add_commands(commands) -> None:
    admin = commands.add_parser("admin", help="the operator's tools: cancel, adjudicate, "
                                "ban, merge, forget").add_subparsers(title="admin commands")
    cancel = admin.add_parser("cancel", help="end a game without a result; the players are "
                              "told the reason")
    cancel.add_argument("game", type=int, metavar="ID")
    cancel.add_argument("--reason", required=True, help="told to the players, kept with the game")
    cancel.set_defaults(run=_admin, action="cancel", command_name="admin cancel")
    judge = admin.add_parser("adjudicate", help="end a running game with a result; the record "
                             "carries it and the reason (Termination)")
    judge.add_argument("game", type=int, metavar="ID")
    judge.add_argument("--result", required=True,
                       help="each seat's share of the win in seat order: 1-0, 0-1, 1/2-1/2, 0-1-0")
    judge.add_argument("--reason", required=True, help="told to the players, kept in the record")
    judge.set_defaults(run=_admin, action="adjudicate", command_name="admin adjudicate")
    ban = admin.add_parser("ban", help="drop mail from an address (or @domain), unanswered")
    ban.add_argument("address", metavar="ADDRESS")
    ban.add_argument("--reason", default="", help="a note for the operators")
    ban.set_defaults(run=_admin, action="ban", command_name="admin ban")
    unban = admin.add_parser("unban", help="take mail from a banned address again")
    unban.add_argument("address", metavar="ADDRESS")
    unban.set_defaults(run=_admin, action="unban", command_name="admin unban")
    admin.add_parser("bans", help="list the banned addresses").set_defaults(
        run=_admin, action="bans", command_name="admin bans")
    merge = admin.add_parser("merge", help="one player, two addresses: move every seat, game "
                             "and request of ADDRESS to the player at --into")
    merge.add_argument("address", metavar="ADDRESS")
    merge.add_argument("--into", required=True, metavar="ADDRESS",
                       help="the address the player goes on with")
    merge.set_defaults(run=_admin, action="merge", command_name="admin merge")
    forget = admin.add_parser("forget", help="erase a player's address, name and raw mail; "
                              "their games stay, with 'a former player'")
    forget.add_argument("address", metavar="ADDRESS")
    forget.add_argument("--resign", action="store_true",
                        help="resign their running games for them (else they must have ended)")
    forget.set_defaults(run=_admin, action="forget", command_name="admin forget")
    annotator = admin.add_parser("annotator", help="let ADDRESS annotate game ID by mail "
                                 "(`annotate ID`) although they did not play it")
    annotator.add_argument("game", type=int, metavar="ID")
    annotator.add_argument("address", metavar="ADDRESS")
    annotator.set_defaults(run=_admin, action="annotator", command_name="admin annotator")


def _admin(args) -> int:
    from pbem.operator import admin, forget
    from pbem.policy.delivery import deliver_due
    config = existing_store_config()  # NoStore: main says what is missing
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
