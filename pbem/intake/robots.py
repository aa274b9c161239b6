"""Mail from robots: the signs that a program wrote a mail (auto-replies and vacation
responders, delivery reports, lists, bulk mail, our own loop mark), which pbem never
answers (RFC 3834). Read from the header section alone (pbem.intake.inbound)."""

from __future__ import annotations

import re

from pbem.intake.inbound import InboundMail, header, header_word

DAEMONS = {"mailer-daemon", "postmaster"}
BULK_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}

# Subjects vacation and out-of-office responders write (in the languages of
# pbem.intake.inbound.REPLY_LANGUAGES), for those that add no header saying so. Only at
# the start, after any "Re:", and with their colon where they have one: a person's
# "auto" is not a robot.
AUTOREPLY_SUBJECT = re.compile(r"""^(?:(?:re|aw|sv|fw|fwd)\s*:\s*)*(?:
      (?:automatic|auto)[- ]?(?:reply|response|answer)\b
    | auto\s*:
    | out\ of\ (?:the\ )?office\b
    | (?:ooo|oof)\s*:
    | abwesenheitsnotiz\b | automatische\ antwort\b
    | r[ée]ponse\ automatique\b
    | respuesta\ autom[áa]tica\b | fuera\ de\ la\ oficina\b
    | automatisch\ antwoord\b
    | risposta\ automatica\b | fuori\ sede\b
    | autosvar\b
    )""", re.IGNORECASE | re.VERBOSE)


def robot_reason(mail: InboundMail, loop_header: str = "X-Pbem-Loop") -> str | None:
    """Why this mail came from a machine and must never be answered, or None for a person.

    Answering a robot starts a mail loop or spams a list, so any one sign is enough.
    The reason is a short phrase for the log, e.g. 'Auto-Submitted: auto-replied'.
    """
    if loop_header in mail.message:
        return f"{loop_header} present: a mail we sent came back"
    for sign in ROBOT_SIGNS:
        reason = sign(mail)
        if reason:
            return reason
    return None


def _auto_submitted(mail: InboundMail) -> str | None:
    """RFC 3834: anything but 'no' was sent by a program (auto-replied, auto-generated)."""
    kind = header_word(mail.message, "Auto-Submitted")
    return f"Auto-Submitted: {kind}" if kind and kind != "no" else None


def _null_sender(mail: InboundMail) -> str | None:
    """Bounces and other delivery notices come from the null sender <>."""
    if mail.envelope_sender == "":
        return "null envelope sender"
    if re.fullmatch(r"<\s*>", header(mail.message, "Return-Path").strip()):
        return "Return-Path: <>"
    return None


def _daemon_sender(mail: InboundMail) -> str | None:
    """Some bounces carry a real envelope sender but come From the mail system itself."""
    return f"From {mail.sender}" if mail.sender.partition("@")[0] in DAEMONS else None


def _delivery_report(mail: InboundMail) -> str | None:
    """Delivery status (RFC 3464) and read receipts (RFC 8098) are multipart/report."""
    content_type = header_word(mail.message, "Content-Type")
    return f"Content-Type: {content_type}" if content_type == "multipart/report" else None


def _bulk_precedence(mail: InboundMail) -> str | None:
    """Precedence (RFC 2076) and its X- variant: bulk, junk, list, auto_reply."""
    for name in ("Precedence", "X-Precedence"):
        precedence = header_word(mail.message, name)
        if precedence in BULK_PRECEDENCE:
            return f"{name}: {precedence}"
    return None


def _list_mail(mail: InboundMail) -> str | None:
    """A mailing list or a newsletter sent this: answering would write to the whole list
    (List-Post), or to a sending service (Feedback-ID: Gmail's bulk senders' mark)."""
    return next((f"{name} present" for name in ("List-Id", "List-Unsubscribe", "List-Post",
                                                "Feedback-ID")
                 if name in mail.message), None)


def _autoreply_headers(mail: InboundMail) -> str | None:
    """Vacation responders that skip Auto-Submitted, mail loop marks of other programs
    (X-Loop: procmail, vacation, list servers), and Exchange's out-of-office marks."""
    for name in ("X-Autoreply", "X-Autorespond", "X-Autoreply-From", "X-Mail-Autoreply",
                 "X-Loop"):
        if name in mail.message:
            return f"{name} present"
    suppress = header(mail.message, "X-Auto-Response-Suppress")
    if {"oof", "all"} & set(re.split(r"[\s,]+", suppress.lower())):
        return f"X-Auto-Response-Suppress: {suppress.strip()}"
    return None


def _autoreply_subject(mail: InboundMail) -> str | None:
    """Responders that add no header at all still say what they are in the subject."""
    return f"Subject: {mail.subject[:60]}" if AUTOREPLY_SUBJECT.match(mail.subject) else None


ROBOT_SIGNS = (_auto_submitted, _null_sender, _daemon_sender, _delivery_report,
               _bulk_precedence, _list_mail, _autoreply_headers, _autoreply_subject)
