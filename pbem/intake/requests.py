"""Replies to our requests, and first mails from addresses pbem does not know yet (the
second half of the pipeline's `authenticate`): a second address confirmed, a tournament's
invitation answered, held lines confirmed; a first mail held and its address asked once
to confirm it, and every mail held for it carried out once it does."""

from __future__ import annotations

from pbem import authority
from pbem.authority import Proof
from pbem.commands import confirm as confirm_commands
from pbem.commands.account import confirm_address
from pbem.config import Config
from pbem.intake import confirmations
from pbem.intake.authentication import authentication_failure
from pbem.intake.inbound import parse_mail
from pbem.intake.passage import Intake, set_outcome
from pbem.intake.running import extract, run_commands
from pbem.players import heard_from
from pbem.policy import invitations
from pbem.policy.limits import CAP_REACHED
from pbem.store import Inbound, Outbox, Player, Request

def answer_request(intake: Intake, request: Request | None) -> bool:
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


def ask_for_confirmation(intake: Intake) -> bool:
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
        set_outcome(config, held, outcome)


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
        set_outcome(intake.config, row, confirmations.dropped())
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
    set_outcome(config, row, f"{held.outcome} (after confirmation)")
