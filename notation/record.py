"""The game-record format shared by every game: PGN-style tag pairs, then movetext.

    [Game "Onyx"]
    [Board "12"]
    [Result "1-0"]

    1. F6 G5 2. D4 {a comment} 2... E7* 3. DE910 1-0

Movetext is a sequence of move numbers (`3.` or `3...`, optional, ignored when read),
comments in braces, moves with their annotation glyphs (`!`, `?`, `!!`, `??`, `!?`, `?!`,
`$14`), variations in parentheses (another line from the position before the move they
follow, nestable), and a result token at the end (left out, the `Result` tag stands for
it, with a warning, as PGN readers do). A move is either one token
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

from notation.text import clean_text

LINE_WIDTH = 79

_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_NUMBER = re.compile(r"\d+\.(\.\.)?$")
_RESULT = re.compile(r"(\*|\d+(/\d+)?(-\d+(/\d+)?)+)$")
LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*$")  # a seat label, written "Label:"
_LABEL = re.compile(LABEL.pattern[:-1] + ":$")
#: Annotation glyphs (PGN's): a move's mark, and a numeric annotation glyph `$n`.
MARKS = ("!!", "??", "!?", "?!", "!", "?")
_NAG = re.compile(r"\$\d{1,3}$")
_MARK_CHARS = "!?"


class RecordSyntaxError(ValueError):
    """The text is not a record; the message names the line and what was expected."""


@dataclass
class Move:
    """One move as written: its text, the seat label if given, its glyphs (`!?`, `$14`),
    the comments after it, then its variations (alternatives to this move)."""

    text: str
    actor: str | None = None
    comments: list[str] = field(default_factory=list)
    glyphs: list[str] = field(default_factory=list)
    variations: list["Variation"] = field(default_factory=list)


@dataclass
class Variation:
    """Another line from the position before the move it follows: `( ... )`.

    `comments` come before its first move, `after` between its `)` and what follows."""

    moves: list[Move] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)


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
    """The lines of a record, without control characters (notation.text): a record is
    read for a page, a feed or a terminal, and none of them should get one."""
    return clean_text(text.removeprefix("\ufeff")).split("\n")


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
    reader = _MovetextReader(_tokens(lines, first_line), record)
    record.moves = reader.line(record.comments, depth=0)
    result = reader.result
    if result is None:
        tokens = reader.tokens
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


class _MovetextReader:
    """Reads tokens into a line of moves; a variation is read by the same `line`."""

    def __init__(self, tokens: list[tuple[int, str]], record: Record):
        self.tokens, self.record = tokens, record
        self.position = 0
        self.result: str | None = None

    def line(self, comments: list[str], depth: int) -> list[Move]:
        """Moves up to the end (depth 0) or the `)` closing this variation."""
        moves: list[Move] = []
        while self.position < len(self.tokens):
            line, token = self.tokens[self.position]
            self.position += 1
            if self.result is not None:
                raise RecordSyntaxError(f"line {line}: {token!r} after the result "
                                        f"{self.result!r}")
            if token == ")":
                if depth == 0:
                    raise RecordSyntaxError(f"line {line}: ')' without an opening '('")
                if not moves:
                    raise RecordSyntaxError(f"line {line}: a variation '( ... )' holds "
                                            f"at least one move")
                return moves
            self._token(line, token, moves, comments, depth)
        if depth:
            raise RecordSyntaxError(f"line {self.tokens[-1][0]}: a variation opened with "
                                    f"'(' is never closed with ')'")
        return moves

    def _token(self, line: int, token: str, moves: list[Move], comments: list[str],
               depth: int) -> None:
        last = moves[-1] if moves else None
        if token.startswith("{"):
            if last is None:
                comments.append(token[1:-1])
            elif last.variations:
                last.variations[-1].after.append(token[1:-1])
            else:
                last.comments.append(token[1:-1])
        elif token == "(":
            if last is None:
                raise RecordSyntaxError(f"line {line}: a variation '(' follows the move "
                                        f"it is an alternative to, not the start of a line")
            variation = Variation()
            variation.moves = self.line(variation.comments, depth + 1)
            last.variations.append(variation)
        elif token in MARKS or _NAG.match(token):
            if last is None or last.comments or last.variations:
                raise RecordSyntaxError(f"line {line}: the glyph {token!r} is written right "
                                        f"after its move, before comments and variations")
            last.glyphs.append(token)
        elif _NUMBER.match(token):
            self.record.numbered = True
        elif _RESULT.match(token):
            if depth:
                raise RecordSyntaxError(f"line {line}: a result {token!r} inside a "
                                        f"variation; close it with ')' first")
            self.result = token
        elif _LABEL.match(token):
            moves.append(Move(self._labelled(line, token), actor=token[:-1]))
        elif token == ";":
            raise RecordSyntaxError(f"line {line}: ';' ends a move written 'Label: text;' "
                                    f"but no such move is open")
        else:
            moves.append(_glyphed(line, token))

    def _labelled(self, line: int, token: str) -> str:
        """The words of `Label: words ... ;` up to its ';'."""
        tokens, words = self.tokens, []
        while self.position < len(tokens) and tokens[self.position][1] != ";":
            at, word = tokens[self.position]
            if _LABEL.match(word):
                raise RecordSyntaxError(f"line {line}: the move of {token[:-1]} needs "
                                        f"a closing ';' before {word} on line {at}")
            if word.startswith("{") or word in "()":
                what = "a comment" if word.startswith("{") else f"a variation {word!r}"
                raise RecordSyntaxError(f"line {at}: {what} inside the move of "
                                        f"{token[:-1]}; end the move with ';'")
            words.append(word)
            self.position += 1
        if self.position == len(tokens) or not words:
            raise RecordSyntaxError(f"line {line}: the move of {token[:-1]} needs its "
                                    f"text and a closing ';'")
        self.position += 1  # the ';'
        return " ".join(words)


def _glyphed(line: int, token: str) -> Move:
    """A one-token move with its mark written on it, as PGN writes `e4!?`."""
    text = token.rstrip(_MARK_CHARS)
    mark = token[len(text):]
    if not mark:
        return Move(token)
    if not text or mark not in MARKS:
        raise RecordSyntaxError(f"line {line}: {token!r}: a move's mark is one of "
                                f"{' '.join(MARKS)}, written after the move (E7!?)")
    return Move(text, glyphs=[mark])


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
        elif char in ";()":
            tokens.append((line, char))
            position += 1
        else:
            end = position
            while end < len(text) and not text[end].isspace() and text[end] not in "{};()":
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
    units = _line_units(record.moves, 0, record.numbered, record.comments)
    units.append(record.result)
    return units


def _line_units(moves: list[Move], first_ply: int, numbered: bool,
                comments: list[str]) -> list[str]:
    """A line of moves from ply index `first_ply` (0-based): the main line or a variation.

    A variation opens with `(` on its first unit and closes with `)` on its last, as PGN
    writes them; the move after a comment or a variation repeats its number."""
    units = _comment_units(comments)
    need_number = True
    for index, move in enumerate(moves):
        ply = first_ply + index
        number = ""
        if numbered and (ply % 2 == 0 or need_number):
            number = f"{ply // 2 + 1}." + ("" if ply % 2 == 0 else "..") + " "
        marks = [g for g in move.glyphs if g in MARKS]
        nags = [g for g in move.glyphs if g not in MARKS]
        if move.actor is None:
            if len(move.text.split()) != 1:
                raise ValueError(f"{move.text!r} has spaces: write it with its actor")
            units.append(number + move.text + "".join(marks))
        else:
            units.append(f"{number}{move.actor}: {move.text};")
            units.extend(marks)
        units.extend(nags)
        units.extend(_comment_units(move.comments))
        for variation in move.variations:
            inner = _line_units(variation.moves, ply, numbered, variation.comments)
            inner[0] = "(" + inner[0]
            inner[-1] = inner[-1] + ")"
            units.extend(inner)
            units.extend(_comment_units(variation.after))
        need_number = bool(move.comments or move.variations)
    return units


def _comment_units(comments: list[str]) -> list[str]:
    return [word for c in comments for word in _comment(c).split(" ")]


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
