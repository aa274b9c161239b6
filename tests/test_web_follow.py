"""Spectators by mail (`follow 12`, `unfollow 12`) and `web off`, told in real mail: the
server's SMTP listener takes it, the sink keeps what the server sends.

A spectator gets the public view once per turn, never a hand or a secret choice, and
nothing for a decision nobody may learn of (the conversation policy decides, as it
does for the seats).
"""

from mailtest import body
from pbem.store.models import Follow


def test_a_spectator_follows_a_game_once_per_turn_and_unfollows(onyx, players):
    game_id, alice, bob = onyx
    (carol,) = players("carol")
    carol.write(f"follow {game_id}")
    carol.reply("yes")  # a new address confirms first, like any other
    assert f"You follow game #{game_id}" in body(carol.last)
    assert Follow.select().count() == 1
    seen = len(carol.inbox)
    alice.reply("F6")
    assert len(carol.inbox) == seen + 1
    first = body(carol.last)
    assert "You follow game #1 (Onyx) as a spectator" in first
    assert "Since your last mail:\r\n  #1 alice: F6\r\n" in first
    assert "Waiting for bob (move #2)." in first
    assert carol.last["Reply-To"].startswith("pbem+a-")  # her account's, no seat's token
    assert "/play/" not in first
    bob.reply("G5")
    assert len(carol.inbox) == seen + 2
    assert "Since your last mail:\r\n  #2 bob: G5\r\n" in body(carol.last)
    carol.write(f"unfollow {game_id}")
    assert f"You no longer follow game #{game_id}." in body(carol.last)
    seen = len(carol.inbox)
    alice.reply("D4")
    assert len(carol.inbox) == seen


def test_a_spectator_reads_the_comments_since_their_last_mail(onyx, players):
    """#42: a spectator's mail left out what the players said (`say`). Now it carries
    each comment since their last mail once, in its place among the moves; what was
    said before they followed is not mailed to them."""
    game_id, alice, bob = onyx
    (carol,) = players("carol")
    bob.reply("say before carol came")
    carol.write(f"follow {game_id}")
    carol.reply("yes")
    seen = len(carol.inbox)
    alice.reply("say good luck\nF6", quote=False)
    assert len(carol.inbox) == seen + 1
    assert ("Since your last mail:\r\n  alice says: good luck\r\n  #1 alice: F6\r\n"
            in body(carol.last))
    assert "before carol came" not in body(carol.last)
    bob.reply("say thanks, you too")  # no turn ended: it waits for carol's next mail
    assert len(carol.inbox) == seen + 1
    bob.reply("G5\nsay well played", quote=False)
    assert len(carol.inbox) == seen + 2
    second = body(carol.last)
    assert ("Since your last mail:\r\n  bob says: thanks, you too\r\n  #2 bob: G5\r\n"
            "  bob says: well played\r\n") in second
    assert "good luck" not in second
    html = carol.last.get_body(("html",)).get_content()
    assert "bob says: thanks, you too<br>" in html
    alice.reply("D4")
    assert "says:" not in body(carol.last)


def test_following_is_refused_with_a_reason(onyx, players):
    game_id, alice, bob = onyx
    (carol,) = players("carol")
    carol.write("follow 99")
    carol.reply("yes")
    assert "there is no game #99" in body(carol.last)
    carol.write("follow twelve")
    assert "write the game's number after `follow`, e.g. `follow 12`." in body(carol.last)
    alice.write(f"follow {game_id}")
    assert f"you play in game #{game_id}: its mails reach you already." in body(alice.last)


def test_a_spectator_of_a_card_game_sees_no_hand(mail_server, players):
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    from pbem.play import Table
    alice, bob, carol = players("alice", "bob", "carol")
    game_id = start_game(mail_server, ENGINES["baronoxx"], {}, [alice.address, bob.address],
                         seed="spectator")
    deliver_due(mail_server)
    carol.write(f"follow {game_id}")
    carol.reply("yes")
    table = Table.load(game_id, lock=False)
    hand = table.engine.view(table.state, 0)["hand"]
    seen = len(carol.inbox)
    alice.reply(f"play {hand[0]}")
    assert carol.inbox[seen:] == [], "a secret choice is no turn of the public's"
    bob.reply(f"play {table.engine.view(table.state, 1)['hand'][-1]}")
    people = [alice, bob]
    asked = Table.load(game_id, lock=False)
    assert asked.to_act == {0}  # alice's card is below every row: she is asked which
    while asked.state.round == 1 and asked.state.phase == "place":  # the row questions
        assert carol.inbox[seen:] == [], "the round goes on: no mail between its steps"
        (seat,) = asked.to_act
        row = asked.engine.legal(asked.state, seat)[0]
        people[seat].reply(asked.engine.notation(asked.state, seat, row))
        asked = Table.load(game_id, lock=False)
    (mail,) = carol.inbox[seen:]  # the round is over: its one mail
    text = body(mail)
    assert "alice chose in secret." in text and "bob chose in secret." in text
    assert "Round 1 revealed: " in text
    assert "Your hand" not in text


def test_web_off_by_mail_takes_the_link_out_of_the_game_mails(onyx):
    game_id, alice, bob = onyx
    assert "/play/" in body(bob.last)
    bob.reply("web off")
    assert "Mail only: your game mails carry no link" in body(bob.last)
    alice.reply("F6")
    assert "It is your turn (move #2)." in body(bob.last)
    assert "/play/" not in body(bob.last)
    bob.reply("web")
    assert "yours is off." in body(bob.last)


def test_an_invitation_can_be_accepted_on_the_seats_page(mail_server, players):
    """The invitation itself is a plain note to an address that has not confirmed (no
    link); once the player has a seat's link, the page answers it as a reply would."""
    import re
    from pbem.policy.delivery import deliver_due
    from pbem.vocabulary.tokens import play_token
    from pbem.store import Game
    from pbem.web import create_app
    alice, bob = players("alice", "bob")
    alice.write("new onyx with bob@example.org")
    alice.reply("yes")
    assert "/play/" not in body(bob.last)
    url = f"/play/{play_token(mail_server.secret_key, Game.get().id, 1)}"
    client = create_app(mail_server, after_move=lambda: deliver_due(mail_server)).test_client()
    page = client.get(url).get_data(as_text=True)
    assert "<legend>Invitation</legend>" in page
    shown = client.get(url, query_string={"move": "accept"}).get_data(as_text=True)
    assert "the command accept: accept an invitation" in shown
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"',
                             re.search(r'<form method="post".*?</form>', shown, re.S).group(0)))
    assert client.post(url, data=fields).status_code == 303
    assert Game.get().status == "running"
    assert "It is your turn (move #1)." in body(alice.last)  # told by mail, at once
