"""6 nimmt! Baron Oxx by mail: a secret choice stays secret in every mail about it."""

import re

from mailtest import body
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.policy.delivery import deliver_due
from pbem.play import Table
from pbem.store import Move

OXX = ENGINES["baronoxx"]


def test_asking_to_take_back_a_secret_choice_does_not_tell_the_others_the_card(
        mail_server, players):
    ann, ben, cat = players("ann", "ben", "cat")
    game_id = start_game(mail_server, OXX, {}, [ann.address, ben.address, cat.address],
                         seed="undo")
    deliver_due(mail_server)
    hand = Table.load(game_id).state.hands[0]
    card = min(hand)
    ann.reply(f"play {card}", quote=False)
    ann.reply("undo", quote=False)
    last = Move.select().where(Move.game == game_id).order_by(Move.ply.desc()).first()
    assert last.text.startswith(f"play {card}")
    for other in (ben, cat):
        asked = body(other.last)
        assert "ann asks to take back move #" in asked and "(a secret choice)" in asked
        assert not re.search(rf"\bplay {card}\b", asked)
    asked = " ".join(body(ann.last).split())  # #42: which move she would take back
    assert f"Undo asked: to take back move #{last.shown} (play {card}" in asked
    assert "waiting for the others to agree." in asked
    ben.reply("undo", quote=False)
    cat.reply("undo", quote=False)
    assert Move.select().where(Move.game == game_id).count() == last.ply - 1
    assert f"Move #{last.ply} (a secret choice) was taken back" in body(ben.last)
    assert f"Move #{last.ply} (a secret choice) was taken back." in body(cat.last)
    assert f"Move #{last.ply} (play {card}" in body(ann.last)  # her own card, to her only
