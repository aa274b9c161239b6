"""The archive in a real browser: headless Chromium driven by Playwright, against the app
served by waitress on loopback over a real SQLite file.

The browser is found in this order: $PBEM_TEST_CHROMIUM, `chromium` on the PATH,
Playwright's own download — which the first run fetches (`playwright install chromium`)
when there is none, so the README's test command brings its browser. Where that cannot
work (no network; `.ci/run` installs Debian's chromium instead) the tests fail and say
how to get one; they are never skipped. Playwright's `expect` waits for a page to settle (its timeout is a limit,
not a measurement), so nothing here asserts on time.
"""

import os
import re
import shutil
import subprocess
import sys
import threading

import pytest

from databases import only_on
from mailtest import free_port
from webgames import play, play_random, resign, start

pytestmark = only_on("sqlite")  # one real file is enough: the pages are tested on both
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
HOW_TO_INSTALL = ("No Chromium for the browser tests. Install one (Debian: apt-get install "
                  "chromium; or: .venv/bin/playwright install chromium) or point "
                  "PBEM_TEST_CHROMIUM at a Chromium binary.")


@pytest.fixture
def served(config):
    """The web app on a free loopback port, served by waitress in a thread."""
    from waitress.server import create_server
    from pbem.web import create_app
    server = create_server(create_app(config), host="127.0.0.1", port=free_port(), threads=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.effective_port}"
    server.close()
    thread.join(timeout=30)


def seat_pages(sizes: dict[str, dict[str, int]]):
    """A fixture: a new page in `browser` for each of `sizes` (a name and its viewport),
    with JavaScript on and off; it yields (page, the size's name, whether JS is on)."""
    @pytest.fixture(params=[(size, script) for size in sizes for script in (True, False)],
                    ids=lambda p: f"{p[0]}-{'js' if p[1] else 'nojs'}")
    def seat_browser(request, browser):  # noqa: F811
        size, script = request.param
        context = browser.new_context(viewport=sizes[size], java_script_enabled=script)
        page = context.new_page()
        yield page, size, script
        context.close()
    return seat_browser


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import Error, sync_playwright
    executable = os.environ.get("PBEM_TEST_CHROMIUM") or shutil.which("chromium")
    with sync_playwright() as playwright:
        if executable is None and not os.path.exists(playwright.chromium.executable_path):
            fetched = subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"],
                                     capture_output=True, text=True, timeout=600)
            if fetched.returncode != 0:
                pytest.fail(f"{HOW_TO_INSTALL}\n`playwright install chromium` failed:\n"
                            f"{fetched.stderr[-2000:]}")
        try:
            browser = playwright.chromium.launch(executable_path=executable, args=ARGS)
        except Error as error:
            pytest.fail(f"{HOW_TO_INSTALL}\n{error}")
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def games(config):
    """Onyx #1 (alice, bob: F6 G5 D4), Baron Oxx #2 (carol, dave), Onix #3 won by bob."""
    onyx = start(config, "onyx", ["alice", "bob"])
    play(onyx, (0, "F6"), (1, "G5"), (0, "D4"))
    oxx = start(config, "baronoxx", ["carol", "dave"], seed="browser")
    play_random(oxx, plies=6)
    onix = start(config, "onix", ["alice", "bob"], seed="browser")
    resign(onix, 0)
    return onyx, oxx, onix


def listed(page) -> list[str]:
    return page.locator("tbody tr td:first-child a").all_inner_texts()


def test_index_filters_and_search(served, page, games):
    from playwright.sync_api import expect
    page.goto(served + "/")
    page.get_by_role("link", name="Browse the archive of games").click()
    expect(page).to_have_title("Games · pbem")
    assert listed(page) == ["Onix #3", "6 nimmt! Baron Oxx #2", "Onyx #1"]

    page.get_by_label("Game", exact=True).select_option("onyx")
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(re.compile(r"/games\?.*game=onyx"))
    assert listed(page) == ["Onyx #1"]

    page.get_by_role("link", name="Show all").click()
    page.get_by_label("Status").select_option("finished")
    page.get_by_role("button", name="Show").click()
    assert listed(page) == ["Onix #3"]
    expect(page.get_by_role("row", name=re.compile("Onix #3"))).to_contain_text(
        "finished: 0-1 (bob won)")

    page.get_by_role("link", name="Show all").click()
    search = page.get_by_label("Player name or address, or game number")
    search.fill("car")
    search.press("Enter")
    assert listed(page) == ["6 nimmt! Baron Oxx #2"]
    search = page.get_by_label("Player name or address, or game number")
    search.fill("bob@players.test")
    search.press("Enter")
    expect(page).to_have_url(served + "/games?player=2")
    assert listed(page) == ["Onix #3", "Onyx #1"]
    assert "@players.test" not in page.content()

    page.get_by_role("link", name="bob").first.click()
    expect(page.get_by_role("heading", level=1)).to_have_text("bob")
    expect(page.locator("main")).to_contain_text("1 finished game: 1 won, 0 shared, 0 lost.")


def test_stepping_through_a_game_by_links_and_arrow_keys(served, page, games):
    from playwright.sync_api import expect
    page.goto(f"{served}/games/1")
    caption = page.locator("figure figcaption").first
    expect(caption).to_contain_text("After ply 3: alice D4")
    expect(page.locator("figure svg title").first).to_have_text(re.compile("last move D4"))

    plies = page.get_by_role("navigation", name="Plies")
    plies.get_by_role("link", name="Previous").click()
    expect(page).to_have_url(f"{served}/games/1?ply=2")
    expect(caption).to_contain_text("After ply 2: bob G5")
    plies.get_by_role("link", name="First").click()
    expect(caption).to_contain_text("The start, before any move")
    plies.get_by_role("link", name="Next").click()
    expect(caption).to_contain_text("After ply 1: alice F6")

    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(f"{served}/games/1?ply=2")
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(f"{served}/games/1?ply=3")
    expect(plies).to_contain_text("Ply 3 of 3")
    page.keyboard.press("ArrowRight")  # the last ply: nothing further to go to
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(f"{served}/games/1?ply=2")
    expect(caption).to_contain_text("After ply 2: bob G5")

    page.get_by_role("link", name="bob: G5").click()  # the move list links each ply
    expect(page.locator('ol.moves li[aria-current="step"]')).to_have_text("bob: G5")


def test_downloading_the_record(served, page, games):
    page.goto(f"{served}/games/1")
    with page.expect_download() as download_info:
        page.get_by_role("link", name="The record").click()
    download = download_info.value
    assert download.suggested_filename == "pbem-1-onyx.txt"
    with open(download.path(), encoding="utf-8") as record:
        text = record.read()
    assert '[Game "Onyx"]' in text and "1. F6 G5 2. D4 *" in text


def test_a_finished_card_game_shows_the_seed_check(served, page, games):
    from playwright.sync_api import expect
    page.goto(f"{served}/games/3")
    deal = page.locator("section", has=page.get_by_role("heading", name="Checking the deal"))
    expect(deal).to_contain_text("The game is over, so the seed is revealed")
    expect(deal).to_contain_text("pbem record check pbem-3-onix.txt")


def test_pages_fit_a_phone(served, browser, games):
    """At a phone's width no page scrolls sideways (the diagram shrinks to fit)."""
    context = browser.new_context(viewport={"width": 360, "height": 740})
    page = context.new_page()
    try:
        for url in ["/", "/games", "/games/1", "/games/2", "/games/3?ply=1", "/players/1",
                    "/rules/gemforge", "/rules/onix/notation"]:
            page.goto(served + url)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 360, (url, width)
    finally:
        context.close()
