"""Control characters in what players write (#29 item 8): none is kept, by mail or from a
page, and a row written before that (an old comment, an old name) cannot break a feed, a
record or a page on its way out. Every feed is read with an XML parser.

Real SMTP on loopback for the mail; Flask's test client for the pages and feeds.
"""

from xml.etree import ElementTree

import pytest

from notation.text import clean_text
from pbem.store import Comment, Player, database
from pbem.store.competition_models import Seek, Tournament

ESC_SAY = "say Look \x1b[31mhere\x07, now\x00!"


@pytest.fixture
def client(mail_server):
    from pbem.web import create_app
    return create_app(mail_server).test_client()


def confirmed(person):
    person.write("games")
    person.reply("yes")
    return person


def feeds_parse(client, game_id: int) -> list[str]:
    """Every Atom feed that could show the game: well-formed, or the test fails here."""
    texts = []
    urls = [f"/games/{game_id}.atom"] + [f"/players/{p.id}.atom" for p in Player.select()]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        root = ElementTree.fromstring(response.get_data())  # raises on a malformed feed
        assert root.tag == "{http://www.w3.org/2005/Atom}feed", url
        texts.append(response.get_data(as_text=True))
    return texts


def test_the_cleaning_keeps_tab_and_newline_only():
    assert clean_text("a\tb\nc\r\nd\re") == "a\tb\nc\nd\ne"
    assert clean_text("\x00\x01\x08\x0b\x0c\x1b[31m\x1f\x7f\x85\x9f") == "[31m"
    assert clean_text("lone \ud800 and \udfff, pair 😀") == "lone  and , pair 😀"
    assert clean_text("\ufffe\uffffÄrger über Öl") == "Ärger über Öl"


def test_a_comment_by_mail_keeps_no_control_character_and_the_feeds_parse(onyx, client):
    game_id, alice, bob = onyx
    alice.reply(f"F6\n{ESC_SAY}", to=alice.last)
    (comment,) = Comment.select()
    assert comment.text == "Look [31mhere, now!"
    for text in feeds_parse(client, game_id):
        assert "\x1b" not in text
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Look [31mhere, now!" in page and "\x1b" not in page


def test_a_comment_from_the_seat_page_keeps_no_control_character(onyx, client, mail_server):
    import re

    from pbem.vocabulary.tokens import play_token
    game_id, alice, bob = onyx
    url = f"/play/{play_token(mail_server.secret_key, game_id, 0)}"
    shown = client.get(url, query_string={"move": "say hello"}).get_data(as_text=True)
    form = re.search(r'<form method="post".*?</form>', shown, re.S).group(0)
    data = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))
    data["move"] = "say tab\tand \x1b]0;owned\x07 bell"  # as a forged form may send it
    answer = client.post(url, data=data)
    assert answer.status_code in (200, 303)
    (comment,) = Comment.select()
    assert comment.text == "tab and ]0;owned bell"
    feeds_parse(client, game_id)


def test_old_rows_with_control_characters_leave_clean(onyx, client):
    """A comment and a name written before the cleaning existed, put in the table as
    they were: the feeds parse, and the record, the page and the mail do not carry them."""
    from pbem.play import Table
    game_id, alice, bob = onyx
    alice.reply("F6", to=alice.last)
    mark = database.param  # '?' in SQLite, '%s' in PostgreSQL
    database.execute_sql("INSERT INTO comment (game_id, ply, seat, text, created) "
                         f"VALUES ({mark}, 1, 0, {mark}, '2026-12-01 10:00:00')",
                         (game_id, "old \x1b[2J\x0c\x1b[31mred"))
    database.execute_sql(f"UPDATE player SET name = {mark} WHERE email = {mark}",
                         ("bo\x1bb\x0b", bob.address))
    for text in feeds_parse(client, game_id):
        assert "\x1b" not in text and "\x0b" not in text and "\x0c" not in text
    record = str(Table.load(game_id, lock=False).record())
    assert "old [2J[31mred" in record and "\x1b" not in record and "bob" in record
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "old [2J[31mred" in html and "\x1b" not in html and "\x0c" not in html


def test_seek_and_tournament_fields_keep_no_control_character(players):
    (alice,) = players("alice")
    confirmed(alice)
    alice.write("seek onyx board=16\x1b time=3d\x07")
    (seek,) = Seek.select()
    assert seek.options == {"board": "16", "time": "3d"}
    alice.write("new tournament onyx round-robin board=16\x1b with alice@example.org "
                "bob@example.org carol@example.org")
    (tournament,) = Tournament.select()
    assert tournament.options == {"board": "16"}
