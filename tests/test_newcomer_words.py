"""Words that mislead a newcomer (#42 item 4), each read in real mail over SMTP on
loopback: the names people type for a game, `help`'s player counts, and more below.
"""

import pytest

from mailtest import body
from pbem.store import Game, Player


def text(message) -> str:
    return " ".join(body(message).split())


def confirmed(person):
    """A person who wrote once and confirmed their address."""
    person.write("games")
    person.reply("yes")
    assert Player.get(Player.email == person.address).confirmed
    return person


@pytest.mark.parametrize("name, engine", [
    ("6nimmt", "baronoxx"), ("6-nimmt", "baronoxx"), ("6 nimmt!", "baronoxx"),
    ("6 nimmt! Baron Oxx", "baronoxx"), ("gem-forge", "gemforge"), ("Gem Forge", "gemforge"),
])
def test_the_names_people_type_start_the_game(players, name, engine):
    alice, = players("alice")
    confirmed(alice)
    alice.write(f"new {name} with bob@example.org carol@example.org")
    assert "invitations went to bob@example.org, carol@example.org" in text(alice.last)
    assert Game.get().engine == engine


def test_help_and_the_refusal_name_the_games_as_people_type_them(players):
    alice, = players("alice")
    confirmed(alice)
    alice.write("help")
    said = text(alice.last)
    assert "onyx (Onyx, 2 players)" in said and "2-2" not in said
    assert "baronoxx (6 nimmt! Baron Oxx, 2-10 players; also 6nimmt)" in said
    assert "gemforge (Gem Forge, 2-4 players; also gem-forge)" in said
    alice.write("new sixnimmt with bob@example.org")
    said = text(alice.last)
    assert "unknown game 'sixnimmt'" in said
    assert "baronoxx (6 nimmt! Baron Oxx, 2-10 players; also 6nimmt)" in said


def test_a_reply_to_an_old_mail_out_of_turn_says_whose_turn_it_is(onyx):
    game_id, alice, bob = onyx
    first = alice.last
    alice.reply("F6", to=first)
    bob.reply("G5")
    alice.reply("E7")
    alice.reply("D4", to=first)  # the first mail again: two moves old, and not her turn
    said = text(alice.last)
    assert ("you answered the mail of move #1, but others have moved since; it is not your "
            "turn now (waiting for bob (move #4)); your next mail comes when it is your "
            "turn.") in said
    assert "send again" not in said


def test_a_mail_to_a_player_who_only_waits_asks_for_no_move(onyx):
    game_id, alice, bob = onyx
    start = text(bob.last)  # White's first mail: Black moves first
    assert "Waiting for alice (move #1)." in start
    assert "How to reply: no move is needed from you now" in start
    assert "answer this mail with your move" not in start and "YOUR-MOVE" not in start
    assert "How to reply: answer this mail with your move on the first line" in text(alice.last)


def test_a_gem_forge_count_of_one_is_one_card():
    from pbem.engines import ENGINES
    engine = ENGINES["gemforge"]
    view = engine.view(engine.start({}, 2, seed="one card"), None)
    view["hand_sizes"] = [1, 2]
    drawn = engine.svg_diagram(view, size=480)
    assert "1 card<" in drawn and "2 cards<" in drawn and "1 cards" not in drawn
    assert "1 card," in engine.text_diagram(view) and "1 cards" not in engine.text_diagram(view)


def test_commas_between_decisions_in_6_nimmt(mail_server, players):
    """`take 3, play 49` is two decisions, as in Onix; `row 2,4` stays one (a preference)."""
    import random
    from pbem.admin import start_game
    from pbem.engines import ENGINES
    from pbem.engines.base import CHANCE
    from pbem.play import Table
    from pbem.policy.delivery import deliver_due
    from pbem.store import Move, transaction
    engine = ENGINES["baronoxx"]
    ann, ben = players("ann", "ben")
    game_id = start_game(mail_server, engine, {}, [ann.address, ben.address], seed="commas")
    deliver_due(mail_server)
    rng = random.Random("commas")
    while True:  # the players choose until one of them is asked which row to take
        with transaction():
            table = Table.load(game_id)
            seat = min(table.to_act - {CHANCE})
            asked = [engine.notation(table.state, seat, d)
                     for d in engine.legal(table.state, seat)]
            if asked[0].startswith(("take", "row")):
                break
            table.play(seat, engine.notation(table.state, seat,
                                              engine.random_decision(table.state, seat, rng)))
    deliver_due(mail_server)
    person = (ann, ben)[seat]
    hand = engine.view(table.state, seat)["hand"]
    person.reply(f"{asked[0]}, play {hand[-1]}", to=person.last)
    said = text(person.last)
    assert "write row and one row number" not in said and "write take" not in said
    assert Move.select().where((Move.game == game_id) & (Move.text == asked[0])).exists(), said
