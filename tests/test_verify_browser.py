"""The check page (/verify) in a real browser: headless Chromium driven by Playwright, as
in tests/test_web_browser.py (whose fixtures serve the app and find the browser).

The verdict is the browser's: the page re-deals with its inline deal_check.js. A true
record passes, reached from a finished game's page; a record with one card changed, the
seed changed or the commitment changed fails, naming the ply; a file chosen from disk is
checked too; and the page saved to disk works with every request to a server refused.
"""

import re

import pytest

from databases import only_on
from notation.record import format_record, parse_record
from test_web_browser import browser, page, served  # noqa: F401 (fixtures)
from webgames import play_random, start

pytestmark = only_on("sqlite")


@pytest.fixture
def finished(config) -> int:
    """A Gem Forge game of three played to its end, its action cards reshuffled."""
    game_id = start(config, "gemforge", ["alice", "bob", "carol"], seed="verify-1")
    play_random(game_id)
    return game_id


def reshuffle(text: str) -> tuple[int, str]:
    """The ply and text of the record's first reshuffle of the action cards."""
    seen = False
    for ply, move in enumerate(parse_record(text).moves, start=1):
        if move.actor == "Dealer" and move.text.startswith("cards "):
            if seen:
                return ply, move.text
            seen = True
    raise AssertionError("the game never reshuffled its action cards")


def swapped(text: str) -> tuple[int, str, str]:
    """The first reshuffle's ply and text, and the record with two of its cards swapped."""
    ply, move = reshuffle(text)
    verb, first, *rest = move.split()
    at = next(i for i, card in enumerate(rest) if card != first)
    rest[at], first = first, rest[at]
    record = parse_record(text)
    record.moves[ply - 1].text = " ".join([verb, first, *rest])
    return ply, move, format_record(record)


def check(page, text: str):
    page.get_by_label("The record").fill(text)
    page.get_by_role("button", name="Check the deal").click()
    return page.locator("#verdict")


def record_of(page, served: str, game_id: int) -> str:
    return page.request.get(f"{served}/games/{game_id}.txt").text()


def test_a_finished_games_page_links_to_a_check_that_passes(served, page, finished):
    from playwright.sync_api import expect
    page.goto(f"{served}/games/{finished}")
    page.get_by_role("link", name="check this deal").click()
    expect(page).to_have_url(f"{served}/games/{finished}/verify")
    verdict = page.locator("#verdict")
    expect(verdict).to_have_attribute("data-ok", "true")
    expect(verdict).to_contain_text("The deal checks: the seed is the one committed to")
    rows = page.locator("tr.deal")
    dealt = [ply for ply, move in enumerate(parse_record(record_of(page, served, finished))
                                            .moves, start=1) if move.actor == "Dealer"]
    expect(rows).to_have_count(len(dealt))
    assert page.locator("tr.deal.ok").count() == len(dealt) >= 5  # setup and a reshuffle
    expect(page.locator("#commitment-1")).to_have_class("match")


def test_one_card_changed_fails_at_its_ply(served, page, finished):
    from playwright.sync_api import expect
    ply, move, forged = swapped(record_of(page, served, finished))
    page.goto(f"{served}/verify")
    verdict = check(page, forged)
    expect(verdict).to_have_attribute("data-ok", "false")
    expect(verdict).to_contain_text(f"The deal does NOT check: ply {ply}: the seed deals {move}")
    expect(page.locator("tr.deal.wrong")).to_have_attribute("data-ply", str(ply))
    assert page.locator("tr.deal.ok").count() == page.locator("tr.deal").count() - 1


def test_another_seed_fails_its_commitment_and_its_first_deal(served, page, finished):
    from playwright.sync_api import expect
    text = record_of(page, served, finished).replace('[Seed "verify-1"]', '[Seed "verify-2"]')
    page.goto(f"{served}/verify")
    verdict = check(page, text)
    expect(verdict).to_have_attribute("data-ok", "false")
    expect(verdict).to_contain_text("the SHA-256 of the seed is")
    expect(verdict).to_contain_text("ply 1: the seed deals")
    expect(page.locator("#commitment-1")).to_have_class("mismatch")
    expect(page.locator("tr.deal.wrong")).to_have_attribute("data-ply", "1")


def test_another_commitment_fails_although_the_deals_check(served, page, finished):
    from playwright.sync_api import expect
    text = record_of(page, served, finished)
    forged = re.sub(r'\[SeedSHA256 "[0-9a-f]{64}"\]', f'[SeedSHA256 "{"0" * 64}"]', text)
    page.goto(f"{served}/verify")
    verdict = check(page, forged)
    expect(verdict).to_have_attribute("data-ok", "false")
    expect(verdict).to_contain_text(f"not the commitment {'0' * 64}")
    expect(page.locator("tr.deal.wrong")).to_have_count(0)


def test_a_record_file_chosen_from_disk(served, page, finished, tmp_path):
    from playwright.sync_api import expect
    path = tmp_path / "game.txt"
    path.write_text(record_of(page, served, finished))
    page.goto(f"{served}/verify")
    page.get_by_label("or its file").set_input_files(str(path))
    expect(page.locator("#verdict")).to_have_attribute("data-ok", "true")


def test_the_page_saved_to_disk_checks_with_no_server(served, browser, finished, tmp_path):
    """No server code in the verdict: the saved page, every request refused."""
    from playwright.sync_api import expect
    context = browser.new_context()
    try:
        page = context.new_page()
        text = record_of(page, served, finished)
        saved = tmp_path / "verify.html"
        saved.write_text(page.request.get(f"{served}/verify").text())
        context.route(re.compile(r"^https?://"), lambda route: route.abort())
        page.goto(saved.as_uri())
        verdict = check(page, text)
        expect(verdict).to_have_attribute("data-ok", "true")
        ply, _, forged = swapped(text)
        verdict = check(page, forged)
        expect(verdict).to_have_attribute("data-ok", "false")
        expect(verdict).to_contain_text(f"ply {ply}")
    finally:
        context.close()


def test_a_game_dealt_before_the_documented_generator_is_not_called_false(served, page):
    from playwright.sync_api import expect
    from pbem.engines import get_engine
    from pbem.engines.dealing import PYTHON_RANDOM
    from pbem.engines.game import Game
    game = Game(get_engine("onix"), {}, ["alice", "bob"], seed="old", generator=PYTHON_RANDOM)
    page.goto(f"{served}/verify")
    verdict = check(page, format_record(game.record(reveal_seed=True)))
    expect(verdict).to_have_attribute("data-ok", "false")
    expect(verdict).to_contain_text("This page cannot check this deal: this game was dealt by "
                                    "CPython's random.Random")
    expect(page.locator("#commitment-1")).to_have_class("match")


def test_the_page_and_its_verdict_fit_a_phone(served, browser, finished):  # noqa: F811
    """#42 item 2: at 390 px neither the form nor the verdict (the seed, its hash, the
    dealer's moves) scrolls sideways; the record's box was 669 px wide."""
    from playwright.sync_api import expect
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    try:
        phone.goto(f"{served}/games/{finished}/verify")
        expect(phone.locator("#verdict")).to_have_attribute("data-ok", "true")
        wider = phone.evaluate("() => document.documentElement.scrollWidth"
                               " - document.documentElement.clientWidth")
        assert wider <= 0, f"/verify is {wider} px wider than a phone"
    finally:
        context.close()


def test_the_verdict_says_what_it_did_not_check(served, page, finished):  # noqa: F811
    """#42 item 5: a reshuffle is checked from its own cards, so one card swapped for
    another inside it would pass; the verdict says so plainly, and how to check it."""
    from playwright.sync_api import expect
    page.goto(f"{served}/games/{finished}/verify")
    verdict = page.locator("#verdict")
    expect(verdict).to_have_attribute("data-ok", "true")
    expect(verdict).to_contain_text("Not checked here: which cards each of the ")
    expect(verdict).to_contain_text("To check that too, run pbem record check on the record")
    ply, _ = reshuffle(record_of(page, served, finished))
    expect(page.locator(f'tr.deal[data-ply="{ply}"]')).to_contain_text(
        "which cards it holds is not checked here")
