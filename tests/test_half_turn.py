"""Half a turn is answered (#35 item 1): when a player's mail is carried out and the game
still waits for that same player (the rest of an Onix turn, Gem Forge's second action,
the tile to pick after cashing), the answer goes out at once, in every mail setting:
what was done, then the prompt of now, with the current move number and examples legal
now. It is the mail of the same wait: nothing in it is told again. Every prompt of a
turn of several decisions says first what a whole turn looks like.

Real SMTP on loopback; seeded games, literal decisions and literal mail.
"""

import pytest

from conversation import news_lines
from mailtest import body
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.play import Table
from pbem.policy.delivery import deliver_due
from pbem.store import Game, Player, Seat

ONIX_TURN = ("(a turn is: take a Gem, place each card you took, apply the Gem's effect; a "
             "whole turn may go on one line, the decisions separated by commas)")
FORGE_TURN = ("(a turn is two actions, take, set, discard, draw or play; complete tiles "
              "cashed any time, each replaced by pick or refresh; then end; one mail may "
              "carry it all, a decision a line)")


def text(message) -> str:
    return body(message).replace("\r\n", "\n")


def prompt_of(message) -> str:
    """The line under the clock: what the game asks of the reader now."""
    lines = text(message).split("\n")
    return lines[next(i for i, line in enumerate(lines) if line.startswith("Time: ")) + 1]


def setting(game_id: int, person, word: str) -> None:
    if word == "digest":
        Player.update(digest=True).where(Player.email == person.address).execute()
    else:
        Seat.update(mail=word).where((Seat.game == game_id) & (Seat.player == Player.get(
            Player.email == person.address))).execute()


@pytest.mark.parametrize("mail", ["normal", "quiet", "digest"])
def test_an_onix_take_is_answered_with_the_placement_prompt(mail_server, players, mail):
    ann, ben, cat = players("ann", "ben", "cat")
    game_id = start_game(mail_server, ENGINES["onix"], {}, [ann.address, ben.address,
                                                          cat.address], seed="half")
    deliver_due(mail_server)
    setting(game_id, ann, mail)
    first = ann.last
    assert prompt_of(first) == (
        f"Your turn {ONIX_TURN}. Choose a visible Gem and a pile, for example take O B, "
        f"take S D, take D A.")
    assert "write the move number too: `#2 YOUR-MOVE`" in " ".join(text(first).split())
    ann.unread()
    ann.reply("take O B", to=first)
    (answer,) = ann.unread()
    assert text(answer).startswith("Done: take O B\n")
    assert news_lines(answer) == ["#2 You: take O B"]  # the news since the last, once
    assert "It is your turn (move #3)." in text(answer)
    assert prompt_of(answer) == (
        f"Your turn goes on {ONIX_TURN}. Place the cards you took: B (O), each on a "
        f"Collection or a new one, for example place B -> 2, place B -> 3, place B -> 4.")
    assert "write the move number too: `#3 YOUR-MOVE`" in " ".join(text(answer).split())
    assert len(ben.unread()) == len(cat.unread()) == 1  # only their first mails
    ann.reply("#3 place B -> 2", to=answer)  # the guard the answer named is the current one
    (effect,) = ann.unread()
    assert news_lines(effect) == ["#3 You: place B -> 2"]
    assert "It is your turn (move #4)." in text(effect)
    assert prompt_of(effect) == (
        f"Your turn goes on {ONIX_TURN}. Apply the Draw effect: for example draw A -> 1, "
        f"draw B -> new, draw D -> 3.")
    ann.reply("#4 draw A -> 1", to=effect)
    assert 0 not in Table.load(game_id, lock=False).to_act  # her turn is over
    assert ann.unread() == []  # the end of a turn is no mail: her next one brings it
    assert "It is your turn" in text(ben.last)
    assert "#2-4 ann: take O B; place B -> 2; draw A -> 1" in news_lines(ben.last)


def test_the_rest_of_a_turn_is_no_mail_after_a_whole_turn_in_one(mail_server, players):
    ann, ben, cat = players("ann", "ben", "cat")
    game_id = start_game(mail_server, ENGINES["onix"], {}, [ann.address, ben.address,
                                                          cat.address], seed="half")
    deliver_due(mail_server)
    ann.unread()
    ann.reply("take O B, place B -> 2, draw A -> 1")  # her whole turn in one line
    assert 0 not in Table.load(game_id, lock=False).to_act
    assert ann.unread() == []  # it went in: confirmed in her next mail
    assert "It is your turn" in text(ben.last)


# Two players, seed "forge": a game's first 22 decisions, one a mail; then ann's turn.
FORGE_OPENING = [
    (0, "keep T16 T05 T23"), (1, "keep T30 T15 T34"), (0, "set R T16"), (0, "take"),
    (1, "set L T15"), (1, "draw"), (0, "set L T05"), (0, "take"), (1, "take"),
    (1, "discard Y"), (0, "draw"), (0, "discard R"), (1, "take"), (1, "take"), (0, "take"),
    (0, "take"), (1, "set R T34"), (1, "discard Y"), (0, "discard Y"), (0, "take"),
    (1, "draw"), (1, "take")]


def test_gem_forge_a_first_action_and_a_cashing_set_are_answered(mail_server, players):
    ann, ben = players("ann", "ben")
    game_id = start_game(mail_server, ENGINES["gemforge"], {}, [ann.address, ben.address],
                         seed="forge")
    deliver_due(mail_server)
    people = [ann, ben]
    for seat, decision in FORGE_OPENING:
        people[seat].reply(decision, quote=False)
    turn = ann.last
    assert prompt_of(turn) == (f"Your turn, action 1 of 2 {FORGE_TURN}. For example: "
                               f"take, set L T16, discard L, draw.")
    ann.unread()
    ann.reply("take", to=turn)
    (second,) = ann.unread()
    assert text(second).startswith("Done: take\n")
    assert news_lines(second) == ["#27 You: take"]
    assert "It is your turn (move #28)." in text(second)
    assert prompt_of(second) == (f"Your turn, action 2 of 2 {FORGE_TURN}. For example: "
                                 f"set G T16, set G T23, discard G, draw.")
    ann.reply("#28 set G T05", to=second)  # completes brown T05: the server cashes it
    (pick,) = ann.unread()
    assert news_lines(pick) == ["#28 You: set G T05"]
    assert "P1 sets G in T05; P1 cashes T05 for 2 points;" in text(pick)
    assert "It is your turn (move #29)." in text(pick)
    assert prompt_of(pick) == (
        f"Your turn goes on {FORGE_TURN}. Take a market tile for the one you cashed: pick "
        f"1 to 4, or refresh N (discard market tile N and take the tile deck's top one).")
    ben_mails = len(ben.inbox)
    ann.reply("#29 pick 2", to=pick)
    assert 0 not in Table.load(game_id, lock=False).to_act
    assert ann.unread() == []  # her turn is over
    assert len(ben.inbox) == ben_mails + 1 and "It is your turn" in text(ben.last)
