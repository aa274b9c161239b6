"""Issue 16 by mail: a mail whose repeat of an automatic placement says something else
stops there (X13a), players are named by name in moves and examples, and Gem Forge asks
every seat over the hand limit in one round trip (G25a)."""

from mailtest import body
from onix_position import ENGINE as ONIX, position
from pbem.operator.admin import start_game
from pbem.policy.delivery import deliver_due
from pbem.play import Table
from pbem.store import Game

# ann's circles on A and B can only start new Collections: A's becomes 5, B's 6.
CIRCLES = ("piles: A=[S O] B=[X OX] C=[D] D=[S] E=[X]\n"
           "P1: 1=[O S] 2=[O D] 3=[O X] 4=[O]\nP2: 1=[S] 2=[D] 3=[X]")


def onix_at(mail_server, players, text):
    ann, bob = players("ann", "bob")
    game_id = start_game(mail_server, ONIX, {}, [ann.address, bob.address], seed="x13a")
    Game.update(state=ONIX.to_json(position(text))).where(Game.id == game_id).execute()
    deliver_due(mail_server)
    return game_id, ann, bob


def test_x13a_a_contrary_repeat_stops_the_mail_and_says_which_number_each_card_got(
        mail_server, players):
    game_id, ann, bob = onix_at(mail_server, players, CIRCLES)
    ann.reply("take O A\nplace B -> 5\ndraw C -> 5", quote=False)
    reply = " ".join(body(ann.last).split())
    assert ("the card from A became Collection 5 and the card from B became Collection 6"
            in reply)
    assert "Not applied (after the failure above): draw C -> 5" in reply
    state = Table.load(game_id).state
    assert state.phase == "effect" and state.turn == 0
    ann.reply("place B -> 6\ndraw C -> 6", quote=False)
    state = Table.load(game_id).state
    assert dict(state.collections[0])[6] == (9, 4)  # B's OX, then the drawn diamond


def test_a_player_names_an_opponent_by_name_and_the_prompt_does_too(mail_server, players):
    game_id, ann, bob = onix_at(mail_server, players,
                                "piles: A=[O X] B=[O] C=[S] D=[O] E=[S]\n"
                                "P1: 1=[O] 2=[S]\nP2: 1=[O] 2=[S D] 3=[D]")
    ann.reply("take X A\nplace A -> 1\nboard", quote=False)
    assert "destroy bob " in body(ann.last)
    ann.reply("destroy bob 3.", quote=False)
    table = Table.load(game_id)
    assert dict(table.state.collections[1]).get(3) is None
    assert table.state.last_turn[-1][1] == "destroy P2 3"


def test_g25a_every_seat_over_the_hand_limit_is_mailed_at_once(mail_server, players):
    from pbem.engines import ENGINES
    from test_gemforge import MARKET, position as gem_position
    gf = ENGINES["gemforge"]
    ann, bob, cat = players("ann", "bob", "cat")
    game_id = start_game(mail_server, gf, {}, [p.address for p in (ann, bob, cat)],
                         seed="g25a")
    state = gem_position("""
        P1: G / / 3 / T18=RR T19 T01
        P2: Y / mine mine cancel cancel / 0 / T02 T23 T35
        P3: L / copy-set copy-set mine set-two / 0 / T03 T24 T36
        deck copy-take three-cards
    """ + MARKET)
    Game.update(state=gf.to_json(state)).where(Game.id == game_id).execute()
    deliver_due(mail_server)
    seen = {p.address: len(p.inbox) for p in (bob, cat)}
    ann.reply("cash T18", quote=False)  # 3 + 2 = 5: bob and cat draw, both hold 5
    for person in (bob, cat):
        assert len(person.inbox) == seen[person.address] + 1
        assert "You hold 5 action cards, more than 4: drop 1" in body(person.last)
    bob.reply("drop mine", quote=False)
    cat.reply("drop set-two", quote=False)
    table = Table.load(game_id)
    assert [len(h) for h in table.state.hands] == [0, 4, 4] and table.to_act == {0}
