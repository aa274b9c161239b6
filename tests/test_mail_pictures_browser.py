"""A game mail's HTML part in a real browser (headless Chromium through Playwright, found
as tests/test_web_browser.py finds it), read the way a mail client reads it: at a phone's
390 px and on a desktop, in light and in dark mode.

The test is the mail client: it serves the message's HTML part and answers a `cid:`
reference with that part of the message (as webmail does, at an address of its own);
any other request the page makes is refused and counted. So: the picture is there, it
comes from its own part of the message, it fits the width, and nothing leaves the page.
"""

import email
import email.policy
import io
from urllib.parse import quote, unquote

import pytest
from PIL import Image, ImageStat

from databases import only_on
from pbem.engines.base import CHANCE
from pbem.mail import letters
from pbem.mail.outbox import wire_bytes
from pbem.play import Table
from test_web_browser import browser  # noqa: F401  (the fixture)
from webgames import play_random, start

pytestmark = only_on("sqlite")  # the browser's side: one database is enough
CLIENT = "http://mail.client.test"
WIDTHS = {"phone": 390, "desktop": 1280}
GAMES = {"onyx": ["alice", "bob"], "onix": ["ann", "ben", "cat"],
         "baronoxx": ["carol", "dave"], "gemforge": ["erin", "finn"]}


@pytest.fixture(params=[(size, scheme) for size in WIDTHS for scheme in ("light", "dark")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def reader(request, browser):  # noqa: F811
    size, scheme = request.param
    context = browser.new_context(viewport={"width": WIDTHS[size], "height": 900},
                                  color_scheme=scheme)
    yield context.new_page(), WIDTHS[size], scheme
    context.close()


def game_mail(config, engine_id: str):
    """A game mail of a game under way, as it arrives (parsed from its wire bytes)."""
    game_id = start(config, engine_id, GAMES[engine_id], seed=f"browser/{engine_id}")
    play_random(game_id, plies=12)
    table = Table.load(game_id)
    seat = min(table.to_act - {CHANCE}, default=0)
    message = letters.game_mail(config, table, seat, ["#12 someone: something"],
                                picture=True)
    return email.message_from_bytes(wire_bytes(message), policy=email.policy.default)


def show(page, message) -> tuple[list[str], list[str]]:
    """Open the message's HTML in `page` as a mail client does; (the parts the page
    asked for by Content-ID, every other request it made)."""
    markup = message.get_body(("html",)).get_content()
    parts = {part["Content-ID"].strip("<>"): part.get_payload(decode=True)
             for part in message.walk() if part["Content-ID"]}
    markup = markup.replace('src="cid:', f'src="{CLIENT}/cid/')
    for cid in parts:
        markup = markup.replace(f"{CLIENT}/cid/{cid}", f"{CLIENT}/cid/{quote(cid)}")
    asked, elsewhere = [], []

    def answer(route):
        url = route.request.url
        if url == f"{CLIENT}/message":
            route.fulfill(body=markup, content_type="text/html; charset=utf-8")
        elif url.startswith(f"{CLIENT}/cid/") and unquote(url[len(CLIENT) + 5:]) in parts:
            asked.append(unquote(url[len(CLIENT) + 5:]))
            route.fulfill(body=parts[asked[-1]], content_type="image/png")
        else:
            elsewhere.append(url)
            route.abort()
    page.route("**/*", answer)
    page.goto(f"{CLIENT}/message")
    page.wait_for_load_state("load")
    return asked, elsewhere


def luminance(rgb: str) -> float:
    r, g, b = (int(v) for v in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("engine_id", list(GAMES))
def test_the_picture_comes_from_its_part_fits_and_nothing_leaves(config, reader, engine_id):
    page, width, scheme = reader
    message = game_mail(config, engine_id)
    asked, elsewhere = show(page, message)
    [(cid, png)] = [(p["Content-ID"].strip("<>"), p.get_payload(decode=True))
                    for p in message.walk() if p.get_content_type() == "image/png"]
    assert asked == [cid]
    assert elsewhere == []
    image = page.locator("img")
    assert image.count() == 1
    natural = image.evaluate("i => [i.complete, i.naturalWidth, i.naturalHeight]")
    drawn = Image.open(io.BytesIO(png)).size  # 480 wide; Gem Forge's narrow one 300
    assert natural == [True, *drawn]
    box = image.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert box["width"] >= min(drawn[0], width - 40)  # as wide as the mail lets it be
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert image.get_attribute("alt")  # the position in words, for those who see no image
    # Dark mode: the text is readable on the page's ground, and the picture keeps its
    # own light ground (an opaque image: no client turns it dark).
    text, ground = page.evaluate("""() => {
        const style = getComputedStyle(document.body);
        const canvas = getComputedStyle(document.documentElement);
        return [style.color, style.backgroundColor === 'rgba(0, 0, 0, 0)'
                ? canvas.backgroundColor : style.backgroundColor]; }""")
    if ground == "rgba(0, 0, 0, 0)":
        ground = "rgb(18, 18, 18)" if scheme == "dark" else "rgb(255, 255, 255)"
    assert abs(luminance(text) - luminance(ground)) > 120, (text, ground)
    shot = Image.open(io.BytesIO(image.screenshot())).convert("L")
    assert ImageStat.Stat(shot).mean[0] > 140
