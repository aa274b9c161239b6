"""A cheap look at a mail's raw bytes before anything parses it: refuse what no person's
mail looks like, so a crafted mail cannot cost seconds of CPU before it is known to be
from a player.

The standard library's MIME parser takes time that grows much faster than the size for
deeply nested multiparts: a 50 KB mail of 1,000 nested parts costs over a second, a plain
mail of that size a few milliseconds. Everything counted here is counted with single
C-speed scans over the bytes (a regular expression, `bytes.find`), so this look costs
about what copying the mail does, whatever is in it:

    header section   at most HEADER_BYTES in all, HEADER_FIELDS fields, each field
                     (with its folded lines) at most FIELD_BYTES
    lines            none longer than LINE_BYTES
    MIME structure   at most MULTIPARTS `boundary=` declarations (each multipart has one,
                     so this bounds the nesting depth too) and PARTS `Content-Type`
                     lines (each part has at most one)

The limits are far above anything a mail client writes (a reply with a forwarded mail
and a few attachments has 3-6 multiparts and a dozen parts). The pipeline refuses a mail
over any of them unread (pbem.intake.pipeline.refuse_unreadable).
"""

from __future__ import annotations

import re

HEADER_BYTES = 256_000
HEADER_FIELDS = 500
FIELD_BYTES = 32_000
LINE_BYTES = 200_000
MULTIPARTS = 40
PARTS = 100

HEADER_END = re.compile(rb"\r?\n\r?\n")
FIELD_START = re.compile(rb"^[^ \t\r\n]", re.MULTILINE)
BOUNDARY = re.compile(rb"boundary\s*=", re.IGNORECASE)
CONTENT_TYPE = re.compile(rb"^content-type[ \t]*:", re.IGNORECASE | re.MULTILINE)
# Anchored at line starts: unanchored, the engine would start a 200 KB scan at every byte
# of a long line (a 2 MB mail of 199,999-byte lines: two minutes); anchored, each byte is
# read about once.
LONG_LINE = re.compile(rb"^[^\n]{%d}" % (LINE_BYTES + 1), re.MULTILINE)


def header_end(raw: bytes) -> int:
    """Where the header section ends (the blank line), or len(raw) for a mail without a
    body; never looking further than HEADER_BYTES, so a huge header costs no more."""
    found = HEADER_END.search(raw, 0, HEADER_BYTES + 4)
    return found.start() + 1 if found else min(len(raw), HEADER_BYTES + 1)


def structure_refusal(raw: bytes) -> str | None:
    """Why this mail is refused unread, in words for the log and the sender; None when
    it may be parsed."""
    end = header_end(raw)
    if end > HEADER_BYTES:
        return f"its header section is over {HEADER_BYTES:,} bytes"
    header = raw[:end]
    starts = [match.start() for match in FIELD_START.finditer(header)]
    if len(starts) > HEADER_FIELDS:
        return f"it has {len(starts):,} header fields, over the limit of {HEADER_FIELDS}"
    longest = max((b - a for a, b in zip(starts, starts[1:] + [end])), default=0)
    if longest > FIELD_BYTES:
        return f"a header field is {longest:,} bytes long, over the limit of {FIELD_BYTES:,}"
    if LONG_LINE.search(raw):
        return f"a line is over {LINE_BYTES:,} bytes long"
    multiparts = _count(BOUNDARY, raw, MULTIPARTS)
    if multiparts > MULTIPARTS:
        return f"it nests more than {MULTIPARTS} multipart sections"
    parts = _count(CONTENT_TYPE, raw, PARTS)
    if parts > PARTS:
        return f"it has more than {PARTS} MIME parts"
    return None


def _count(pattern: re.Pattern, raw: bytes, limit: int) -> int:
    """Matches of `pattern`, counted up to limit + 1 (enough to know it is over)."""
    count = 0
    for count, _ in enumerate(pattern.finditer(raw), start=1):
        if count > limit:
            break
    return count
