"""Pictures of the position in game mail (issue #33): the HTML part shows the seat's view
as an inline PNG (multipart/related, `cid:`), drawn from the same SVG the web draws for
that view; `pictures off` (by mail, or on the seat's page) gives the mail of before; the
text part is the same either way; the mails stay within their size budgets.

Mail goes through the real listener and an SMTP sink on loopback; positions are played
through the one write path (tests/webgames.py). The browser's side is
tests/test_mail_pictures_browser.py.
"""

import dataclasses
import io
import re

import pytest
from PIL import Image

from mailtest import body, html
from pbem.engines import ENGINES
from pbem.mail import letters, pictures, png_bands, rasters
from pbem.mail.outbox import wire_bytes
from pbem.vocabulary.words import named_view
from pbem.play import Table
from pbem.policy.delivery import deliver_due
from webgames import play, play_random, start


def picture_parts(message):
    """{Content-ID: PNG bytes} of a mail's inline pictures."""
    return {part["Content-ID"].strip("<>"): part.get_payload(decode=True)
            for part in message.walk() if part.get_content_type() == "image/png"}


def img_tags(markup: str) -> list[dict[str, str]]:
    return [dict(re.findall(r'(\w[\w-]*)="([^"]*)"', tag)) for tag in
            re.findall(r"<img\b[^>]*>", markup)]


def valid_png(data: bytes) -> bool:
    """Every chunk's CRC, the zlib stream's Adler-32 and its length checked (our PNG
    is written by hand: pbem.mail.pictures), and Pillow reads every pixel."""
    import struct
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        assert struct.unpack(">I", data[at + 8 + length:at + 12 + length])[0] == zlib.crc32(
            kind + body)
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        at += 12 + length
    width, height = struct.unpack(">II", header[:8])
    assert len(zlib.decompress(idat)) == (width + 1) * height  # checks the Adler-32 too
    Image.open(io.BytesIO(data)).load()
    return True


def game_mail(person):
    """The person's latest game mail (its Reply-To carries their seat's token)."""
    return next(m for m in reversed(person.inbox) if "pbem+" in (m["Reply-To"] or ""))


def test_an_onyx_mail_shows_the_seats_view_as_a_picture_from_its_cid_part(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6")
    mail = bob.last
    assert mail.get_content_type() == "multipart/alternative"
    plain, related = mail.get_payload()
    assert plain.get_content_type() == "text/plain"
    assert related.get_content_type() == "multipart/related"
    assert [p.get_content_type() for p in related.get_payload()] == ["text/html", "image/png"]
    images = picture_parts(mail)
    [tag] = img_tags(html(mail))
    assert tag["src"] == f"cid:{next(iter(images))}"
    assert tag["alt"] == ("Onyx 12×12: 5 black and 4 white stones; last move F6; "
                          "white to move. You are White: connect columns A and L (left "
                          "and right).")
    assert (tag["width"], tag["height"]) == ("480", "532")  # the board, the caption
    assert "<pre" not in html(mail).split("Players:")[1].split("How to reply")[0]
    drawn = Image.open(io.BytesIO(images[tag["src"][4:]]))
    assert drawn.size == (480, 532) and drawn.mode == "P"  # opaque: no alpha, no tRNS
    assert "transparency" not in drawn.info
    assert valid_png(images[tag["src"][4:]])
    # Drawn from bob's view, as his seat page draws it: the same bytes again.
    table = Table.load(game_id)
    assert images[tag["src"][4:]] == pictures.picture(
        table.engine, named_view(table, 1),
        caption="You are White: connect columns A and L (left and right).").png
    assert "X Black   O White   (X) last move" in body(mail)  # the text part: the diagram


def test_the_text_part_is_the_same_with_pictures_and_without(config):
    for engine_id, names in (("onyx", ["alice", "bob"]), ("baronoxx", ["carol", "dave"])):
        game_id = start(config, engine_id, names)
        play_random(game_id, plies=5)
        table = Table.load(game_id)
        with_picture, without = (letters.game_mail(config, table, 0, ["#1 bob: F6"],
                                                   picture=flag) for flag in (True, False))
        assert with_picture.get_payload()[0].as_string() == without.get_payload()[0].as_string()
        assert picture_parts(with_picture) and not picture_parts(without)
        assert "<pre" in without.get_payload()[1].get_payload()


def test_pictures_off_by_mail_gives_the_mail_of_before_and_on_brings_them_back(onyx):
    game_id, alice, bob = onyx
    bob.reply("pictures", to=game_mail(bob))
    assert "yours is on" in body(bob.last)
    bob.reply("pictures off", to=game_mail(bob))
    assert "Pictures off: your game mails show the position as text only." in body(bob.last)
    alice.reply("F6")
    mail = bob.last
    assert picture_parts(mail) == {}
    assert [p.get_content_type() for p in mail.get_payload()] == ["text/plain", "text/html"]
    assert '<pre style="font-size: 13px; line-height: 1.2; overflow-x: auto">' in html(mail)
    assert picture_parts(alice.last)  # hers still have them
    bob.reply("pictures on", to=game_mail(bob))
    bob.reply("G5", to=game_mail(bob))
    alice.reply("E7", to=game_mail(alice))
    assert picture_parts(bob.last)


def test_pictures_are_switched_on_the_account_page_with_its_own_form(config):
    """The switch is the account's (#41 item 2): the seat's page mails a link to the
    account's page, which has it."""
    from pbem.vocabulary.tokens import play_token
    from pbem.store import Outbox, Player
    from pbem.web import create_app
    client = create_app(config).test_client()
    game_id = start(config, "onyx", ["alice", "bob"])
    seat = f"/play/{play_token(config.secret_key, game_id, 1)}"
    page = client.get(seat).get_data(as_text=True)
    assert client.post(seat + "/account", data={
        "csrf": re.search(r'name="csrf" value="(\w+)"', page).group(1)}).status_code == 200
    mailed = bytes(Outbox.select().where(Outbox.recipient == "bob@players.test")
                   .order_by(Outbox.id.desc()).first().message).decode()
    url = re.search(r"(/play/account/[0-9a-f-]+)", mailed.replace("=\r\n", "")).group(1)
    shown = client.get(url).get_data(as_text=True)
    assert "Your game mails show the position as a picture." in shown
    form = re.search(r'<form method="post" action="([^"]+)" class="pictures">(.*?)</form>',
                     shown, re.S)
    csrf = re.search(r'name="csrf" value="(\w+)"', form.group(2)).group(1)
    forged = client.post(form.group(1), data={"csrf": "0" * 32, "pictures": "off"})
    assert forged.status_code == 403
    assert Player.get(Player.email == "bob@players.test").pictures is True
    answer = client.post(form.group(1), data={"csrf": csrf, "pictures": "off"})
    assert answer.status_code == 303
    assert Player.get(Player.email == "bob@players.test").pictures is False
    assert "Your game mails show the position as text only." in client.get(url).get_data(
        as_text=True)
    assert "Text only" not in client.get(seat).get_data(as_text=True)  # not the seat's


def test_a_picture_that_cannot_be_drawn_leaves_the_mail_as_text_and_the_move_played(
        onyx, monkeypatch, caplog):
    """resvg refusing a drawing (a broken font, a bug) must not cost a move: the mail
    goes with the text diagram, and the log says why."""
    game_id, alice, bob = onyx

    def broken(sheet):
        raise ValueError("resvg: cannot render")
    monkeypatch.setattr(pictures, "encoded", broken)
    alice.reply("F6")
    assert "#1 alice: F6" in body(bob.last)
    assert picture_parts(bob.last) == {}
    assert '<pre style="font-size: 13px; line-height: 1.2; overflow-x: auto">' in html(bob.last)
    assert "no picture of onyx" in caplog.text


def test_a_spectator_and_the_end_mail_get_the_picture_too(onyx, players):
    game_id, alice, bob = onyx
    carol, = players("carol")
    carol.write(f"follow {game_id}")
    carol.reply("yes")  # a new address confirms first
    alice.reply("F6")
    bob.reply("resign")
    table = Table.load(game_id)
    follows = [m for m in carol.inbox if "as a spectator" in body(m)]
    assert follows and all(picture_parts(m) for m in follows)
    end = alice.last
    assert "The record of the game:" in body(end)
    [png] = picture_parts(end).values()
    public = table.engine.view(table.state, None)  # the final position, all shown
    public["names"] = named_view(table, None)["names"]
    assert png == pictures.picture(table.engine, public,
                                   caption=table.engine.identity(table.state, 0)).png
    [tag] = img_tags(html(end))
    assert "last move F6" in tag["alt"] and "has won" not in tag["alt"]  # a resignation


def test_the_digest_shows_each_waiting_game_as_a_picture(mail_server, players, frozen_time):
    from pbem.operator.admin import start_game
    from pbem.policy.digest import send_digests
    alice, bob = players("alice", "bob")
    ids = [start_game(mail_server, ENGINES["onyx"], {}, [bob.address, alice.address])
           for _ in range(2)]
    deliver_due(mail_server)
    alice.write("digest on")
    for game_id in ids:
        bob.reply("F6", to=next(m for m in bob.inbox if f"#{game_id}" in m["Subject"]))
    frozen_time.move(days=1)
    send_digests(mail_server)
    deliver_due(mail_server)
    digest = alice.last
    assert "daily digest: 2 games" in digest["Subject"]
    images = picture_parts(digest)
    assert [tag["src"] for tag in img_tags(html(digest))] == [f"cid:{c}" for c in images]
    assert len(images) == 2


# -- the budgets ------------------------------------------------------------------------

def long_onyx_game(config) -> int:
    game_id = start(config, "onyx", ["alice", "bob"], board=26, setup="open")
    play_random(game_id, plies=600)
    return game_id


def test_a_26x26_onyx_mail_is_at_most_100_kb_and_so_is_its_end_mail(config):
    game_id = long_onyx_game(config)
    table = Table.load(game_id)
    mail = letters.game_mail(config, table, 0, ["#600 bob: F6"], picture=True)
    assert all(map(valid_png, picture_parts(mail).values()))
    assert len(wire_bytes(mail)) <= 100_000, len(wire_bytes(mail))
    # The text part keeps the whole diagram, 26 rows of points; the HTML shows the
    # picture in its place.
    text = mail.get_payload()[0].get_payload(decode=True).decode()
    assert "\n26  " in text and "\n 1  " in text and "  Z\n" in text
    markup = mail.get_payload()[1].get_payload()[0].get_payload(decode=True).decode()
    assert "<pre" not in markup.split("The record")[0] and '<img src="cid:' in markup
    play_random(game_id)  # to its end: the end mail carries the record as well
    table = Table.load(game_id)
    assert table.game.status == "finished"
    end = letters.game_mail(config, table, 0, [], picture=True)
    assert picture_parts(end)
    assert len(wire_bytes(end)) <= 100_000, len(wire_bytes(end))


@pytest.mark.parametrize("engine_id,count", [("onix", 2), ("onix", 6), ("baronoxx", 2),
                                             ("baronoxx", 10), ("gemforge", 2),
                                             ("gemforge", 4)])
def test_a_card_games_mail_is_at_most_60_kb(config, engine_id, count):
    names = ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal", "ida", "jon"][:count]
    game_id = start(config, engine_id, names, seed=f"budget/{engine_id}")
    largest = 0
    for plies in (8, 40, None):
        play_random(game_id, plies=plies)
        table = Table.load(game_id)
        for seat in range(count):
            mail = letters.game_mail(config, table, seat, [], picture=True)
            assert all(map(valid_png, picture_parts(mail).values()))
            largest = max(largest, len(wire_bytes(mail)))
    assert largest <= 60_000, largest


# -- twin worlds: hidden cards change no picture of those who may not see them ----------

def twins(engine_id: str, count: int):
    """Two states of one game that differ only in cards seat 0 and the public may not
    see, and the seat whose view differs (None: nobody's, in Onix's piles)."""
    engine = ENGINES[engine_id]
    from pbem.engines.game import Game
    game = Game(engine, {}, [f"p{n}" for n in range(count)], seed=f"twins/{engine_id}")
    import random
    rng = random.Random(3)

    def hidden_cards(state) -> bool:  # the cards to trade are there, and differ
        if engine_id == "baronoxx":
            return bool(state.hands[1] and state.unseen)
        if engine_id == "gemforge":
            return bool(state.hands[1] and state.deck and state.hands[1][0] != state.deck[0])
        return any(len(pile) >= 3 for pile in state.piles)
    while len(game.plies) < 6 or not hidden_cards(game.state):
        seat = rng.choice(sorted(game.to_act))
        game.play(seat, engine.notation(game.state, seat,
                                        engine.random_decision(game.state, seat, rng)))
    state = game.state
    if engine_id == "baronoxx":  # a card of seat 1's hand and one nobody has seen
        mine, nobodys = state.hands[1][0], state.unseen[0]
        hands = list(state.hands)
        hands[1] = tuple(sorted(hands[1][1:] + (nobodys,)))
        unseen = tuple(sorted(state.unseen[1:] + (mine,)))
        other = dataclasses.replace(state, hands=tuple(hands), unseen=unseen)
    elif engine_id == "gemforge":  # seat 1's first action card and the deck's top
        hands = list(state.hands)
        hands[1] = (state.deck[0],) + hands[1][1:]
        other = dataclasses.replace(state, hands=tuple(hands),
                                    deck=(state.hands[1][0],) + state.deck[1:])
    else:  # onix: the two bottom cards of a pile, below its top (X6: nobody sees them)
        piles = list(state.piles)
        at = next(p for p, pile in enumerate(piles) if len(pile) >= 3)
        piles[at] = (piles[at][1], piles[at][0]) + piles[at][2:]
        other = dataclasses.replace(state, piles=tuple(piles))
        return engine, state, other, None
    return engine, state, other, 1


@pytest.mark.parametrize("engine_id,count", [("baronoxx", 2), ("gemforge", 2), ("onix", 3)])
def test_twin_worlds_differing_in_hidden_cards_give_the_same_pictures(engine_id, count):
    engine, state, other, sees = twins(engine_id, count)
    assert state != other
    if sees is not None:  # the twins do differ where seat `sees` looks
        assert (engine.sheet(engine.view(state, sees), 480).svg()
                != engine.sheet(engine.view(other, sees), 480).svg())
    for viewer in (0, None):
        views = [engine.view(s, viewer) for s in (state, other)]
        sheets = [engine.sheet(view, 480).svg() for view in views]
        assert sheets[0] == sheets[1]
        assert sheets[0] == engine.svg_diagram(views[0], size=480)  # the web's SVG
        assert (pictures.picture(engine, views[0]).png
                == pictures.picture(engine, views[1]).png)


def test_the_pictures_text_is_drawn_in_dejavu_sans():
    """resvg draws no text without a font, silently: the board's letters above the
    grid must be there (apt install fonts-dejavu-core, as .ci/run does)."""
    assert rasters.FONTS.get("font_files"), (
        f"no DejaVu Sans in {rasters.FONT_DIRECTORY}: apt install fonts-dejavu-core")
    engine = ENGINES["onyx"]
    view = engine.view(engine.start(engine.resolve_options({}), 2, "fonts"), 0)
    drawn = Image.open(io.BytesIO(pictures.picture(engine, view).png)).convert("L")
    letters_row = drawn.crop((40, 0, 440, 14))  # "A B C …" above the board
    assert min(letters_row.getextrema()) < 100  # without a font: all board, 230


PHONE = 350  # px: what a 390-px phone's mail client leaves a picture


@pytest.mark.parametrize("engine_id,count,smallest", [
    ("onyx", 2, 11), ("onix", 3, 9), ("onix", 6, 9), ("baronoxx", 5, 11),
    ("baronoxx", 10, 11), ("gemforge", 2, 11), ("gemforge", 4, 11)])
def test_a_pictures_smallest_text_is_readable_on_a_phone(engine_id, count, smallest):
    """Every text of a mail's picture, shown on a phone (scaled to PHONE px wide), is at
    least `smallest` px high: Gem Forge's picture is its narrow drawing for phones, 300
    wide (its wide one's text was 6.6 px there); Onix's labels are 9.1."""
    from pbem.engines.game import Game
    import random
    engine = ENGINES[engine_id]
    game = Game(engine, {}, [f"p{n}" for n in range(count)], seed=f"phone/{engine_id}")
    rng = random.Random(2)
    for _ in range(20):
        seat = min(game.to_act)
        game.play(seat, engine.notation(game.state, seat,
                                        engine.random_decision(game.state, seat, rng)))
    sheet = pictures.mail_sheet(engine, engine.view(game.state, 0), caption="You are P1")
    svg = sheet.svg()
    sizes = [float(size) for size in re.findall(r'font-size="([\d.]+)"', svg)]
    assert sizes
    shown = min(sheet.width, PHONE) / sheet.view_width
    assert min(sizes) * shown >= smallest, (min(sizes), shown)
    assert pictures.picture(engine, engine.view(game.state, 0)).width == round(sheet.width)


@pytest.mark.parametrize("length", [0, 1, 56, 57, 58, 59_999])
def test_the_pictures_base64_is_what_the_email_package_writes(length):
    """compose.base64_lines cuts the lines itself (for speed): RFC 2045's lines of 76,
    byte for byte as email.encoders writes them."""
    import base64
    import random

    from pbem.mail.compose import base64_lines
    data = random.Random(length).randbytes(length)
    assert base64_lines(data) == base64.encodebytes(data).decode("ascii")


# -- a picture from the last one's bands ------------------------------------------------

def drawn_afresh(sheet):
    """The sheet's PNG drawn whole, on the background and with the pieces kept (the
    palette is the style's), with no picture nor band kept."""
    for kept in (pictures._PICTURES, png_bands._BANDS,
                 *(style.last_bands for style in rasters._STYLES.values())):
        kept.clear()
    return pictures.png(sheet)


@pytest.mark.parametrize("bound", [None, 60])
def test_a_picture_made_from_the_last_ones_bands_is_the_one_drawn_whole(bound, monkeypatch):
    """After a move only the bands whose pieces changed are drawn again (the stone
    played, the ring moved, the captured, the seat's caption): byte for byte the
    picture drawn whole. So too when the places kept reach their bound and are
    forgotten (PLACEMENTS, here 60: every few moves)."""
    if bound:
        monkeypatch.setattr(rasters, "PLACEMENTS", bound)
    from pbem.engines.game import Game
    engine = ENGINES["onyx"]
    game = Game(engine, {"board": "12"}, ["alice", "bob"], seed="bands")
    import random
    rng = random.Random(5)
    made, sheets = [], []
    for ply in range(40):
        seat = ply % 2
        game.play(seat, engine.notation(game.state, seat,
                                        engine.random_decision(game.state, seat, rng)))
        for viewer, caption in ((1 - seat, "You are White"), (seat, "You are Black"),
                                (None, None)):
            sheets.append(engine.sheet(engine.view(game.state, viewer), 480, caption))
            made.append(pictures.png(engine.sheet(engine.view(game.state, viewer), 480,
                                                  caption)))
    assert all(map(valid_png, made))
    assert made == [drawn_afresh(sheet) for sheet in sheets]


def test_pieces_drawn_in_another_order_make_the_picture_again():
    """Two pieces overlapping: the one drawn last is on top, so the same pieces in
    another order are another picture, and a piece taken away shows what was under it."""
    from pbem.engines.svg import Sheet

    def sheet(*pieces):
        drawn = Sheet(200, 100, 200, 100, "#ffffff", ("#cc0000", "#0000cc"))
        drawn.open('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">')
        drawn.add('<rect width="200" height="100" fill="#ffffff"/>')
        for colour, x in pieces:
            drawn.add(f'<rect x="{x}" y="20" width="60" height="50" fill="{colour}"/>',
                      ("square", colour), (x, 20, x + 60, 70))
        return drawn
    red, blue, far = ("#cc0000", 40), ("#0000cc", 70), ("#0000cc", 140)
    made = [pictures.png(sheet(*pieces)) for pieces in
            ([red, blue], [blue, red], [red], [red, far], [red, far, blue], [far])]
    assert made == [drawn_afresh(sheet(*pieces)) for pieces in
                    ([red, blue], [blue, red], [red], [red, far], [red, far, blue], [far])]
    pixel = [Image.open(io.BytesIO(png)).convert("RGB").getpixel((90, 45)) for png in made]
    assert pixel[:3] == [(0, 0, 204), (204, 0, 0), (204, 0, 0)]


def test_the_same_svg_in_another_box_or_key_is_another_piece():
    """A piece is found by its SVG first (_placed), but is the piece of its key and box:
    the same drawing in a box that cuts it is drawn cut."""
    from pbem.engines.svg import Sheet

    def sheet(key, box):
        drawn = Sheet(200, 100, 200, 100, "#ffffff", ("#cc0000",))
        drawn.open('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">')
        drawn.add('<rect width="200" height="100" fill="#ffffff"/>')
        drawn.add('<rect x="40" y="20" width="60" height="50" fill="#cc0000"/>', key, box)
        return drawn
    key, whole, cut = ("square", 1), (40, 20, 100, 70), (40, 20, 70, 70)
    cases = [(key, whole), (key, cut), (("square", 2), whole), (key, whole)]
    made = [pictures.png(sheet(*case)) for case in cases]
    assert made == [drawn_afresh(sheet(*case)) for case in cases]
    pixels = [Image.open(io.BytesIO(png)).convert("RGB").getpixel((85, 45)) for png in made]
    assert pixels == [(204, 0, 0), (255, 255, 255), (204, 0, 0), (204, 0, 0)]


def test_pieces_added_together_are_the_pieces_added_one_by_one():
    """Sheet.add_pieces (a board's stones at once) makes the sheet Sheet.add makes: the
    same SVG, background and pieces; a piece without its key is refused."""
    from pbem.engines.svg import Sheet
    pieces = [(f'<circle cx="{x}" cy="9" r="4"/>', ("stone", x // 10 % 2), (x - 5, 4, x + 5, 14))
              for x in range(10, 60, 10)]

    def sheet(together: bool) -> Sheet:
        drawn = Sheet(100, 20, 100, 20, "#ffffff")
        drawn.open('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="20">')
        drawn.add('<rect width="100" height="20" fill="#eee"/>')
        if together:
            drawn.add_pieces(iter(pieces[:3]))
            drawn.add_pieces([])
        else:
            for piece in pieces[:3]:
                drawn.add(*piece)
        drawn.add('<text x="1" y="1">a part after the pieces</text>')
        for piece in pieces[3:]:
            drawn.add(*piece)
        return drawn
    one_by_one, together = sheet(False), sheet(True)
    assert together.svg() == one_by_one.svg()
    assert together.background() == one_by_one.background() == [
        '<rect width="100" height="20" fill="#eee"/>']
    assert together.pieces() == one_by_one.pieces()
    assert [key for _, key, _ in together.pieces()] == [
        ("stone", 1), ("stone", 0), ("stone", 1),
        ("part", '<text x="1" y="1">a part after the pieces</text>'), ("stone", 0), ("stone", 1)]
    with pytest.raises(ValueError):
        together.add_pieces([("<g/>", None, None)])


def test_a_mails_picture_goes_on_the_wire_as_smtp_writes_its_base64(config):
    """The picture's base64 is joined from its bands' own (each a multiple of 3 bytes,
    a line ending where a band does), lines of at most 76 (RFC 2045), and written to
    the wire with CRLF as the email package writes it."""
    import email.policy
    game_id = start(config, "onyx", ["alice", "bob"])
    play_random(game_id, plies=9)
    mail = letters.game_mail(config, Table.load(game_id), 0, [], picture=True)
    part = next(p for p in mail.walk() if p.get_content_type() == "image/png")
    lines = part.get_payload().split("\n")
    assert lines[-1] == "" and all(0 < len(line) <= 76 and len(line) % 4 == 0
                                   for line in lines[:-1])
    assert len(set(map(len, lines[:-1]))) > 2  # shorter lines where the bands end
    assert valid_png(part.get_payload(decode=True))
    assert wire_bytes(mail) == mail.as_bytes(policy=email.policy.SMTP)
    part.set_payload(part.get_payload()[::-1][1:] + "\n")  # the wire follows the payload
    assert wire_bytes(mail) == mail.as_bytes(policy=email.policy.SMTP)
