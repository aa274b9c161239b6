"""Inbound mail parsing: literal mails as real clients write them, robots, and garbage."""

import hashlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.intake.inbound import parse_mail, reply_text
from pbem.intake.robots import robot_reason

SAMPLES = Path(__file__).parent / "mail"


def sample(name: str):
    return parse_mail((SAMPLES / name).read_bytes())


def plain(body: str, headers: str = "") -> bytes:
    """A person's plain-text reply, with extra header lines on top."""
    return (headers + "From: Alice Smith <alice@example.net>\n"
            "To: pbem+k7q2x@example.org\n"
            "Subject: Re: Onyx #17: your move\n"
            "Message-ID: <reply-1@example.net>\n"
            "MIME-Version: 1.0\n"
            "Content-Type: text/plain; charset=utf-8\n"
            "Content-Transfer-Encoding: 8bit\n\n" + body).encode()


def written(body: str) -> str:
    return reply_text(parse_mail(plain(body)))


# -- what the person wrote, client by client -------------------------------------------------

@pytest.mark.parametrize("name, text", [
    ("gmail_reply.eml", "e5\n\nNice capture, I did not see that coming."),  # '-- ' signature
    ("outlook_plain.eml", "d4\n\nBob"),                  # -----Original Message----- block
    ("outlook_html.eml", "d4\n\nCheers, Bob"),           # HTML only, From:/Sent: block
    ("html_blockquote.eml", "take cross A\n\nYour turn!"),  # HTML only, <blockquote>
    ("iphone.eml", "set ruby 3"),                        # Sent from my iPhone
    ("thunderbird_de.eml", "play 57"),                   # Am … schrieb pbem:, Schöne Grüße
    ("latin1_qp_fr.eml", "f6\n\nJ'étais sûre que vous joueriez là. Bien joué !"),
    ("base64_utf8_es.eml", "carta 34\n\nGracias por la partida, ¡vaya ronda!"),
    ("mixed_attachment.eml", "swap\n\nPhoto of my board attached, so you see why."),
    ("forwarded.eml", "resign\n\nI have to leave for a week, sorry Bob."),
])
def test_reply_text_is_what_the_person_wrote(name, text):
    assert reply_text(sample(name)) == text


def test_plain_part_wins_over_html():
    raw = b"""From: alice@example.net
Content-Type: multipart/alternative; boundary="b1"

--b1
Content-Type: text/plain; charset=utf-8

e5
--b1
Content-Type: text/html; charset=utf-8

<div>f6 (the HTML part, never read)</div>
--b1--
"""
    assert reply_text(parse_mail(raw)) == "e5"


def test_an_attached_text_file_is_not_read():
    assert "a1 a2 a3" not in reply_text(sample("mixed_attachment.eml"))


def test_move_on_the_first_line_then_chat():
    text = written("e5\n\nHow is the weather in Leeds?\nWe had snow all week.\n")
    assert text.split("\n")[0] == "e5"
    assert text.endswith("We had snow all week.")


def test_top_posted_move_above_the_whole_quoted_mail():
    assert written("c3\n\nOn Mon, 30 Nov 2026 at 10:02, pbem <pbem+k7q2x@example.org> wrote:\n"
                   "> Your move, Alice.\n> You could play, for example: c3, e5.\n") == "c3"


def test_html_markdown_escapes_are_undone():
    raw = (b"From: alice@example.net\nContent-Type: text/html\n\n"
           b"<p>1. e5</p><p>- to pile A</p><p>+ 3</p>")
    assert reply_text(parse_mail(raw)) == "1. e5\n\n- to pile A\n\n+ 3"


def test_lines_starting_with_a_hyphen_are_not_a_signature():
    assert written("place gem\n- to pile A\n- then jade\n") == "place gem\n- to pile A\n- then jade"


def test_a_mail_that_only_quotes_leaves_nothing():
    assert written("On Mon, 30 Nov 2026 at 10:02, pbem <p@example.org> wrote:\n> Your move.\n") == ""


# -- what mail-parser-reply 1.36 misses, and the fallback catches -------------------------------

@pytest.mark.parametrize("body", [
    # Quotes without a reply header it knows: inline and bottom-posted answers.
    "> Your move, Alice.\ne5\n> Anything else?\n",
    "On Mon, 30 Nov 2026 at 10:02, pbem <pbem@example.org> wrote:\n> Your move.\n\ne5\n",
    # Gmail's Spanish and Dutch attributions, Apple Mail's Dutch one.
    "e5\n\nEl lun, 30 nov 2026 a las 10:02, pbem (<pbem@example.org>) escribió:\n> Tu turno.\n",
    "e5\n\nOp ma 30 nov 2026 om 10:02 schreef pbem <pbem@example.org>:\n\n> Jouw zet.\n",
    "e5\n\nOp 30 nov. 2026 om 10:02 heeft pbem <pbem@example.org> het volgende geschreven:\n"
    "\n> Jouw zet.\n",
    # Phone signatures in German, French and Dutch.
    "e5\n\nVon meinem iPhone gesendet\n\n> Am 30.11.2026 um 10:02 schrieb pbem <p@x.org>:\n> Zug\n",
    "e5\n\nEnvoyé de mon iPhone\n\n> Le 30 nov. 2026 à 10:02, pbem <p@x.org> a écrit :\n> Coup\n",
    "e5\n\nVerstuurd vanaf mijn iPhone\n",
    # Forwards (Thunderbird German, Apple Mail) and a German Outlook original.
    "e5\n\n-------- Weitergeleitete Nachricht --------\nBetreff: Zug\n"
    "Datum: Mon, 30 Nov 2026 10:02:00 +0100\nVon: pbem <p@x.org>\nAn: j@x.org\n\nDein Zug.\n",
    "e5\n\nBegin forwarded message:\n\n> From: pbem <p@x.org>\n> Subject: Your move\n",
    "e5\n\n-----Ursprüngliche Nachricht-----\nVon: pbem <p@x.org>\n"
    "Gesendet: Montag, 30. November 2026 10:02\nAn: j@x.org\nBetreff: Zug\n\nDein Zug.\n",
])
def test_fallbacks_for_what_the_library_misses(body):
    assert written(body) == "e5"


def test_the_librarys_patterns_are_built_once_and_read_as_its_own():
    """written_text gives mail-parser-reply its patterns, built once; a message that
    builds its own splits every sample the same way."""
    import mailparser_reply

    from pbem.intake.inbound import REPLY_LANGUAGES, _reply_patterns, body_text
    assert set(_reply_patterns()) == {"_header_regex", "_signature_regex", "_disclaimers_regex"}
    texts = [body_text(sample(path.name)) for path in sorted(SAMPLES.glob("*.eml"))]
    assert len(texts) >= 10
    for text in texts:
        def replies(**patterns):
            message = mailparser_reply.EmailMessage(
                text=text, languages=list(REPLY_LANGUAGES), keep_hyphen_lists=True, **patterns)
            return [(reply.headers, reply.body, reply.signatures) for reply in message.read().replies]
        assert replies(**_reply_patterns()) == replies()


# -- the fields the pipeline decides on -----------------------------------------------------

def test_gmail_reply_fields():
    mail = sample("gmail_reply.eml")
    assert mail.message_id == "<CAHk2x9Y+a8v4Q@mail.gmail.com>"
    assert (mail.sender, mail.sender_name) == ("alice.smith@gmail.com", "Alice Smith")
    assert mail.recipients == ["pbem+k7q2x@example.org"]  # Delivered-To and To, once
    assert mail.subject == "Re: Onyx #17: your move"
    assert mail.replied_to == ["<game-17.move-6@example.org>", "<game-17.move-4@example.org>"]
    assert mail.envelope_sender is None
    assert mail.size == len((SAMPLES / "gmail_reply.eml").read_bytes())


def test_folded_references_read_newest_first():
    assert sample("mixed_attachment.eml").replied_to == [
        "<game-17.move-9@example.org>", "<game-17.move-4@example.org>"]


@pytest.mark.parametrize("name, display", [
    ("base64_utf8_es.eml", "María José Gómez"),   # =?UTF-8?B?…?=
    ("thunderbird_de.eml", "Jürgen Müller"),      # =?UTF-8?Q?…?=
    ("latin1_qp_fr.eml", "Marie Dupont"),         # =?ISO-8859-1?Q?…?=
])
def test_encoded_display_names(name, display):
    assert sample(name).sender_name == display


def test_sender_address_is_lower_cased():
    assert sample("latin1_qp_fr.eml").sender == "marie.dupont@laposte.example"


def test_missing_message_id_is_derived_from_the_bytes():
    raw = b"From: alice@example.net\nSubject: e5\n\ne5\n"
    digest = hashlib.sha256(raw).hexdigest()
    assert parse_mail(raw).message_id == f"<{digest}@pbem.invalid>"
    assert parse_mail(raw + b"\n").message_id != parse_mail(raw).message_id


def test_missing_from():
    mail = parse_mail(b"To: pbem@example.org\nSubject: hello\n\ne5\n")
    assert (mail.sender, mail.sender_name) == ("", "")
    assert reply_text(mail) == "e5"


def test_envelope_wins_over_headers():
    mail = parse_mail(plain("e5\n"), envelope_sender="<>",
                      envelope_recipients=["<PBEM+ZZ@Example.org>", "pbem+zz@example.org"])
    assert mail.envelope_sender == ""
    assert mail.recipients == ["pbem+zz@example.org"]


def test_recipients_from_headers_in_order():
    mail = parse_mail(b"Delivered-To: pbem+a@example.org\nX-Original-To: pbem+b@example.org\n"
                      b"To: Bob <BOB@example.net>, pbem+a@example.org\nCc: carol@example.net\n\nhi\n")
    assert mail.recipients == ["pbem+a@example.org", "pbem+b@example.org",
                               "bob@example.net", "carol@example.net"]


@pytest.mark.parametrize("raw", [b"", b"\x00\xff\xfe\x80garbage\r\n\r\n\xff",
                                 b"From: alice@example.net\nSubject: only headers\n"])
def test_garbage_reads_as_an_empty_mail(raw):
    mail = parse_mail(raw)
    assert mail.message_id.endswith("@pbem.invalid>")
    assert mail.size == len(raw)
    assert robot_reason(mail) is None
    assert isinstance(reply_text(mail), str)


# -- robots ---------------------------------------------------------------------------

@pytest.mark.parametrize("headers, reason", [
    ("Auto-Submitted: auto-replied\n", "Auto-Submitted: auto-replied"),
    ("Auto-Submitted: auto-generated; type=vacation\n", "Auto-Submitted: auto-generated"),
    ("Return-Path: <>\n", "Return-Path: <>"),
    ("Precedence: bulk\n", "Precedence: bulk"),
    ("Precedence: junk\n", "Precedence: junk"),
    ("Precedence: list\n", "Precedence: list"),
    ("List-Id: Onyx players <onyx.lists.example.org>\n", "List-Id present"),
    ("List-Unsubscribe: <mailto:leave@lists.example.org>\n", "List-Unsubscribe present"),
    ("X-Autoreply: yes\n", "X-Autoreply present"),
    ("X-Autorespond: Out of office\n", "X-Autorespond present"),
    ("X-Auto-Response-Suppress: OOF\n", "X-Auto-Response-Suppress: OOF"),
    ("X-Auto-Response-Suppress: All\n", "X-Auto-Response-Suppress: All"),
    ("X-Auto-Response-Suppress: DR, RN, NRN, OOF, AutoReply\n",
     "X-Auto-Response-Suppress: DR, RN, NRN, OOF, AutoReply"),
    ("X-Pbem-Loop: example.org\n", "X-Pbem-Loop present: a mail we sent came back"),
])
def test_robot_headers(headers, reason):
    assert robot_reason(parse_mail(plain("e5\n", headers))) == reason


def test_null_envelope_sender():
    assert robot_reason(parse_mail(plain("e5\n"), envelope_sender="")) == "null envelope sender"


def test_our_loop_header_under_another_name():
    mail = parse_mail(plain("e5\n", "X-Game-Loop: 1\n"))
    assert robot_reason(mail) is None
    assert robot_reason(mail, "X-Game-Loop") == "X-Game-Loop present: a mail we sent came back"


@pytest.mark.parametrize("name, reason", [
    ("bounce.eml", "Auto-Submitted: auto-replied"),
    ("out_of_office.eml", "Auto-Submitted: auto-replied"),
])
def test_robot_samples(name, reason):
    assert robot_reason(sample(name)) == reason


@pytest.mark.parametrize("raw, reason", [
    (b"""From: Mail Delivery Subsystem <MAILER-DAEMON@mx.example.com>
To: pbem+k7q2x@example.org
Subject: Returned mail: see transcript for details
Content-Type: text/plain

The original message was received at Mon, 30 Nov 2026 10:02:00 GMT
----- The following addresses had permanent fatal errors -----
""", "From mailer-daemon@mx.example.com"),
    (b"""From: postmaster@example.com
To: pbem+k7q2x@example.org
Subject: Delivery Status Notification (Failure)

Delivery to the following recipient failed permanently: nobody@example.com
""", "From postmaster@example.com"),
    (b"""From: Bob Jones <bob.jones@contoso.example>
To: pbem+r8d3m@example.org
Subject: Read: Onyx #17: your move
Content-Type: multipart/report; report-type=disposition-notification;
 boundary="mdn-1"

--mdn-1
Content-Type: text/plain

Your message was read on Monday, November 30, 2026 10:20 AM.
--mdn-1
Content-Type: message/disposition-notification

Final-Recipient: rfc822;bob.jones@contoso.example
Disposition: automatic-action/MDN-sent-automatically; displayed
--mdn-1--
""", "Content-Type: multipart/report"),
])
def test_robot_senders_and_reports(raw, reason):
    assert robot_reason(parse_mail(raw)) == reason


@pytest.mark.parametrize("headers", ["", "Auto-Submitted: no\n", "Precedence: first-class\n",
                                     "X-Auto-Response-Suppress: RN, NRN\n"])
def test_a_person_is_not_a_robot(headers):
    assert robot_reason(parse_mail(plain("e5\n", headers))) is None


@pytest.mark.parametrize("name", ["gmail_reply.eml", "outlook_plain.eml", "iphone.eml",
                                  "thunderbird_de.eml", "forwarded.eml"])
def test_people_samples_are_not_robots(name):
    assert robot_reason(sample(name)) is None


# -- nothing raises ---------------------------------------------------------------------

def read_everything(raw: bytes) -> None:
    mail = parse_mail(raw)
    assert mail.size == len(raw)
    assert isinstance(robot_reason(mail), (str, type(None)))
    text = reply_text(mail)
    text.encode("utf-8")  # storable: no lone surrogates
    for value in (mail.message_id, mail.sender, mail.sender_name, mail.subject,
                  *mail.recipients, *mail.replied_to):
        value.encode("utf-8")


TEXT = st.characters(exclude_categories=("Cs",))  # what a client could encode as UTF-8
ROBUST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@ROBUST
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(raw):
    read_everything(raw)


@st.composite
def mutated_samples(draw):
    """A sample mail with a few slices replaced by random bytes, cut, or doubled."""
    raw = (SAMPLES / draw(st.sampled_from(sorted(p.name for p in SAMPLES.glob("*.eml"))))).read_bytes()
    for _ in range(draw(st.integers(1, 6))):
        start = draw(st.integers(0, len(raw)))
        end = draw(st.integers(start, min(len(raw), start + 40)))
        patch = draw(st.one_of(st.binary(max_size=20), st.just(raw[start:end] * 2),
                               st.sampled_from([b"", b"=?", b"?=", b"\r\n", b"--", b"<", b">",
                                                b"\n\n", b"\xff\xfe", b"=\n", b";"])))
        raw = raw[:start] + patch + raw[end:]
    return raw


@ROBUST
@given(mutated_samples())
def test_mutated_mails_never_raise(raw):
    read_everything(raw)


@ROBUST
@given(st.sampled_from(["From", "To", "Cc", "Subject", "Message-ID", "References",
                        "Content-Type", "Auto-Submitted", "Return-Path"]),
       st.text(TEXT, max_size=200), st.text(TEXT, max_size=500))
def test_arbitrary_header_values_and_bodies_never_raise(name, value, body):
    raw = f"{name}: {value}\n".encode() + plain(body)
    read_everything(raw)


def test_an_html_mail_is_read_without_its_head_styles_scripts_and_comments():
    raw = ("From: a@example.org\nTo: pbem@example.org\nSubject: Re: x\n"
           "Content-Type: text/html; charset=utf-8\n\n"
           "<html><head><style>" + "p{margin:0}" * 5000 + "</style></head><body>"
           "<!-- <p>not this</p> --><p>e5</p><script>document.write('f6')</script >"
           "</body></html>\n").encode()
    assert reply_text(parse_mail(raw)) == "e5"


def test_thousands_of_nested_html_lists_are_read_as_text_not_indented():
    """html2text indents each level: 4000 nested lists would be 16 MB of spaces."""
    raw = ("From: a@example.org\nTo: pbem@example.org\nSubject: Re: x\n"
           "Content-Type: text/html; charset=utf-8\n\n<p>e5</p>"
           + "<ul><li>" * 4000 + "\n").encode()
    from pbem.intake.inbound import body_text
    assert len(body_text(parse_mail(raw))) < 50_000
    assert reply_text(parse_mail(raw)).splitlines()[0] == "e5"


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.eml")))
def test_headers_kept_once_parsed_read_as_the_default_policy_reads_them(name):
    """pbem.intake.inbound parses a short header once and keeps it: the text found must be
    what email.policy.default finds, mail after mail (twice, so the second is kept)."""
    import email
    import email.policy

    from pbem.intake.inbound import body_text
    raw = (SAMPLES / name).read_bytes()
    default = email.message_from_bytes(raw, policy=email.policy.default)
    part = default.get_body(preferencelist=("plain", "html"))
    for _ in range(2):
        mail = parse_mail(raw)
        found = body_text(mail)
        if part is None:
            assert found == ""
        elif part.get_content_subtype() == "plain":
            assert found.replace("\r\n", "\n") == part.get_content().replace("\r\n", "\n")
