"""Gem Forge by mail (RULINGS G41): a turn in one mail, ended by the server; commands that
wait while the others answer a reaction window, and that are dropped when a card is
played in it."""

import dataclasses

import pytest

from mailtest import body
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.policy.delivery import deliver_due
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
    # ben's standing answer and pass are not listed, nor counted
    assert "#6 ben: (hidden)\r\n#7 ann: take\r\n" in moves and "Someone" not in moves
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


def test_an_answer_nobody_may_learn_of_changes_no_mail_of_the_others(
        mail_server, players, store, frozen_time):
    """RULINGS G39 by mail, in twin worlds: the same deal and the same public moves. In
    one, cat asked to be asked in copy-take windows and passed in the window after the
    take; in the other she never was asked. Every mail ben gets from his own pass on is
    the same in both, number for number: the news (`#N`), "move #N", the guard it offers
    and the ply its Message-ID carries."""
    import datetime as dt
    import re

    from databases import emptied

    def world(cat_asked: bool) -> list[str]:
        frozen_time.now = dt.datetime(2026, 11, 30, 10, 0)
        people = players("ann", "ben", "cat")
        seen = [len(person.inbox) for person in people]
        game_id = start_game(mail_server, GEMFORGE, {}, [p.address for p in people],
                             seed="forge-3")
        deliver_due(mail_server)
        for seat, person in enumerate(people):
            table = Table.load(game_id)
            person.reply(GEMFORGE.notation(table.state, seat,
                                           GEMFORGE.default_decision(table.state, seat)),
                         quote=False)
        active = Table.load(game_id).state.active
        asked = [(active + 1) % 3] + [(active + 2) % 3] * cat_asked
        for seat in asked:
            people[seat].reply("pref copy-take ask", quote=False)
        people[active].reply("take", quote=False)
        assert Table.load(game_id).to_act == set(asked)
        ben = people[asked[0]]
        start = len(ben.inbox)
        for seat in reversed(asked):  # cat passes first: ben is the last answer awaited
            people[seat].reply("pass", quote=False)
        table = Table.load(game_id)
        assert table.to_act == {active}
        people[active].reply(GEMFORGE.notation(table.state, active,
                                               GEMFORGE.default_decision(table.state, active)),
                             quote=False)
        deliver_due(mail_server)
        mails = ben.inbox[start:]
        assert mails, "ben hears of the turn that follows the window"
        return [re.sub(r"\.[0-9a-f]{12}@", ".@", f"{m['Message-ID']}\n{m['Subject']}\n")
                + body(m) for m in mails]

    told_when_asked = world(cat_asked=True)
    assert Move.select().where(Move.anonymous).count() == 4  # two prefs, two passes
    emptied(store)
    told_when_not = world(cat_asked=False)
    assert Move.select().where(Move.anonymous).count() == 2
    assert told_when_asked == told_when_not


def test_undo_names_the_last_move_by_the_number_everyone_knows(forge):
    """An undo asked after a reaction window is about the move that opened it, by the
    number everyone knows: the standing answers and the pass after it (G38, G39) are
    neither named nor counted (in the log, the take is ply 9 and the set ply 11)."""
    game_id, (active, other) = forge
    other.reply("pref copy-take ask\npref copy-set ask", quote=False)
    active.reply("take", quote=False)
    other.reply("pass", quote=False)
    active.reply("undo", quote=False)  # the take showed a gem from the mine
    assert "move #7 showed the players something they did not know" in body(active.last)
    active.reply("set R T16", quote=False)  # a copy-set window asks ben
    other.reply("pass", quote=False)
    active.reply("undo", quote=False)
    assert "move #8 showed the players something they did not know" in body(active.last)
    assert [m.ply for m in Move.select().where(Move.game == game_id)
            .where(Move.text.in_(["take", "set R T16"])).order_by(Move.ply)] == [9, 11]
