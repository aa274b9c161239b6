"""The outbox's bytes: the cheap generator (pbem.mail.outbox.wire_bytes) writes what
`as_bytes(policy=email.policy.SMTP)` writes, byte for byte, for the mails pbem builds:
short headers copied, long ones folded (List-Unsubscribe with a long token and domain,
References to a long Message-ID), names and subjects beyond ASCII, quoted-printable and
7-bit bodies, lines that begin with "From "."""

import email.policy
import random

import pytest

from pbem.config import Config
from pbem.mail import compose
from pbem.mail.outbox import wire_bytes

LONG_REPLY = "pbem+123456-4-briyz7aeqwtd5zdn@pbem.a-rather-long-domain.example.org"
RECIPIENTS = [("alice", "alice@example.org"), ("Zoë Ünïcode", "zoe@example.org"),
              ('Bob "the" O\'Neil, Jr.', "bob@example.org"), ("日本語の名前", "jp@example.org"),
              ("a " * 40, "long@example.org")]
SUBJECTS = ["[pbem] Onyx #12: alice vs bob", "[pbem] Gem Forge #4: Zoë vs 日本 vs " + "x" * 90,
            "[pbem] 6 nimmt! Baron Oxx #1: " + " vs ".join(f"player{i}" for i in range(10))]
BODIES = [["Hello Zoë, ünïcode", "x" * 300], ["ascii only " * 30, "From here on, ascii"]]


@pytest.mark.parametrize("to", RECIPIENTS)
@pytest.mark.parametrize("subject", SUBJECTS)
@pytest.mark.parametrize("paragraphs", BODIES)
@pytest.mark.parametrize("reply_to", [None, "pbem+1-0-abc@pbem.test", LONG_REPLY])
@pytest.mark.parametrize("in_reply_to", [None, "<" + "m" * 80 + "@example.org>"])
def test_the_same_bytes_as_the_smtp_policy(to, subject, paragraphs, reply_to, in_reply_to):
    config = Config(domain="pbem.a-rather-long-domain.example.org", secret_key="k")
    message = compose.build(config, to, subject, "note", {"paragraphs": paragraphs},
                            reply_to=reply_to, game_id=123456, in_reply_to=in_reply_to)
    assert wire_bytes(message) == message.as_bytes(policy=email.policy.SMTP)


def test_a_long_header_is_folded_as_smtp_folds_it():
    config = Config(domain="pbem.test", secret_key="k")
    message = compose.build(config, ("alice", "alice@example.org"), "hello", "note",
                            {"paragraphs": ["hi"]}, reply_to=LONG_REPLY, game_id=123456)
    wire = wire_bytes(message)
    # SMTP's way with a word longer than a line: encoded words (what the outbox always sent)
    assert (b"List-Unsubscribe: =?utf-8?q?=3Cmailto=3Apbem+123456-4-briyz7aeqwtd5zdn=40pbe?=\r\n"
            b" =?utf-8?q?m=2Ea-rather-long-domain=2Eexample=2Eorg=3Fsubject=3Dquiet=3E?=\r\n"
            ) in wire
    assert b"\r\nSubject: hello\r\n" in wire


@pytest.mark.parametrize("paragraphs", [["a line\r\nand one\rand one\nmore"], ["no newline"],
                                        ["Zoë\n\n\nthree blank lines"], [""]])
def test_bodies_a_line_end_at_a_time_and_pbems_mails_without_the_generator(
        paragraphs, monkeypatch):
    config = Config(domain="pbem.test", secret_key="k")
    message = compose.build(config, ("Zoë", "zoe@example.org"), "[pbem] Onyx #3", "note",
                            {"paragraphs": paragraphs}, reply_to=LONG_REPLY, game_id=3)
    expected = message.as_bytes(policy=email.policy.SMTP)
    assert b"\r\n" in expected and b"\n" not in expected.replace(b"\r\n", b"")

    def generator(*args, **kwargs):
        raise AssertionError("the generator was used")
    monkeypatch.setattr(type(message), "as_bytes", generator)
    assert wire_bytes(message) == expected


def test_a_message_of_another_shape_is_left_to_the_generator():
    from email.mime.application import MIMEApplication
    from email.mime.multipart import MIMEMultipart
    message = MIMEMultipart("mixed", boundary="b0undary")
    message.preamble = "This is a MIME message."
    message.attach(MIMEApplication(b"\x00\x01binary", "octet-stream"))
    assert wire_bytes(message) == message.as_bytes(policy=email.policy.SMTP)


@pytest.mark.parametrize("subtype", ["plain", "html"])
@pytest.mark.parametrize("text", ["F6\n", "ascii only " * 30 + "\n\n  indented\n", "",
                                  "From here on\r\nx"])
def test_an_ascii_part_is_mimetexts_own(subtype, text):
    """compose.text_part writes an ASCII part by hand: the headers and payload MIMEText
    gives it, and the bytes of a whole message with it."""
    from email.mime.text import MIMEText
    ours, theirs = compose.text_part(text, subtype), MIMEText(text, subtype, "us-ascii")
    assert ours.items() == theirs.items() == [
        ("Content-Type", f'text/{subtype}; charset="us-ascii"'), ("MIME-Version", "1.0"),
        ("Content-Transfer-Encoding", "7bit")]
    assert ours.get_payload() == theirs.get_payload() == text
    assert ours.as_bytes(policy=email.policy.SMTP) == theirs.as_bytes(policy=email.policy.SMTP)


QUOTED = ["Zoë: F6\n", "26×26 " * 40, "a = b\tc \nend \r\nx\ry\x0cz\x85\u2028w",
          "trailing space " + "x" * 58 + " \n", "x" * 74 + "\t", "x" * 75 + " ", "x" * 76 + " ",
          "é" * 80 + "\n\n", "=" * 200, "x" * 73 + "é" + "y" * 10, "line\n" * 3 + "€",
          "🙂 emoji and 日本語\r\n", "x" * 300 + "é",
          # lines of 74 to 78 (encoded) ending in whitespace: room for =20, for a soft
          # break, for nothing
          *("é" + "x" * n + end for n in range(66, 73) for end in (" ", "\t\n"))]


@pytest.mark.parametrize("subtype", ["plain", "html"])
@pytest.mark.parametrize("text", QUOTED + [
    "".join(random.Random(seed).choice("ab =\t\n\r\u00e9\u20ac.\x00") * random.Random(seed)
            .randrange(1, 90) for _ in range(20)) for seed in range(20)])
def test_a_part_beyond_ascii_is_mimetexts_own_in_quoted_printable(subtype, text):
    """compose.text_part writes a UTF-8 part by hand too (quoted_printable): MIMEText's
    headers and payload, byte for byte, and so the message's bytes."""
    from email.charset import QP, Charset
    from email.mime.text import MIMEText
    utf8 = Charset("utf-8")
    utf8.body_encoding = QP
    text = text if not text.isascii() else "é" + text
    ours, theirs = compose.text_part(text, subtype), MIMEText(text, subtype, utf8)
    assert ours.items() == theirs.items() == [
        ("Content-Type", f'text/{subtype}; charset="utf-8"'), ("MIME-Version", "1.0"),
        ("Content-Transfer-Encoding", "quoted-printable")]
    assert ours.get_payload() == theirs.get_payload()
    assert ours.get_payload(decode=True) == theirs.get_payload(decode=True)
    assert ours.as_bytes(policy=email.policy.SMTP) == theirs.as_bytes(policy=email.policy.SMTP)


def test_a_part_beyond_ascii_is_quoted_printable():
    part = compose.text_part("Zoë: F6\n", "plain")
    assert part["Content-Transfer-Encoding"] == "quoted-printable"
    assert part.get_payload() == "Zo=C3=AB: F6\n"
    assert part.get_content_charset() == "utf-8"
