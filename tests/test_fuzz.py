"""Bad input never crashes: any text gives a record or a RecordSyntaxError, any move
text an Onyx move or a MoveError, any option value an option or an OptionError."""

import string

from hypothesis import given, settings, strategies as st

from notation.record import RecordSyntaxError, format_record, parse_record
from pbem.engines import get_engine
from pbem.engines.base import MoveError, OptionError
from pbem.engines.game import Game, RecordError

ONYX = get_engine("onyx")
MOVE_ALPHABET = string.ascii_letters + string.digits + "*-/ \t{}[];:\"'\\²٣Ｆ\n"
RECORD_ALPHABET = MOVE_ALPHABET + ".01"

MOVE_TEXT = st.one_of(
    st.text(MOVE_ALPHABET, max_size=12),
    st.from_regex(r"[a-zA-Z]{1,2}-?[0-9]{1,5}\*{0,3}", fullmatch=True),
    st.from_regex(r"[a-z][0-9]{1,2}/[a-z][0-9]{1,2}", fullmatch=True),
)


@settings(max_examples=400, deadline=None)
@given(MOVE_TEXT)
def test_any_move_text_is_a_move_or_a_reason(text):
    state = ONYX.start({"board": "6", "setup": "open"})
    try:
        state, canonical = ONYX.play(state, 0, text)
    except MoveError as error:
        assert str(error)
    else:
        assert ONYX.parse(ONYX.start({"board": "6", "setup": "open"}), 0, canonical) is not None


@settings(max_examples=300, deadline=None)
@given(st.text(RECORD_ALPHABET, max_size=200))
def test_any_text_is_a_record_or_a_syntax_error(text):
    try:
        record = parse_record(text)
    except RecordSyntaxError as error:
        assert str(error).startswith("line ")
        return
    try:
        record = parse_record(format_record(record))
    except ValueError:
        pass  # a hand-made move with spaces and no actor cannot be written
    try:
        Game.from_record(record).check_result(record)
    except RecordError as error:
        assert str(error)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["board", "setup", "Board", "x"]),
                       st.text(MOVE_ALPHABET, max_size=4), max_size=3))
def test_any_options_are_options_or_a_reason(options):
    try:
        ONYX.resolve_options(options)
    except OptionError as error:
        assert str(error)


# -- mail from strangers: reading it never raises ------------------------------------------

HEADER_NAMES = ["From", "To", "Cc", "Subject", "Message-ID", "In-Reply-To", "References",
                "Content-Type", "Reply-To", "Auto-Submitted", "Authentication-Results"]
NASTY = st.sampled_from(["(" * 3000, ")" * 3000, "\"" * 501, "<" * 2000, "=?utf-8?q?", "\\",
                         "@", ",", ";", ":", "\udcff", "\r\n ", "a@b.c", "boundary=x"])
HEADER_VALUE = st.lists(st.one_of(NASTY, st.text(max_size=20)), max_size=6).map("".join)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(HEADER_NAMES), HEADER_VALUE), max_size=6),
       st.binary(max_size=200))
def test_any_mail_reads_as_a_mail(headers, body):
    from pbem.intake.inbound import parse_mail, reply_text
    from pbem.intake.robots import robot_reason
    raw = b"".join(f"{name}: {value}\r\n".encode("utf-8", "surrogateescape")
                   for name, value in headers) + b"\r\n" + body
    mail = parse_mail(raw)
    assert mail.raw == raw and mail.message_id
    robot_reason(mail)
    assert isinstance(reply_text(mail), str)
