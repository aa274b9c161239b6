"""The last steps of the pipeline: the reply's new text read, echoes of our own mail
ignored, and the lines run that the mail's proof allows, with their answer (a mistake
answered at most a few times in a row)."""

from __future__ import annotations

import re

from notation.text import clean_text
from pbem.commands import Speaker, command_lines, run_game_mail, run_global_mail
from pbem.commands.tournaments import answer_invitation
from pbem.intake import loops
from pbem.intake.inbound import reply_text
from pbem.intake.passage import Intake, named_request
from pbem.policy import notices
from pbem.policy.bounces import scores
from pbem.store import Request, counters, database
from pbem.vocabulary.message_ids import ply_replied_to
from pbem.vocabulary.tokens import Route

#: Commands a mail may carry in its Subject alone, with an empty body: what a client's
#: "unsubscribe" button sends to our List-Unsubscribe address (subject=quiet).
SUBJECT_COMMANDS = ("quiet", "loud", "board", "games", "help")


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
        elif invitation(found) is not None:  # a tournament's: pbem.competition
            report = answer_invitation(speaker, invitation(found), intake.lines)
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


def invitation(found: Route | None) -> Request | None:
    """The tournament invitation a reply answers (its token is a request's), or None."""
    if found is None or (found.request is None and not found.request_key):
        return None
    request = named_request(found)
    return request if request is not None and request.kind == "tournament" else None
