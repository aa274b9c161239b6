"""`pbem outbox`: the operator's view of the mail pbem sends, without SQL.

    pbem outbox [--failed|--waiting|--held|--sent|--all] [--address A] [--game N] [--older-than 2h]
                                       what waits, what was given up or held, and why
    pbem outbox retry ID... | --address A | --all-failed | --all-held
                                       put given-up, waiting or held mail back, to go at once
    pbem outbox drop ID... | --all-held  remove mail not sent yet (it never goes)
    pbem outbox bounces                the addresses our mail bounces from, and their scores
    pbem outbox clear ADDRESS          mail goes to ADDRESS again (it bounced; now it works)
    pbem deliver                       send every mail waiting, now, whatever its next try
                                       (after an outage: the relay is mended)

A held mail is one `pbem restore` found waiting in the backup: it may have gone out after
the backup was taken, so it waits until the operator retries it (it was not sent: Postfix's
log has no line with its Message-ID, which the listing shows) or drops it (it was).
A given-up mail is one the relay refused for good (5xx, a relay's "Relay access denied"
too: mend the relay, then `retry --all-failed`) or that waited five days; a bouncing
address is one whose mailbox failed for good (no such user, disabled, full: not a
refusal of the message) on PBEM_BOUNCE_THRESHOLD days (pbem.policy.bounces.scores). `retry`
also takes an address off the bouncing list when it names one: the operator says it
works again. Every line is printed without control characters (pbem.terminal): the
relay's and the reports' words come from outside.
"""

from __future__ import annotations

import datetime as dt
import sys

from pbem.engines.base import OptionError
from pbem.terminal import say

STATES = ("waiting", "failed", "held", "sent")


def add_commands(commands) -> None:
    deliver = commands.add_parser(
        "deliver", help="send every mail waiting, now, even one whose next try is later "
        "(the relay was mended); mail given up is not sent: `pbem outbox retry`",
        description="Send every mail waiting in the outbox now, whatever its next try "
        "(a mail the relay failed waits up to an hour between tries; this skips the "
        "wait). Mail given up for good stays so: `pbem outbox retry --all-failed` puts it "
        "back. Exit 1 when mail still waits because the relay did not take it.")
    deliver.set_defaults(run=_deliver)
    outbox = commands.add_parser("outbox", help="the mail waiting, given up or bouncing; "
                                 "retry or drop it")
    _filters(outbox)
    outbox.set_defaults(run=_outbox, action="list")
    actions = outbox.add_subparsers(title="outbox commands")
    listing = actions.add_parser("list", help="list mail (the default)")
    _filters(listing)
    listing.set_defaults(run=_outbox, action="list")
    retry = actions.add_parser("retry", help="send given-up or waiting mail again, at once")
    retry.add_argument("ids", nargs="*", type=int, metavar="ID")
    retry.add_argument("--address", help="every mail to ADDRESS not sent yet")
    retry.add_argument("--all-failed", action="store_true", help="every given-up mail")
    retry.add_argument("--all-held", action="store_true", help="every mail `pbem restore` "
                       "held (none of it went out after the backup)")
    retry.set_defaults(run=_outbox, action="retry")
    drop = actions.add_parser("drop", help="remove mail not sent yet; it never goes")
    drop.add_argument("ids", nargs="*", type=int, metavar="ID")
    drop.add_argument("--all-held", action="store_true", help="every mail `pbem restore` "
                      "held (it went out after the backup)")
    drop.set_defaults(run=_outbox, action="drop")
    actions.add_parser("bounces", help="the addresses our mail bounces from").set_defaults(
        run=_outbox, action="bounces")
    clear = actions.add_parser("clear", help="mail goes to ADDRESS again")
    clear.add_argument("address", metavar="ADDRESS")
    clear.set_defaults(run=_outbox, action="clear")


def _deliver(args) -> int:
    """`pbem deliver`: everything waiting made due now, then sent as the worker sends it
    (claimed, so a worker running meanwhile sends nothing twice)."""
    from pbem.config import existing_store_config
    from pbem.mail import outbox
    from pbem.policy.delivery import deliver_due
    from pbem.store import Outbox
    from pbem.store.models import utcnow
    config = existing_store_config()  # NoStore: main says what is missing
    started = utcnow()
    outbox.due_now(started)
    sent = deliver_due(config, limit=max(outbox.pending(), 1))
    waiting = outbox.pending()
    say(f"sent {sent}; {waiting} waiting")
    failed = (Outbox.select().where(Outbox.sent.is_null() & Outbox.failed.is_null()
                                    & Outbox.held.is_null() & (Outbox.next_attempt > started))
              .order_by(Outbox.next_attempt).first())
    given_up = Outbox.select().where(Outbox.sent.is_null() & Outbox.failed.is_null(False))
    if given_up.count():
        say(f"given up: {given_up.count()} (not sent again: `pbem outbox --failed` says "
            f"why, `pbem outbox retry --all-failed` sends them)")
    held = Outbox.select().where(Outbox.sent.is_null() & Outbox.held.is_null(False)).count()
    if held:
        say(f"held: {held} (by `pbem restore`, not sent: `pbem outbox --held` lists them)")
    if failed is None:
        return 0
    say(f"the relay did not take them: {failed.last_error or 'no answer'}; next try "
        f"{failed.next_attempt:%Y-%m-%d %H:%M} UTC (`pbem outbox --waiting` lists them)",
        file=sys.stderr)
    return 1


def _filters(parser) -> None:
    shown = parser.add_mutually_exclusive_group()
    for state in STATES + ("all",):
        shown.add_argument(f"--{state}", dest="state", action="store_const", const=state,
                           help={"waiting": "only mail waiting to go", "failed": "only "
                                 "mail given up", "sent": "only mail sent",
                                 "held": "only mail `pbem restore` held",
                                 "all": "everything kept"}[state])
    parser.add_argument("--address", help="only mail to ADDRESS")
    parser.add_argument("--game", type=int, metavar="N", help="only game N's mail")
    parser.add_argument("--older-than", metavar="AGE", help="only mail queued longer ago "
                        "than AGE: 30m, 2h, 3d")
    parser.add_argument("--limit", type=int, default=100, metavar="N",
                        help="at most N lines, the newest (default 100)")


def _outbox(args) -> int:
    from pbem.config import Config
    from pbem.store import transaction
    from pbem.store.database import NoStore, open_existing
    config = Config.from_environment(make_secret=False)
    try:
        open_existing(config.database_url)  # never a new, empty store
    except NoStore as missing:  # the wrong directory or settings
        say(f"pbem outbox: {missing}", file=sys.stderr)
        return 1
    try:
        with transaction():
            for line in ACTIONS[args.action](args):
                say(line)
    except (OptionError, ValueError) as error:
        say(f"pbem outbox {args.action}: {error}", file=sys.stderr)
        return 2
    return 0


def listing(args) -> list[str]:
    """One line a mail: id, queued, state, recipient, game, attempts, why."""
    from pbem.store import Outbox
    from pbem.store.models import utcnow
    from pbem.bookkeeping.controls import parse_span
    rows = Outbox.select(Outbox.id, Outbox.created, Outbox.recipient, Outbox.game,
                         Outbox.attempts, Outbox.sent, Outbox.failed, Outbox.last_error,
                         Outbox.next_attempt, Outbox.held)
    state = getattr(args, "state", None)
    if state is None:  # the operator's question: what has not gone, and why
        rows = rows.where(Outbox.sent.is_null())
    elif state == "waiting":
        rows = rows.where(Outbox.sent.is_null() & Outbox.failed.is_null()
                          & Outbox.held.is_null())
    elif state == "held":
        rows = rows.where(Outbox.sent.is_null() & Outbox.held.is_null(False))
    elif state == "failed":
        rows = rows.where(Outbox.failed.is_null(False))
    elif state == "sent":
        rows = rows.where(Outbox.sent.is_null(False))
    if args.address:
        rows = rows.where(Outbox.recipient == args.address.strip().lower())
    if args.game is not None:
        rows = rows.where(Outbox.game == args.game)
    if args.older_than:
        rows = rows.where(Outbox.created < utcnow() - dt.timedelta(
            seconds=parse_span(args.older_than)))
    rows = list(rows.order_by(Outbox.id.desc()).limit(args.limit))
    if not rows:
        return ["no mail matches"]
    return [_line(row) for row in reversed(rows)]


def _line(row) -> str:
    if row.sent is not None:
        state = f"sent {row.sent:%Y-%m-%d %H:%M}"
    elif row.failed is not None:
        state = f"GIVEN UP {row.failed:%Y-%m-%d %H:%M}"
    elif row.held is not None:
        state = (f"HELD by pbem restore {row.held:%Y-%m-%d %H:%M}: was it sent after the "
                 f"backup? {_message_id(row.id)}")
    else:
        state = f"waiting, next try {row.next_attempt:%Y-%m-%d %H:%M}"
    game = f"game #{row.game_id}" if row.game_id else "no game"
    why = f"  {row.last_error}" if row.last_error else ""
    return (f"{row.id:>7}  {row.created:%Y-%m-%d %H:%M}  {row.recipient or '(forgotten)'}  "
            f"{game}  {row.attempts} attempt{'' if row.attempts == 1 else 's'}  "
            f"{state}{why}")


def retry(args) -> list[str]:
    """Back in the queue, to go at the deliverer's next run (the worker's, or `pbem
    deliver`): its failure and claim forgotten, its attempts counted afresh."""
    from pbem.policy.bounces import scores
    from pbem.store import Outbox
    from pbem.store.models import utcnow
    unsent = Outbox.sent.is_null()
    if args.ids:
        chosen = unsent & Outbox.id.in_(args.ids)
    elif args.address:
        chosen = unsent & (Outbox.recipient == args.address.strip().lower())
    elif args.all_failed:
        chosen = unsent & Outbox.failed.is_null(False)
    elif args.all_held:
        chosen = unsent & Outbox.held.is_null(False)
    else:
        raise ValueError("name the mail: IDs, --address A, --all-failed or --all-held")
    addresses = {row.recipient for row in Outbox.select(Outbox.recipient).where(chosen)}
    count = (Outbox.update(failed=None, held=None, attempts=0, next_attempt=utcnow(),
                           claimed_until=None, handed_over=None, last_error="")
             .where(chosen).execute())
    cleared = sorted(a for a in addresses if a and scores.clear(a))
    return ([f"{count} mail{'' if count == 1 else 's'} back in the queue; `pbem deliver` "
             f"sends them now, or the worker within a minute"]
            + [f"{a} is no longer marked bouncing" for a in cleared])


def drop(args) -> list[str]:
    from pbem.store import Outbox
    if args.all_held:
        chosen = Outbox.held.is_null(False)
    elif args.ids:
        chosen = Outbox.id.in_(args.ids)
    else:
        raise ValueError("name the mail: IDs or --all-held")
    sent = {row.id for row in Outbox.select(Outbox.id).where(
        chosen & Outbox.sent.is_null(False))}
    count = Outbox.delete().where(chosen & Outbox.sent.is_null()).execute()
    return ([f"{count} mail{'' if count == 1 else 's'} dropped"]
            + [f"{i} was sent already; it stays kept" for i in sorted(sent)])


def _message_id(outbox_id: int) -> str:
    """A held mail's Message-ID, to look for in Postfix's log (`message-id=<…>`)."""
    from pbem.mail.outbox import message_id
    from pbem.store import Outbox
    row = Outbox.select(Outbox.message).where(Outbox.id == outbox_id).get()
    return f"Message-ID {message_id(bytes(row.message)) or '(none)'}"


def bounces(args) -> list[str]:
    from pbem.policy.bounces import scores
    rows = scores.listed()
    if not rows:
        return ["no address bounces"]
    return [f"{row.address}  {row.score} day{'' if row.score == 1 else 's'} of hard bounces, "
            f"last {row.last:%Y-%m-%d %H:%M}  "
            + (f"BOUNCING since {row.bouncing:%Y-%m-%d %H:%M}: no mail goes to it"
               if row.bouncing else "still mailed")
            + (f"  {row.reason}" if row.reason else "") for row in rows]


def clear(args) -> list[str]:
    from pbem.policy.bounces import scores
    address = args.address.strip().lower()
    if scores.clear(address):
        return [f"mail goes to {address} again"]
    return [f"{address} had no bounce counted; nothing to clear"]


ACTIONS = {"list": listing, "retry": retry, "drop": drop, "bounces": bounces, "clear": clear}
