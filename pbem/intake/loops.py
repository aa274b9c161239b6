"""Answers that could feed a loop with a robot on the other end, limited:

    in a row      after ERRORS_IN_A_ROW error replies in a row to one address with nothing
                  carried out between them, silence until a mail from it works: a
                  responder that quotes our mail (so is no echo) and marks nothing would
                  otherwise be answered for ever. Only a row counts: a person's mistakes
                  between moves that work are all answered, however many in an hour
                  (there is no hourly count of error replies: it silenced newcomers)
    echoes        a mail that repeats, word for word, our last mail to its sender (an
                  autoresponder quoting us) is not answered

All read an index (inbound.sender with its time; outbox.recipient), so a check costs a
mail about what reading a few rows does.

A confirmed player whose mail a limit silenced (these, or the limit on mails and page
posts an hour, pbem.access) is told once a day per limit what it is and when it lifts
(`errors_in_a_row_words` here, sent by pbem.policy.notices.tell_of_limit): a person must not be left
waiting for an answer that will not come, while a robot gets at most one mail a day.
"""

from __future__ import annotations

import email
import email.policy
import re

from pbem.intake.inbound import written_text
from pbem.store import Inbound, Outbox
from pbem.store.prepared import Prepared

ERROR_ANSWERED = "answered: error"  # the outcome of a mail whose answer said only what failed
ECHO_MIN = 40  # characters: a shorter mail of ours (none is) is not worth comparing
ERRORS_IN_A_ROW = 5  # error replies to one address, nothing carried out: then silence
WORKED = "done"  # the outcomes of mail that was carried out start so (running.run_commands)

_ANSWERED_LATELY = Prepared(lambda address: Inbound.select(Inbound.outcome)
                            .where((Inbound.sender == address)
                                   & (Inbound.outcome.startswith(ERROR_ANSWERED)
                                      | Inbound.outcome.startswith(WORKED)))
                            .order_by(Inbound.received.desc(), Inbound.id.desc())
                            .limit(ERRORS_IN_A_ROW).tuples())


def error_replies_in_a_row(address: str) -> int:
    """Error replies to `address` since the last of its mails that was carried out, up to
    ERRORS_IN_A_ROW. Mail not answered at all (robots, mail ignored by this very limit)
    neither counts nor breaks the row; a mail that works breaks it."""
    row = 0
    for (outcome,) in _ANSWERED_LATELY.rows(address):
        if not outcome.startswith(ERROR_ANSWERED):
            break
        row += 1
    return row


def repeats_our_last_mail(address: str, text: str) -> bool:
    """Whether `text` (what the sender wrote) holds, word for word, the whole text of our
    last mail to them: an autoresponder sending us back what we sent.

    A text shorter than ECHO_MIN cannot hold a mail of ours that is worth comparing, so
    a move ("#12 F6") is let through without reading and parsing our last mail (which
    cost more than the rest of the move)."""
    theirs = _words(text)
    if len(theirs) < ECHO_MIN:
        return False
    last = (Outbox.select(Outbox.message).where(Outbox.recipient == address)
            .order_by(Outbox.id.desc()).first())
    if last is None:
        return False
    ours = _words(written_text(_plain_text(bytes(last.message))))  # read as theirs is
    return len(ours) >= ECHO_MIN and ours in theirs


# -- what a player is told when a limit silenced their mail -----------------------------

def errors_in_a_row_words(first_line: str) -> list[str]:
    """The limit on error replies in a row: what it is, and what lifts it."""
    return [
        f"Your mail {_quoted(first_line)}was not carried out and got no answer: pbem "
        f"answered your last {ERRORS_IN_A_ROW} mails with only what failed in them, and "
        f"after {ERRORS_IN_A_ROW} such answers in a row it stops answering mails that "
        f"fail (so that a robot quoting our mail cannot start a loop with it).",
        "The limit lifts as soon as a mail of yours is carried out: send a move, or "
        "`games` or `help` to see what you can write.",
    ]


def _quoted(first_line: str) -> str:
    line = first_line.strip()
    if not line:
        return ""
    return f"`{line[:80]}{'…' if len(line) > 80 else ''}` "


def _plain_text(raw: bytes) -> str:
    """The text part of a mail we wrote (pbem.mail.compose: text and HTML)."""
    try:
        part = email.message_from_bytes(raw, policy=email.policy.default).get_body(("plain",))
        return part.get_content() if part is not None else ""
    except Exception:  # our own mail; but an old row of another version must not stop intake
        return ""


def _words(text: str) -> str:
    return " ".join(re.findall(r"\S+", text))
