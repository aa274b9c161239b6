"""What a seat's link may reach, and what a ban ends (#29 items 1 and 3), asked of
pbem.access by every door: the seat's page, its forms and switches, the list of the
player's games, and mail.

Pages through Flask's test client (plain HTML forms, no JavaScript); mail through the
server's real SMTP listener. Games are started and played through the server's own
write path (tests/webgames.py).
"""

import re

import pytest

from pbem.vocabulary.tokens import play_token
from webgames import DOMAIN, play, resign, start

BARRED = "This address is barred from this server by its administrator"


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


def link(config, game_id: int, seat: int) -> str:
    return f"/play/{play_token(config.secret_key, game_id, seat)}"


def confirm_form(client, url: str, text: str) -> dict[str, str]:
    """The read-back's "Play it" form for `text`, as the page shows it."""
    html = client.get(f"{url}?move={text}").get_data(as_text=True)
    form = re.search(r'<form method="post"[^>]*class="confirm">.*?</form>', html, re.S).group(0)
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))


def store_now(game_id: int):
    """Everything a seat's page could change: the moves, the comments, the settings."""
    from pbem.store import Comment, Move, Player
    return (list(Move.select(Move.ply, Move.text).where(Move.game == game_id).tuples()),
            list(Comment.select(Comment.text).where(Comment.game == game_id).tuples()),
            list(Player.select(Player.email, Player.pictures, Player.web).tuples()))


# -- a link's reach --------------------------------------------------------------------

def test_a_finished_games_link_opens_no_other_seat(config, client):
    """Alice's game 1 ended; her mail of it, forwarded, shows the public page and
    nothing of her running games 2, 3 and 4."""
    over = start(config, "onyx", ["alice", "bob"])
    running = [start(config, "onyx", ["alice", name]) for name in ("bob", "carol", "dave")]
    resign(over, 1)
    old = link(config, over, 0)
    for answer in (client.get(old), client.get(old + "/games"),
                   client.post(old, data={"move": "say hi"}),
                   client.post(old + "/account", data={})):
        assert answer.status_code == 303
        assert answer.headers["Location"] == f"/games/{over}"
        assert "/play/" not in answer.get_data(as_text=True)
    public = client.get(f"/games/{over}").get_data(as_text=True)
    assert "/play/" not in public
    for game_id in running:
        assert link(config, game_id, 0) not in public
    # a running game's link lists them all, each by its public page (#41 item 2)
    mine = client.get(link(config, running[0], 0) + "/games").get_data(as_text=True)
    assert [int(n) for n in re.findall(r'<a href="/games/\d+">Onyx #(\d+)</a>', mine)] \
        == running
    assert "/play/" not in mine.replace(link(config, running[0], 0), "")
    from pbem.store import Player
    assert Player.get(Player.email == f"alice@{DOMAIN}").pictures  # the switch did nothing


def test_web_off_or_a_forgotten_player_leaves_no_list_of_games(config, client):
    from pbem.players import forgotten_address
    from pbem.store import Player
    game_id = start(config, "onyx", ["alice", "bob"])
    other = start(config, "onyx", ["bob", "carol"])
    url = link(config, game_id, 1)
    Player.update(web=False).where(Player.email == f"bob@{DOMAIN}").execute()
    assert client.get(url + "/games").headers["Location"] == f"/games/{game_id}"
    Player.update(web=True).where(Player.email == f"bob@{DOMAIN}").execute()
    assert client.get(url + "/games").status_code == 200
    bob = Player.get(Player.email == f"bob@{DOMAIN}")
    bob.email = forgotten_address(bob.id)  # the row `pbem admin forget` leaves, games running
    bob.save()
    for answer in (client.get(url), client.get(url + "/games"),
                   client.get(link(config, other, 0) + "/games")):
        assert answer.status_code == 303 and "/play/" not in answer.headers["Location"]


# -- a ban -----------------------------------------------------------------------------

def test_a_banned_player_plays_says_and_sees_nothing_on_the_web(config, client):
    from pbem.operator.admin import ban, unban
    game_id = start(config, "onyx", ["eve", "bob"])
    play(game_id, (0, "F6"), (1, "G5"))
    url = link(config, game_id, 0)
    move, say = confirm_form(client, url, "E7"), confirm_form(client, url, "say hello")
    before = store_now(game_id)
    ban(f"eve@{DOMAIN}", "abuse")
    for answer in (client.get(url), client.get(url + "/games"), client.post(url, data=move),
                   client.post(url, data=say),
                   client.post(url + "/account", data={"csrf": move["csrf"]})):
        assert answer.status_code == 403
        html = answer.get_data(as_text=True)
        assert BARRED in html
        assert "F6" not in html and "/play/" not in html  # nothing of the game, no links
    assert store_now(game_id) == before
    unban(f"eve@{DOMAIN}")
    ban("@" + DOMAIN)  # a whole domain
    assert client.post(url, data=move).status_code == 403
    assert store_now(game_id) == before
    unban("@" + DOMAIN)
    assert client.post(url, data=move).status_code == 303  # the same form works again
    assert store_now(game_id)[0][-1] == (3, "E7")


def test_a_ban_of_a_second_address_bars_its_player_everywhere(config, client):
    """The second address acts as the player, so banning it bars the player: pages and
    mail from their first address too."""
    from pbem.operator.admin import ban
    from pbem.store import Address, Player
    game_id = start(config, "onyx", ["eve", "bob"])
    eve = Player.get(Player.email == f"eve@{DOMAIN}")
    Address.create(player=eve, email="eve@elsewhere.test", confirmed=True)
    Address.create(player=eve, email="unconfirmed@spam.test", confirmed=False)
    ban("@spam.test")  # an address she never confirmed is not hers
    assert client.get(link(config, game_id, 0)).status_code == 200
    ban("eve@elsewhere.test")
    answer = client.get(link(config, game_id, 0))
    assert answer.status_code == 403 and BARRED in answer.get_data(as_text=True)
    assert client.get(link(config, game_id, 1)).status_code == 200  # bob is not barred


def test_a_banned_players_mail_from_their_other_address_is_dropped(onyx, sink):
    """Real SMTP: alice's second address is banned; her reply from her first address
    with her seat's token is dropped unanswered, and nothing is played."""
    from pbem.operator.admin import ban
    from pbem.store import Address, Inbound, Move, Player
    game_id, alice, bob = onyx
    Address.create(player=Player.get(Player.email == alice.address),
                   email="alice@work.example", confirmed=True)
    ban("alice@work.example")
    mails = len(sink.messages)
    sent = alice.reply("F6\nsay hello", to=alice.last)
    assert Inbound.get(Inbound.message_id == sent["Message-ID"]).outcome == \
        "ignored: banned address"
    assert Move.select().where(Move.game == game_id).count() == 0
    assert len(sink.messages) == mails  # no answer, nothing to bob
    written = bob.reply("say hi", to=bob.last)  # bob plays on
    assert Inbound.get(Inbound.message_id == written["Message-ID"]).outcome.startswith("done")


def test_a_banned_players_conditional_moves_wait(onyx):
    """`if` lines set before the ban act for the player no more (nor held commands, nor
    queued cards: pbem.access.barred is asked before each): the game waits for them as
    for any move."""
    from pbem.operator.admin import ban
    from pbem.store import Move
    game_id, alice, bob = onyx
    alice.reply("F6\nif G5 H4")
    ban(alice.address)
    bob.reply("G5", to=bob.last)
    assert [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)] \
        == ["F6", "G5"]


def test_a_banned_player_is_mailed_nothing_more(onyx, sink):
    """A ban ends the mail to the address too (pbem.policy.letters.reachable, the door
    of every mail): bob's move is played, alice hears nothing of it."""
    from pbem.operator.admin import ban
    from pbem.store import Move
    game_id, alice, bob = onyx
    alice.reply("F6")
    ban(alice.address)
    before = len(sink.to(alice.address))
    bob.reply("G5", to=bob.last)
    assert [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)] \
        == ["F6", "G5"]
    assert len(sink.to(alice.address)) == before
