"""A player cuts every link they were ever mailed (`link new`, #29 item 1), and posts
from seat pages count against PBEM_RATE_LIMIT with the player's mail (#29 item 7): both
decided in pbem.access, by mail and on the page alike.

Mail goes through the server's real SMTP listener and the sink; pages through Flask's
test client on the same store. The clock stands still where the hour matters.
"""

import base64
import hashlib
import hmac
import re
from html import unescape

import pytest

from mailtest import body
from pbem.vocabulary.tokens import play_token

NOT_A_LINK = "This link to a seat is not valid: a link stops working when its player asks"
LIMIT_SUBJECT = "[pbem] your mail was not answered: a limit"
PAGE_LINK = re.compile(r"Or play on your seat's page \(private, do not share it\): \S+(/play/\S+)")


def page_link(message) -> str:
    """The seat page's path a game mail carries."""
    return PAGE_LINK.search(" ".join(body(message).split())).group(1)


def game_mails(person) -> list:
    return [m for m in person.inbox if "pbem+" in str(m["Reply-To"] or "")]


def confirm_form(client, url: str, text: str) -> dict[str, str]:
    html = client.get(f"{url}?move={text}").get_data(as_text=True)
    form = re.search(r'<form method="post"[^>]*class="confirm">.*?</form>', html, re.S).group(0)
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))


def csrf(client, url: str) -> str:
    return re.search(r'name="csrf" value="(\w+)"', client.get(url).get_data(as_text=True))[1]


@pytest.fixture
def two_games(mail_server, players):
    """alice plays two Onyx games, one against bob and one against carol; all mailed."""
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    from pbem.web import create_app
    alice, bob, carol = players("alice", "bob", "carol")
    games = [start_game(mail_server, ENGINES["onyx"], {}, [alice.address, other.address])
             for other in (bob, carol)]
    deliver_due(mail_server)
    client = create_app(mail_server, after_move=lambda: deliver_due(mail_server)).test_client()
    return client, games, alice, bob, carol


def test_links_mailed_before_this_version_keep_working(config):
    """Generation 0 is the token every mail carried before links could be renewed: the
    HMAC of `play/GAME/SEAT` alone, so existing mails do not break on upgrade."""
    from pbem.access import seat_access
    from webgames import start
    game_id = start(config, "onyx", ["alice", "bob"])
    digest = hmac.new(b"test-secret-key", f"play/{game_id}/2".encode(), hashlib.sha256).digest()
    before = f"{game_id}-2-{base64.b32encode(digest).decode().lower()[:16]}"
    assert play_token(config.secret_key, game_id, 1) == before
    assert seat_access(config, before).may_act
    from pbem.web import create_app
    assert create_app(config).test_client().get(f"/play/{before}").status_code == 200


def test_link_new_by_mail_ends_every_old_link_at_once(two_games):
    client, (first, second), alice, bob, carol = two_games
    old = [page_link(m) for m in game_mails(alice)]
    assert [client.get(url).status_code for url in old] == [200, 200]
    bobs = page_link(game_mails(bob)[-1])
    alice.unread()
    alice.write("link new")
    (answer,) = alice.unread()
    text = " ".join(body(answer).split())
    assert answer["Subject"] == "[pbem] your commands"
    assert ("New links to your seats' pages: every link to them mailed before no longer "
            "works, wherever it was forwarded.") in text
    new = re.findall(r"http://127\.0\.0\.1:0(/play/\S+)", text)
    assert [url.split("-")[0] for url in new] == [f"/play/{first}", f"/play/{second}"]
    assert set(new).isdisjoint(old)
    for url in old:  # dead at once, the list of games too
        for answer in (client.get(url), client.get(url + "/games"),
                       client.post(url, data={"move": "F6"})):
            assert answer.status_code == 404
            assert NOT_A_LINK in answer.get_data(as_text=True)
    assert [client.get(url).status_code for url in new] == [200, 200]
    games = client.get(new[0] + "/games").get_data(as_text=True)
    # a seat's link reaches no other seat (#41 item 2): the list links the public pages
    assert re.findall(r'<a href="(/[^"]+)">Onyx', games) == [f"/games/{first}",
                                                              f"/games/{second}"]
    assert client.get(bobs).status_code == 200  # bob's links are his own
    bob.reply("say good luck", to=game_mails(bob)[-1])
    assert page_link(game_mails(alice)[-1]) == new[0]  # the next game mail carries it


def test_link_new_in_a_games_reply_answers_with_the_new_links(two_games):
    client, (first, _), alice, bob, carol = two_games
    old = page_link(game_mails(alice)[0])
    alice.reply("link new", to=game_mails(alice)[0])
    answer = game_mails(alice)[-1]
    new = page_link(answer)
    assert new != old and f"http://127.0.0.1:0{new}" in body(answer)
    assert client.get(old).status_code == 404 and client.get(new).status_code == 200


def test_the_account_page_makes_new_links_and_moves_to_its_own(two_games):
    """New links from the web need the account's own proof (#41 item 2): a seat's page
    only mails a link to the account's page, which makes them."""
    from pbem.store import Player
    client, (first, second), alice, bob, carol = two_games
    old = page_link(game_mails(alice)[0])
    other = page_link(game_mails(alice)[1])
    assert client.post(old + "/links", data={"csrf": csrf(client, old)}).status_code in (404, 405)
    alice.unread()
    asked = client.post(old + "/account", data={"csrf": csrf(client, old)})
    assert asked.status_code == 200
    (mail,) = alice.unread()
    account = re.search(r"(/play/account/\S+)", body(mail)).group(1)
    forged = client.post(account + "/links", data={"csrf": "0" * 32})
    assert forged.status_code == 403
    assert Player.get(Player.email == alice.address).links == 0
    answer = client.post(account + "/links", data={"csrf": csrf(client, account)})
    assert answer.status_code == 303 and answer.headers["Location"].endswith("?links=new")
    shown = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "New links made: every link to your seats mailed before no longer works" in shown
    assert f"/play/{first}-1-" in shown and f"/play/{second}-1-" in shown
    assert client.get(old).status_code == 404 and client.get(other).status_code == 404
    assert client.get(account).status_code == 404  # its generation is gone too
    assert Player.get(Player.email == alice.address).links == 1


def test_posts_from_the_page_and_mail_share_the_hourly_limit(server_with, frozen_time):
    """PBEM_RATE_LIMIT=3: alice's page posts and mails are counted together; past the
    limit a post is refused with the limit named and changes nothing, a mail is dropped,
    and she is told once a day, whichever door she used."""
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    from pbem.store import Inbound, Move, Player
    from pbem.web import create_app
    config, person = server_with(rate_limit=3)
    alice, bob = person("alice"), person("bob")
    game_id = start_game(config, ENGINES["onyx"], {}, [alice.address, bob.address])
    deliver_due(config)
    client = create_app(config, after_move=lambda: deliver_due(config)).test_client()
    url = page_link(game_mails(alice)[-1])

    def by_page(text):
        return client.post(url, data=confirm_form(client, url, text))

    def moves():
        return [t for (t,) in Move.select(Move.text).where(Move.game == game_id)
                .order_by(Move.ply).tuples()]

    assert by_page("F6").status_code == 303  # 10:00, the first of the hour
    bob.reply("G5", to=game_mails(bob)[-1])
    frozen_time.move(minutes=1)
    alice.reply("E7", to=game_mails(alice)[-1], quote=False)  # 10:01, a mail: the second
    bob.reply("H4", to=game_mails(bob)[-1])
    frozen_time.move(minutes=1)
    assert by_page("D8").status_code == 303  # 10:02, the third
    bob.reply("J3", to=game_mails(bob)[-1])
    alice.unread()
    frozen_time.move(minutes=1)
    refused = by_page("C9")  # 10:03, the fourth
    assert refused.status_code == 429
    html = " ".join(unescape(refused.get_data(as_text=True)).split())
    assert ("Nothing was played: pbem reads at most 3 mails and posts from your seats' "
            "pages an hour from one address (PBEM_RATE_LIMIT, both counted together)") in html
    assert "The limit lifts after Mon 30 Nov 11:01 UTC" in html  # the mail at 10:01 leaves
    assert "commands.." not in html
    assert moves() == ["F6", "G5", "E7", "H4", "D8", "J3"]
    (notice,) = alice.unread()  # the notice the mail path gives, once a day
    assert notice["Subject"] == LIMIT_SUBJECT
    assert "pbem reads at most 3 mails and posts from your seats' pages" in \
        " ".join(body(notice).split())
    assert client.post(url + "/account", data={"csrf": csrf(client, url)}).status_code == 429
    assert alice.unread() == []  # no link to the account was mailed
    sent = alice.reply("C9", to=game_mails(alice)[-1], quote=False)  # the same count
    assert Inbound.get(Inbound.message_id == sent["Message-ID"]).outcome == \
        "ignored: 6 mails from this sender within an hour"
    assert alice.unread() == [] and moves()[-1] == "J3"
    frozen_time.move(hours=1, minutes=1)  # 11:04: nothing left in the hour
    assert by_page("C9").status_code == 303
    assert moves()[-1] == "C9"
