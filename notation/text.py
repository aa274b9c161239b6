"""What a player writes, made safe to keep and to show: one function for every text that
comes in (comments, names, annotations, the fields of seeks and tournaments), by mail or
from a page, and for the rows written before it existed.

A control character is no part of any language a player writes, and one is enough to do
harm where the text goes next: XML 1.0 has no way to write most C0 characters, so one
`say \\x1b[31m` made a game's Atom feed malformed for good; a terminal reads ESC and
the C1 characters as commands (`pbem record show`); a lone surrogate (from JSON's
`\\ud800`, or a mail's undecodable bytes) cannot even be stored as UTF-8. So they go:

    kept      tab and newline (a line break written CR LF or CR becomes one newline)
    removed   the other C0 controls (U+0000-U+001F), DEL and the C1 controls
              (U+007F-U+009F), lone surrogates (U+D800-U+DFFF), and U+FFFE and U+FFFF
              (no characters: XML forbids them too)
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean_text(text: str) -> str:
    """`text` without the characters above; line breaks become newlines."""
    if not text:
        return text
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _UNSAFE.sub("", text)
