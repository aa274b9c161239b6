"""Queued cards in 6 nimmt! Baron Oxx by mail (issue #32 item 4), over real SMTP on
loopback: `next 23 45` plays 23 the moment the next round asks for the player's card and
45 in the round after, in the transaction that opens the round, unless the player
chooses otherwise in the meantime; a queued card no longer in the hand is dropped with
a word; the queue is a secret until its cards are played.

Seed "queue", two players: rows 48 BGK, 31 BR, 78 BYG, 97 BGW, 96 RKW; alice holds
26 33 63 109, bob 29 52 55 80. Both send `pref low` first, so no card asks where it goes.
"""

import datetime as dt
import difflib
import re

from databases import emptied
from mailtest import body
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.play import Table
from pbem.policy.delivery import deliver_due
from pbem.store import Move, Seat
from pbem.store.models import Condition, Follow, Player

OXX = ENGINES["baronoxx"]


def start(mail_server, players, options=None, names=("alice", "bob")):
    people = players(*names)
    game_id = start_game(mail_server, OXX, options or {}, [p.address for p in people],
                         seed="queue")
    deliver_due(mail_server)
    return (game_id, *people)


def plays(game_id) -> list[tuple[str, str, str]]:
    """(who, move, source) of every player's move, in order."""
    names = {0: "alice", 1: "bob", 2: "cat"}
    return [(names[m.seat], m.text, m.source) for m in
            Move.select().where((Move.game == game_id) & (Move.seat >= 0)).order_by(Move.ply)
            if m.text.startswith("play")]


def state(game_id):
    return Table.load(game_id, lock=False).state


def test_next_plays_one_card_in_each_of_the_next_two_rounds(mail_server, players):
    game_id, alice, bob = start(mail_server, players)
    assert state(game_id).hands == ((26, 33, 63, 109), (29, 52, 55, 80))
    told = len(alice.inbox)
    alice.reply("pref low\nplay 26\nnext 33 63", quote=False)
    assert len(alice.inbox) == told  # beside a move, the queue is confirmed by what it does
    bob.reply("pref low\nplay 29", quote=False)  # round 1 revealed: round 2 asks for 33
    assert plays(game_id)[-1] == ("alice", "play 33", "conditional")
    assert state(game_id).round == 1 and Table.load(game_id).to_act == {1}
    bob.reply("play 52", quote=False)  # round 2 revealed: round 3 asks for 63
    assert plays(game_id)[-1] == ("alice", "play 63", "conditional")
    assert len(alice.inbox) == told  # two rounds without a mail to her
    bob.reply("play 55", quote=False)  # round 3 revealed: the queue is used up
    assert Table.load(game_id).to_act == {0, 1}
    assert not Condition.select().where(Condition.game == game_id).exists()
    mail = body(alice.last)
    assert "You: play 33" in mail and "You: play 63" in mail
    assert "Choose a card in secret: play 109" in mail
    assert [card for card, seat in state(game_id).revealed] == [55, 63]


def test_a_queue_sent_alone_is_confirmed_at_once(mail_server, players):
    game_id, alice, bob = start(mail_server, players)
    alice.reply("play 26", quote=False)
    alice.reply("next 33 63", quote=False)
    assert ("Queued: play 33 for the next round that asks for your card, then play 63."
            in body(alice.last))


def test_a_queued_card_no_longer_in_hand_is_dropped_with_a_word(mail_server, players):
    game_id, alice, bob = start(mail_server, players)
    alice.reply("pref low", quote=False)
    alice.reply("next 33 63", quote=False)  # round 1 waits for her: 33 at once
    assert ("Queued: play 33 for this round, which waits for your card: it is played at "
            "once, then play 63.") in " ".join(body(alice.last).split())
    assert plays(game_id) == [("alice", "play 33", "conditional")]
    alice.reply("play 63", quote=False)  # she chooses otherwise: 63, queued for round 2
    bob.reply("pref low\nplay 29", quote=False)
    table = Table.load(game_id)
    assert [card for card, seat in table.state.revealed] == [29, 63]
    assert table.to_act == {0, 1}  # round 2 waits for her: 63 is gone
    assert not Condition.select().where(Condition.game == game_id).exists()
    mail = " ".join(body(alice.last).split())
    assert ("Your queued card 63 is no longer in your hand, so it is dropped and this "
            "round waits for your card.") in mail
    assert "Choose a card in secret:" in mail
    assert "queued" not in body(bob.last)


def test_a_choice_in_the_meantime_overrides_the_queue_for_its_round(mail_server, players):
    game_id, alice, bob = start(mail_server, players)
    alice.reply("pref low\nplay 26\nnext 33 63", quote=False)
    bob.reply("pref low\nplay 29", quote=False)
    assert plays(game_id)[-1] == ("alice", "play 33", "conditional")  # round 2's card
    alice.reply("play 109", quote=False)  # replaced before the reveal
    bob.reply("play 52", quote=False)
    assert [card for card, seat in state(game_id).revealed] == [52, 109]
    assert plays(game_id)[-1] == ("alice", "play 63", "conditional")  # round 3: the queue
    alice.reply("next", quote=False)
    assert "You have no queued cards in this game." in body(alice.last)


def test_the_deadline_default_against_the_queue(mail_server, players, frozen_time):
    """N14: a missing card becomes the lowest with `low`. A queued card is in before the
    deadline can come; a round the queue does not cover gets the default."""
    from pbem.commands.server_moves import run_due
    game_id, alice, bob = start(mail_server, players, {"time": "1d"})
    alice.reply("pref low\nplay 26\nnext 109", quote=False)
    bob.reply("pref low\nplay 29", quote=False)
    assert plays(game_id)[-1] == ("alice", "play 109", "conditional")  # not her lowest, 33
    frozen_time.move(days=1, minutes=1)
    run_due(mail_server)  # bob's time ran out; alice's card is in
    assert plays(game_id)[-1] == ("bob", "play 52 low", "timeout")
    assert [card for card, seat in state(game_id).revealed] == [52, 109]
    frozen_time.move(days=1, minutes=1)
    run_due(mail_server)  # round 3: no queue, no mail: both get the default
    assert [card for card, seat in state(game_id).revealed] == [33, 55]
    assert plays(game_id)[-2:] == [("alice", "play 33 low", "timeout"),
                                   ("bob", "play 55 low", "timeout")]


def test_what_can_be_queued_and_the_queue_listed_and_cleared(mail_server, players):
    game_id, alice, bob = start(mail_server, players)
    alice.reply("play 26\nnext 99", quote=False)
    assert "`next 99`: You have no 99: your hand is 26 33 63 109." in body(alice.last)
    alice.reply("next 26", quote=False)
    assert "26 is your card for this round already" in body(alice.last)
    alice.reply("next 33 33", quote=False)
    assert "names 33 twice" in body(alice.last)
    alice.reply("next 33 row 2 low, 109 take 5", quote=False)
    assert ("Queued: play 33 row 2 low for the next round that asks for your card, then "
            "play 109 take 5.") in body(alice.last)
    alice.reply("next", quote=False)
    assert ("Your queued cards in this game, one a round: play 33 row 2 low for the next "
            "round that asks for your card, then play 109 take 5.") in body(alice.last)
    alice.reply("next 63", quote=False)
    assert "Queued (your earlier queue is replaced): play 63" in body(alice.last)
    alice.reply("conditions off", quote=False)
    assert "Your queued cards in this game are cleared." in body(alice.last)
    assert not Condition.select().where(Condition.game == game_id).exists()
    alice.reply("if 33 63", quote=False)
    assert "queue your cards for the rounds to come instead, e.g. `next 23 45`" in \
        " ".join(body(alice.last).split())


def test_onyx_has_no_queue(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nnext G5")
    assert "Onyx has no rounds to queue cards for: answer moves in advance with `if`" in \
        " ".join(body(alice.last).split())


def test_a_queue_dealt_in_an_earlier_game_of_a_match_is_dropped(mail_server, players):
    """A match deals every game afresh (N18): the same numbers may come back in a new
    hand, so a queue left from the game before plays nothing."""
    game_id, alice, bob = start(mail_server, players)
    alice.reply("pref low\nplay 26\nnext 33 63", quote=False)
    row = Condition.get(Condition.game == game_id)
    row.lines = {**row.lines, "game": [0]}  # as if sent in the game before this one
    row.save()
    bob.reply("pref low\nplay 29", quote=False)
    assert Table.load(game_id).to_act == {0, 1}
    assert ("Your queued cards 33, 63 were dealt in an earlier game of the match, so the "
            "queue is dropped and this round waits for your card.") in \
        " ".join(body(alice.last).split())


def normal(text: str) -> str:
    return re.sub(r"\.[0-9a-f]{12}@", ".@", text)


def test_a_queue_never_played_changes_nothing_anyone_else_sees(
        mail_server, players, store, frozen_time):
    """Twin worlds, same deal and same public moves; in one, alice queues cards that are
    never played: a queue she clears, and one whose card she plays herself in the
    meantime (dropped when its round asks). bob's mails, cat's (loud), a follower's, the
    public page, the API and the feed are the same, byte for byte."""
    from pbem.web import create_app

    def world(queues: bool):
        frozen_time.now = dt.datetime(2026, 11, 30, 10, 0)
        names = ("alice", "bob", "cat")
        game_id, alice, bob, cat = start(mail_server, players, names=names)
        eve, = players("eve")
        Seat.update(mail="loud").where(Seat.number == 2).execute()
        Follow.create(game=game_id, player=Player.create(email=eve.address, name="eve",
                                                         confirmed=True))
        seen = [len(p.inbox) for p in (bob, cat, eve, alice)]
        hand = state(game_id).hands[0]
        alice.reply(f"pref low\nplay {hand[0]}", quote=False)
        if queues:
            alice.reply(f"next {hand[1]} {hand[2]}", quote=False)
            alice.reply("next off", quote=False)
            alice.reply(f"next {hand[1]}", quote=False)
        alice.reply(f"play {hand[1]}", quote=False)  # chose otherwise: her queued card
        bob.reply("pref low\nplay " + str(state(game_id).hands[1][0]), quote=False)
        cat.reply("pref low\nplay " + str(state(game_id).hands[2][0]), quote=False)
        assert Table.load(game_id).to_act == {0, 1, 2}  # round 2 asks everyone
        bob.reply("say the second round", quote=False)
        client = create_app(mail_server).test_client()
        pages = [client.get(path).get_data(True) for path in
                 (f"/games/{game_id}", f"/api/games/{game_id}", f"/games/{game_id}.atom",
                  "/games", f"/api/games/{game_id}/ply/{Table.load(game_id).game.plies}")]
        mails = [[normal(f"{m['Message-ID']}\n{m['Subject']}\n{body(m)}") for m in p.inbox[n:]]
                 for p, n in zip((bob, cat, eve), seen)]
        return mails, pages, " ".join(" ".join(body(m).split()) for m in alice.inbox[seen[3]:])

    mails_with, pages_with, alice_with = world(queues=True)
    assert "is no longer in your hand, so it is dropped" in alice_with
    emptied(store)
    mails_without, pages_without, alice_without = world(queues=False)
    assert "dropped" not in alice_without
    for name, with_, without in zip(("bob", "cat", "eve"), mails_with, mails_without):
        assert with_ == without, name
    assert any("Round 1 revealed" in mail for mail in mails_without[1])  # cat hears it
    for with_, without in zip(pages_with, pages_without):
        assert with_ == without, "\n".join(difflib.unified_diff(
            with_.splitlines(), without.splitlines(), lineterm=""))


def test_onix_and_gem_forge_take_neither_lines_nor_queues(mail_server, players):
    for engine, title, names in (("onix", "Onix", ("ann", "ben")),
                                 ("gemforge", "Gem Forge", ("cat", "dan"))):
        ann, ben = players(*names)  # each answered once a game: error-only answers are capped
        game_id = start_game(mail_server, ENGINES[engine], {}, [ann.address, ben.address])
        deliver_due(mail_server)
        mine = [m for m in ann.inbox if m["Subject"].endswith(f" #{game_id}")][-1]
        ann.reply("next 1", to=mine, quote=False)
        assert (f"{title} has no rounds to queue cards for: each decision is asked for as "
                f"it comes.") in " ".join(body(ann.last).split())
        ann.reply("if 1 2", to=mine, quote=False)
        assert f"{title} takes no conditional moves: each turn is asked for as it comes." \
            in " ".join(body(ann.last).split())
