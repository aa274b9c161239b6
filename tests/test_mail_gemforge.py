"""Gem Forge by mail (RULINGS G41): a turn in one mail, ended by the server; commands that
wait while the others answer a reaction window, and that are dropped when a card is
played in it."""

import dataclasses

import pytest

from mailtest import body
from pbem.admin import start_game
from pbem.engines import ENGINES
from pbem.mail.outbox import deliver_due
from pbem.play import Table
from pbem.store import Move

GEMFORGE = ENGINES["gemforge"]


@pytest.fixture
def forge(mail_server, players):
    """A two-player game past the secret tile choice: ann is to take her turn."""
    ann, ben = players("ann", "ben")
    game_id = start_game(mail_server, GEMFORGE, {}, [ann.address, ben.address],
                         seed="forge")
    deliver_due(mail_server)
    for person, seat in ((ann, 0), (ben, 1)):
        table = Table.load(game_id)
        keep = GEMFORGE.default_decision(table.state, seat)
        person.reply(GEMFORGE.notation(table.state, seat, keep), quote=False)
    table = Table.load(game_id)
    people = [ann, ben]
    if table.state.active == 1:
        people.reverse()
    return game_id, people


def plies_by(game_id, seat):
    return [m.text for m in Move.select().where((Move.game == game_id) & (Move.seat == seat))
            .order_by(Move.ply)]


def test_two_actions_in_one_mail_are_a_whole_turn(forge):
    game_id, (active, other) = forge
    seat = Table.load(game_id).state.active
    active.reply("draw\ndraw", quote=False)
    assert plies_by(game_id, seat)[-2:] == ["draw", "draw"]
    assert Table.load(game_id).state.active != seat
    assert "It is your turn" in body(other.last)


def test_a_command_after_an_opened_window_waits_for_the_answers(forge):
    game_id, (active, other) = forge
    seat = Table.load(game_id).state.active
    other.reply("pref copy-take ask", quote=False)  # ben wants to be asked after a take
    active.reply("take\ndraw", quote=False)
    table = Table.load(game_id)
    assert table.to_act == {1 - seat}, "the copy-take window waits for the other player"
    assert "Held until the others have answered, then played: draw" in body(active.last)
    assert plies_by(game_id, seat)[-1] == "take"
    count = len(active.inbox)
    other.reply("pass", quote=False)
    assert plies_by(game_id, seat)[-2:] == ["take", "draw"]
    assert len(active.inbox) == count  # it went in: confirmed in active's next mail
    assert "ann: draw" in body(other.last).split("Players:")[0]  # the news of it


def test_nobody_is_told_who_answered_a_window(forge):
    """G39: the active player's mail after the window names no one who passed, nor does
    their `history` or the public move list (RULINGS G38: a standing answer is private)."""
    game_id, (active, other) = forge
    other.reply("pref copy-take ask", quote=False)
    active.reply("take", quote=False)
    other.reply("pass", quote=False)
    after_pass = body(active.last)
    assert "ben" not in after_pass.split("Players")[0], after_pass
    assert "chose in secret" not in after_pass
    active.reply("history", quote=False)
    moves = body(active.last).split("The moves so far")[1]
    assert "#7 Someone: (hidden)\r\n#8 ann: take\r\n#9 Someone: (hidden)" in moves  # pref, pass
    own = [m for m in Move.select().where(Move.game == game_id).order_by(Move.ply)
           if m.text in ("pass", "pref copy-take ask")]
    assert own and all(m.anonymous for m in own)



def test_held_commands_are_dropped_when_a_card_is_played_in_the_window(forge):
    game_id, (active, other) = forge
    seat = Table.load(game_id).state.active
    table = Table.load(game_id)  # arrange the deal: the other player holds a copy-take
    hands = list(table.state.hands)
    hands[1 - seat] = ("copy-take",)
    table.game.state = GEMFORGE.to_json(dataclasses.replace(table.state, hands=tuple(hands)))
    table.game.save()
    other.reply("pref copy-take ask", quote=False)
    active.reply("take\ndraw", quote=False)
    other.reply("play copy-take", quote=False)
    assert plies_by(game_id, seat)[-1] == "take"
    assert "these were not played (send\r\nwhat you still want): draw" in body(active.last)
