"""The letters of the local mailbox (pbem.web.mailbox): pbem's kept mail read from the
maildir, by address, and the mail its user writes, built as a mail client builds it.

Without a relay, the outbox puts every mail it sends into the maildir `PBEM_MAILDIR`
(pbem.mail.outbox.Transport); this module only reads it and never moves or flags a
message there (tools and tests read `new/` as the outbox left it). A letter written in
the mailbox is an ordinary RFC 5322 message (From, To, Subject, Message-ID; a reply's
In-Reply-To, References and the quoted text), handed to pbem's own SMTP listener, so
it takes the path of any mail from outside.
"""

from __future__ import annotations

import email
import email.policy
import mailbox
import re
import smtplib
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import formatdate, getaddresses, make_msgid, parseaddr, parsedate_to_datetime
from pathlib import Path
from typing import NamedTuple

from pbem.config import Config, host_port

KEY = re.compile(r"[\w.,:\-]+")  # what a maildir's own keys are made of
_HEADERS = BytesHeaderParser(policy=email.policy.default)
_ORDER = re.compile(r"(\d+)\.M(\d+)P\d+Q(\d+)")  # the time and count in Python's own keys


class Letter(NamedTuple):
    """One kept mail, as a mail client's list shows it."""
    key: str
    subject: str
    sender: str
    to: tuple[str, ...]  # the addresses it was for (To and Cc), lower case
    date: str


def _maildir(config: Config) -> mailbox.Maildir | None:
    path = Path(config.maildir)
    if not (path / "new").is_dir() and not (path / "cur").is_dir():
        return None  # nothing sent yet
    return mailbox.Maildir(path, factory=None, create=False)


def _order(key: str) -> tuple[int, int, int, str]:
    """Delivery order: Python's maildir keys start with the second, microsecond and
    count of their delivery (a key of another program sorts by its text)."""
    found = _ORDER.match(key)
    return (*(int(n) for n in found.groups()), key) if found else (0, 0, 0, key)


def letters(config: Config) -> list[Letter]:
    """Every kept mail, oldest first (headers only: the bodies are read when shown)."""
    maildir = _maildir(config)
    if maildir is None:
        return []
    found = []
    for key in sorted(maildir.keys(), key=_order):
        try:
            with maildir.get_file(key) as handle:
                headers = _HEADERS.parse(handle)
        except (KeyError, OSError):
            continue  # taken away meanwhile
        to = tuple(address.lower() for _, address in
                   getaddresses([str(headers.get(name, "")) for name in ("To", "Cc")])
                   if "@" in address)
        found.append(Letter(key, str(headers.get("Subject", "")),
                            str(headers.get("From", "")), to, _shown_date(headers)))
    return found


def _shown_date(headers) -> str:
    try:
        return parsedate_to_datetime(str(headers.get("Date", ""))).strftime("%d %b %H:%M:%S")
    except (TypeError, ValueError):
        return ""


def addresses(kept: list[Letter]) -> list[tuple[str, int]]:
    """Every address that has mail, with how many, in order of their first mail."""
    counts: dict[str, int] = {}
    for letter in kept:
        for address in letter.to:
            counts[address] = counts.get(address, 0) + 1
    return list(counts.items())


def read(config: Config, key: str) -> EmailMessage | None:
    """The whole kept mail, or None for no such key."""
    maildir = _maildir(config)
    if maildir is None or not KEY.fullmatch(key):
        return None
    try:
        raw = maildir.get_bytes(key)
    except (KeyError, OSError):
        return None
    return email.message_from_bytes(raw, policy=email.policy.default)


def text_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    return part.get_content() if part is not None else ""


def html_of(message: EmailMessage, picture_url) -> str | None:
    """The HTML part, each `cid:` picture pointed at `picture_url(cid)`, links opened
    outside the frame it is shown in; None for a mail without one."""
    part = message.get_body(("html",))
    if part is None:
        return None
    html = re.sub(r'src="cid:([^"]+)"', lambda found: f'src="{picture_url(found.group(1))}"',
                  part.get_content())
    return '<base target="_blank">' + html


def picture(message: EmailMessage, cid: str) -> tuple[bytes, str] | None:
    """The bytes and type of the part named `<cid>`, for the HTML part's `cid:` pictures."""
    for part in message.walk():
        if str(part.get("Content-ID", "")).strip("<> ") == cid and not part.is_multipart():
            return part.get_content(), part.get_content_type()
    return None


def reply_draft(message: EmailMessage, sender: str) -> dict[str, str]:
    """What a mail client puts in a reply's form: to the Reply-To (or the From), the
    subject with one "Re:", the thread's ids, and the text part quoted under a line
    naming who wrote it."""
    to = str(message.get("Reply-To") or message.get("From", ""))
    subject = str(message.get("Subject", ""))
    message_id = str(message.get("Message-ID", "")).strip()
    references = " ".join(filter(None, [str(message.get("References", "")).strip(), message_id]))
    author = parseaddr(str(message.get("From", "")))[1]
    quoted = "\n".join("> " + line if line else ">" for line in text_of(message).splitlines())
    return {"sender": sender, "to": parseaddr(to)[1] or to,
            "subject": subject if subject.lower().startswith("re:") else f"Re: {subject}",
            "in_reply_to": message_id, "references": references,
            "body": f"\n\nOn {message.get('Date', '')}, {author} wrote:\n{quoted}\n"}


def written(config: Config, form: dict[str, str]) -> EmailMessage:
    """The mail the form says, as a mail client writes it. Raises ValueError naming
    what will not do."""
    sender, to = parseaddr(form.get("sender", ""))[1], parseaddr(form.get("to", ""))[1]
    if not re.fullmatch(r"[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+", sender):
        raise ValueError("From must be one mail address, such as you@example.org")
    if not to.lower().endswith("@" + config.domain.lower()):
        raise ValueError(f"this mailbox writes to pbem only: To must end in @{config.domain}")
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = " ".join(form.get("subject", "").split())[:200] or "pbem"
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = make_msgid(domain="mailbox.localhost")
    for field, header in (("in_reply_to", "In-Reply-To"), ("references", "References")):
        value = " ".join(form.get(field, "").split())
        if re.fullmatch(r"(<[^<>\s]+>\s?)+", value):
            message[header] = value
    message.set_content(form.get("body", "").replace("\r\n", "\n"))
    return message


def send(config: Config, message: EmailMessage) -> None:
    """Hand the mail to pbem's own SMTP listener, as any mail comes in. Raises OSError
    or smtplib.SMTPException when it will not take it."""
    host, port = host_port(config.smtp_listen, 2525)
    with smtplib.SMTP(host, port, timeout=60) as smtp:
        smtp.send_message(message)
