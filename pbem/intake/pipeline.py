"""The inbound pipeline: every received mail goes through the same short list of steps.

    record → drop duplicates → take delivery reports (to a mail's own return path) →
    ignore robots → route (by reply token) → prove (what the mail proves of its
    writer: pbem.authority) → limit floods (the player's budget for proven mail, the
    sender's as a stranger's for the rest) → refuse what failed DMARC at our MTA (when
    PBEM_AUTHSERV_ID is set) → refuse oversized or malformed mail → authenticate (a
    seat's token only from its player; a new address asked to confirm) → refuse a
    barred player (pbem.access) → extract the text → ignore echoes of our own mail →
    run the commands, those the proof allows (the rest wait for a confirmation; an
    error reply at most a few times in a row)

Each step is a small function that either lets the mail go on or stops it, saying why in
the mail's `outcome`, which is stored with the raw bytes. The raw mail is committed before
anything acts on it; everything after runs in one transaction, so a crash never
half-applies a move, and a redelivered mail (same Message-ID) runs at most once. Mail that
might not come from the address it claims (robots, strangers, forged senders) is never
answered: the server must not be a tool for sending mail to third parties
(pbem.policy.limits bounds what the rest can make it send).

What a mail may cost before it is known to be a player's is bounded: the raw bytes get a
cheap look first (pbem.intake.prescan), only the header section is parsed up to the
authentication, and the body's MIME structure is parsed only for a confirmed player's
mail that passed the look. `receive` never raises but for TemporaryFailure: a mail that
cannot even be read is stored raw with the reason, and the SMTP client hears a plain OK.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from peewee import IntegrityError, OperationalError

from notation.text import clean_text
from pbem import access, authority
from pbem.authority import Proof
from pbem.commands import Speaker, command_lines, run_game_mail, run_global_mail
from pbem.commands import confirm as confirm_commands
from pbem.commands.account import confirm_address
from pbem.commands.tournaments import answer_invitation
from pbem.config import Config
from pbem.intake import confirmations, loops, refusals, reports
from pbem.intake.authentication import authentication_failure, dmarc_pass, dmarc_refusal
from pbem.intake.inbound import (InboundMail, invented_message_id, parse_mail, reply_text,
                                 robot_reason)
from pbem.intake.outcomes import count_outcome
from pbem.intake.prescan import structure_refusal
from pbem.intake.retention import kept_until
from pbem.logs import about_game, about_mail
from pbem.vocabulary.message_ids import LOOP_HEADER, ply_replied_to
from pbem.vocabulary.tokens import Route, is_account_token, read_route
from pbem.play import seats_of
from pbem.players import heard_from, owner_of, player_for
from pbem.policy import invitations, letters, notices
from pbem.policy.bounces import scores
from pbem.policy.limits import CAP_REACHED
from pbem.store import Inbound, Outbox, Player, Request, Seat, counters, database, transaction
from pbem.store.database import is_postgres
from pbem.store.models import Ban
from pbem.store.prepared import Creates, Prepared

log = logging.getLogger(__name__)

#: Commands a mail may carry in its Subject alone, with an empty body: what a client's
#: "unsubscribe" button sends to our List-Unsubscribe address (subject=quiet).
SUBJECT_COMMANDS = ("quiet", "loud", "board", "games", "help")
BANNED = "ignored: banned address"


# The statements every mail runs, written once (pbem.store.prepared).
def _locked(query):
    return query.for_update() if is_postgres() else query


_INBOUND = Creates(Inbound)
_SET_OUTCOME = Prepared(lambda outcome, until, proven, id: Inbound.update(
    outcome=outcome, kept_until=until, proven=proven).where(Inbound.id == id))
_OUTCOME = Prepared(lambda id: _locked(Inbound.select(Inbound.outcome)  # not the raw mail
                                       .where(Inbound.id == id)))
# A ban of the sender (1) and a bounce of theirs kept (2): access.address_barred and
# what scores.wrote_again would delete, asked in one statement.
_BANNED_OR_KEPT = Prepared(lambda address, domain: (
    Ban.banning(address, domain) + scores.kept(address)).tuples())
_SEAT = Prepared(lambda game, number: Seat.select(Seat, Player).join(Player)
                 .where((Seat.game == game) & (Seat.number == number)).limit(1))


class TemporaryFailure(Exception):
    """The store is unavailable: the sender's MTA should try again later (SMTP 451)."""


@dataclass
class Intake:
    """One mail on its way through the steps."""
    config: Config
    mail: InboundMail
    row: Inbound | None = None
    route: Route | None = None
    proof: Proof = Proof(authority.FROM_ALONE)  # what the mail proves (prove)
    seat: Seat | None = None  # the seat its reply token names, with its player
    # ... and all its game's seats, when they were read under the store's write lock
    # (SQLite), for run_commands' table: not read again (pbem.play.Table.load)
    seats: list[Seat] | None = None
    request: Request | None = None  # the request its reply token names
    player: Player | None = None
    text: str = ""  # what the player wrote (extract), without quotes and signature
    lines: list[str] = field(default_factory=list)
    confirmed: tuple[str, ...] = ()  # lines held for a confirmation that this mail gave
    dmarc: tuple | None = None  # our MTA's refusal, once read (() for none): _dmarc
    cleared: set[str] = field(default_factory=set)  # addresses found not banned (ignore_robots)
    bounce_kept: bool | None = None  # a bounce row of the sender's (ignore_robots); None: not asked
    outcome: str = ""

    def stop(self, outcome: str) -> bool:
        self.outcome = outcome
        return True


def receive(config: Config, raw: bytes, envelope_sender: str | None = None,
            envelope_recipients: list[str] | None = None) -> str:
    """Take one mail through the pipeline; returns what was done with it, in words.

    Raises TemporaryFailure only when the database cannot be reached or is locked, so
    the caller can ask the sending MTA to retry; any other problem is recorded, with the
    raw bytes, and the outcome says so (never the caller's business: no exception text
    goes back to an SMTP client).
    """
    try:
        intake = Intake(config, parse_mail(raw, envelope_sender, envelope_recipients))
    except Exception as error:  # parse_mail is meant never to raise; keep the mail anyway
        return _record_unreadable(config, bytes(raw), error)
    with about_mail(intake.mail.message_id):  # every log line until the end names it
        _run_steps(intake)
        log.info("mail from %s: %s", intake.mail.sender or "(no From)", intake.outcome)
    return intake.outcome


def _record_unreadable(config: Config, raw: bytes, error: Exception) -> str:
    """A mail the reader itself failed on: stored raw under an invented Message-ID."""
    log.exception("inbound mail could not be read")
    outcome = f"failed: unreadable ({type(error).__name__})"
    try:
        with transaction():
            row, created = Inbound.get_or_create(
                message_id=invented_message_id(raw),  # same bytes, same id
                defaults={"sender": "", "raw": raw, "outcome": outcome})
            row.kept_until = kept_until(config, row.received, outcome)
            row.save()
            if created:  # the same bytes again are the same mail, counted once
                count_outcome(outcome)
    except OperationalError as stored:
        raise TemporaryFailure(str(stored)) from stored
    except Exception:  # the promise holds even now; the log has both tracebacks
        log.exception("storing an unreadable inbound mail failed")
    return outcome


def _run_steps(intake: Intake) -> None:
    try:
        record(intake)
        with transaction(), counters.gathered():  # its events in one INSERT, at the end
            for step in STEPS:
                if step(intake):
                    break
            else:
                intake.outcome = intake.outcome or "done"
            if intake.row is not None and intake.outcome != "duplicate":
                _write_outcome(intake)
    except OperationalError as error:
        raise TemporaryFailure(str(error)) from error
    except Exception as error:  # a bug must not lose the mail or stop the server
        log.exception("inbound mail %s failed", intake.mail.message_id)
        intake.outcome = f"failed: {type(error).__name__}: {error}"[:1000]
        if intake.row is not None:
            try:
                _write_outcome(intake)
            except OperationalError as stored:
                raise TemporaryFailure(str(stored)) from stored
            except Exception:  # the row keeps "received": a redelivery runs it again
                log.exception("recording the outcome of %s failed", intake.mail.message_id)


def _write_outcome(intake: Intake) -> None:
    """The outcome, until when the raw mail is kept (pbem.intake.retention) and whether
    it proved to be its player's (it then counts in their budget, pbem.access); counted
    for the operator's metrics (pbem.intake.outcomes)."""
    _set_outcome(intake.config, intake.row, intake.outcome, intake.proof.proves_player)


def record(intake: Intake) -> None:
    """Keep the raw bytes before acting on them (in their own, committed transaction)."""
    mail = intake.mail
    try:
        with transaction():
            intake.row = _INBOUND(message_id=mail.message_id[:255], sender=mail.sender,
                                  raw=mail.raw)
    except IntegrityError:
        intake.row = Inbound.get(Inbound.message_id == mail.message_id[:255])


def drop_duplicate(intake: Intake) -> bool:
    """The same Message-ID runs once; a mail whose first run crashed runs again.

    Two copies may arrive at once: the check runs under the transaction's lock (SQLite
    takes it at BEGIN; PostgreSQL locks the row here), so the second copy waits and then
    sees the first one's outcome. Even a copy this delivery stored must look: the other
    copy, which found the row, may have taken the lock first and run it already.
    """
    row = _OUTCOME.get(intake.row.id)
    if row.outcome != "received" and not row.outcome.startswith("failed"):
        return intake.stop("duplicate")
    return False


def take_delivery_report(intake: Intake) -> bool:
    """A mail to one of our return paths is a delivery report about a mail we sent
    (pbem.intake.reports): its bounce is counted where the report is genuine. It is a
    machine's, so it is never answered and never read as commands."""
    outcome = reports.take_report(intake.config, intake.mail)
    return intake.stop(outcome) if outcome else False


def ignore_robots(intake: Intake) -> bool:
    """Auto-replies, bounces, lists and our own mail coming back get no answer; nor does
    an address (or domain) the operator banned (`pbem admin ban`)."""
    mail = intake.mail
    # The header's sender and the envelope's are mostly one address: asked once.
    senders = {address.lower() for address in (mail.sender, mail.envelope_sender) if address}
    for address in senders:
        if address == mail.sender:  # and whether a bounce of it is kept (run_commands)
            found = {row[0] for row in _BANNED_OR_KEPT.rows(*Ban.keys(address))}
            banned, intake.bounce_kept = 1 in found, 2 in found
        else:
            banned = access.address_barred(address)
        if banned:
            return intake.stop(BANNED)
    intake.cleared = senders  # not banned: refuse_barred need not ask again
    reason = robot_reason(intake.mail, LOOP_HEADER)
    return intake.stop(f"ignored: robot ({reason})") if reason else False


def limit_rate(intake: Intake) -> bool:
    """A sender who floods us is ignored for the rest of the hour. Mail proven to be a
    player's (pbem.authority) spends that player's budget, counted with the posts from
    their seats' pages; any other mail spends its sender's budget as a stranger's, so
    mail forged in a player's name never locks the player out (pbem.access). A
    confirmed player hears once a day what the limit is, nobody else hears anything."""
    proven = intake.proof.proves_player
    count = access.over_rate(intake.config, intake.mail.sender, proven=proven,
                             unmarked=int(proven), in_reply_to=intake.mail.message_id)
    if count:
        whose = "" if proven else " unproven"
        return intake.stop(f"ignored: {count}{whose} mails from this sender within an hour")
    return False


def require_dmarc(intake: Intake) -> bool:
    """With PBEM_AUTHSERV_ID set, mail whose From failed DMARC at our MTA (probably
    forged), or that did not come through it, stops unanswered (pbem.intake.authentication);
    it is counted, and the player it claims to be is told at their registered address,
    once a day at most (pbem.policy.notices)."""
    refusal = _dmarc(intake)
    if refusal is None:
        return False
    reason, outcome = refusal
    refusals.count(reason, intake.row.id)  # for `pbem status`: a broken set-up shows
    notices.tell_of_unauthenticated(intake.config, intake.mail)  # registered address only
    return intake.stop(outcome)


def _dmarc(intake: Intake) -> tuple[str, str] | None:
    """Why our MTA's verdict refuses the mail (pbem.intake.authentication), read once;
    None when it does not, or with no MTA to ask (the embedded listener)."""
    if not intake.config.authserv_id:
        return None
    if intake.dmarc is None:
        intake.dmarc = dmarc_refusal(intake.mail.message, intake.config.authserv_id,
                                     intake.mail.sender) or ()
    return intake.dmarc or None


def refuse_oversized(intake: Intake) -> bool:
    """Too large to be a move: players we know are told; strangers get nothing."""
    limit = intake.config.max_message_bytes
    if intake.mail.size <= limit:
        return False
    letters.refused_mail(intake.config, intake.mail.sender, "[pbem] your mail was too large", [
        f"Your mail of {intake.mail.size:,} bytes was not read: the limit is {limit:,}. "
        f"Moves and commands are a few words of plain text; please send them without "
        f"attachments."], in_reply_to=intake.mail.message_id)
    return intake.stop(f"refused: {intake.mail.size} bytes, over the limit of {limit}")


def refuse_malformed(intake: Intake) -> bool:
    """A structure no mail client writes (thousands of nested parts, a header of megabytes)
    is refused unread, before its body is parsed (pbem.intake.prescan): players we know are
    told; strangers get nothing."""
    why = structure_refusal(intake.mail.raw)
    if why is None:
        return False
    letters.refused_mail(intake.config, intake.mail.sender, "[pbem] your mail could not be read", [
        f"Your mail was not read: {why}. Moves and commands are a few words of plain "
        f"text; please send them in a new mail, without attachments or forwarded mail."],
        in_reply_to=intake.mail.message_id)
    return intake.stop(f"refused: malformed, {why}")


def route(intake: Intake) -> bool:
    """Which game seat or request the mail is for, from the reply token in its address."""
    config, mail = intake.config, intake.mail
    for address in mail.recipients:
        found = read_route(config.secret_key, address, config.domain)
        if found is not None:
            intake.route = found
            about_game(found.game)
            return False
    tokened = [a for a in mail.recipients if a.startswith("pbem+") and a.endswith(config.domain)]
    if tokened:
        return intake.stop(f"ignored: reply token not valid ({tokened[0]})")
    if config.address not in mail.recipients:
        return intake.stop("ignored: not addressed to pbem")
    return False


def prove(intake: Intake) -> bool:
    """What the mail proves of its writer (pbem.authority), from evidence alone, before
    anything is written or counted: a seat's reply token from its player's address (or a
    second address of theirs), an account token of the From's player, an answer to a
    request from the address it asked, an aligned DMARC pass at our MTA (with
    PBEM_AUTHSERV_ID) for a confirmed player. Anything else is the From alone, which
    proves nothing: such mail may ask, and is asked to confirm the rest."""
    config, sender, found = intake.config, intake.mail.sender, intake.route
    if not sender or _dmarc(intake) is not None:  # our MTA says it is forged: nothing
        return False
    if found is not None and found.game is not None:
        if is_postgres():
            intake.seat = _SEAT.first(found.game, found.seat)
        else:  # the game's seats, kept for its table: SQLite's lock is ours since BEGIN
            intake.seats = seats_of(found.game)
            intake.seat = next((s for s in intake.seats if s.number == found.seat), None)
        if intake.seat is not None and _is_players(intake.seat.player, sender):
            intake.proof = Proof(authority.SEAT_REPLY, found.game, found.seat)
        return False
    if found is not None and (found.request is not None or found.request_key):
        intake.request = _request(found)
        if intake.request is not None and sender == _asked(intake.request):
            intake.proof = Proof(authority.CONFIRMATION)
        return False
    owner = owner_of(sender)
    if owner is None or not owner.confirmed:
        return False
    if found is not None and is_account_token(config.secret_key, found, owner.id, owner.links):
        intake.proof, intake.player = Proof(authority.ACCOUNT_TOKEN), owner
    elif dmarc_pass(intake.mail.message, config.authserv_id, sender):
        intake.proof, intake.player = Proof(authority.DMARC_PASS), owner
    return False


def _is_players(player: Player, sender: str) -> bool:
    """Whether `sender` is the player's address, or a second address of theirs."""
    return player.email == sender or getattr(owner_of(sender), "id", None) == player.id


def _request(found: Route) -> Request | None:
    """The request a reply token names: by its random key, or (mailed before keys) by
    its id, only while it has no key (an id another request took is not it)."""
    if found.request_key:
        return Request.get_or_none(Request.key == found.request_key)
    return Request.get_or_none((Request.id == found.request) & Request.key.is_null())


def _asked(request: Request) -> str:
    """The address a request was mailed to: a second address's own, else its player's."""
    if request.kind == "address":
        return request.lines[0] if request.lines else ""
    return request.player.email


def authenticate(intake: Intake) -> bool:
    """A seat's token is accepted only with the From address of its player: other mail
    with it is not answered, and the seat's player is told (once a day at most) how to
    add a second address. A reply to a request does what the request asked; mail to
    `pbem@` from an address pbem does not know yet is held, and the address asked once to
    confirm it."""
    sender, found = intake.mail.sender, intake.route
    if not sender:
        return intake.stop("ignored: no From address")
    if found is not None and found.game is not None:
        if intake.proof.kind != authority.SEAT_REPLY:
            refusals.count("wrong-sender", intake.row.id)
            if intake.seat is not None and owner_of(sender) is None:  # their second address?
                notices.tell_of_other_address(intake.config, intake.seat.player, sender,
                                              found.game)
            return intake.stop("ignored: From is not the seat's player")
        intake.player = intake.seat.player
        heard_from(intake.player, intake.mail.sender_name)  # an invitation's answer
        return False
    if found is not None and (found.request is not None or found.request_key):
        return _answer_request(intake, intake.request)
    if intake.player is None:
        intake.player = player_for(sender, intake.mail.sender_name)
    if intake.player.confirmed:
        return False
    return _ask_for_confirmation(intake)


def _answer_request(intake: Intake, request: Request | None) -> bool:
    """A reply to one of our requests: a second address's, a first mail's, a
    tournament's invitation, or lines waiting for their confirmation."""
    sender = intake.mail.sender
    if request is not None and request.kind == "address" and request.open:
        if not confirm_address(intake.config, request, sender):
            return intake.stop("ignored: address confirmation not from that address")
        return intake.stop("done: a second address confirmed")
    if request is None or request.player.email != sender or not request.open:
        return intake.stop("ignored: confirmation not for this sender, or already used")
    if request.kind == "tournament":  # an invitation's answer: run_commands reads it
        intake.player = request.player
        heard_from(intake.player, intake.mail.sender_name)
        return False
    if request.kind == confirm_commands.KIND:
        if not confirm_commands.waiting(request):  # its token proves the player: told
            confirm_commands.tell_expired(intake.config, request, intake.mail.message_id)
            return intake.stop(f"ignored: a confirmation answered after "
                               f"{confirm_commands.CONFIRM_DAYS} days")
        intake.player = request.player
        intake.proof = confirm_commands.confirm(request)  # those lines, nothing else
        intake.confirmed = tuple(request.lines)
        return False
    return _confirm(intake, request)


def refuse_barred(intake: Intake) -> bool:
    """A player the operator barred (pbem.access.barred: a ban of their address or of a
    second address of theirs) is not read from any of their addresses either."""
    if access.barred(intake.player, intake.cleared):
        return intake.stop(BANNED)
    return False


def _ask_for_confirmation(intake: Intake) -> bool:
    """First mail from an address: ask once whether it is really theirs, run nothing."""
    player = intake.player
    waiting = Request.get_or_none((Request.player == player) & (Request.kind == "confirm")
                                  & Request.open)
    if waiting is not None:
        if not _request_undelivered(player.email):
            # One request per address: a forger cannot make us mail it again and again.
            # The mail is held with the first, and carried out with it once confirmed.
            return intake.stop(confirmations.HELD_TOO)
        _drop_undelivered_request(intake.config, waiting)  # it never arrived: ask anew
    failed = authentication_failure(intake.mail.message, intake.config.authserv_id)
    if failed:  # our MTA says the From is someone else's: they must not hear from us
        return intake.stop(f"ignored: {failed} at {intake.config.authserv_id}, no "
                           f"confirmation asked for")
    if invitations.refusal(intake.config, invitations.CONFIRMATION):
        return intake.stop(CAP_REACHED)
    request = Request.create(kind="confirm", player=player, inbound=intake.row)
    invitations.to_confirm(intake.config, player, request, intake.mail.message_id)
    return intake.stop(confirmations.HELD)


def _request_undelivered(address: str) -> bool:
    """Whether our last mail to `address` (its confirmation request) was given up: a
    request that never arrived must not keep the address waiting for a week."""
    last = (Outbox.select(Outbox.failed).where(Outbox.recipient == address)
            .order_by(Outbox.id.desc()).first())
    return last is not None and last.failed is not None


def _drop_undelivered_request(config: Config, request: Request) -> None:
    """Close a confirmation request whose mail was given up; its held mails are not run."""
    request.open = False
    request.save()
    outcome = "expired: its confirmation request could not be delivered"
    for held in confirmations.held_mails(request):
        _set_outcome(config, held, outcome)


def _confirm(intake: Intake, request: Request) -> bool:
    """The sender proved the address is theirs: carry out every mail that was held for
    it, in the order they came (the first, and any sent before the answer), each
    answered as if it had just arrived; past confirmations.HELD_MAX, the sender is told
    which were not."""
    player = request.player
    player.confirmed = True
    player.save()
    Request.update(open=False).where((Request.player == player)
                                     & (Request.kind == "confirm")).execute()
    held = confirmations.held_mails(request)
    for row in held[:confirmations.HELD_MAX]:
        _run_held(intake.config, row, player)
    dropped = held[confirmations.HELD_MAX:]
    for row in dropped:
        _set_outcome(intake.config, row, confirmations.dropped())
    if dropped:
        confirmations.tell_not_carried_out(intake.config, player, dropped,
                                           [parse_mail(bytes(r.raw)) for r in dropped])
    carried = min(len(held), confirmations.HELD_MAX)
    return intake.stop(f"done: confirmed, {carried} held mail(s) carried out")


def _run_held(config: Config, row: Inbound, player: Player) -> None:
    """One held mail, read and carried out now as any confirmed player's mail is: the
    answer to the request confirmed what it says (its lines, nothing else)."""
    held = Intake(config, parse_mail(bytes(row.raw)), row=row, player=player)
    extract(held)
    held.proof = Proof(authority.CONFIRMATION,
                       confirmed=tuple(" ".join(line.split()) for line in held.lines))
    run_commands(held)
    _set_outcome(config, row, f"{held.outcome} (after confirmation)")


def _set_outcome(config: Config, row: Inbound, outcome: str, proven: bool = False) -> None:
    """Write a mail's outcome (and whether it proved to be its player's), and count it:
    each outcome a mail reaches is an event."""
    _SET_OUTCOME.execute(outcome, kept_until(config, row.received, outcome), proven, row.id)
    count_outcome(outcome)


def extract(intake: Intake) -> bool:
    """The player's new text, without quotes and signatures: its first lines are commands.
    Control characters go here (notation.text): nothing a player writes by mail, a
    comment, a name, a seek's or a tournament's fields, keeps one. A reply that confirms
    held lines carries those lines; what it says itself does not matter."""
    if intake.confirmed:
        intake.lines = list(intake.confirmed)
        return False
    intake.text = clean_text(reply_text(intake.mail))  # no control characters kept
    intake.lines = command_lines(intake.text)
    subject = re.sub(r"^((re|aw|sv|fw|fwd)\s*:\s*)+", "", intake.mail.subject, flags=re.I)
    if not intake.lines and subject.strip().lower() in SUBJECT_COMMANDS:
        intake.lines = [subject.strip().lower()]  # List-Unsubscribe's mailto: sends one
    return False


def ignore_echo(intake: Intake) -> bool:
    """A mail that repeats our last mail to its sender word for word is a robot's, even
    without a robot's headers: answering it would start a loop. (A confirmation is
    proven by its token, whatever it quotes.)"""
    if not intake.confirmed and loops.repeats_our_last_mail(intake.mail.sender, intake.text):
        return intake.stop("ignored: it repeats our last mail to this address")
    return False


def run_commands(intake: Intake) -> bool:
    """Run the lines the mail's proof allows and answer (lines that need more wait for
    the registered address to confirm them: pbem.commands.confirm). An answer that could
    only say what failed goes to one address at most loops.ERRORS_IN_A_ROW times in a
    row until a mail from it is carried out: a responder quoting our mail ends its loop
    there, while a person's mistakes between moves that work are all answered. Beyond
    it, such a mail changes nothing and is not answered (its commands ran in a
    savepoint, which is rolled back)."""
    mail, found, config = intake.mail, intake.route, intake.config
    # a forger must not undo what a bounce taught us; without a bounce kept (asked with
    # the bans, ignore_robots), there is nothing to undo
    if intake.proof.proves_player and intake.bounce_kept is not False:
        scores.wrote_again(mail.sender)  # mail from the address: mail to it works again
    speaker = Speaker(config, intake.player, mail.message_id, mail=mail, proof=intake.proof)
    with database.atomic() as savepoint:  # nested in the pipeline's transaction
        counted = counters.mark()  # what it counts goes with it, if it is rolled back
        if found is not None and found.game is not None:
            speaker.replied_ply = ply_replied_to(config, mail.replied_to, found.game)
            report = run_game_mail(speaker, found.game, found.seat, intake.lines,
                                   seats=intake.seats)
        elif _invitation(found) is not None:  # a tournament's: pbem.competition
            report = answer_invitation(speaker, _invitation(found), intake.lines)
        else:
            report = run_global_mail(speaker, intake.lines)
        only_errors = report is not None and not (report.applied or report.held)
        # Counted only for an answer that would say what failed: the count reads
        # each of the sender's rows of the hour, and the mail's own is not among them.
        silenced = _error_limit(intake) if only_errors else None
        if silenced:
            savepoint.rollback()
            counters.forget_since(counted)
    if silenced:  # told after the rollback, which would take the notice back too
        outcome, limit, paragraphs = silenced
        notices.tell_of_limit(config, mail.sender, limit, paragraphs,
                              in_reply_to=mail.message_id)
        return intake.stop(outcome)
    if report is not None and report.confirming:
        return intake.stop(report.confirming)
    if only_errors:
        return intake.stop(f"{loops.ERROR_ANSWERED}, {len(intake.lines)} line(s)")
    return intake.stop(f"done: {len(intake.lines)} line(s)")


def _error_limit(intake: Intake) -> tuple[str, str, list[str]] | None:
    """For a mail that would be answered only with what failed: when the limit on such
    answers in a row silences it, its outcome, the limit's name and what its player is
    told (once a day: pbem.policy.notices); None when it is answered."""
    sender = intake.mail.sender
    first_line = intake.lines[0] if intake.lines else ""
    if loops.error_replies_in_a_row(sender) >= loops.ERRORS_IN_A_ROW:
        # a responder quoting us: silence until a mail works
        return (f"ignored: {loops.ERRORS_IN_A_ROW} error replies in a row to this address "
                f"with nothing carried out", "errors-in-a-row",
                loops.errors_in_a_row_words(first_line))
    return None


def _invitation(found: Route | None) -> Request | None:
    """The tournament invitation a reply answers (its token is a request's), or None."""
    if found is None or (found.request is None and not found.request_key):
        return None
    request = _request(found)
    return request if request is not None and request.kind == "tournament" else None


STEPS = (drop_duplicate, take_delivery_report, ignore_robots, route, prove, limit_rate,
         require_dmarc, refuse_oversized, refuse_malformed, authenticate, refuse_barred,
         extract, ignore_echo, run_commands)
