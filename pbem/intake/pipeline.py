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

The steps up to `authenticate` are here; what they leave for one another is
pbem.intake.passage's `Intake`; replies to our requests and first mails from new
addresses are pbem.intake.requests'; the last steps (read the text, ignore echoes, run
the commands) are pbem.intake.running's.
"""

from __future__ import annotations

import logging

from peewee import IntegrityError, OperationalError

from pbem import access, authority
from pbem.authority import Proof
from pbem.config import Config
from pbem.intake import refusals, reports
from pbem.intake.authentication import dmarc_pass, dmarc_refusal
from pbem.intake.inbound import invented_message_id, parse_mail
from pbem.intake.outcomes import count_outcome
from pbem.intake.passage import Intake, named_request, set_outcome
from pbem.intake.prescan import structure_refusal
from pbem.intake.requests import answer_request, ask_for_confirmation
from pbem.intake.retention import kept_until
from pbem.intake.robots import robot_reason
from pbem.intake.running import extract, ignore_echo, run_commands
from pbem.logs import about_game, about_mail
from pbem.play import seats_of
from pbem.players import heard_from, owner_of, player_for
from pbem.policy import letters, notices
from pbem.policy.bounces import scores
from pbem.store import Inbound, Player, Request, Seat, counters, transaction
from pbem.store.database import is_postgres
from pbem.store.models import Ban
from pbem.store.prepared import Creates, Prepared
from pbem.vocabulary.message_ids import LOOP_HEADER
from pbem.vocabulary.tokens import is_account_token, read_route

log = logging.getLogger(__name__)

BANNED = "ignored: banned address"


# The statements every mail runs, written once (pbem.store.prepared).
def _locked(query):
    return query.for_update() if is_postgres() else query


_INBOUND = Creates(Inbound)
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
    set_outcome(intake.config, intake.row, intake.outcome, intake.proof.proves_player)


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
        intake.request = named_request(found)
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
        return answer_request(intake, intake.request)
    if intake.player is None:
        intake.player = player_for(sender, intake.mail.sender_name)
    if intake.player.confirmed:
        return False
    return ask_for_confirmation(intake)


def refuse_barred(intake: Intake) -> bool:
    """A player the operator barred (pbem.access.barred: a ban of their address or of a
    second address of theirs) is not read from any of their addresses either."""
    if access.barred(intake.player, intake.cleared):
        return intake.stop(BANNED)
    return False


STEPS = (drop_duplicate, take_delivery_report, ignore_robots, route, prove, limit_rate,
         require_dmarc, refuse_oversized, refuse_malformed, authenticate, refuse_barred,
         extract, ignore_echo, run_commands)
