"""Playing by mail, end to end: real SMTP in (the server's listener) and out (a sink).

Each test is a story told in mail: who writes what, and what each player then finds in
their inbox. Moves and commands are literal text as a player would type them.
"""

import re

from mailtest import body, html, record_in
from notation.record import parse_record
from pbem.engines.game import Game as RecordGame
from pbem.store import Game, Inbound, Move, Outbox


def moves_of(game_id):
    return [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def test_a_new_game_mails_every_player_their_turn_and_a_reply_address(onyx):
    game_id, alice, bob = onyx
    first = alice.last
    assert first["Subject"] == f"[pbem] Onyx #{game_id}"
    assert re.fullmatch(rf"pbem\+{game_id}-1-[a-z2-7]{{16}}@pbem\.test", first["Reply-To"])
    assert first["Auto-Submitted"] == "auto-generated"
    assert first["References"] == f"<pbem.{game_id}@pbem.test>"
    assert "It is your turn (move #1)." in body(first)
    assert "It is your turn" in html(first)
    assert "Waiting for alice (move #1)." in body(bob.last)
    assert bob.last["Reply-To"] != first["Reply-To"]


def test_a_move_in_a_quoted_reply_is_played_and_both_players_hear_of_it(onyx):
    game_id, alice, bob = onyx
    count = len(alice.inbox)
    alice.reply("F6\n\n-- \nAlice\nSent from my phone")
    assert moves_of(game_id) == ["F6"]
    assert len(alice.inbox) == count  # a move that went in needs no mail of its own
    assert "#1 alice: F6" in body(bob.last)
    assert "It is your turn (move #2)." in body(bob.last)
    bob.reply("g5")  # any case; the canonical text is what is kept
    assert moves_of(game_id) == ["F6", "G5"]
    news = body(alice.last).split("Players:")[0]  # alice's next mail confirms hers
    assert "Since your last mail:\r\n  #1 You: F6\r\n  #2 bob: G5\r\n" in news


def test_loud_confirms_every_move_at_once(onyx):
    game_id, alice, bob = onyx
    alice.reply("loud")
    alice.reply("F6")
    assert "Done: F6" in body(alice.last) and "Waiting for bob (move #2)." in body(alice.last)


def test_an_illegal_move_is_answered_with_the_reason_and_changes_nothing(onyx):
    game_id, alice, bob = onyx
    before = len(bob.inbox)
    alice.reply("F6")
    bob.reply("F6")
    assert moves_of(game_id) == ["F6"]
    answer = body(bob.last)
    assert "Not played: F6" in answer and "F6" in answer.split("Not played: F6")[1]
    assert len(bob.inbox) == before + 2  # the news of F6, and the answer to the refusal


def test_a_move_out_of_turn_is_refused(onyx):
    game_id, alice, bob = onyx
    bob.reply("F6")
    assert moves_of(game_id) == []
    assert "Not played: F6" in body(bob.last)
    assert "not your turn" in body(bob.last).lower() or "to move" in body(bob.last).lower()


def test_a_forged_sender_with_a_real_token_gets_nothing_and_moves_nothing(onyx, players, sink):
    game_id, alice, bob = onyx
    (mallory,) = players("mallory")
    forged = mallory.compose("F6", to=alice.last["Reply-To"], subject="Re: x")
    count = len(sink.messages)
    mallory.send(forged)
    assert moves_of(game_id) == []
    assert mallory.inbox == []
    assert Inbound.get(Inbound.sender == "mallory@example.org").outcome.startswith("ignored")
    # alice hears of it at her own address, once (tests/test_refusals.py says more)
    assert [rcpt for rcpt, _ in sink.messages[count:]] == [["alice@example.org"]]
    assert "address add mallory@example.org" in body(alice.last)


def test_a_wrong_token_is_ignored(onyx, sink):
    game_id, alice, bob = onyx
    token = alice.last["Reply-To"]
    wrong = token.replace(token[-12], "a" if token[-12] != "a" else "b")
    count = len(sink.messages)
    alice.send(alice.compose("F6", to=wrong, subject="Re: x"))
    assert moves_of(game_id) == [] and len(sink.messages) == count


def test_a_token_in_capitals_still_works(onyx):
    """Some MTAs change the case of addresses; tokens are read case-insensitively."""
    game_id, alice, bob = onyx
    message = alice.compose("F6", to=alice.last["Reply-To"].upper(), subject="Re: x")
    alice.send(message)
    assert moves_of(game_id) == ["F6"]


def test_the_same_mail_delivered_twice_is_played_once(onyx):
    game_id, alice, bob = onyx
    sent = alice.reply("F6")
    replies = len(alice.inbox)
    alice.send(sent)
    assert moves_of(game_id) == ["F6"]
    assert len(alice.inbox) == replies
    assert Inbound.select().count() == 1


def test_an_html_only_reply_is_read(onyx):
    game_id, alice, bob = onyx
    message = alice.compose("", to=alice.last["Reply-To"], subject="Re: x")
    message.set_content("<html><body><div>F6</div><blockquote>It is your turn"
                        "</blockquote></body></html>", subtype="html")
    alice.send(message)
    assert moves_of(game_id) == ["F6"]


def test_an_auto_reply_is_never_answered(onyx, sink):
    game_id, alice, bob = onyx
    count = len(sink.messages)
    alice.reply("I am on holiday until Monday.", Auto_Submitted="auto-replied")
    assert len(sink.messages) == count and moves_of(game_id) == []


def test_a_reply_to_an_old_mail_is_refused_once_others_have_moved(onyx):
    game_id, alice, bob = onyx
    old = alice.last  # the position before F6 and bob's G5
    alice.reply("F6")
    bob.reply("G5")
    alice.reply("H7", to=old)
    assert moves_of(game_id) == ["F6", "G5"]
    assert "others have moved since" in body(alice.last)
    alice.reply("H7")  # answering the newest mail works
    assert moves_of(game_id) == ["F6", "G5", "H7"]


def test_the_move_number_guard_refuses_a_move_meant_for_another_position(onyx):
    game_id, alice, bob = onyx
    alice.reply("#2 F6")
    assert moves_of(game_id) == []
    assert "you wrote move #2, but the game is at move #1" in body(alice.last)
    alice.reply("#1 F6")
    assert moves_of(game_id) == ["F6"]


def test_several_lines_run_in_order_until_one_fails(onyx):
    game_id, alice, bob = onyx
    alice.reply("say good luck\nF6\nG5\nhistory", quote=False)
    answer = body(alice.last)
    assert moves_of(game_id) == ["F6"]
    assert "Done: say good luck" in answer and "Done: F6" in answer
    assert "Not played: G5" in answer
    assert "Not applied (after the failure above): history" in answer
    assert any("alice says: good luck" in body(m) for m in bob.inbox)


def test_say_is_kept_in_the_record_and_resign_ends_the_game_for_everyone(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nsay a quiet start")
    bob.reply("resign")
    game = Game.get_by_id(game_id)
    assert (game.status, game.result) == ("finished", "1-0")
    for player in (alice, bob):
        text = body(player.last)
        assert "Game over: bob resigned. Result: 1-0" in text
        assert "{alice: a quiet start}" in text
        assert '[Termination "bob resigned"]' in text
        assert "Checking the deal" not in text  # Onyx deals no cards
    assert "You won." in body(alice.last) and "You lost: alice won." in body(bob.last)
    record = parse_record(record_in(body(alice.last)))
    RecordGame.from_record(record).check_result(record)


def test_undo_needs_every_player_and_is_refused_after_the_next_move(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6")
    alice.reply("undo")
    assert "asks to take back move #1 (F6)" in body(bob.last)
    assert moves_of(game_id) == ["F6"]
    bob.reply("undo")
    assert moves_of(game_id) == []
    assert "It is your turn (move #1)." in body(alice.last)
    alice.reply("E5")
    alice.reply("undo")
    bob.reply("G5")  # a move instead of agreeing declines
    bob.reply("undo")
    assert moves_of(game_id) == ["E5", "G5"]


def test_commands_without_a_game_go_to_the_servers_address(onyx):
    game_id, alice, bob = onyx
    alice.write("games\nname Alice Liddell")
    answer = body(alice.last)
    assert f"#{game_id} Onyx (alice vs bob): It is your turn (move #1)." in answer
    assert "Your name is now Alice Liddell." in answer
    alice.reply("F6", to=alice.inbox[0])
    assert "#1 Alice Liddell: F6" in body(bob.last)


def test_an_oversized_mail_is_refused_with_a_clear_answer(onyx):
    game_id, alice, bob = onyx
    message = alice.compose("F6", to=alice.last["Reply-To"], subject="Re: x")
    message.add_attachment(b"\0" * 1_200_000, maintype="application", subtype="octet-stream",
                           filename="holiday.jpg")
    alice.send(message)
    assert moves_of(game_id) == []
    assert "the limit is 1,000,000" in body(alice.last)


def test_a_complete_game_by_mail_ends_with_the_record_for_everyone(onyx):
    """Onyx on a 6×6 board would be quicker, but the default 12×12 is what people play."""
    import random
    from pbem.play import Table
    game_id, alice, bob = onyx
    rng, seats = random.Random(5), {0: alice, 1: bob}
    while Game.get_by_id(game_id).status == "running":
        table = Table.load(game_id)
        assert table.game.plies < 400 and len(alice.inbox) + len(bob.inbox) < 1000, body(alice.last)
        (seat,) = table.to_act
        decision = rng.choice(table.engine.legal(table.state, seat))
        seats[seat].reply(table.engine.notation(table.state, seat, decision), quote=False)
    final = body(alice.last)
    assert "Game over:" in final and "Game over:" in body(bob.last)
    record = parse_record(record_in(final))
    assert len(record.moves) == Game.get_by_id(game_id).plies
    RecordGame.from_record(record).check_result(record)
    assert Outbox.select().where(Outbox.sent.is_null()).count() == 0


def test_the_unsubscribe_link_makes_a_player_quiet(onyx):
    """List-Unsubscribe points at the player's reply address with subject=quiet: a quiet
    player hears only when the game waits for them, or ends, and loses nothing."""
    game_id, alice, bob = onyx
    unsubscribe = bob.last["List-Unsubscribe"]
    assert unsubscribe == f"<mailto:{bob.last['Reply-To']}?subject=quiet>"
    message = bob.compose("", to=bob.last["Reply-To"], subject="quiet")
    bob.send(message)
    assert "only when it waits for you" in body(bob.last)
    alice.reply("F6")
    bob.reply("G5")
    count = len(bob.inbox)
    alice.reply("say nice move")  # a quiet player reads it in their next mail
    assert len(bob.inbox) == count
    alice.reply("H7")  # a turn that is now theirs, with everything since their last mail
    assert "It is your turn" in body(bob.last) and len(bob.inbox) == count + 1
    assert "alice says: nice move" in body(bob.last) and "#3 alice: H7" in body(bob.last)
    bob.reply("loud\nI8")
    alice.reply("board")  # no move: nothing for bob
    assert len(bob.inbox) == count + 2
