"""A seat's private page (`/play/<token>`): its view, the news since the last visit, the
read-back and confirm, the same write path as mail, and what keeps the link a secret.

Plain HTML forms through Flask's test client (no JavaScript): everything a player does
on the page works so. Games are started and played through the server's own write path
(tests/webgames.py); moves made on the page must land in the same move log.
"""

import re

import pytest

from pbem.vocabulary.tokens import play_token, seat_token
from webgames import DOMAIN, play, resign, start


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


def link(config, game_id: int, seat: int) -> str:
    return f"/play/{play_token(config.secret_key, game_id, seat)}"


def page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


def news(html: str) -> list[str]:
    block = re.search(r'<h2 id="h-news">.*?(?=<h2 id="h-move">)', html, re.S).group(0)
    return re.findall(r"<li>(.*?)</li>", block)


def confirm_form(html: str) -> dict[str, str]:
    form = re.search(r'<form method="post".*?</form>', html, re.S).group(0)
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))


def read_and_play(client, url: str, text: str):
    """Type `text`, read it back, press "Play it": the answer to the POST."""
    shown = page(client, f"{url}?move={text}")
    return client.post(url, data=confirm_form(shown))


def test_the_page_shows_the_seat_and_the_news_its_next_mail_will_carry(config, client):
    """A visit only looks: a link scanner fetching the page (twice) takes nothing out of
    the player's next mail."""
    from pbem.policy.conversation import send
    from pbem.play import Table
    from pbem.store import Outbox, Seat, transaction
    from mailtest import body
    from email import message_from_bytes, policy
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"))
    html = page(client, link(config, game_id, 1))
    assert "<h1>Onyx #1: your seat</h1>" in html
    assert "You are White" in html and "It is your turn (move #2)." in html
    assert news(html) == ["#1 alice: F6"]
    assert news(page(client, link(config, game_id, 1))) == ["#1 alice: F6"]
    assert Seat.get(Seat.game == game_id, Seat.number == 1).told == 0  # the mail's cursor
    with transaction():
        send(config, Table.load(game_id), 1)
    mail = message_from_bytes(bytes(Outbox.select().order_by(Outbox.id.desc()).first()
                                    .message), policy=policy.default)
    assert "#1 alice: F6" in body(mail)
    assert "Nothing new since your last mail." in page(client, link(config, game_id, 1))


def test_a_move_is_read_back_then_played_through_the_write_path(config, client):
    from pbem.store import Move, Outbox
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "B1"), (1, "C1"), (0, "A1"), (1, "B2"))
    url = link(config, game_id, 0)
    shown = page(client, f"{url}?move=c2")
    assert "<code>C2*: a black stone on C2, capturing B2 and C1</code>" in shown
    preview = re.search(r'<figure class="preview">.*?</figure>', shown, re.S).group(0)
    assert preview.count('stroke="#d22" stroke-width="2"/>') == 2  # the two captures crossed
    assert "last move C2*" in preview
    board = page(client, url)
    assert 'data-point="C2"' in board and "<legend>" not in board  # a point, not a button
    assert Move.select().where(Move.game == game_id).count() == 4  # nothing played yet
    mails_before = Outbox.select().count()
    answer = client.post(url, data=confirm_form(shown))
    assert answer.status_code == 303
    assert answer.headers["Location"] == f"{url}?done=c2"
    move = Move.get(Move.game == game_id, Move.ply == 5)
    assert (move.seat, move.text, move.source) == (0, "C2*", "web")
    assert move.visible["public"] == "C2*"
    # bob is mailed as after a mail move: it is his turn; alice's answer is the page
    mailed = [row.recipient for row in Outbox.select().where(Outbox.id > 0)][mails_before:]
    assert mailed == [f"bob@{DOMAIN}"]
    after = page(client, answer.headers["Location"])
    assert "Played: <code>c2</code>" in after and news(after)[-1] == "#5 You: C2*"


def test_an_illegal_move_is_explained_and_not_played(config, client):
    from pbem.store import Move
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "E7"))
    url = link(config, game_id, 1)
    shown = page(client, f"{url}?move=e7")
    assert "Cannot play <code>e7</code>: E7 is taken (a black stone)." in shown
    assert 'class="confirm"' not in shown  # no confirm form for what cannot be played
    answer = client.post(url, data={**confirm_form(page(client, f"{url}?move=F6")),
                                    "move": "E7"})
    assert answer.status_code == 409
    assert "<strong>Not played:</strong> <code>E7</code>: E7 is taken" in \
        answer.get_data(as_text=True)
    assert Move.select().where(Move.game == game_id).count() == 1


def test_a_form_showing_an_older_position_is_refused_with_the_news(config, client):
    from pbem.store import Move
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"))
    url = link(config, game_id, 0)
    stale = confirm_form(page(client, f"{url}?move=D4"))  # shown at ply 1: not her turn
    play(game_id, (1, "G5"))
    answer = client.post(url, data=stale)
    text = answer.get_data(as_text=True)
    assert answer.status_code == 409
    assert ("your page showed move #2, but others have moved since; look at the position "
            "below and send again.") in text
    assert news(text) == ["#1 You: F6", "#2 bob: G5"]  # since her last mail
    assert Move.select().where(Move.game == game_id).count() == 2
    fresh = read_and_play(client, url, "D4")  # read again: it goes in
    assert fresh.status_code == 303


def test_the_move_number_guard_works_as_in_mail(config, client):
    game_id = start(config, "onyx", ["alice", "bob"])
    url = link(config, game_id, 0)
    answer = read_and_play(client, url, "%235 F6")  # "#5 F6" at move 1
    assert answer.status_code == 409
    assert "you wrote move #5, but the game is at move #1" in answer.get_data(as_text=True)
    assert read_and_play(client, url, "%231 F6").status_code == 303


def test_buttons_list_the_decisions_grouped_and_commands_work(config, client):
    from pbem.store import Comment
    game_id = start(config, "baronoxx", ["carol", "dave"], seed="buttons")
    html = page(client, link(config, game_id, 0))
    groups = re.findall(r"<legend>(\w+)</legend>", html)
    assert groups == ["play", "pref"]  # 6 nimmt!: a card to play, a standing preference
    cards = re.findall(r'<button type="submit" name="move" value="(play \d+)">', html)
    assert cards == ["play 4", "play 10", "play 18", "play 27"]  # the hand, nothing else
    shown = page(client, f"{link(config, game_id, 0)}?move=say+good+luck")
    assert "the command say: a comment to every player; kept in the record" in shown
    answer = client.post(link(config, game_id, 0), data=confirm_form(shown))
    assert answer.status_code == 303
    assert Comment.get(Comment.game == game_id).text == "good luck"


def test_posts_without_this_pages_csrf_token_are_refused(config, client):
    from pbem.store import Move
    game_id = start(config, "onyx", ["alice", "bob"])
    url = link(config, game_id, 0)
    form = confirm_form(page(client, f"{url}?move=F6"))
    forged = client.post(url, data={**form, "csrf": "0" * 32})
    assert forged.status_code == 403
    assert "Nothing was played: the form is not from this page" in forged.get_data(as_text=True)
    elsewhere = client.post(url, data=form, headers={"Origin": "https://evil.example"})
    assert elsewhere.status_code == 403
    assert "sent from another site (https://evil.example)" in elsewhere.get_data(as_text=True)
    from werkzeug.test import Client
    from pbem.web import create_app
    cookieless = Client(create_app(config))  # the token without this browser's cookie
    assert cookieless.post(url, data=form).status_code == 403
    assert Move.select().where(Move.game == game_id).count() == 0
    assert client.post(url, data=form).status_code == 303


def test_the_page_is_private(config, client):
    game_id = start(config, "onyx", ["alice", "bob"])
    response = client.get(link(config, game_id, 0))
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == "no-store"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    html = response.get_data(as_text=True)
    # nothing from elsewhere: every src and href is this server's
    assert [u for u in re.findall(r'(?:src|href)="([^"]+)"', html)
            if u.startswith(("http:", "https:", "//"))] == []
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/play" in cookie


def test_tokens_that_are_not_a_pages_are_not_found(config, client):
    game_id = start(config, "onyx", ["alice", "bob"])
    genuine = play_token(config.secret_key, game_id, 0)
    assert client.get(f"/play/{genuine[:-1]}x").status_code == 404
    assert client.get(f"/play/{seat_token(config.secret_key, game_id, 0)}").status_code == 404
    assert client.get(f"/play/{game_id}-3-{genuine.rsplit('-', 1)[1]}").status_code == 404
    assert "This link to a seat is not valid" in client.get("/play/x").get_data(as_text=True)


def test_a_game_over_or_web_off_shows_the_public_page(config, client):
    from pbem.store import Player
    game_id = start(config, "onyx", ["alice", "bob"])
    url = link(config, game_id, 1)
    Player.update(web=False).where(Player.email == f"bob@{DOMAIN}").execute()
    assert client.get(url).headers["Location"] == f"/games/{game_id}"
    Player.update(web=True).execute()
    assert client.get(url).status_code == 200
    resign(game_id, 1)
    for answer in (client.get(url), client.post(url, data={"move": "F6"})):
        assert answer.status_code == 303 and answer.headers["Location"] == f"/games/{game_id}"


def test_no_public_page_or_export_carries_a_seat_link(config, client):
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"), (1, "G5"))
    for url in ["/", "/games", f"/games/{game_id}", f"/games/{game_id}.txt",
                f"/games/{game_id}.sgf", f"/games/{game_id}/print", "/players/1",
                f"/games/{game_id}/ply/2.svg"]:
        body = client.get(url).get_data(as_text=True)
        assert "/play/" not in body, url
        for seat in (0, 1):
            assert play_token(config.secret_key, game_id, seat) not in body, url


def test_the_game_mail_links_the_seat_page_unless_web_is_off(config):
    from email import message_from_bytes, policy
    from pbem.store import Outbox, Player
    game_id = start(config, "onyx", ["alice", "bob"])
    mails = {row.recipient: message_from_bytes(bytes(row.message), policy=policy.default)
             for row in Outbox.select()}
    text = mails[f"alice@{DOMAIN}"].get_body(("plain",)).get_content()
    assert (f"Or play on your seat's page (private, do not share it): "
            f"http://127.0.0.1:0{link(config, game_id, 0)}") in text
    assert link(config, game_id, 1) not in text  # only one's own
    Player.update(web=False).where(Player.email == f"bob@{DOMAIN}").execute()
    play(game_id, (0, "F6"))
    from pbem.policy import conversation
    from pbem.play import Table
    from pbem.store import transaction
    with transaction():
        conversation.tell(config, Table.load(game_id), 1, [])
    last = Outbox.select().where(Outbox.recipient == f"bob@{DOMAIN}").order_by(
        Outbox.id.desc()).first()
    body = message_from_bytes(bytes(last.message), policy=policy.default)
    assert "/play/" not in body.get_body(("plain",)).get_content()


def test_the_clickable_points_sit_on_the_points_the_engine_draws(config):
    from pbem.engines import ENGINES
    from pbem.web.board_clicks import clickable, pixel_points
    engine = ENGINES["onyx"]
    state = engine.start(engine.resolve_options({"board": "12"}), 2)
    for seat, text in ((0, "F6"), (1, "DE910"), (0, "L12")):
        state, _ = engine.play(state, seat, text)
    view = engine.view(state, 1)
    svg = engine.svg_diagram(view, size=480)
    drawn = re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="[\d.]+" fill="#(?:111|fafafa)"',
                       svg)
    at, _ = pixel_points(12, 480)
    stones = view["black"] + view["white"]  # the set-up stones and the three played
    assert {"F6", "L12", "DE910"} <= set(stones)
    expected = [(f"{at[name][0]:.1f}", f"{at[name][1]:.1f}") for name in stones]
    assert sorted(drawn) == sorted(expected)
    layered = clickable(svg, view, 480, ["A1", "E5"], "/play/t?move=")
    assert layered.count('class="point"') == 2
    assert '<a class="point" href="/play/t?move=A1" aria-label="Play A1"' in layered


def test_my_games_lists_every_game_of_the_player_theirs_first_soonest_first(config, client):
    slow = start(config, "onyx", ["alice", "bob"], time="3d")  # alice to move, 3 days
    waiting = start(config, "onyx", ["bob", "alice"], time="1d")  # bob to move
    soon = start(config, "onyx", ["alice", "carol"], time="1d")  # alice to move, 1 day
    over = start(config, "onyx", ["alice", "bob"])
    resign(over, 1)
    html = page(client, link(config, slow, 0) + "/games")  # a live seat's link (not `over`'s)
    rows = re.findall(r'<tr( class="yours")?><td><a href="([^"]+)">Onyx #(\d+)</a>', html)
    assert [(bool(yours), int(number)) for yours, _, number in rows] == [
        (True, soon), (True, slow), (False, waiting)]
    # a seat's link reaches no other seat (#41 item 2): the list links the public pages
    assert [href for _, href, _ in rows] == [f"/games/{soon}", f"/games/{slow}",
                                             f"/games/{waiting}"]
    assert "<h1>alice's games</h1>" in html
    assert "carol" in html and "bob" in html and "@" + DOMAIN not in html
