"""A seat's page in a real browser: headless Chromium (Playwright) against the app served
by waitress on loopback, as in tests/test_web_browser.py (whose fixtures find and start
the browser), with JavaScript on and off, at a phone's 360 px and on a desktop.

A click on a board point reads the move back; "Play it" plays it; the move log has it.
Without JavaScript the same links and forms do the same. Nothing here asserts on time:
Playwright's `expect` waits for the page to settle.
"""

import re

import pytest

from databases import only_on
from pbem.vocabulary.tokens import play_token
from test_web_browser import ARGS, browser, seat_pages, served  # noqa: F401  (fixtures)
from webgames import play, start

pytestmark = only_on("sqlite")
SIZES = {"phone": {"width": 360, "height": 740}, "desktop": {"width": 1280, "height": 900}}


seat_browser = seat_pages(SIZES)


def moves(game_id: int) -> list[str]:
    from pbem.store import Move
    return [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def test_a_click_on_a_point_plays_it(served, seat_browser, config):  # noqa: F811
    from playwright.sync_api import expect
    page, size, script = seat_browser
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"))
    url = f"{served}/play/{play_token(config.secret_key, game_id, 1)}"
    page.goto(url)
    expect(page.get_by_role("heading", level=1)).to_have_text("Onyx #1: your seat")
    expect(page.locator(".news")).to_contain_text("#1 alice: F6")
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    page.locator('svg a.point[data-point="G5"]').click()
    expect(page.locator(".readback")).to_contain_text("G5: a white stone on G5")
    assert moves(game_id) == ["F6"]  # read back, not played yet
    page.get_by_role("button", name="Play it").click()
    expect(page.locator(".done")).to_contain_text("Played: G5")
    expect(page.locator(".news")).to_contain_text("#2 You: G5")
    assert moves(game_id) == ["F6", "G5"]
    expect(page.locator("#status")).to_have_text("Waiting for alice (move #3).")
    assert page.locator("svg a.point").count() == 0  # not her turn: nothing to click


def test_typing_a_move_plays_it_after_the_read_back(served, seat_browser, config):  # noqa: F811
    from playwright.sync_api import expect
    page, size, script = seat_browser
    game_id = start(config, "onyx", ["alice", "bob"])
    page.goto(f"{served}/play/{play_token(config.secret_key, game_id, 0)}")
    page.get_by_label("Move or command, as in mail").fill("e7")
    page.get_by_role("button", name="Read it").click()
    expect(page.locator(".readback")).to_contain_text("E7: a black stone on E7")
    page.get_by_role("button", name="Play it").click()
    expect(page.locator(".done")).to_contain_text("Played: e7")
    assert moves(game_id) == ["E7"]
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]


def test_card_game_buttons_play_a_decision(served, seat_browser, config):  # noqa: F811
    from playwright.sync_api import expect
    page, size, script = seat_browser
    game_id = start(config, "baronoxx", ["carol", "dave"], seed="buttons")
    page.goto(f"{served}/play/{play_token(config.secret_key, game_id, 0)}")
    page.get_by_role("button", name="play 18", exact=True).click()
    expect(page.locator(".readback")).to_contain_text("play 18")
    page.get_by_role("button", name="Play it").click()
    expect(page.locator(".done")).to_contain_text("Played: play 18")
    assert moves(game_id)[-1] == "play 18"
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]


def test_the_arrow_keys_step_between_points(served, browser, config):  # noqa: F811
    from playwright.sync_api import expect
    context = browser.new_context(viewport=SIZES["desktop"])
    page = context.new_page()
    try:
        game_id = start(config, "onyx", ["alice", "bob"])
        page.goto(f"{served}/play/{play_token(config.secret_key, game_id, 0)}")
        page.locator("h1").click()  # focus on the page, not in the text box
        page.keyboard.press("ArrowRight")
        first = page.evaluate("document.activeElement.getAttribute('data-point')")
        assert first
        page.keyboard.press("ArrowRight")
        second = page.evaluate("document.activeElement.getAttribute('data-point')")
        assert second and second != first
        page.keyboard.press("Enter")  # follows the focused point's link: its read-back
        expect(page.locator(".readback")).to_contain_text(f"{second}: a black stone on")
        assert re.search(rf"move={second}#answer$", page.url)
    finally:
        context.close()


def test_the_account_is_changed_from_a_mailed_link_not_the_seats(served, seat_browser, config):  # noqa: F811,E501
    """#41 item 2 in a browser: the seat's page offers only to mail a link to the
    account's page; that page switches pictures off and makes new links, and then the
    seat's old link is dead."""
    from playwright.sync_api import expect
    from pbem.store import Outbox, Player
    page, size, script = seat_browser
    game_id = start(config, "onyx", ["alice", "bob"])
    seat = f"{served}/play/{play_token(config.secret_key, game_id, 0)}"
    page.goto(seat)
    assert page.get_by_role("button", name="Text only").count() == 0
    page.get_by_role("button", name="Mail me a link to my account").click()
    expect(page.locator(".done")).to_contain_text("A link to your account's page went to "
                                                 "your address")
    mailed = bytes(Outbox.select().where(Outbox.recipient == "alice@players.test")
                   .order_by(Outbox.id.desc()).first().message).decode()
    account = re.search(r"(/play/account/[0-9a-f-]+)", mailed.replace("=\r\n", "")).group(1)
    page.goto(served + account)
    expect(page.get_by_role("heading", level=1)).to_have_text("alice's account")
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    page.get_by_role("button", name="Text only").click()
    expect(page.locator(".done")).to_have_text("Saved.")
    assert Player.get(Player.email == "alice@players.test").pictures is False
    page.get_by_role("button", name="New links").click()
    expect(page.locator(".done")).to_contain_text("New links made")
    assert page.goto(seat).status == 404
