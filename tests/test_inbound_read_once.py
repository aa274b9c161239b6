"""A move's mail is read once where once is enough (issue #44): a mail of one text part
is not parsed a second time for its text (pbem.intake.inbound._one_part), and what it
is read as is what the whole parse reads: the same headers, payload, text and faults.
A mail of any other shape is parsed whole, as before."""

import email

import pytest

from pbem.intake import inbound
from pbem.intake.inbound import READING, _one_part, body_text, parse_mail, reply_text

ONE_PART = [
    b"From: Ann <ann@example.org>\r\nTo: pbem+abc@pbem.test\r\nSubject: Re: [pbem] Onyx #3\r\n"
    b"Message-ID: <m1@example.org>\r\n\r\n#12 F6\r\n\r\nOn Monday, pbem wrote:\r\n> the board\r\n",
    b"From: ann@example.org\nTo: pbem@pbem.test\nSubject: games\n\ngames\n",
    b"From: ann@example.org\r\nTo: pbem@pbem.test\r\nSubject: a folded\r\n subject\r\n"
    b"Content-Type: text/plain; charset=\"iso-8859-1\"\r\nContent-Transfer-Encoding: 8bit\r\n"
    b"\r\nsay gr\xfc\xdfe\r\n",
    b"From: ann@example.org\r\nTo: pbem@pbem.test\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Content-Transfer-Encoding: quoted-printable\r\n\r\nsay =C3=BCber\r\nmore=\r\n text\r\n",
    b"From: ann@example.org\r\nTo: pbem@pbem.test\r\nContent-Type: TEXT/HTML\r\n\r\n"
    b"<p>E5</p><blockquote>the board</blockquote>",
    b"From: ann@example.org\r\nTo: pbem@pbem.test\r\nContent-Type: text/plain\r\n"
    b"Content-Disposition: attachment; filename=\"game.txt\"\r\n\r\n1. E5 F6\r\n",
    b"From: ann@example.org\r\nTo: pbem@pbem.test\r\n\n\r\n\r\nE5\r",  # a blank line in LF
    b"From: ann@example.org\r\nTo: pbem@pbem.test\r\n\r\n",  # no body
]

WHOLE = [  # parsed whole: several parts, a fault, mbox's From line, a bare CR, no body
    b"From: ann@example.org\r\nTo: pbem@pbem.test\r\nMIME-Version: 1.0\r\n"
    b"Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n--b\r\n"
    b"Content-Type: text/plain\r\n\r\nE5\r\n--b\r\nContent-Type: text/html\r\n\r\n"
    b"<p>F6</p>\r\n--b--\r\n",
    b"From: ann@example.org\r\nTo: pbem@pbem.test\r\nContent-Type: message/rfc822\r\n\r\n"
    b"From: bob@example.org\r\n\r\nE5\r\n",
    b"From ann@example.org Mon Dec  1 12:00:00 2026\r\nFrom: ann@example.org\r\n\r\nE5\r\n",
    b"From: ann@example.org\r\nthis is no header\r\nTo: pbem@pbem.test\r\n\r\nE5\r\n",
    b"From: ann@example.org\rTo: pbem@pbem.test\r\n\r\nE5\r\n",
    b"From: ann@example.org\r\nContent-Type: text/plain\r\nContent-Type: multipart/mixed\r\n"
    b"\r\nE5\r\n",
    b"From: ann@example.org\r\nTo: pbem@pbem.test\r\n",
]


def _whole(raw: bytes):
    return email.message_from_bytes(raw, policy=READING)


def _as_read(message) -> tuple:
    body = message.get_body(preferencelist=("plain", "html"))
    return (message._headers, message.get_payload(), message.defects, message.get_unixfrom(),
            message.is_multipart(), message.as_bytes(),
            None if body is None else body.get_payload(decode=True))


@pytest.mark.parametrize("raw", ONE_PART)
def test_a_mail_of_one_text_part_is_read_as_the_whole_parse_reads_it(raw):
    found = _one_part(parse_mail(raw))
    assert found is not None
    assert _as_read(found) == _as_read(_whole(raw))


@pytest.mark.parametrize("raw", WHOLE)
def test_any_other_mail_is_parsed_whole(raw):
    assert _one_part(parse_mail(raw)) is None


def test_a_move_is_not_parsed_twice(monkeypatch):
    raw = ONE_PART[0]
    parses = []
    whole = email.message_from_bytes
    monkeypatch.setattr(inbound.email, "message_from_bytes",
                        lambda *a, **k: (parses.append(a[0]), whole(*a, **k))[1])
    mail = parse_mail(raw)
    assert reply_text(mail) == "#12 F6"
    assert body_text(mail) == "#12 F6\r\n\r\nOn Monday, pbem wrote:\r\n> the board\r\n"
    assert parses == []
    assert reply_text(parse_mail(WHOLE[0])) == "E5"  # several parts: parsed whole
    assert parses == [WHOLE[0]]


def test_a_mails_addresses_are_read_once_for_the_same_headers():
    inbound._read_addresses.cache_clear()
    for _ in range(3):
        mail = parse_mail(ONE_PART[0])
        assert (mail.sender, mail.sender_name, mail.recipients) == \
            ("ann@example.org", "Ann", ["pbem+abc@pbem.test"])
    # five names asked each time: From, To and the absent ones read the first time only
    assert inbound._read_addresses.cache_info()[:2] == (12, 3)
