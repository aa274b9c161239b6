"""Marks an annotator puts on a diagram from a comment: `[%mark E5 F6=x]`.

Written inside a comment, as PGN annotators write `[%csl ...]` commands: each word
names a point, labelled with the next letter A, B, C … unless it says its own label
after `=` (one to three letters or digits): `{the threat [%mark E5 F6=x]}` puts `A` on
E5 and `x` on F6 in the diagram after that move. Pure text: which points exist is the
board's business, and a diagram leaves out the names that are no point of it.
"""

from __future__ import annotations

import re

_COMMAND = re.compile(r"\[%mark\s+([^\]]*)\]", re.I)
_WORD = re.compile(r"([A-Za-z]{1,2}\d{1,4})(?:=([A-Za-z0-9]{1,3}))?$")


def marks_in(comments: list[str]) -> dict[str, str]:
    """The points the comments mark, upper-cased, with their labels, in order."""
    marks: dict[str, str] = {}
    for comment in comments:
        for command in _COMMAND.finditer(comment):
            for word in command.group(1).split():
                found = _WORD.match(word)
                if found:
                    point = found.group(1).upper()
                    marks[point] = found.group(2) or chr(ord("A") + len(marks) % 26)
    return marks


def without_marks(comment: str) -> str:
    """The comment as a reader sees it beside the moves: the commands left out."""
    return " ".join(_COMMAND.sub(" ", comment).split())
