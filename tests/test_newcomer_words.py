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
