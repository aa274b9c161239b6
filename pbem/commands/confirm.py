"""Lines that need more proof than their mail carried (pbem.authority): held, and the
registered address asked to confirm them.

Mail to `pbem@` whose From header alone says who wrote it (no reply token of ours, no
aligned DMARC pass) may ask (`games`, `help`), nothing more. A line that would change
the account or act for the player (`name`, `address add`, `vacation 7d`, `new`, …) is
not carried out at once: the mail's lines are held in a request, and the registered
address is asked to confirm them. A reply to that mail carries them out with a
confirmation's proof, which allows exactly those lines (pbem.intake.pipeline). Nobody
else hears of it: an address a line names gets nothing until the lines are confirmed.
At most CONFIRMATIONS_PER_HOUR such requests go to one player an hour, so a forger
cannot make pbem write to them again and again; a request is answered within
CONFIRM_DAYS or not at all.
"""

from __future__ import annotations

import datetime as dt

from pbem.authority import CONFIRMATION, Proof
from pbem.commands.speaker import Speaker
from pbem.policy import invitations, letters
from pbem.policy.report import Report
from pbem.store import Request
from pbem.store.models import utcnow

KIND = "command"  # Request.kind of lines waiting for their confirmation
CONFIRMATIONS_PER_HOUR = 3
CONFIRM_DAYS = 7
HELD = "held: the registered address was asked to confirm"  # the mail's outcome
TOO_MANY = "ignored: unproven, and the player was asked to confirm often enough this hour"


def hold_for_confirmation(speaker: Speaker, lines: list[str]) -> Report:
    """Hold `lines` and ask the player's registered address to confirm them; the
    report's `held` says so (the pipeline's outcome), and nothing else is answered."""
    player = speaker.player
    recent = (Request.select().where((Request.kind == KIND) & (Request.player == player)
                                     & (Request.created >= utcnow() - dt.timedelta(hours=1)))
              .count())
    report = Report(held=list(lines))
    if recent >= CONFIRMATIONS_PER_HOUR:
        report.confirming = TOO_MANY
        return report
    request = Request.create(kind=KIND, player=player, lines=list(lines))
    invitations.to_confirm_commands(speaker.config, player, request, lines,
                                    in_reply_to=speaker.message_id)
    report.confirming = HELD
    return report


def waiting(request: Request) -> bool:
    """Whether a request for confirmation may still be answered."""
    return (request.kind == KIND and request.open
            and request.created >= utcnow() - dt.timedelta(days=CONFIRM_DAYS))


def tell_expired(config, request: Request, in_reply_to: str) -> None:
    """The player answered a request too late: nothing was done, and what to do now (the
    answer goes to the registered address, as the request did)."""
    request.open = False
    request.save()
    letters.answer(config, request.player, "[pbem] your confirmation came too late", [
        f"You confirmed commands more than {CONFIRM_DAYS} days after pbem asked; nothing was "
        f"done. Send them again in a reply to any mail from pbem: its reply address proves "
        f"the mail yours, and they run at once."], in_reply_to=in_reply_to)


def confirm(request: Request) -> Proof:
    """The answer came: the request is used up, and its lines may run, those only."""
    request.open = False
    request.save()
    return Proof(CONFIRMATION, confirmed=tuple(" ".join(line.split()) for line in request.lines))
