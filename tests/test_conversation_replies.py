"""The small things of the conversation, each as literal mail: an invitation answered in
plain words, a move sent to a finished game, a signature under a move, the record of the
end mail with its comments, a player's second address, and `help` written from the one
table of commands."""

from pathlib import Path

from mailtest import body, record_in
from pbem.commands.catalogue import COMMANDS, readme_table
from pbem.store import Address, Game, Inbound, Move

README = Path(__file__).resolve().parent.parent / "README.md"


def moves_of(game_id):
    return [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def invited(players, answer):
    carol, bob = players("carol", "bob")
    carol.write("new onyx with bob@example.org")
    carol.reply("yes, that was me")
    bob.reply(answer)
    return carol, bob, Game.get()


def test_sure_count_me_in_accepts(players):
    carol, bob, game = invited(players, "Sure, count me in!")
    assert Game.get_by_id(game.id).status == "running"
    assert f"Game #{game.id} has started" in body(bob.last)


def test_sorry_i_cant_declines(players):
    carol, bob, game = invited(players, "Sorry, I can't this month")
    assert Game.get_by_id(game.id).status == "cancelled"
    assert "bob declined the invitation" in body(carol.last)


def test_an_unclear_answer_asks_for_accept_or_decline(players):
    carol, bob, game = invited(players, "Who is this?")
    assert Game.get_by_id(game.id).status == "inviting"
    assert "write `accept` or `decline`" in body(bob.last)


def test_a_move_to_a_finished_game_says_it_is_over(onyx):
    game_id, alice, bob = onyx
    old = alice.last
    alice.reply("F6")
    bob.reply("resign")
    alice.reply("G7", to=old)  # an old mail of the game
    answer = body(alice.last)
    assert f"game #{game_id} is over: bob resigned (1-0). You won." in answer
    assert "others have moved since" not in answer


def test_a_signature_without_a_blank_line_is_talk_not_a_failed_command(onyx):
    game_id, alice, bob = onyx
    alice.reply("C3\nCheers\nAlice", quote=False)
    assert moves_of(game_id) == ["C3"]
    answer = body(alice.last)
    assert "Not played" not in answer
    assert "Read as talk, not as commands (nothing was done with it): Cheers / Alice" in answer
    assert "#1 alice: C3" in body(bob.last)


def test_a_second_move_out_of_turn_is_still_a_failed_move(onyx):
    game_id, alice, bob = onyx
    alice.reply("C3\nD5", quote=False)  # D5 is notation: bob's turn, so it fails
    assert moves_of(game_id) == ["C3"]
    assert "Not played: D5" in body(alice.last)


def test_the_end_mail_record_keeps_the_comments(onyx):
    game_id, alice, bob = onyx
    alice.reply("say good luck")
    alice.reply("F6")
    bob.reply("say thanks, you too\nG5", quote=False)
    alice.reply("resign")
    record = record_in(body(bob.last))
    assert "{alice: good luck}" in record and "{bob: thanks, you too}" in record


def test_a_second_address_counts_once_it_has_confirmed(onyx, players, sink):
    game_id, alice, bob = onyx
    (work,) = players("alice.smith")  # alice at work: alice.smith@example.org
    turn = alice.last
    count = len(sink.messages)
    work.send(work.compose("F6", to=turn["Reply-To"], subject="Re: x"))
    assert moves_of(game_id) == [] and work.inbox == []  # no backscatter
    (told,) = sink.messages[count:]  # alice, at her own address, once a day at most
    assert told[0] == ["alice@example.org"] and "address add alice.smith@example.org" in \
        body(told[1])
    alice.write("address add alice.smith@example.org")
    assert "A mail went to alice.smith@example.org" in body(alice.last)
    request = work.last
    assert request["Subject"] == "[pbem] is this your address?"
    work.reply("yes, it's me")
    assert Address.get(Address.email == "alice.smith@example.org").confirmed
    work.send(work.compose("F6", to=turn["Reply-To"], subject="Re: x"))
    assert moves_of(game_id) == ["F6"]
    alice.write("address")
    assert "Also yours: alice.smith@example.org." in body(alice.last)


def test_a_stranger_cannot_confirm_someone_elses_second_address(onyx, players):
    game_id, alice, bob = onyx
    (work, mallory) = players("alice.smith", "mallory")
    alice.write("address add alice.smith@example.org")
    request = work.last
    forged = mallory.compose("yes", to=request["Reply-To"], subject="Re: x")
    mallory.send(forged)
    assert not Address.get(Address.email == "alice.smith@example.org").confirmed
    assert Inbound.get(Inbound.sender == "mallory@example.org").outcome.startswith("ignored")


def test_help_lists_every_command_of_the_table_by_topic(players):
    (alice,) = players("alice")
    alice.write("help")
    alice.reply("yes")  # the confirmation; then the help
    answer = body(alice.last).replace("\r\n", "\n")
    for command in COMMANDS:
        assert f"  {command.usage} — {command.help}" in answer
    assert "In a game (in a game's reply):" in answer and "How much mail:" in answer


def test_the_readme_lists_the_commands_as_the_table_does():
    assert readme_table() in README.read_text()


def test_mails_name_the_players_beside_their_seats(mail_server, players):
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    ann, ben, cat = players("ann", "ben", "cat")
    start_game(mail_server, ENGINES["onix"], {}, [ann.address, ben.address, cat.address])
    start_game(mail_server, ENGINES["baronoxx"], {}, [ann.address, ben.address, cat.address])
    deliver_due(mail_server)
    onix, oxx = (body(m).replace("\r\n", "\n") for m in ann.inbox[-2:])
    assert "Players: P1 ann (you), P2 ben, P3 cat" in onix
    assert "P1 ann (you)    0  " in onix and "P2 ben          0  " in onix
    assert "Players: #1 ann (you), #2 ben, #3 cat" in oxx
    assert "Seat        hand  deck  pile  bullheads\n#1 ann you     4 " in oxx


def test_the_end_of_a_game_names_the_players_in_the_engines_words():
    from types import SimpleNamespace
    from pbem.engines import ENGINES
    from pbem.vocabulary.words import with_names
    table = SimpleNamespace(names=["ann", "ben", "cat"], engine=ENGINES["baronoxx"],
                            state=None)
    assert (with_names(table, "the lowest score: #1 32, #2 28, #3 40")
            == "the lowest score: #1 ann 32, #2 ben 28, #3 cat 40")
    table.engine = ENGINES["onix"]
    assert with_names(table, "P3 wins with 42 points; P1 38") == \
        "P3 cat wins with 42 points; P1 ann 38"
