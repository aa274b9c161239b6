"""The local mailbox (#42 item 1) as a newcomer uses it: `pbem serve` as the README's
first command starts it, and a whole small game is played in headless Chromium at a
phone's 390 px, through the mailbox only: a first mail to pbem@, the confirmation, the
invitation, every move as a reply, to the end.

Every mail written in the page goes to pbem's own SMTP listener (the server's log of
inbound mail says so: the same path as any mail), and every mail read is the maildir's.
Waiting for pbem's answer is reloading the mailbox until it is there (Playwright's
`expect`, and `poll` with a generous limit), never a timed assert.
"""

import re
import subprocess
import sys

import pytest

from mailtest import poll
from test_serve import TIMEOUT, maildir_mail, server_env, start_server, text_of  # noqa: F401
from test_web_browser import browser  # noqa: F401  (fixture)

PHONE = {"width": 390, "height": 844}
WIDER = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.fixture
def serving(server_env, tmp_path):  # noqa: F811
    env, http, smtp = server_env
    server, banner = start_server(env, tmp_path)
    try:
        yield f"http://127.0.0.1:{http}", banner, tmp_path / "mail"
    finally:
        server.terminate()
        server.wait(timeout=TIMEOUT)
        errors = server.stderr.read()
        server.stdout.close()
        server.stderr.close()
        assert "Traceback" not in errors, errors


@pytest.fixture
def phone(browser):  # noqa: F811
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    yield context.new_page()
    context.close()


class Mailbox:
    """A newcomer at the mailbox: opens an address's newest mail, writes, replies."""

    def __init__(self, page, web: str, maildir):
        self.page, self.web, self.maildir = page, web, maildir

    def count(self, address: str) -> int:
        return sum(1 for m in maildir_mail(self.maildir) if address in m["To"])

    def open_new(self, address: str, seen: int) -> str:
        """Wait for a mail to `address` after the first `seen`, open the newest, and
        return its text part as the page shows it."""
        poll(lambda: self.count(address) > seen, f"mail {seen + 1} to {address}")
        page = self.page
        page.goto(f"{self.web}/mailbox/to/{address}")
        self.assert_fits()
        page.locator("ul.letters a").first.click()
        page.get_by_text("The text part").click()
        self.assert_fits()
        return page.locator("pre.letter-text").inner_text()

    def reply(self, text: str) -> None:
        form = self.page.locator("form.letter")
        body = form.get_by_label("Text", exact=True)
        body.fill(text + "\n" + body.input_value())
        form.get_by_role("button", name="Send").click()
        assert "Sent to pbem" in self.page.locator(".done").inner_text()

    def assert_fits(self) -> None:
        assert self.page.evaluate(WIDER) <= 0, f"{self.page.url} scrolls sideways at 390 px"


def test_a_whole_game_through_the_mailbox(serving, phone):
    from playwright.sync_api import expect
    web, banner, maildir = serving
    assert f"mailbox:      {web}/mailbox" in banner
    assert f"open {web}/mailbox/write" in banner
    box, alice, bob = Mailbox(phone, web, maildir), "alice@example.org", "bob@example.org"

    phone.goto(web + "/")
    phone.get_by_role("link", name="Open the mailbox").click()
    expect(phone.get_by_text("No mail yet")).to_be_visible()
    box.assert_fits()
    phone.get_by_role("link", name="Write a new mail").click()
    phone.get_by_label("From", exact=True).fill(alice)
    expect(phone.get_by_label("To", exact=True)).to_have_value("pbem@pbem.test")
    phone.get_by_label("Text", exact=True).fill("new onyx with bob@example.org board=6 setup=open")
    phone.get_by_role("button", name="Send").click()

    asked = box.open_new(alice, 0)
    assert "reply to this mail (anything will do)" in " ".join(asked.split())
    # A reply as a mail client writes one: to the Reply-To, "Re:", the thread, quoted.
    form = phone.locator("form.letter")
    expect(form.get_by_label("From", exact=True)).to_have_value(alice)
    expect(form.get_by_label("To", exact=True)).to_have_value(re.compile(r"^pbem\+.+@pbem\.test$"))
    expect(form.get_by_label("Subject", exact=True)).to_have_value(re.compile("^Re: "))
    assert "wrote:\n> " in form.get_by_label("Text", exact=True).input_value()
    box.reply("yes")
    taken = poll(lambda: [m for m in _inbound(maildir.parent) if m["In-Reply-To"]],
                 "the reply in pbem's record of inbound mail")[0]
    assert taken["From"] == alice and taken["Subject"].startswith("Re: ")
    assert taken["To"].startswith("pbem+") and taken["References"]
    said = text_of(taken).replace("\r\n", "\n")
    assert said.startswith("yes\n\nOn ") and "\n> Someone, probably you, sent pbem" in said

    invitation = box.open_new(bob, 0)
    assert "accept" in invitation
    box.reply("accept")

    moves = ["A1", "F1", "A2", "F2", "A3", "F3", "A4", "F4", "A5", "F5", "A6"]
    seen = {alice: box.count(alice), bob: box.count(bob)}
    for number, move in enumerate(moves, start=1):
        player = alice if number % 2 else bob
        text = box.open_new(player, seen[player] - 1 if number <= 2 else seen[player])
        assert f"It is your turn (move #{number})." in text, text
        seen[player] = box.count(player)
        box.reply(move)
        seen[player] = box.count(player)
    end = box.open_new(bob, seen[bob])
    assert "alice won" in end.lower() or "1-0" in end, end
    # The HTML part with its picture, as a mail client shows it.
    frame = phone.frame_locator("iframe.letter")
    expect(frame.locator("img").first).to_be_visible()


def _inbound(workdir) -> list:
    """The mail pbem's SMTP listener took, as it recorded it (its inbound table)."""
    import email
    import email.policy
    import sqlite3
    with sqlite3.connect(workdir / "pbem.db") as db:
        rows = db.execute("select raw from inbound order by id").fetchall()
    return [email.message_from_bytes(bytes(raw), policy=email.policy.default)
            for (raw,) in rows]


def test_the_mailbox_is_never_served_with_a_relay(server_env, tmp_path):  # noqa: F811
    env, http, smtp = server_env
    env = {**env, "PBEM_SMTP_RELAY": "127.0.0.1:9"}
    server, banner = start_server(env, tmp_path)
    try:
        assert "mailbox:      off (mail goes out through PBEM_SMTP_RELAY)" in banner
        import urllib.error
        import urllib.request
        with pytest.raises(urllib.error.HTTPError) as refused:
            poll(lambda: urllib.request.urlopen(f"http://127.0.0.1:{http}/mailbox",
                                                timeout=5) if _up(http) else None,
                 "the web port")
        assert refused.value.code == 404
    finally:
        server.terminate()
        server.wait(timeout=TIMEOUT)
        server.stdout.close()
        server.stderr.close()


def _up(port: int) -> bool:
    import socket
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0
