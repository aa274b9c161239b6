"""The words of a mail's picture, measured where they are drawn (#42 item 3): every line
of text inside the picture and none over another, in headless Chromium (as
tests/test_web_browser.py finds it), in DejaVu Sans, the font the picture is rasterised
with (pbem.mail.pictures). Each picture is read through the SVG
it is drawn from (`pictures.mail_sheet`), the seat's own view with the players' names,
as a game mail draws it.

Before: Onix's player names ran over the Collection numbers a player types (`place A ->
3`); 6 nimmt!'s own line ran past the picture's right edge ("choosin").
"""

import random

import pytest

from databases import only_on
from pbem.engines.base import CHANCE
from pbem.mail import pictures, rasters
from pbem.vocabulary.words import named_view
from pbem.play import Table
from pbem.store import transaction
from test_web_browser import browser  # noqa: F401  (the fixture)
from webgames import start

pytestmark = only_on("sqlite")  # the browser's side: one database is enough
# The picture's `sans-serif` (rasters.FONTS), named: Chromium's own may be another.
FONT = rasters.FONTS["sans_serif_family"]

MEASURE = """svg => {
    const box = svg.viewBox.baseVal;
    return {width: box.width, height: box.height,
            texts: [...svg.querySelectorAll('text')].map(text => {
                const b = text.getBBox();
                return [text.textContent, b.x, b.y, b.x + b.width, b.y + b.height]; })};
}"""


def play_until(game_id: int, done, seed: str) -> Table:
    """Random legal decisions (the same for the same seed) until `done(table)`."""
    rng = random.Random(seed)
    for _ in range(2000):
        with transaction():
            table = Table.load(game_id)
            if done(table):
                return table
            seat = rng.choice(sorted(table.to_act - {CHANCE}))
            decision = table.engine.random_decision(table.state, seat, rng)
            table.play(seat, table.engine.notation(table.state, seat, decision))
    raise AssertionError("never reached")


def measured(page, table: Table, seat: int) -> dict:
    """The texts of `seat`'s mail picture, each with its box in the drawing's units."""
    view = named_view(table, seat)
    identity = table.engine.identity(table.state, seat)
    sheet = pictures.mail_sheet(table.engine, view, caption=identity)
    page.set_content(f"<!doctype html><style>svg text {{ font-family: '{FONT}' }}</style>"
                     f"<body style='margin: 0'>{sheet.svg()}</body>")
    return page.locator("svg").evaluate(MEASURE)


def overlapping(texts: list) -> list[tuple[str, str]]:
    """Pairs of texts whose boxes cover each other by more than a hair (0.5 units)."""
    found = []
    for i, (a, ax0, ay0, ax1, ay1) in enumerate(texts):
        for b, bx0, by0, bx1, by1 in texts[i + 1:]:
            if min(ax1, bx1) - max(ax0, bx0) > 0.5 and min(ay1, by1) - max(ay0, by0) > 0.5:
                found.append((a, b))
    return found


def outside(drawing: dict) -> list[str]:
    return [text for text, x0, y0, x1, y1 in drawing["texts"]
            if x0 < 0 or y0 < 0 or x1 > drawing["width"] or y1 > drawing["height"]]


@pytest.fixture
def page(browser):  # noqa: F811
    context = browser.new_context(viewport={"width": 800, "height": 1200})
    yield context.new_page()
    context.close()


def test_onix_names_stand_clear_of_the_collection_numbers(config, page):
    """Three players with long names, each with Collections: every name, Hoard and
    Collection number can be read, none drawn over another."""
    game_id = start(config, "onix", ["alexandra.konstantinou", "bartholomew.o", "cat"],
                    seed="onix/names")
    table = play_until(game_id, lambda t: all(len(c) >= 3 for c in t.state.collections)
                       if t.state is not None else False, seed="onix/names")
    drawing = measured(page, table, 0)
    texts = [t[0] for t in drawing["texts"]]
    assert "P1 alexandra.konstantinou (you)" in " ".join(texts)
    assert overlapping(drawing["texts"]) == []
    assert outside(drawing) == []


def test_6_nimmt_lines_stay_inside_the_picture(config, page):
    """Late in a round of 5 the cards are few and large, and so is the text: each seat's
    line ends inside the picture, `choosing` whole."""
    game_id = start(config, "baronoxx", ["ann", "ben", "cat", "dan", "eve"],
                    seed="baronoxx/lines")
    table = play_until(game_id, lambda t: t.state is not None and (
        lambda v: v["phase"] == "choose" and len(v["hand"]) <= 3)(t.engine.view(t.state, 0)),
        seed="baronoxx/lines")
    drawing = measured(page, table, 0)
    texts = [t[0] for t in drawing["texts"]]
    assert texts.count("choosing") + sum(t.endswith(", choosing") for t in texts) == 5
    assert outside(drawing) == []
    assert overlapping(drawing["texts"]) == []


def test_gem_forges_keep_picture_shows_your_dealt_tiles_inside_it(config, page):
    game_id = start(config, "gemforge", ["ann", "ben"], seed="gemforge/keep")
    table = play_until(game_id, lambda t: t.state is not None
                       and t.engine.view(t.state, 0)["phase"] == "keep", seed="gemforge/keep")
    dealt = [tile["tile"] for tile in table.engine.view(table.state, 0)["dealt"]]
    drawing = measured(page, table, 0)
    drawn = " ".join(t[0] for t in drawing["texts"])
    assert len(dealt) == 5 and all(f"{tile} " in drawn for tile in dealt)
    assert outside(drawing) == []
    assert overlapping(drawing["texts"]) == []
