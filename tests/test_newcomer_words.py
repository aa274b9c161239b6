"""Words that mislead a newcomer (#42 item 4), each read in real mail over SMTP on
loopback: the names people type for a game, `help`'s player counts, and more below.
"""

import re

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
    from pbem.operator.admin import start_game
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


def test_one_subject_for_the_whole_game_while_names_change(players):
    """An invitation went to "carol"; she names herself "Carol Chen" and accepts: the
    thread's subject stays the same (a changed subject splits the thread in Gmail)."""
    alice, = players("alice")
    carol, = players("carol")
    confirmed(alice)
    alice.write("new onyx with carol@example.org")
    invitation = carol.last
    carol.reply("name Carol Chen\naccept", to=invitation)
    subjects = {m["Subject"] for m in alice.inbox + carol.inbox if "Onyx #" in m["Subject"]}
    assert subjects == {"[pbem] Onyx #1"}, subjects
    assert "White Carol Chen" in text(alice.last)


def test_a_spectators_end_mail_offers_no_unfollow(onyx, players):
    game_id, alice, bob = onyx
    carol, = players("carol")
    confirmed(carol)
    carol.write(f"follow {game_id}")
    alice.reply("F6")
    assert f"To stop: write `unfollow {game_id}`" in text(carol.last)
    bob.reply("resign")
    end = text(carol.last)
    assert "The game is over" in end and "This is the last mail you get of it." in end
    assert "unfollow" not in end


def test_undo_says_which_move_it_would_take_back(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6")
    alice.reply("undo", to=alice.inbox[0])
    said = text(alice.last)
    assert ("Undo asked: to take back move #1 (F6); waiting for the others to agree."
            in said), said


def test_a_move_played_from_your_lines_says_so(onyx):
    game_id, alice, bob = onyx
    alice.reply("F6\nif G5 H4")
    bob.reply("G5")
    bob.reply("C3")  # alice has no line left: she is asked, with the news
    news = body(alice.last).replace("\r\n", "\n")
    assert "#3 You: H4 (from your lines)\n" in news, news
    assert "#4 bob: C3\n" in news


def test_onix_news_tells_the_hoard_and_names_the_reader_as_you(config):
    """A Collection completed at a turn's end vanished into the Hoard with no word; and
    P1 read "steal P1 3 -> 4" about themselves. The news (the words of the seat's next
    mail and of its page) now says both."""
    import random
    from pbem.engines.base import CHANCE
    from pbem.play import Table
    from pbem.policy import conversation
    from pbem.store import transaction
    from webgames import start
    game_id = start(config, "onix", ["ann", "ben", "cat"], seed="hoard-news")
    rng = random.Random("hoard-news")
    for _ in range(300):
        with transaction():
            table = Table.load(game_id)
            if table.game.status != "running":
                break
            seat = rng.choice(sorted(table.to_act - {CHANCE}))
            engine = table.engine
            table.play(seat, engine.notation(table.state, seat,
                                             engine.random_decision(table.state, seat, rng)))
    news = "\n".join(conversation.news(Table.load(game_id), 0, advance=False))
    assert "'s Collection" in news and "goes to the Hoard (Hoard " in news, news
    stolen = [line for line in news.splitlines() if "steal P1" in line]
    assert stolen and all("steal P1 (you)" in line for line in stolen), stolen


def test_after_a_resignation_the_end_mail_says_nobody_is_to_move(onyx):
    from mailtest import html
    game_id, alice, bob = onyx
    alice.reply("F6")
    bob.reply("resign")
    end = alice.last
    alt = re.search(r'alt="([^"]*)"', html(end)).group(1)
    assert "to move" not in alt and "last move F6" in alt, alt
    assert "to move." not in body(end)
