"""Writing outgoing messages: headers, threading, and the text and HTML bodies.

Every message is built here from a template in `templates/mail/` and a context that
holds only what its recipient may see (the caller builds it from that seat's view).
One thread per game: each message refers to the game's root Message-ID, and the subject
stays the same for the whole game. Replies come back through `Reply-To`, which carries
the recipient's reply token.

A message with pictures (a game mail's position, pbem.mail.pictures) is
multipart/alternative of the text and a multipart/related of the HTML and its PNGs,
each PNG named by the Content-ID its `<img src="cid:…">` refers to: the clients show
it from the message itself, loading nothing from anywhere.
"""

from __future__ import annotations

import base64
import re
import secrets
from email.header import Header
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.utils import formataddr, formatdate
from typing import NamedTuple

from jinja2 import Environment, StrictUndefined, select_autoescape

from pbem import templating
from pbem.config import Config
from pbem.vocabulary.message_ids import LOOP_HEADER, message_id, thread_id
from pbem.mail.outbox import Prewritten

SUFFIX = {"plain": "txt", "html": "html"}


def environment() -> Environment:
    # The templates as the process read them at its start (pbem.templating): an upgrade
    # installed under a running worker does not reach its mail before its restart.
    return Environment(loader=templating.loader(), undefined=StrictUndefined,
                       autoescape=select_autoescape(["html"]), trim_blocks=True,
                       lstrip_blocks=True, keep_trailing_newline=True, auto_reload=False)


_ENV = environment()  # templates are read once; a constant after import


def text_part(text: str, subtype: str) -> Message:
    """A text/<subtype> part. Plain ASCII needs no transfer encoding (and encoding it
    costs more than the rest of the message): its part is MIMEText's for "us-ascii",
    headers and payload, written out here, since MIMEText parses the Content-Type it has
    just written to add the charset to it (28 µs a part; 0.6 here). Anything else goes
    quoted-printable in UTF-8 (readable in any client's "view source", unlike base64):
    MIMEText's part for that charset, written out here too (quoted_printable)."""
    part = Message()
    if text.isascii():
        part["Content-Type"] = f'text/{subtype}; charset="us-ascii"'
        part["MIME-Version"] = "1.0"
        part["Content-Transfer-Encoding"] = "7bit"
        part.set_payload(text)
    else:
        part["Content-Type"] = f'text/{subtype}; charset="utf-8"'
        part["MIME-Version"] = "1.0"
        part["Content-Transfer-Encoding"] = "quoted-printable"
        part.set_payload(quoted_printable(text))
    return part


_UNQUOTED = re.compile(r"[^\t\n\r !-<>-~]")  # what quoted-printable writes as =XX


def quoted_printable(text: str) -> str:
    """The text's UTF-8 in quoted-printable, byte for byte as the email package writes
    it (quoprimime.body_encode, lines of 76 with soft breaks), in a tenth of its
    instructions: the package quotes with str.translate through a list of 256, a few
    hundred instructions a character (a picture's alt text, "26×26", made a game mail's
    HTML part cost half a million), where a regular expression finds the few to quote."""
    body = text.encode("utf-8").decode("latin-1")
    if not body:
        return body
    body = _UNQUOTED.sub(lambda found: f"={ord(found.group()):02X}", body)
    encoded: list[str] = []
    append = encoded.append
    for line in body.splitlines():
        # quoprimime.body_encode's own: pieces of at most 75 and a soft break, an
        # escape never cut, whitespace at a line's end quoted
        start, laststart = 0, len(line) - 77
        while start <= laststart:
            stop = start + 75
            if line[stop - 2] == "=":
                append(line[start:stop - 1])
                start = stop - 2
            elif line[stop - 1] == "=":
                append(line[start:stop])
                start = stop - 1
            else:
                append(line[start:stop] + "=")
                start = stop
        if line and line[-1] in " \t":
            room = start - laststart
            if room >= 3:
                last = f"={ord(line[-1]):02X}"
            elif room == 2:
                last = line[-1] + "=\n"
            else:
                last = f"=\n={ord(line[-1]):02X}"
            append(line[start:-1] + last)
        else:
            append(line[start:])
    if body[-1] in "\r\n":
        append("")
    return "\n".join(encoded)


class Base64(NamedTuple):
    """A body in base64 already: `text` in lines of at most 76 with LF line ends (the
    part's payload), `wire` the same with CRLF (what goes on the wire). A picture's is
    joined from its parts' (pbem.mail.pictures), not encoded for every mail."""
    text: str
    wire: bytes


def build(config: Config, to: tuple[str, str], subject: str, template: str, context: dict,
          reply_to: str | None = None, game_id: int | None = None, ply: int = 0,
          seat: int | None = None, in_reply_to: str | None = None,
          images: dict[str, bytes | Base64] | None = None) -> Message:
    """One message to `to` (name, address) from `templates/mail/<template>.txt/.html`.

    Built with the classic MIME classes: they take headers as given, several times
    faster than `EmailMessage`'s parsing header registry, and a move's answer is built
    while the game is locked.
    """
    context = {**context, "config": config}
    # A boundary of our own: the generator would otherwise compile a regular expression
    # for every message to check that its random one does not occur in the text. 88
    # random bits, so that the Content-Type it is written in fits on one line of 78: a
    # longer header is folded by the SMTP policy's header registry, a fifth of the cost
    # of writing a message's bytes.
    message = MIMEMultipart("alternative", boundary=f"=_pbem_{secrets.token_hex(11)}")
    for subtype in ("plain", "html"):
        text = _ENV.get_template(f"mail/{template}.{SUFFIX[subtype]}").render(context)
        part = text_part(text, subtype)
        if subtype == "html" and images:
            part = related(part, images)
        message.attach(part)
    message["From"] = formataddr(("pbem", config.address))
    message["To"] = formataddr(to, charset="utf-8")
    message["Subject"] = subject if subject.isascii() else Header(subject, "utf-8").encode()
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = message_id(config, game_id, ply, seat)
    refs = [r for r in (thread_id(config, game_id) if game_id else None, in_reply_to) if r]
    if refs:
        message["In-Reply-To"] = refs[-1]
        message["References"] = " ".join(refs)
    if reply_to:
        message["Reply-To"] = reply_to
    if reply_to and game_id:
        # A game's mail only: `quiet` is a game's setting. (To a request's token, the
        # button would answer the request: confirm an address, or commands.)
        message["List-Unsubscribe"] = f"<mailto:{reply_to}?subject=quiet>"
    message["Auto-Submitted"] = "auto-generated"
    message[LOOP_HEADER] = config.domain
    return message


def related(html: Message, images: dict[str, bytes | Base64]) -> Message:
    """The HTML part and its pictures, as one multipart/related (RFC 2387): each a PNG's
    bytes, or its base64 already (a Base64, kept beside its wire bytes: Prewritten)."""
    whole = MIMEMultipart("related", boundary=f"=_pbem_{secrets.token_hex(11)}")
    whole.attach(html)
    for number, (cid, png) in enumerate(images.items(), start=1):
        picture = Prewritten()
        picture["Content-Type"] = "image/png"
        picture["MIME-Version"] = "1.0"
        picture["Content-Transfer-Encoding"] = "base64"
        picture["Content-ID"] = f"<{cid}>"
        picture["Content-Disposition"] = f'inline; filename="position-{number}.png"'
        if isinstance(png, Base64):
            picture.set_written(png.text, png.wire)
        else:
            picture.set_payload(base64_lines(png))
        whole.attach(picture)
    return whole


def base64_lines(data: bytes) -> str:
    """Base64 in lines of 76 (RFC 2045), as MIMEImage writes it, in a fifth of its
    instructions (email.encoders goes 57 bytes at a time through base64.encodebytes; a
    regular expression cutting the lines cost as much as the encoding)."""
    if not data:
        return ""
    text = base64.b64encode(data).decode("ascii")
    ends = range(76, len(text) + 76, 76)
    return "\n".join(map(text.__getitem__, map(slice, range(0, len(text), 76), ends))) + "\n"
