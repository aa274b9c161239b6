"""Inbound mail: raw RFC 822 bytes into who sent it, to whom, in which thread, and what they wrote.

Everything here reads mail from strangers, so nothing here raises: a header Python cannot
parse reads raw (an address header it cannot parse reads as no address), a charset nobody
knows reads as UTF-8, bytes that do not decode become U+FFFD, and a missing header reads
as ''. Deciding what to do with the mail is the pipeline's business (pbem.intake.pipeline);
this module only says what the mail is (and pbem.intake.robots whether a program wrote it).

Cost: `parse_mail` reads the header section only (bounded by pbem.intake.prescan), which is
all the pipeline needs to decide who sent the mail and whether to answer it; the body's
MIME structure is parsed by `reply_text` alone, for a confirmed player's mail that passed
the prescan. A stranger's mail is never parsed further than its headers.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
import textwrap
from dataclasses import dataclass
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser
from email.utils import getaddresses
from functools import lru_cache

import html2text
import mailparser_reply

from pbem.intake.prescan import HEADER_BYTES, HEADER_END, header_end

#: Languages whose reply headers ("On … wrote:", "Von: … Gesendet: …") and signatures
#: mail-parser-reply should look for. Not more: each language adds signature openers that
#: end the text where they start a line (Danish "Tak" would eat an Onix "take cross A").
REPLY_LANGUAGES = ("en", "de", "fr", "es", "nl", "it")

# What mail-parser-reply 1.36 misses. Each line is the end of what the person wrote.
MISSED_ENDINGS = re.compile(r"""^(?:
      -{2,}\ ?(?:Forwarded\ message|Weitergeleitete\ Nachricht
               |Message\ transféré|Mensaje\ reenviado|Doorgestuurd\ bericht
               |Ursprüngliche\ Nachricht|Message\ d'origine|Mensaje\ original
               |Oorspronkelijk\ bericht)\ ?-{2,}             # forward / localised Outlook
    | Begin\ forwarded\ message:                              # Apple Mail forward
    | Anfang\ der\ weitergeleiteten\ Nachricht:
    | Von\ meinem\ \S+(?:\ \S+){0,3}\ gesendet\.?             # German iOS/Android
    | Envoyé\ de\ mon\ \S+(?:\ \S+){0,3}                      # French iOS ("Envoyé depuis" only)
    | Verstuurd\ vanaf\ mijn\ \S+(?:\ \S+){0,3}               # Dutch iOS
    | (?:Schöne|Herzliche|Freundliche)\ Grüße(?:\ aus\ \S+)?[,.!]?  # German closings it lacks
    )\s*$""", re.MULTILINE | re.IGNORECASE | re.VERBOSE)

# Attributions it misses: its Spanish pattern wants two spaces before "escribió", its
# Dutch one wants "schreef:" at the end, but Gmail writes "schreef Naam <adres>:" and
# Apple Mail "heeft Naam het volgende geschreven:". Gmail may wrap them onto two lines.
MISSED_ATTRIBUTIONS = re.compile(
    r"^(?:El|Op)\s[^\n]+(?:\n[^\n>]+)?\s(?:escribió|schreef|geschreven)\b[^\n]*:$",
    re.MULTILINE | re.IGNORECASE)

UNFOLD = re.compile(r"\r?\n(?=[ \t])")
ADDRESS_BYTES = 16_000  # of one header name's fields, read for addresses
DECODED_BYTES = 2_000  # a Subject or display name longer than this is read as written

LONGEST_LINE = 300  # characters; see _bounded for why there are limits at all
LONGEST_TEXT = 20_000
# html2text costs ~2 µs a byte (a 700 KB HTML mail: over a second), so it reads at most
# this much of the body, after what no reader sees (head, styles, scripts, comments) is
# cut by a regular expression; a reply's own text is at the top of the body.
LONGEST_HTML = 32_000
UNSEEN_HTML = re.compile(r"<(head|style|script)\b|<!--", re.IGNORECASE)
# html2text indents each nested list's items by its depth, so thousands of nested lists
# (16 KB of "<ul><li>") write megabytes in seconds; past a few, lists are read as text.
LIST_TAG = re.compile(r"</?[ou]l\b[^<>]*>?", re.IGNORECASE)
MOST_LISTS = 20

# html2text writes Markdown and escapes what Markdown would misread ("1\. e5", "\- x");
# a move must reach the parser as the player typed it.
MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!])")


@dataclass
class InboundMail:
    """One received mail, parsed; the fields the pipeline decides on."""

    raw: bytes
    message: Message  # its header section, split into fields (compat32: nothing parsed)
    message_id: str  # '<...>' as sent; invented from the bytes when missing
    sender: str  # the From address, lower-cased; '' if none
    sender_name: str  # the From display name; '' if none
    envelope_sender: str | None  # SMTP MAIL FROM; '' for the null sender; None if unknown
    recipients: list[str]  # envelope recipients, else the addressee headers
    subject: str
    replied_to: list[str]  # In-Reply-To, then References newest first
    size: int

    # What a command reads below its line (`annotate`: the record), asked of the mail
    # itself so that the commands need not know how mail is read.
    def body_text(self) -> str:
        return body_text(self)

    def text_attachments(self) -> list[str]:
        return text_attachments(self)


def parse_mail(raw: bytes, envelope_sender: str | None = None,
               envelope_recipients: list[str] | None = None) -> InboundMail:
    """Read raw mail bytes. Never raises, whatever the bytes."""
    raw = bytes(raw)
    message = _parsed_headers(raw)
    # The first From address with a domain: a bare word (`From: jones`) is no address
    # we may write to (the relay would deliver it to a local mailbox of its own).
    sender_name, sender = next(((name, address) for name, address in
                                _addresses(message, "From") if "@" in address), ("", ""))
    replied_to = _message_ids(message, "In-Reply-To") + _message_ids(message, "References")[::-1]
    return InboundMail(
        raw=raw,
        message=message,
        message_id=header(message, "Message-ID").strip() or invented_message_id(raw),
        sender=sender.strip().lower(),
        sender_name=sender_name.strip(),
        envelope_sender=None if envelope_sender is None else _bare(envelope_sender),
        recipients=_unique(map(_bare, envelope_recipients or []))
        or _unique(_bare(address) for name in ("Delivered-To", "X-Original-To", "To", "Cc")
                   for _, address in _addresses(message, name)),
        subject=_decoded_words(header(message, "Subject")).strip(),
        replied_to=_unique(replied_to),
        size=len(raw),
    )


class _Reading(email.policy.EmailPolicy):
    """`email.policy.default`, but a short header value is parsed once, not at every
    look: finding a mail's text asks for its Content-Type eight times, and the header
    registry's parse of it cost more than the rest of reading the mail. The registry is
    a pure function of name and value, so a parse kept is the parse that would be made."""

    def header_fetch_parse(self, name, value):
        if isinstance(value, str) and len(value) <= KEPT_HEADER and not hasattr(value, "name"):
            return _header_parsed(name, value)
        return super().header_fetch_parse(name, value)


KEPT_HEADER = 200  # characters: longer values (rare, perhaps hostile) are not kept
READING = _Reading()


@lru_cache(maxsize=256)
def _header_parsed(name: str, value: str):
    return email.policy.default.header_fetch_parse(name, value)


def _parsed(mail: InboundMail) -> EmailMessage:
    """The whole mail, MIME parts and all: only for a confirmed player's mail that passed
    the prescan (the parser's cost grows fast with nesting)."""
    try:
        return _one_part(mail) or email.message_from_bytes(mail.raw, policy=READING)
    except Exception:  # the feed parser is meant never to raise; if it does, an empty mail
        return EmailMessage()


def _one_part(mail: InboundMail) -> EmailMessage | None:
    """What the feed parser makes of a mail of one text part whose header section
    `parse_mail` has parsed already without a fault: its headers (the parser reads them
    the same way under either policy) and the rest of the bytes after the blank line,
    the payload as the parser joins it from its lines. None for any other mail, which
    the parser reads whole: a move's reply was parsed twice, a tenth of reading it."""
    headers, raw = mail.message, mail.raw
    found = HEADER_END.search(raw, 0, HEADER_BYTES + 4)
    if (found is None or headers.defects or headers.get_unixfrom() is not None
            or headers.get_payload() or b"\r" in raw[:found.start()].replace(b"\r\n", b"")):
        return None
    kinds = _raw_values(headers, "Content-Type")
    if len(kinds) > 1 or (kinds and not kinds[0].lower().startswith("text/")):
        return None
    message = EmailMessage(policy=READING)
    message._headers = list(headers._headers)
    message.set_payload(raw[found.end():].decode("ascii", "surrogateescape"))
    return message


def _parsed_headers(raw: bytes) -> Message:
    """The header section alone (at most prescan.HEADER_BYTES of it), split into fields
    and nothing more: cheap whatever the body holds. The compat32 policy, because
    email.policy.default parses Content-Type's parameters through its header registry
    while splitting (30 KB of them: 0.6 s); here every field is read raw (_raw_values)."""
    try:
        return BytesHeaderParser(policy=email.policy.compat32).parsebytes(
            raw[:header_end(raw)])
    except Exception:  # as above: never raise, whatever the bytes
        return Message()


def invented_message_id(raw: bytes) -> str:
    """A Message-ID for a mail without one, the same for the same bytes, so a resent
    copy is still recognised as a duplicate."""
    return f"<{hashlib.sha256(raw).hexdigest()}@pbem.invalid>"


def _raw_values(message: Message, name: str) -> list[str]:
    """Every `name` header as written, unfolded: no parsing at all. The stdlib's header
    registry parses a structured header (addresses, Content-Type's parameters) at about
    5 µs a byte, and has raised on crafted values: only what needs decoding goes there."""
    return list(_fields(message).get(name.lower(), ()))


def _fields(message: Message) -> dict[str, list[str]]:
    """Every header's values as `_raw_values` gives them, by lower-case name: made once
    a message (a mail is asked for some twenty names, and each ask went through all its
    headers). Kept on the message beside the list of headers it was made from, and made
    again should that list change (pbem never changes a received mail's headers)."""
    headers = message._headers
    kept = message.__dict__.get("_pbem_fields")
    if kept is not None and kept[0] is headers and kept[1] == len(headers):
        return kept[2]
    fields: dict[str, list[str]] = {}
    for key, value in message.raw_items():
        fields.setdefault(key.lower(), []).append(_clean(UNFOLD.sub("", value)))
    message.__dict__["_pbem_fields"] = (headers, len(headers), fields)
    return fields


def _decoded_words(value: str) -> str:
    """Encoded words (RFC 2047) decoded; a value too long to be a person's, or one the
    decoder refuses, reads as written."""
    if "=?" not in value or len(value) > DECODED_BYTES:
        return value
    try:
        return _clean(str(make_header(decode_header(value))))
    except Exception:  # crafted or broken encoded words
        return value


def header(message: Message, name: str) -> str:
    return next(iter(_raw_values(message, name)), "")


def header_word(message: Message, name: str) -> str:
    """The header's value before any ';' parameters, lower-cased: 'auto-replied'."""
    return header(message, name).split(";")[0].strip().lower()


def _addresses(message: Message, name: str) -> list[tuple[str, str]]:
    """(display name, address) of every address in the `name` headers, read from at most
    ADDRESS_BYTES of them; none when they cannot be read (thousands of nested comments
    make the stdlib's parser recurse until RecursionError)."""
    values, length = [], 0
    for value in _raw_values(message, name):
        length += len(value)
        if length > ADDRESS_BYTES:
            break
        values.append(value)
    try:
        pairs = _read_addresses(tuple(values))
    except Exception:  # RecursionError and whatever else a crafted header provokes
        return []
    return [(_decoded_words(display), address) for display, address in pairs if address]


@lru_cache(maxsize=256)
def _read_addresses(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The stdlib's reading of the values, kept: a pure function of them, and a player's
    From and our reply address come back with every move (the stdlib's parser took a
    twentieth of reading a move's mail). What raises is not kept, and raises again."""
    return tuple(getaddresses([_quote_last_first(value) for value in values]))


def _quote_last_first(value: str) -> str:
    """Outlook (and directories behind it) write a display name "Last, First" unquoted:
    `Jones, Bob <bob@x.org>`. RFC 5322 reads that as two addresses, `Jones` (no domain)
    and `Bob <bob@x.org>`, as the stdlib's parsers do; mail clients read one, and so do
    we: a piece with no address in it before a piece with a display name and an angle
    address is the start of that name, quoted here: `"Jones, Bob" <bob@x.org>`."""
    pieces = _split_at_commas(value)
    if len(pieces) < 2:
        return value
    kept: list[str] = []
    for piece in pieces:
        name, angle, rest = piece.partition("<")
        head = kept[-1].strip() if kept else ""
        if (angle and "@" in rest and name.strip() and not _SPECIAL.search(name)
                and head and not _SPECIAL.search(head)):
            kept[-1] = f' "{head}, {name.strip()}" <{rest}'
        else:
            kept.append(piece)
    return ",".join(kept)


_SPECIAL = re.compile(r'["()<>\\:;@\[\]]')  # a piece that is more than plain words


def _split_at_commas(value: str) -> list[str]:
    """The pieces of an address header between commas that separate addresses (not in a
    quoted string, a comment or an angle address). A loop, not a parser's recursion."""
    pieces, start, depth, quoted, angle, index = [], 0, 0, False, False, 0
    while index < len(value):
        char = value[index]
        if quoted:
            if char == "\\":
                index += 1
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif not depth and char in "<>":
            angle = char == "<"
        elif char == "," and not depth and not angle:
            pieces.append(value[start:index])
            start = index + 1
        index += 1
    pieces.append(value[start:])
    return pieces


def _message_ids(message: Message, name: str) -> list[str]:
    return re.findall(r"<[^<>\s]+>", " ".join(_raw_values(message, name)))


def _bare(address: str) -> str:
    return address.strip().strip("<>").strip().lower()


def _unique(items) -> list[str]:
    return [item for item in dict.fromkeys(items) if item]


def _clean(text: str) -> str:
    """Text safe to store: the parser keeps undecodable header bytes as surrogate escapes;
    read them as UTF-8, the charset raw 8-bit headers nearly always are."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a lone surrogate from an exotic charset
        return text.encode("utf-8", "replace").decode("utf-8")


# -- what the person wrote -----------------------------------------------------------------

def reply_text(mail: InboundMail) -> str:
    """What the person wrote in this mail, without what they quoted, their signature or
    a forwarded mail; '' when nothing is left. Attachments are ignored."""
    return written_text(body_text(mail))


def written_text(text: str) -> str:
    """Of a mail's text, what its author wrote: without quotes, signature, forward."""
    text = _unquoted(text)
    text = MISSED_ENDINGS.split(text, maxsplit=1)[0]
    text = MISSED_ATTRIBUTIONS.sub("", _bounded(text))
    # EmailMessage rather than EmailReplyParser.parse_reply: that returns the reply with
    # its signature, and it reads a line starting "- " as the start of a signature.
    parsed = mailparser_reply.EmailMessage(text=text, languages=list(REPLY_LANGUAGES),
                                           keep_hyphen_lists=True, **_reply_patterns()).read()
    return _clean(parsed.replies[0].body)


@lru_cache(maxsize=None)
def _reply_patterns() -> dict:
    """mail-parser-reply's patterns for our languages, built once. The library keeps them
    in each message it reads (fields it fills on first use) and so built them anew for
    every mail, six languages' worth: two thirds of reading a short reply. Each message
    is given them as the library itself would have filled them in."""
    probe = mailparser_reply.EmailMessage(text="", languages=list(REPLY_LANGUAGES),
                                          keep_hyphen_lists=True)
    fields = getattr(mailparser_reply.EmailMessage, "__dataclass_fields__", {})
    return {field: getattr(probe, pattern) for field, pattern in (
        ("_header_regex", "HEADER_REGEX"), ("_signature_regex", "SIGNATURE_REGEX"),
        ("_disclaimers_regex", "DISCLAIMERS_REGEX"))
        if field in fields and hasattr(probe, pattern)}  # none, should the library change


def _unquoted(text: str) -> str:
    """The text with lines stripped and quoted lines gone. mail-parser-reply drops quotes
    only below a reply header it knows; inline and bottom-posted replies keep theirs."""
    lines = (line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return "\n".join(line for line in lines if not line.startswith(">"))


def _bounded(text: str) -> str:
    """The text cut to a size mail-parser-reply reads fast: its attribution patterns take
    time quadratic in a line's length, and its signature pattern backtracks over every
    run of blank lines. Nobody writes a move 20,000 characters into a mail."""
    lines = (wrapped for line in text[:LONGEST_TEXT].split("\n")
             for wrapped in (textwrap.wrap(line, LONGEST_LINE) if len(line) > LONGEST_LINE else [line]))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines))


def body_text(mail: InboundMail) -> str:
    """The first inline text/plain part, else the first HTML part as text; '' if neither.
    Parses the whole mail: only for mail that passed the prescan."""
    try:
        part = _parsed(mail).get_body(preferencelist=("plain", "html"))
        if part is None:
            return ""
        text = _decoded(part)
        return _html_as_text(text) if part.get_content_subtype() == "html" else text
    except Exception:  # broken MIME structure: treat as a mail with no text
        return ""


def text_attachments(mail: InboundMail) -> list[str]:
    """The text of each attached text file (an annotated record sent as `game.txt`), in
    order; '' parts and other attachments are left out."""
    try:
        parts = list(_parsed(mail).iter_attachments())
    except Exception:  # broken MIME structure: no attachments
        return []
    found = []
    for part in parts:
        name = (part.get_filename() or "").lower()
        if part.get_content_maintype() == "text" or name.endswith((".txt", ".pgn")):
            text = _decoded(part)
            if text.strip():
                found.append(text)
    return found


def _decoded(part: EmailMessage) -> str:
    """The part's text in its declared charset; bytes that do not fit read as U+FFFD."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = (part.get_content_charset() or "").lower()
    # 8-bit text labelled us-ascii, or not labelled, is UTF-8 in practice (and ASCII is UTF-8).
    if charset in ("", "us-ascii", "ascii"):
        charset = "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except (LookupError, ValueError, TypeError):  # unknown or non-text "charset"
        return payload.decode("utf-8", errors="replace")


def _seen_html(html: str) -> str:
    """The HTML without head, styles, scripts and comments, cut to LONGEST_HTML. Each
    search starts where the last ended, so this is linear whatever the markup (a regular
    expression spanning to a closing tag would rescan the rest for each unclosed one)."""
    lower, kept, length, start = html.lower(), [], 0, 0
    while start < len(html) and length < LONGEST_HTML:
        found = UNSEEN_HTML.search(html, start)
        if found is None:
            kept.append(html[start:])
            break
        kept.append(html[start:found.start()])
        length += len(kept[-1])
        closing = "-->" if found.group(1) is None else f"</{found.group(1).lower()}"
        end = lower.find(closing, found.end())
        if end < 0:
            break  # never closed: nothing after it is shown either
        start = end + len(closing)
        if closing != "-->":  # past the closing tag's '>'
            start = lower.find(">", start) + 1 or len(html)
    return " ".join(kept)[:LONGEST_HTML]


def _html_as_text(html: str) -> str:
    html = _seen_html(html)
    if len(LIST_TAG.findall(html)) > 2 * MOST_LISTS:
        html = LIST_TAG.sub(" ", html)
    converter = html2text.HTML2Text()
    converter.ignore_links = converter.ignore_images = converter.ignore_emphasis = True
    converter.body_width = 0  # never wrap: a wrapped line could split a move
    try:
        return MARKDOWN_ESCAPE.sub(r"\1", converter.handle(html))
    except Exception:  # html2text is not written for hostile input
        return ""
