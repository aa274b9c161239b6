"""The game-record format shared by every game: PGN-style tag pairs, then movetext.

    [Game "Onyx"]
    [Board "12"]
    [Result "1-0"]

    1. F6 G5 2. D4 {a comment} 2... E7* 3. DE910 1-0

Movetext is a sequence of move numbers (`3.` or `3...`, optional, ignored when read),
comments in braces, moves, and a result token at the end (left out, the `Result` tag
stands for it, with a warning, as PGN readers do). A move is either one token
(`F6`, `DE910*`, `swap`) or, for games whose moves name their actor or contain spaces,
`Label: words ... ;` (the label names a seat, the dealer is `Dealer`). The full grammar
is in notation/README.md. This module is pure syntax: what the moves mean is the
engine's business (pbem.engines.game).

`format_record(parse_record(text)) == text` for text in the layout `format_record`
writes, and `parse_record(format_record(r)) == r` for every record whose comments are
written with single spaces (white space inside a comment is folded when read) and
without braces in comments or line breaks in tag values (written as parentheses and
spaces, since they would end the comment or the tag).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LINE_WIDTH = 79

_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_NUMBER = re.compile(r"\d+\.(\.\.)?$")
_RESULT = re.compile(r"(\*|\d+(/\d+)?(-\d+(/\d+)?)+)$")
LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*$")  # a seat label, written "Label:"
_LABEL = re.compile(LABEL.pattern[:-1] + ":$")


class RecordSyntaxError(ValueError):
    """The text is not a record; the message names the line and what was expected."""


@dataclass
class Move:
    """One move as written: its text, the seat label if given, comments after it."""

    text: str
    actor: str | None = None
    comments: list[str] = field(default_factory=list)


@dataclass
class Record:
    tags: list[tuple[str, str]] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    result: str = "*"
    comments: list[str] = field(default_factory=list)  # before the first move
    numbered: bool = False
    #: What was read although it is not written as it should be (a missing result token).
    warnings: list[str] = field(default_factory=list, compare=False)

    def tag(self, name: str, default: str | None = None) -> str | None:
        for key, value in self.tags:
            if key == name:
                return value
        return default

    def tag_dict(self) -> dict[str, str]:
        return dict(self.tags)

    def set_tag(self, name: str, value: str) -> None:
        for index, (key, _) in enumerate(self.tags):
            if key == name:
                self.tags[index] = (name, value)
                return
        self.tags.append((name, value))


# -- reading -----------------------------------------------------------------------------

def parse_record(text: str) -> Record:
    """Read one record; raises RecordSyntaxError naming the line at fault."""
    return _parse_lines(_lines(text), 0)


def parse_records(text: str) -> list[Record]:
    """Read a file of several records, one after another (as PGN files hold games).

    A record ends where a tag line follows its movetext; errors name the file's line.
    """
    lines, records, start, in_movetext, in_comment = _lines(text), [], 0, False, False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("[") and in_movetext and not in_comment:
            records.append(_parse_lines(lines[start:index], start))
            start, in_movetext = index, False
        elif stripped and not stripped.startswith("["):
            in_movetext = True
        if in_movetext:  # a line of a comment that begins with '[' is no tag
            in_comment = line.rfind("{") > line.rfind("}") or (
                in_comment and "}" not in line)
    if any(line.strip() for line in lines[start:]) or not records:
        records.append(_parse_lines(lines[start:], start))
    return records


def _lines(text: str) -> list[str]:
    return text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")


def _parse_lines(lines: list[str], offset: int) -> Record:
    """One record from its lines; `offset` lines of the file come before them."""
    record = Record()
    index = 0
    while index < len(lines) and not lines[index].strip():
        index += 1
    while index < len(lines) and lines[index].lstrip().startswith("["):
        match = _TAG.match(lines[index].strip())
        if not match:
            raise RecordSyntaxError(f"line {offset + index + 1}: a tag is written "
                                    f"[Name \"value\"], not {lines[index].strip()!r}")
        record.tags.append((match.group(1), _unescape(match.group(2))))
        index += 1
    if not record.tags:
        raise RecordSyntaxError(f"line {offset + 1}: a record starts with tag pairs such as "
                                f"[Game \"Onyx\"]")
    _read_movetext(record, lines[index:], first_line=offset + index + 1)
    return record


def _read_movetext(record: Record, lines: list[str], first_line: int) -> None:
    tokens = _tokens(lines, first_line)
    result = None
    position = 0
    while position < len(tokens):
        line, token = tokens[position]
        position += 1
        if result is not None:
            raise RecordSyntaxError(f"line {line}: {token!r} after the result {result!r}")
        if token.startswith("{"):
            target = record.moves[-1].comments if record.moves else record.comments
            target.append(token[1:-1])
        elif _NUMBER.match(token):
            record.numbered = True
        elif _RESULT.match(token):
            result = token
        elif _LABEL.match(token):
            words = []
            while position < len(tokens) and tokens[position][1] != ";":
                if _LABEL.match(tokens[position][1]):
                    raise RecordSyntaxError(f"line {line}: the move of {token[:-1]} needs "
                                            f"a closing ';' before {tokens[position][1]} "
                                            f"on line {tokens[position][0]}")
                if tokens[position][1].startswith("{"):
                    raise RecordSyntaxError(f"line {tokens[position][0]}: a comment inside "
                                            f"the move of {token[:-1]}; end the move with ';'")
                words.append(tokens[position][1])
                position += 1
            if position == len(tokens) or not words:
                raise RecordSyntaxError(f"line {line}: the move of {token[:-1]} needs its "
                                        f"text and a closing ';'")
            position += 1  # the ';'
            record.moves.append(Move(" ".join(words), actor=token[:-1]))
        elif token == ";":
            raise RecordSyntaxError(f"line {line}: ';' ends a move written 'Label: text;' "
                                    f"but no such move is open")
        else:
            record.moves.append(Move(token))
    if result is None:
        last = tokens[-1][0] if tokens else first_line
        tag = record.tag("Result")
        if tag is None or not _RESULT.match(tag):
            raise RecordSyntaxError(f"line {last}: the movetext must end with a result: "
                                    f"1-0, 0-1, 1/2-1/2 or *")
        # As PGN readers do: the Result tag stands for the token people leave out.
        record.warnings.append(f"line {last}: the movetext does not end with a result; "
                               f"the Result tag's {tag!r} is taken")
        result = tag
    record.result = result


def _tokens(lines: list[str], first_line: int) -> list[tuple[int, str]]:
    """Split movetext into (line number, token); a comment is one token, ';' is one."""
    text = "\n".join(lines)
    tokens: list[tuple[int, str]] = []
    position, line = 0, first_line
    while position < len(text):
        char = text[position]
        if char == "\n":
            line += 1
            position += 1
        elif char.isspace():
            position += 1
        elif char == "{":
            end = text.find("}", position)
            if end < 0:
                raise RecordSyntaxError(f"line {line}: a comment opened with '{{' is never "
                                        f"closed with '}}'")
            body = text[position + 1:end]
            tokens.append((line, "{" + " ".join(body.split()) + "}"))
            line += body.count("\n")
            position = end + 1
        elif char == "}":
            raise RecordSyntaxError(f"line {line}: '}}' without an opening '{{'")
        elif char == ";":
            tokens.append((line, ";"))
            position += 1
        else:
            end = position
            while end < len(text) and not text[end].isspace() and text[end] not in "{};":
                end += 1
            tokens.append((line, text[position:end]))
            position = end
    return tokens


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


# -- writing -----------------------------------------------------------------------------

def format_record(record: Record) -> str:
    """Write a record in the canonical layout: tags, blank line, wrapped movetext."""
    lines = [f'[{name} "{_escape(value)}"]' for name, value in record.tags]
    lines.append("")
    lines.extend(_wrap(_movetext_tokens(record)))
    return "\n".join(lines) + "\n"


def _movetext_tokens(record: Record) -> list[str]:
    """Units that a line break never splits: a move with its number, a comment's word."""
    units = [word for c in record.comments for word in _comment(c).split(" ")]
    need_number = True
    for ply, move in enumerate(record.moves):
        number = ""
        if record.numbered and (ply % 2 == 0 or need_number):
            number = f"{ply // 2 + 1}." + ("" if ply % 2 == 0 else "..") + " "
        if move.actor is None:
            if len(move.text.split()) != 1:
                raise ValueError(f"{move.text!r} has spaces: write it with its actor")
            units.append(number + move.text)
        else:
            units.append(f"{number}{move.actor}: {move.text};")
        units.extend(word for c in move.comments for word in _comment(c).split(" "))
        need_number = bool(move.comments)
    units.append(record.result)
    return units


def _comment(text: str) -> str:
    """Braces inside a comment would end it early: they are written as parentheses."""
    return "{" + " ".join(text.replace("{", "(").replace("}", ")").split()) + "}"


def _wrap(units: list[str]) -> list[str]:
    lines: list[str] = []
    current = ""
    for unit in units:
        if current and len(current) + 1 + len(unit) > LINE_WIDTH:
            lines.append(current)
            current = unit
        else:
            current = f"{current} {unit}" if current else unit
    lines.append(current)
    return lines


def _escape(value: str) -> str:
    """A tag is one line: line breaks in a value are written as spaces."""
    value = " ".join(value.splitlines())
    return value.replace("\\", "\\\\").replace('"', '\\"')
