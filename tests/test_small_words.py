"""Small words in mail (#35 item 7), each through real SMTP on loopback with the mail's
literal text: what an answer says must be what was done, in the player's words.
"""

from mailtest import body
from test_annotate_by_mail import MOVES, annotated


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
