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


#: How deep variations may nest, `(` inside `(`: deeper is refused when read, so nothing
#: that walks a record (its writer, its replay, SGF, a page) can be driven by its input
#: past the interpreter's recursion limit. Annotators rarely go past 4.
MAX_DEPTH = 16


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

def parse_record(text: str, max_variation_moves: int | None = None) -> Record:
    """Read one record; raises RecordSyntaxError naming the line at fault (RecordTooLarge
    past `max_variation_moves` moves in all its variations, if given)."""
    return _parse_lines(_lines(text), 0, max_variation_moves)


def parse_records(text: str, max_variation_moves: int | None = None) -> list[Record]:
    """Read a file of several records, one after another (as PGN files hold games).

    A record ends where a tag line follows its movetext; errors name the file's line.
    `max_variation_moves` bounds each record's moves in variations (RecordTooLarge).
    """
    lines, records, start, in_movetext, in_comment = _lines(text), [], 0, False, False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("[") and in_movetext and not in_comment:
            records.append(_parse_lines(lines[start:index], start, max_variation_moves))
            start, in_movetext = index, False
        elif stripped and not stripped.startswith("["):
            in_movetext = True
        if in_movetext:  # a line of a comment that begins with '[' is no tag
            in_comment = line.rfind("{") > line.rfind("}") or (
                in_comment and "}" not in line)
    if any(line.strip() for line in lines[start:]) or not records:
        records.append(_parse_lines(lines[start:], start, max_variation_moves))
    return records


def _lines(text: str) -> list[str]:
    """The lines of a record, without control characters (notation.text): a record is
    read for a page, a feed or a terminal, and none of them should get one."""
    return clean_text(text.removeprefix("\ufeff")).split("\n")


def _parse_lines(lines: list[str], offset: int, most: int | None = None) -> Record:
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
    _read_movetext(record, lines[index:], first_line=offset + index + 1, most=most)
    return record


def _read_movetext(record: Record, lines: list[str], first_line: int,
                   most: int | None = None) -> None:
    reader = _MovetextReader(_Movetext(lines, first_line), record, most)
    record.moves = reader.line(record.comments, depth=0)
    result = reader.result
    if result is None:
        tokens = reader.tokens
        last = tokens.line(tokens.count() - 1) if tokens.count() else first_line
        tag = record.tag("Result")
        if tag is None or not _RESULT.match(tag):
            raise RecordSyntaxError(f"line {last}: the movetext must end with a result: "
                                    f"1-0, 0-1, 1/2-1/2 or *")
        # As PGN readers do: the Result tag stands for the token people leave out.
        record.warnings.append(f"line {last}: the movetext does not end with a result; "
                               f"the Result tag's {tag!r} is taken")
        result = tag
    record.result = result


_TOKEN = re.compile(r"\{[^}]*\}?|[;()}]|[^\s{};()]+")


class _Movetext:
    """The movetext's tokens (a comment is one, `;` is one), read as the reader asks for
    them, and, asked for, the line of each. One regular expression finds them, and only
    as far as the reader goes: a record refused at a limit is not read to its end (a
    loop over characters, and a line number kept with every token, cost a quarter of a
    second for a record of 200 KB); a token's line is counted only when an error names
    it."""

    def __init__(self, lines: list[str], first_line: int):
        self.text, self.first_line = "\n".join(lines), first_line
        self.words: list[str] = []
        self._unread = _TOKEN.finditer(self.text)

    def has(self, index: int) -> bool:
        """Whether there is a token `index` (reading up to it)."""
        words = self.words
        while len(words) <= index:
            found = next(self._unread, None)
            if found is None:
                return False
            token = found.group()
            if token[0] == "{":
                if token[-1] != "}":
                    raise RecordSyntaxError(f"line {self.line(len(words))}: a comment opened "
                                            f"with '{{' is never closed with '}}'")
                token = "{" + " ".join(token[1:-1].split()) + "}"
            elif token == "}":
                raise RecordSyntaxError(f"line {self.line(len(words))}: '}}' without an "
                                        f"opening '{{'")
            words.append(token)
        return True

    def count(self) -> int:
        """How many tokens there are (reading them all)."""
        while self.has(len(self.words)):
            pass
        return len(self.words)

    def line(self, index: int) -> int:
        """The line of the file that token `index` starts on."""
        for number, found in enumerate(_TOKEN.finditer(self.text)):
            if number == index:
                return self.first_line + self.text.count("\n", 0, found.start())
        return self.first_line + self.text.count("\n")


class RecordTooLarge(RecordSyntaxError):
    """The record holds more moves in its variations than the reader was allowed."""


class _MovetextReader:
    """Reads tokens into a line of moves; a variation is read by the same `line`, at
    most MAX_DEPTH deep, and with at most `most` moves in all variations (None: any)."""

    def __init__(self, tokens: _Movetext, record: Record, most: int | None = None):
        self.tokens, self.record, self.most = tokens, record, most
        self.position = 0
        self.result: str | None = None
        self.in_variations = 0

    def line(self, comments: list[str], depth: int) -> list[Move]:
        """Moves up to the end (depth 0) or the `)` closing this variation."""
        moves: list[Move] = []
        words = self.tokens.words
        while self.tokens.has(self.position):
            at, token = self.position, words[self.position]
            self.position += 1
            if self.result is not None:
                raise RecordSyntaxError(f"line {self.tokens.line(at)}: {token!r} after the "
                                        f"result {self.result!r}")
            if token == ")":
                if depth == 0:
                    raise RecordSyntaxError(f"line {self.tokens.line(at)}: ')' without an "
                                            f"opening '('")
                if not moves:
                    raise RecordSyntaxError(f"line {self.tokens.line(at)}: a variation "
                                            f"'( ... )' holds at least one move")
                return moves
            self._token(at, token, moves, comments, depth)
            if depth and self.most is not None and self.in_variations > self.most:
                raise RecordTooLarge(f"line {self.tokens.line(at)}: more than {self.most:,} "
                                     f"moves in variations; at most {self.most:,} are read")
        if depth:
            raise RecordSyntaxError(f"line {self.tokens.line(self.tokens.count() - 1)}: a "
                                    f"variation opened with '(' is never closed with ')'")
        return moves

    def _token(self, at: int, token: str, moves: list[Move], comments: list[str],
               depth: int) -> None:
        last = moves[-1] if moves else None
        count = len(moves)
        if token.startswith("{"):
            if last is None:
                comments.append(token[1:-1])
            elif last.variations:
                last.variations[-1].after.append(token[1:-1])
            else:
                last.comments.append(token[1:-1])
        elif token == "(":
            if last is None:
                raise RecordSyntaxError(f"line {self.tokens.line(at)}: a variation '(' "
                                        f"follows the move it is an alternative to, not the "
                                        f"start of a line")
            if depth >= MAX_DEPTH:
                raise RecordSyntaxError(f"line {self.tokens.line(at)}: variations nest more "
                                        f"than {MAX_DEPTH} deep here; at most {MAX_DEPTH} "
                                        f"variations may be opened inside one another")
            variation = Variation()
            variation.moves = self.line(variation.comments, depth + 1)
            last.variations.append(variation)
        elif token in MARKS or _NAG.match(token):
            if last is None or last.comments or last.variations:
                raise RecordSyntaxError(f"line {self.tokens.line(at)}: the glyph {token!r} "
                                        f"is written right after its move, before comments "
                                        f"and variations")
            last.glyphs.append(token)
        elif _NUMBER.match(token):
            self.record.numbered = True
        elif _RESULT.match(token):
            if depth:
                raise RecordSyntaxError(f"line {self.tokens.line(at)}: a result {token!r} "
                                        f"inside a variation; close it with ')' first")
            self.result = token
        elif _LABEL.match(token):
            moves.append(Move(self._labelled(at, token), actor=token[:-1]))
        elif token == ";":
            raise RecordSyntaxError(f"line {self.tokens.line(at)}: ';' ends a move written "
                                    f"'Label: text;' but no such move is open")
        else:
            moves.append(self._glyphed(at, token))
        if depth:
            self.in_variations += len(moves) - count

    def _labelled(self, at: int, token: str) -> str:
        """The words of `Label: words ... ;` up to its ';'."""
        tokens, words = self.tokens.words, []
        while self.tokens.has(self.position) and tokens[self.position] != ";":
            word = tokens[self.position]
            if _LABEL.match(word):
                raise RecordSyntaxError(f"line {self.tokens.line(at)}: the move of "
                                        f"{token[:-1]} needs a closing ';' before {word} on "
                                        f"line {self.tokens.line(self.position)}")
            if word.startswith("{") or word in "()":
                what = "a comment" if word.startswith("{") else f"a variation {word!r}"
                raise RecordSyntaxError(f"line {self.tokens.line(self.position)}: {what} "
                                        f"inside the move of {token[:-1]}; end the move "
                                        f"with ';'")
            words.append(word)
            self.position += 1
        if not self.tokens.has(self.position) or not words:
            raise RecordSyntaxError(f"line {self.tokens.line(at)}: the move of {token[:-1]} "
                                    f"needs its text and a closing ';'")
        self.position += 1  # the ';'
        return " ".join(words)

    def _glyphed(self, at: int, token: str) -> Move:
        """A one-token move with its mark written on it, as PGN writes `e4!?`."""
        text = token.rstrip(_MARK_CHARS)
        mark = token[len(text):]
        if not mark:
            return Move(token)
        if not text or mark not in MARKS:
            raise RecordSyntaxError(f"line {self.tokens.line(at)}: {token!r}: a move's mark "
                                    f"is one of {' '.join(MARKS)}, written after the move "
                                    f"(E7!?)")
        return Move(text, glyphs=[mark])


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def variation_plies(record: Record) -> int:
    """The moves in all the record's variations, however deep (the main line's not),
    counted without recursion."""
    count, waiting = 0, [record.moves]
    while waiting:
        for move in waiting.pop():
            for variation in move.variations:
                count += len(variation.moves)
                waiting.append(variation.moves)
    return count


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
