"""Conditional moves built on a seat's page in a real browser (#32 item 5): headless
Chromium (Playwright) against the app served by waitress on loopback, as in
tests/test_web_play_browser.py, at a phone's 390 px and on a desktop, with JavaScript on
and off. Clicks on the board build the line (the opponent's move, then the answer, each
position drawn), "Keep this line" posts it as mail's `if` text, the tree shows it and
"Remove" takes a branch away; a 6 nimmt! seat page shows its queued cards.
"""

import pytest

from databases import only_on
from pbem.vocabulary.tokens import play_token
from pbem.store.models import Condition
from test_web_browser import ARGS, browser, seat_pages, served  # noqa: F401  (fixtures)
from webgames import play, start

pytestmark = only_on("sqlite")
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


seat_browser = seat_pages(SIZES)


def kept(game_id: int):
    row = Condition.get_or_none(Condition.game == game_id)
    return row.lines if row is not None else None


def test_a_line_is_clicked_kept_shown_and_removed(served, seat_browser, config):  # noqa: F811
    from playwright.sync_api import expect
    page, size, _ = seat_browser
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"))
    page.goto(f"{served}/play/{play_token(config.secret_key, game_id, 0)}")
    page.get_by_role("link", name="Build lines by clicking").click()
    expect(page.locator("#next-step")).to_have_text("Click where you expect bob to play.")
    page.locator('svg a.point[data-point="G5"]').click()
    expect(page.locator("#next-step")).to_have_text("Click your answer to G5.")
    expect(page.locator("#h-board")).to_have_text("After G5")
    page.locator('svg a.point[data-point="H4"]').click()
    expect(page.locator(".line")).to_contain_text("if bob plays G5")
    expect(page.locator(".line")).to_contain_text("you answer H4")
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    page.get_by_role("button", name="Keep this line").click()
    expect(page.locator(".done")).to_have_text("Lines kept.")
    expect(page.locator(".tree")).to_contain_text("if G5: H4")
    assert kept(game_id) == [["G5", "H4"]]
    page.get_by_role("button", name="Remove if G5: H4 and what follows").click()
    expect(page.locator(".done")).to_have_text("Lines cleared.")
    assert kept(game_id) is None
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]


def test_the_card_game_shows_its_queue(served, seat_browser, config):  # noqa: F811
    from playwright.sync_api import expect
    page, size, _ = seat_browser
    game_id = start(config, "baronoxx", ["carol", "dave"], seed="queue")
    page.goto(f"{served}/play/{play_token(config.secret_key, game_id, 0)}")
    page.get_by_label("Move or command, as in mail").fill("play 26")
    page.get_by_role("button", name="Read it").click()
    page.get_by_role("button", name="Play it").click()
    page.get_by_label("Move or command, as in mail").fill("next 33 63")
    page.get_by_role("button", name="Read it").click()
    page.get_by_role("button", name="Play it").click()
    expect(page.locator(".note")).to_contain_text("Queued: play 33 for the next round")
    page.goto(f"{served}/play/{play_token(config.secret_key, game_id, 0)}")
    expect(page.locator(".queue")).to_contain_text("play 33")
    expect(page.locator(".queue")).to_contain_text("play 63")
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    page.get_by_role("button", name="Clear the queue").click()
    expect(page.locator(".note")).to_contain_text("Your queued cards in this game are cleared.")
    assert kept(game_id) is None
