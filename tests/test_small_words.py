"""Small words in mail (#35 item 7), each through real SMTP on loopback with the mail's
literal text: what an answer says must be what was done, in the player's words.
"""

from mailtest import body, html
from test_annotate_by_mail import MOVES, annotated
from test_mail_gemforge import forge  # noqa: F401 (a fixture)


def words(message) -> str:
    return " ".join(body(message).split())


def test_a_record_right_under_annotate_is_the_annotation_not_talk(onyx):
    game_id, alice, bob = onyx
    for person, move in zip([alice, bob] * 2, MOVES):
        person.reply(move)
    bob.reply("resign")
    alice.write(f"annotate {game_id}\n{annotated(game_id)}")  # no blank line: Apple Mail
    answer = words(alice.last)
    assert (f"Done: annotate {game_id} Your annotation of game #{game_id} is published as "
            f"annotation 1: http://127.0.0.1:0/games/{game_id}/annotated/1") in answer
    assert "Read as talk" not in answer and '[Event "Club night"]' not in answer
    bob.reply(f"annotate\n{annotated(game_id)}", quote=False)  # in the game's own reply
    answer = words(bob.last)
    assert "published as annotation 2" in answer
    assert "Read as talk" not in answer and '[Event "Club night"]' not in answer


def test_mail_before_the_game_starts_or_after_a_decline_asks_for_no_move(players):
    carol, bob, dan = players("carol", "bob", "dan")
    carol.write("new onix with bob@example.org dan@example.org")
    carol.reply("yes, that was me")
    bob.reply("accept")
    accepted = body(bob.last)
    assert "You accepted. The game starts when everyone has." in accepted
    assert "write the move number too" not in accepted and "YOUR-MOVE" not in accepted
    assert "YOUR-MOVE" not in html(bob.last) and "nothing to send now" in html(bob.last)
    assert ("How to reply: nothing to send now; the game's first mail says what to play "
            "once everyone has accepted.") in " ".join(accepted.split())
    dan.reply("decline")
    for person in (carol, bob, dan):
        told = body(person.last)
        assert "dan declined the invitation" in told or "Done: decline" in told, told
        assert "YOUR-MOVE" not in told and "How to reply" not in told
        assert "YOUR-MOVE" not in html(person.last)
        assert "This game was cancelled: nothing more is played in it." in told


def test_a_refused_move_is_quoted_whole_in_the_answer(forge):
    game_id, (active, other) = forge
    other.reply("take", quote=False)  # not their turn
    answer = body(other.last)
    assert ("Not played: take\n  'take': nothing is asked of you now: the game waits for "
            in answer.replace("\r\n", "\n")), answer


def test_a_second_address_confirmed_is_told_to_the_player(onyx, players, sink):
    game_id, alice, bob = onyx
    (work,) = players("alice.smith")
    alice.write("address add alice.smith@example.org")
    count = len(sink.messages)
    work.reply("yes, it's me")
    (told,) = sink.messages[count:]
    assert told[0] == ["alice@example.org"]
    assert told[1]["Subject"] == "[pbem] alice.smith@example.org is one of your addresses"
    assert ("alice.smith@example.org answered: mail from it now counts as yours, in "
            "every game. Your game mail still comes to alice@example.org; `address "
            "remove alice.smith@example.org` undoes it.") in words(told[1])


def test_an_undo_names_the_move_as_written_and_keeps_its_comment_with_it(onyx):
    from mailtest import record_in
    game_id, alice, bob = onyx
    alice.reply("c3\nsay my first move")
    bob.reply("undo")
    assert "bob asks to take back move #1 (C3)." in body(alice.last)
    alice.reply("undo")
    assert body(bob.last).startswith("Move #1 (C3) was taken back: all players agreed.")
    assert "Move #1 (C3) was taken back." in body(alice.last)
    alice.reply("d4")
    bob.reply("resign")
    assert record_in(body(bob.last)).endswith(
        '\n{alice: my first move (said after move #1, C3, which was taken back)} '
        '1. D4 1-0\n')


# -- where a user looks: the limits a reply would refuse are written down ---------------

def test_the_onyx_guide_says_which_boards_need_the_open_setup():
    from pathlib import Path

    from pbem.engines import ENGINES
    from pbem.engines.base import OptionError
    onyx = ENGINES["onyx"]
    refused = []
    for size in range(6, 27, 2):
        try:
            onyx.check_options(onyx.resolve_options({"board": str(size)}))
        except OptionError:
            refused.append(size)
    assert refused == [6, 10, 14, 18, 22, 26]
    root = Path(__file__).parent.parent
    guide = " ".join((root / "notation" / "onyx.md").read_text().split())
    assert ("The standard setup exists only on boards whose size is a multiple of 4 (8, 12, "
            "16, 20, 24); a board of 6, 10, 14, 18, 22 or 26 needs `setup=open`, an empty "
            "board: `new onyx with bob@example.org board=6 setup=open`.") in guide
    readme = " ".join((root / "README.md").read_text().split())
    assert "`board=6` needs `setup=open`" in readme


def test_the_readme_names_the_tournaments_limits(players):
    from pathlib import Path

    from pbem.commands.tournaments import MAX_PLAYERS, MAX_ROUNDS
    readme = " ".join((Path(__file__).parent.parent / "README.md").read_text().split())
    assert (f"A tournament has 2 to {MAX_PLAYERS} players (at least a table's worth: "
            f"`table=5` needs 5), all people: bots do not play tournaments. A Swiss "
            f"tournament has 1 to {MAX_ROUNDS} rounds") in readme
    (ann,) = players("ann")
    ann.write("new tournament onyx round-robin with ann@example.org bot:hard")
    ann.reply("yes, it is me")
    assert "bots do not play tournaments; name people's addresses." in words(ann.last)


def test_a_refused_queued_card_is_quoted_whole(mail_server, players):
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    alice, bob = players("alice", "bob")
    start_game(mail_server, ENGINES["baronoxx"], {}, [alice.address, bob.address],
               seed="queue")
    deliver_due(mail_server)
    alice.reply("next 33 lots", quote=False)
    assert "Not played: next 33 lots\n  `next 33 lots`: 'play lots': write play " in (
        body(alice.last).replace("\r\n", "\n")), body(alice.last)


def test_a_move_the_server_played_goes_back_with_its_mark(mail_server, players, frozen_time):
    from mailtest import record_in
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    from test_timeouts import tick
    alice, bob = players("alice", "bob")
    start_game(mail_server, ENGINES["onyx"], {"time": "1d", "timeout": "auto"},
               [alice.address, bob.address], seed="clock")
    deliver_due(mail_server)
    frozen_time.move(days=1)
    assert tick(mail_server) == 1  # AB23 for alice, marked `automatic: time ran out`
    alice.reply("say oops\nundo")
    bob.reply("undo")
    alice.reply("F6")
    bob.reply("resign")
    assert record_in(body(bob.last)).endswith(
        "\n{alice: oops (said after move #1, AB23, which was taken back)} 1. F6 1-0\n")
