"""The game-record format, engine-free: tag pairs, movetext, comments, a result.

Every record here is written out literally, the way a player or an archive would see it.
What the moves mean is not this module's business, so the moves need not be legal.
"""

from __future__ import annotations

import re

import pytest

from notation.record import (LINE_WIDTH, Move, Record, RecordSyntaxError, format_record,
                             parse_record, parse_records)

ONYX_EXAMPLE = """\
[Game "Onyx"]
[Board "12"]
[Setup "standard"]
[Black "alice@example.org"]
[White "bob@example.org"]
[Result "*"]

1. F6 G5 2. D4 E7* 3. DE910 swap *
"""

EXAMPLE_TAGS = [("Game", "Onyx"), ("Board", "12"), ("Setup", "standard"),
                ("Black", "alice@example.org"), ("White", "bob@example.org"),
                ("Result", "*")]

EXAMPLE_MOVES = [Move("F6"), Move("G5"), Move("D4"), Move("E7*"), Move("DE910"),
                 Move("swap")]

# A long game as the formatter lays it out: 79 columns at most, a comment before the
# first move, comments after a White and a Black move (hence `5...`), a capture mark.
# Several breaks fall where the next move number alone would still have fitted.
LONG_GAME = """\
[Game "Onyx"]
[Board "12"]
[Setup "standard"]
[Black "alice"]
[White "bob"]
[Result "*"]

{Club championship, round 3.} 1. A5 H3 2. E3 K1 3. D8 K4 4. FG34 G2 5. G11
{Black threatens to capture at once.} 5... L11 6. J3 H7 7. K2 D1 8. FG78 D2
9. J9 E2 10. F5 CD45 11. K6 D12 {A quiet move.} 12. BC78 J2 13. IJ1011 C4
14. H9 J5 15. A10 E12 16. G8 C10 17. G4 I8 18. G7 I4 19. J1* A2 20. F11 K5
21. K3 BC1112 22. AB89 H11 23. G10 K11 24. B9 I1 25. H12 H6 *
"""

ACTOR_GAME = """\
[Game "Onix"]
[Seat1 "alice"]
[Seat2 "bob"]
[Result "*"]

Dealer: deal 3 1 2; alice: take X A; {She takes the cross.} bob: take O B; *
"""

TAG_ESCAPES = """\
[Game "Onyx"]
[Event "The \\"Winter\\" Cup"]
[Site "C:\\\\games\\\\onyx"]
[Result "1-0"]

1. F6 1-0
"""


def tags_only(movetext: str) -> str:
    return f'[Game "Onyx"]\n\n{movetext}\n'


def texts(record: Record) -> list[str]:
    return [move.text for move in record.moves]


def movetext_lines(text: str) -> list[str]:
    """The lines after the blank line that ends the tags."""
    return text.split("\n\n", 1)[1].splitlines()


# -- reading -----------------------------------------------------------------------------

def test_the_onyx_example_reads_as_tags_in_order_moves_and_result():
    record = parse_record(ONYX_EXAMPLE)
    assert record == Record(tags=EXAMPLE_TAGS, moves=EXAMPLE_MOVES, result="*",
                            numbered=True)
    assert record.tag("Black") == "alice@example.org"
    assert record.tag("Round") is None
    assert record.tag("Round", "1") == "1"


def test_move_numbers_are_optional():
    record = parse_record(tags_only("F6 G5 D4 E7* DE910 swap *"))
    assert record.moves == EXAMPLE_MOVES
    assert record.numbered is False


def test_move_numbers_are_read_but_not_checked():
    record = parse_record(tags_only("7. F6 3... G5 1. D4 *"))
    assert texts(record) == ["F6", "G5", "D4"]
    assert record.numbered is True


def test_a_move_number_with_three_dots_resumes_after_a_comment():
    record = parse_record(tags_only("1. F6 {a strong start} 1... G5 2. D4 *"))
    assert record.moves == [Move("F6", comments=["a strong start"]), Move("G5"),
                            Move("D4")]


def test_a_comment_before_the_first_move_belongs_to_the_record():
    record = parse_record(tags_only("{Played at the club.} 1. F6 G5 *"))
    assert record.comments == ["Played at the club."]
    assert record.moves == [Move("F6"), Move("G5")]


def test_comments_after_a_move_belong_to_that_move_in_order():
    record = parse_record(tags_only("1. F6 {first} {second} G5 {third} *"))
    assert record.moves == [Move("F6", comments=["first", "second"]),
                            Move("G5", comments=["third"])]


def test_white_space_in_a_comment_is_folded_to_single_spaces():
    record = parse_record(tags_only(
        "1. F6 {Black  threatens\n"
        "      the bottom\tedge,\n"
        "\n"
        "   twice. } G5 *"))
    assert record.moves[0].comments == ["Black threatens the bottom edge, twice."]
    assert texts(record) == ["F6", "G5"]


def test_an_actor_move_names_its_seat_and_may_span_lines():
    record = parse_record(
        '[Game "Onix"]\n'
        '\n'
        'Dealer: deal\n'
        '   3 1 2; alice: take\n'
        'X\n'
        'A;\n'
        '*\n')
    assert record.moves == [Move("deal 3 1 2", actor="Dealer"),
                            Move("take X A", actor="alice")]


def test_an_actor_move_may_stand_beside_plain_moves_and_comments():
    record = parse_record(tags_only("1. F6 bob: G5; {bob names himself} 2. D4 *"))
    assert record.moves == [Move("F6"), Move("G5", actor="bob",
                                             comments=["bob names himself"]), Move("D4")]


def test_tag_values_may_hold_escaped_quotes_and_backslashes():
    record = parse_record(TAG_ESCAPES)
    assert record.tag("Event") == 'The "Winter" Cup'
    assert record.tag("Site") == "C:\\games\\onyx"


@pytest.mark.parametrize("result", ["1-0", "0-1", "1/2-1/2", "*", "1/3-1/3-1/3"])
def test_the_result_token_ends_the_movetext(result):
    assert parse_record(tags_only(f"1. F6 G5 {result}")).result == result


def test_blank_lines_before_the_tags_are_skipped():
    assert parse_record("\n\n" + ONYX_EXAMPLE) == parse_record(ONYX_EXAMPLE)


def test_windows_line_endings_read_the_same():
    windows = ONYX_EXAMPLE.replace("\n", "\r\n")
    assert parse_record(windows) == parse_record(ONYX_EXAMPLE)
    assert parse_record(LONG_GAME.replace("\n", "\r\n")) == parse_record(LONG_GAME)


def test_set_tag_replaces_in_place_and_appends_a_new_tag_at_the_end():
    record = parse_record(ONYX_EXAMPLE)
    record.set_tag("Result", "1-0")
    record.set_tag("Round", "3")
    assert record.tags == EXAMPLE_TAGS[:-1] + [("Result", "1-0"), ("Round", "3")]
    assert record.tag_dict()["Result"] == "1-0"


# -- writing and round trips -------------------------------------------------------------

@pytest.mark.parametrize("text", [ONYX_EXAMPLE, LONG_GAME, ACTOR_GAME, TAG_ESCAPES,
                                  tags_only("*"), tags_only("F6 G5 {unnumbered} D4 0-1")],
                         ids=["onyx-example", "long-game", "actor-moves", "tag-escapes",
                              "no-moves", "unnumbered"])
def test_canonical_text_survives_a_round_trip_exactly(text):
    assert format_record(parse_record(text)) == text


def test_the_long_game_reads_as_written():
    record = parse_record(LONG_GAME)
    assert len(record.moves) == 50
    assert record.comments == ["Club championship, round 3."]
    assert record.moves[8] == Move("G11", comments=["Black threatens to capture at once."])
    assert record.moves[9] == Move("L11")
    assert record.moves[21] == Move("D12", comments=["A quiet move."])
    assert record.moves[36] == Move("J1*")


def test_a_long_movetext_wraps_at_79_columns_and_keeps_numbers_with_their_moves():
    record = parse_record(LONG_GAME)
    for extra in range(12):  # shift every line break through a dozen positions
        record.comments = ["Club championship, round 3." + "!" * extra]
        text = format_record(record)
        lines = movetext_lines(text)
        assert len(lines) >= 5
        assert all(len(line) <= LINE_WIDTH == 79 for line in lines), text
        assert not [line for line in lines if re.search(r"\d+\.(\.\.)?$", line)], text
        assert parse_record(text) == record


def test_a_comment_wraps_between_its_words():
    record = Record([("Game", "Onyx")], [Move("F6", comments=[" ".join(["word"] * 30)])],
                    "*")
    lines = movetext_lines(format_record(record))
    assert lines[0].startswith("F6 {word word")
    assert lines[-1].endswith("word} *")
    assert all(len(line) <= 79 for line in lines)


@pytest.mark.parametrize("record", [
    Record(EXAMPLE_TAGS, EXAMPLE_MOVES, "*", numbered=True),
    Record(EXAMPLE_TAGS, EXAMPLE_MOVES, "*", numbered=False),
    Record([("Game", "Onyx"), ("Result", "0-1")],
           [Move("F6", comments=["after Black"]), Move("G5", comments=["after White"]),
            Move("D4"), Move("E7", comments=["one", "two"]), Move("DE910")],
           "0-1", comments=["before", "the game"], numbered=True),
    Record([("Game", "Onix"), ("Seat1", "alice"), ("Seat2", "bob"),
            ("Note", 'a "quoted" \\ backslash')],
           [Move("deal 3 1 2", actor="Dealer"), Move("take X A", actor="alice",
                                                    comments=["the cross"]),
            Move("take O B", actor="bob")], "1/2-1/2"),
    Record([("Game", "Onyx")], [], "*", comments=["no moves yet"]),
    Record([("Game", "Onyx")], [Move(f"{chr(65 + n % 12)}{n % 12 + 1}") for n in range(150)],
           "1-0", numbered=True),
], ids=["numbered", "unnumbered", "comments", "actor-moves", "no-moves", "150-plies"])
def test_a_constructed_record_survives_format_then_parse(record):
    text = format_record(record)
    assert parse_record(text) == record
    assert all(len(line) <= 79 for line in text.splitlines())


def test_the_formatter_numbers_the_move_after_a_comment_on_a_black_move():
    record = Record([("Game", "Onyx")], [Move("F6", comments=["threat"]), Move("G5"),
                                         Move("D4")], "*", numbered=True)
    assert format_record(record) == '[Game "Onyx"]\n\n1. F6 {threat} 1... G5 2. D4 *\n'


# -- syntax errors -----------------------------------------------------------------------

@pytest.mark.parametrize("text, line, words", [
    ('[Game "Onyx"]\n[Board 12]\n\n1. F6 *\n', 2, "[Board 12]"),
    ('[Game "Onyx"]\n[Black "alice]\n\n1. F6 *\n', 2, "a tag is written"),
    ('[Game "Onyx"]\n\n1. F6 G5\n2. D4 {a comment\nthat never ends\n*\n', 4,
     "never closed"),
    ('[Game "Onyx"]\n\n1. F6 G5\n2. D4 } *\n', 4, "'}' without an opening '{'"),
    ('[Game "Onyx"]\n\n1. F6 G5 *\n2. D4\n', 4, "'2.' after the result '*'"),
    ('[Game "Onyx"]\n\n1. F6 G5 * {too late}\n', 3, "after the result"),
    ('[Game "Onix"]\n\nDealer: deal 3 1 2;\nalice: take X A\n*\n', 4,
     "the move of alice needs its text and a closing ';'"),
    ('[Game "Onix"]\n\nalice: ;\n*\n', 3, "the move of alice needs its text"),
    ('[Game "Onyx"]\n\n1. F6 G5;\n*\n', 3, "no such move is open"),
    ('[Game "Onix"]\n\nalice: take {oops} X A; *\n', 3, "a comment inside the move"),
    ('Dear Bob, my move is F6.\n', 1, "a record starts with tag pairs"),
    ('[Game "Onyx"]\n\n1. F6 G5\n2. D4\n', 4, "must end with a result: 1-0, 0-1"),
    ('[Game "Onix"]\n\nalice: take X A\nbob: take O B; *\n', 3,
     "the move of alice needs a closing ';' before bob: on line 4"),
    ('[Game "Onyx"]\r\n\r\n1. F6 G5\r\n2. D4 } *\r\n', 4, "'}' without an opening"),
], ids=["tag-without-quotes", "tag-unclosed-quote", "unclosed-comment", "stray-brace",
        "move-after-result", "comment-after-result", "actor-move-without-semicolon",
        "actor-move-without-text", "semicolon-without-move", "comment-inside-actor-move",
        "not-a-record", "missing-result", "semicolon-forgotten-before-next-actor",
        "windows-line-endings"])
def test_a_syntax_error_names_its_line(text, line, words):
    with pytest.raises(RecordSyntaxError) as error:
        parse_record(text)
    assert str(error.value).startswith(f"line {line}: ")
    assert words in str(error.value)


def test_braces_in_a_comment_are_written_as_parentheses():
    record = Record([("Game", "Onyx")], [Move("F6", comments=["a {nice} move"])], "*")
    text = format_record(record)
    assert "{a (nice) move}" in text
    assert parse_record(text).moves[0].comments == ["a (nice) move"]


def test_a_line_break_in_a_tag_value_is_written_as_a_space():
    text = format_record(Record([("Game", "Onyx"), ("Annotator", "line1\nline2")], [], "*"))
    assert parse_record(text).tag("Annotator") == "line1 line2"


def test_a_move_with_spaces_must_name_its_actor():
    with pytest.raises(ValueError, match="write it with its actor"):
        format_record(Record([("Game", "Onix")], [Move("take X A")], "*"))


def test_a_file_may_hold_several_records():
    one = '[Game "Onyx"]\n[Result "*"]\n\n1. F6 *\n'
    two = '[Game "Onyx"]\n[Board "16"]\n[Result "*"]\n\nF6 G5\n*\n'
    records = parse_records(one + "\n" + two + "\n\n")
    assert [r.tags for r in records] == [[("Game", "Onyx"), ("Result", "*")],
                                         [("Game", "Onyx"), ("Board", "16"), ("Result", "*")]]
    assert [len(r.moves) for r in records] == [1, 2]
    assert parse_records(one) == [parse_record(one)]


def test_an_empty_file_is_no_record():
    with pytest.raises(RecordSyntaxError, match="^line 1: a record starts with tag pairs"):
        parse_records("\n\n")


@pytest.mark.parametrize("tag", ["1-0", "*"])
def test_a_missing_result_token_is_read_from_the_result_tag_with_a_warning(tag):
    record = parse_record(f'[Game "Onyx"]\n[Result "{tag}"]\n\n1. F6 G5\n2. D4\n')
    assert record.result == tag and [m.text for m in record.moves] == ["F6", "G5", "D4"]
    assert record.warnings == [f"line 5: the movetext does not end with a result; the "
                               f"Result tag's {tag!r} is taken"]
    assert format_record(record).endswith(f"1. F6 G5 2. D4 {tag}\n")


def test_a_result_token_and_no_warning_when_it_is_written():
    assert parse_record(tags_only("1. F6 G5 *")).warnings == []


def test_record_check_warns_and_checks_a_record_without_its_result_token(tmp_path, capsys):
    from pbem.cli import main
    path = tmp_path / "game.txt"
    path.write_text('[Game "Onyx"]\n[Board "12"]\n[Setup "standard"]\n[Result "*"]\n\n'
                    '1. F6 G5\n')
    assert main(["record", "check", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "ok, 2 plies, result *" in out
    assert "warning: line 6: the movetext does not end with a result" in err


def test_no_nesting_drives_the_reader_past_the_recursion_limit():
    """Variations nest at most MAX_DEPTH deep: 100,000 `(` are refused by name, read
    without recursing once per `(` (issue #29: 990 raised RecursionError)."""
    from notation.record import MAX_DEPTH, RecordSyntaxError, parse_record, variation_plies
    head = '[Game "Onyx"]\n[Board "12"]\n[Result "*"]\n\n1. F6 G5 2. D4 '
    for depth in (MAX_DEPTH + 1, 990, 100_000):
        with pytest.raises(RecordSyntaxError, match=r"^line 5: variations nest more than "
                                                    r"16 deep here"):
            parse_record(head + "(E5 " * depth + ")" * depth + " *")
    record = parse_record(head + "(E5 " * MAX_DEPTH + ")" * MAX_DEPTH + " *")
    assert variation_plies(record) == MAX_DEPTH


def test_a_reader_may_be_told_how_many_moves_of_variations_to_read():
    from notation.record import RecordTooLarge, parse_record
    text = '[Game "Onyx"]\n[Result "*"]\n\n1. F6\n' + " (F7 G7)" * 6 + " *"
    assert len(parse_record(text, max_variation_moves=12).moves[0].variations) == 6
    with pytest.raises(RecordTooLarge, match=r"^line 5: more than 11 moves in variations"):
        parse_record(text, max_variation_moves=11)
