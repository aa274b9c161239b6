"""Conditional moves by mail (issue #32), over real SMTP on loopback: Onyx players answer
the likely replies in advance with `if` lines, and the server plays the answers the
moment the opponent's move matches, in the same transaction.

alice plays Black (first), bob White; the 12×12 board's own stones sit on the edges.
"""

import difflib
import random
import re

from mailtest import body
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.policy.delivery import deliver_due
from pbem.store import Game, Move
from pbem.store.models import Condition


def moves(game_id) -> list[str]:
    return [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def sources(game_id) -> list[str]:
    return [m.source for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def game_mail(person, game_id=None):
    """The latest mail of a game (of `game_id` where given) the person can reply to."""
    return [m for m in person.inbox if m["Reply-To"] and "pbem+" in m["Reply-To"]
            and (game_id is None or m["Subject"].endswith(f" #{game_id}"))][-1]


def test_a_line_answers_at_once_and_the_opponents_mail_carries_both_moves(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nif G5 H4 C3 D4\nif G7 H8")
    assert moves(game_id) == ["F6"]
    mails_to_alice = len(alice.inbox)
    bob.reply("G5", to=game_mail(bob))
    assert moves(game_id) == ["F6", "G5", "H4"]
    assert sources(game_id)[-1] == "conditional"
    assert len(alice.inbox) == mails_to_alice  # her answer needs no mail of its own
    news = body(bob.last)
    assert "#2 You: G5" in news and "#3 alice: H4" in news
    assert "It is your turn (move #4)." in news
    bob.reply("C3", to=game_mail(bob))  # the line goes on: D4
    assert moves(game_id)[-2:] == ["C3", "D4"]
    assert not Condition.select().where(Condition.game == game_id).exists()  # all used
    bob.reply("E9", to=game_mail(bob))  # no line left: alice is asked as usual
    assert moves(game_id)[-1] == "E9"
    assert "#6 bob: E9" in body(alice.last) and "It is your turn (move #7)." in body(alice.last)


def test_both_players_lines_answer_each_other_in_one_transaction(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nif G5 H4 C3 D4")
    before = len(alice.inbox)
    bob.reply("G5\nif H4 C3\nif J10 K2", to=game_mail(bob))
    assert moves(game_id) == ["F6", "G5", "H4", "C3", "D4"]
    news = body(bob.last)
    assert re.search(r"#2 You: G5\s+#3 alice: H4\s+#4 You: C3 \(from your lines\)\s+"
                     r"#5 alice: D4", news), news
    assert "It is your turn (move #6)." in news
    assert len(alice.inbox) == before  # her answers went in without a mail


def test_a_move_no_line_foresaw_clears_them_and_the_next_mail_says_so(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nif G5 H4\nif G7 H8")
    bob.reply("E9", to=game_mail(bob))
    assert moves(game_id) == ["F6", "E9"]
    assert not Condition.select().where(Condition.game == game_id).exists()
    mail = body(alice.last)
    assert "Your conditional moves did not foresee E9; they are cleared." in mail
    assert "It is your turn (move #3)." in mail
    alice.reply("conditions", to=game_mail(alice))
    assert "You have no conditional moves in this game." in body(alice.last)


def test_an_illegal_answer_is_refused_when_sent_with_the_move_named(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nif G5 F6")
    assert moves(game_id) == ["F6"]  # the move went in; the line did not
    answer = body(alice.last)
    assert "Not done: if G5 F6" in answer or "if G5 F6" in answer
    assert "move 2 (F6, your answer) cannot be played there" in answer
    alice.reply("if G5 H4 Z99 A1", to=game_mail(alice))
    assert "move 3 (Z99, your opponent's move) cannot be played there" in body(alice.last)
    alice.reply("if G5", to=game_mail(alice))
    assert "ends with your opponent's move: say your answer to it too" in body(alice.last)
    assert not Condition.select().where(Condition.game == game_id).exists()
    bob.reply("if H4 C3", to=game_mail(bob))  # bob is to move: a line answers a reply
    assert "it is your turn: send your move first" in body(bob.last)


def test_the_lines_are_listed_as_a_tree_replaced_and_cleared(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nif G5 H4 C3 D4\nif G5 H4 J10 K2\nif G7 H8")
    alice.reply("conditions", to=game_mail(alice))
    assert ("Your conditional moves in this game:\n"
            "  if G5: H4\n"
            "      if C3: D4\n"
            "      if J10: K2\n"
            "  if G7: H8") in body(alice.last).replace("\r\n", "\n")
    alice.reply("if G5 C3", to=game_mail(alice))  # a new mail's first line replaces all
    assert "Kept (your earlier lines are replaced): if G5 then C3." in body(alice.last)
    assert Condition.get(Condition.game == game_id).lines == [["G5", "C3"]]
    alice.reply("if G5 C3\nif G5 D4", to=game_mail(alice))
    assert "you answer G5 with C3 already" in body(alice.last)
    alice.reply("conditions off", to=game_mail(alice))
    assert "Your conditional moves in this game are cleared." in body(alice.last)
    assert not Condition.select().where(Condition.game == game_id).exists()


def test_an_undo_of_the_move_an_answer_met_takes_both_back_and_clears_the_lines(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nif G5 H4 C3 D4")
    bob.reply("G5", to=game_mail(bob))
    assert moves(game_id) == ["F6", "G5", "H4"]
    bob.reply("undo", to=game_mail(bob))
    assert "bob asks to take back move #2 (G5) and the answer to it, #3 (H4)" in body(alice.last)
    alice.reply("undo", to=game_mail(alice))
    assert moves(game_id) == ["F6"]
    assert not Condition.select().where(Condition.game == game_id).exists()
    assert "your conditional moves in this game are cleared" in body(alice.last)


def test_nobody_can_learn_of_lines_that_never_met_their_move(mail_server, players,
                                                             frozen_time):
    """Twin worlds: the same game twice, alice with lines in one that are never met and
    none in the other. bob's mails are the same, word for word, and so is the public
    page."""
    from pbem.web import create_app

    people = []  # each world's players kept alive: a client's Message-IDs carry id(self),
    # and a second world's players at a freed address would send the same ones, which the
    # server drops as duplicates

    def world(alice_writes):
        alice, bob = players("alice", "bob")
        people.append((alice, bob))
        game_id = start_game(mail_server, ENGINES["onyx"], {}, [alice.address, bob.address])
        deliver_due(mail_server)
        start = len(bob.inbox)
        alice.reply(alice_writes, to=game_mail(alice, game_id))
        bob.reply("E9", to=game_mail(bob, game_id))
        alice.reply("C3", to=game_mail(alice, game_id))
        bob.reply("say good game so far", to=game_mail(bob, game_id))
        page = create_app(mail_server).test_client().get(f"/games/{game_id}").get_data(True)
        return game_id, [normal(body(m), game_id) for m in bob.inbox[start:]], normal(page,
                                                                                     game_id)

    def normal(text, game_id):
        text = re.sub(r"pbem\+[\w-]+@", "pbem+TOKEN@", text)
        text = re.sub(r"/play/[\w-]+", "/play/TOKEN", text)
        for named in (f"Onyx #{game_id}", f"game #{game_id}", f"Game #{game_id}",
                      f"/games/{game_id}", f"pbem-{game_id}-onyx"):
            text = text.replace(named, named.replace(str(game_id), "N"))
        return text

    first, mails_with, page_with = world("F6\nif G5 H4\nif J10 K2 B11 A12")
    second, mails_without, page_without = world("F6")
    assert moves(first) == moves(second) == ["F6", "E9", "C3"]
    assert mails_with == mails_without
    assert page_with == page_without, "\n".join(difflib.unified_diff(
        page_with.splitlines(), page_without.splitlines(), lineterm=""))


def test_an_answer_meets_a_move_the_server_played_when_time_ran_out(mail_server, players,
                                                                    frozen_time):
    alice, bob = players("alice", "bob")
    from pbem.commands.server_moves import run_due
    from pbem.play import Table
    game_id = start_game(mail_server, ENGINES["onyx"], {"time": "1d", "timeout": "auto"},
                         [alice.address, bob.address])
    deliver_due(mail_server)
    alice.reply("F6", to=game_mail(alice))
    table = Table.load(game_id, lock=False)  # the move the server will play for bob
    rng = random.Random(f"{table.game.seed}:{table.game.plies}:1")
    auto = table.engine.notation(table.state, 1, table.engine.random_decision(table.state, 1, rng))
    alice.reply(f"if {auto} K11", to=game_mail(alice))
    frozen_time.move(days=1, minutes=1)
    run_due(mail_server)
    assert moves(game_id) == ["F6", auto, "K11"]
    assert sources(game_id)[1:] == ["timeout", "conditional"]


def test_lines_wait_through_a_vacation(onyx, frozen_time):
    game_id, alice, bob = onyx
    alice.reply("F6\nif G5 H4")
    bob.reply("vacation 3d", to=game_mail(bob))
    frozen_time.move(days=2)
    bob.reply("G5", to=game_mail(bob))
    assert moves(game_id) == ["F6", "G5", "H4"]


def test_the_record_of_a_finished_game_names_the_moves_sent_in_advance(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nif G5 H4")
    bob.reply("G5", to=game_mail(bob))
    bob.reply("resign", to=game_mail(bob))
    assert Game.get_by_id(game_id).status == "finished"
    record = body(alice.last)
    assert "{alice: a conditional move, sent in advance}" in record


def test_a_line_may_answer_the_swap(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nif swap C3")
    bob.reply("swap", to=game_mail(bob))
    assert moves(game_id) == ["F6", "swap", "C3"]
    assert "It is your turn (move #4)." in body(bob.last)


def test_lines_beside_a_move_ask_for_no_mail_of_their_own(onyx):
    """A move that simply went in is confirmed in the next mail; so are the lines sent
    with it, by what they do (#32's bench: an answer to each such mail cost more mails
    than the lines saved). Lines alone, or a line that fails, are answered at once."""
    game_id, alice, bob = onyx
    before = len(alice.inbox)
    alice.reply("F6\nif G5 H4")
    assert len(alice.inbox) == before and moves(game_id) == ["F6"]
    alice.reply("if G5 H4 C3 D4", to=game_mail(alice))
    assert "Kept (your earlier lines are replaced): if G5 then H4, then if C3 then D4." \
        in body(alice.last)
    bob.reply("G5\nif H4 C3", to=game_mail(bob))
    assert moves(game_id) == ["F6", "G5", "H4", "C3", "D4"]
    assert "#3 alice: H4" in body(bob.last)  # his mail: asked for move #6, with the news


def test_a_player_on_the_digest_hears_at_once_that_their_lines_missed(onyx):
    """On the digest a new turn waits for the day's mail; but a player whose `if` lines
    missed was counting on the server to answer for them: they are told at once."""
    from pbem.store import Player
    game_id, alice, bob = onyx
    Player.update(digest=True).where(Player.email == alice.address).execute()
    alice.reply("F6\nif G5 H4")
    before = len(alice.inbox)
    bob.reply("E9", to=game_mail(bob))
    assert moves(game_id) == ["F6", "E9"] and len(alice.inbox) == before + 1
    assert "Your conditional moves did not foresee E9; they are cleared." in body(alice.last)
