"""The result belongs to the player, whatever colour they ended with (issue: after an Onyx
swap the web credited the loser). One literal game, checked on every surface: the game
page, the index, both player pages, the print page, the record and SGF downloads, and
the game-end mail.

ann places C3 as Black; ben swaps, so ben owns the black stone and ann plays White; ann
plays A1; ben resigns. ann has won, as White: the token is `0-1` (by colour).
"""

import re

import pytest

from mailtest import body, record_in
from notation.record import parse_record
from pbem.engines.game import Game as RecordGame
from pbem.store import Player, Seat
from webgames import address, play, resign, start


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


@pytest.fixture
def swapped(config):
    game_id = start(config, "onyx", ["ann", "ben"], board=6, setup="open")
    play(game_id, (0, "C3"), (1, "swap"), (0, "A1"))
    resign(game_id, 1)
    return game_id


def words(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    html = response.get_data(as_text=True)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def player_id(name):
    return Player.get(Player.email == address(name)).id


def test_the_seats_keep_their_shares(swapped):
    shares = {s.number: s.share for s in Seat.select().where(Seat.game == swapped)}
    assert shares == {0: "1", 1: "0"}


def test_the_game_page_and_the_index_credit_ann(client, swapped):
    assert "0-1, ann won (ben resigned)" in words(client, f"/games/{swapped}")
    assert "finished: 0-1 (ann won)" in words(client, "/games")
    assert "finished: 0-1 (ann won)" in words(client, f"/games?player={player_id('ben')}")


def test_the_player_pages_say_ann_won_and_ben_lost(client, swapped):
    assert "1 finished game: 1 won, 0 shared, 0 lost." in words(
        client, f"/players/{player_id('ann')}")
    ben = words(client, f"/players/{player_id('ben')}")
    assert "1 finished game: 0 won, 0 shared, 1 lost." in ben
    assert "(ann won) lost" in ben


def test_the_record_and_the_sgf_say_white_won_and_ann_played_white(client, swapped):
    record = parse_record(client.get(f"/games/{swapped}.txt").get_data(as_text=True))
    assert record.tag("Black") == "ann" and record.result == "0-1"  # by colour, as documented
    game = RecordGame.from_record(record)
    assert game.engine.seat_label(game.state, 0) == "White"  # ann ended as White
    sgf = client.get(f"/games/{swapped}.sgf").get_data(as_text=True)
    assert "PB[ben]" in sgf and "PW[ann]" in sgf and "RE[W+R]" in sgf


def test_the_print_page_credits_ann(client, swapped):
    page = words(client, f"/games/{swapped}/print")
    assert "Result 0-1: ann won" in page
    assert "Black ann (played White) White ben (played Black)" in page


def test_the_end_mail_tells_each_player_their_own_result(players, mail_server):
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    ann, ben = players("ann", "ben")
    start_game(mail_server, ENGINES["onyx"], {"board": "6", "setup": "open"},
               [ann.address, ben.address])
    deliver_due(mail_server)
    assert "You are Black: connect rows 1 and 6 (top and bottom)." in body(ann.last)
    ann.reply("C3")
    assert "Or `swap`: take over Black's first stone" in body(ben.last)
    ben.reply("swap")
    assert "You are White since the swap: connect columns A and F" in body(ann.last)
    assert "#2 ben: swap" in body(ann.last)
    ann.reply("A1")
    ben.reply("resign")
    assert "You won." in body(ann.last)
    assert "You lost: ann won." in body(ben.last)
    record = parse_record(record_in(body(ann.last)))
    assert record.result == "0-1"


# -- the record names the colours after the swap and the winner (#35 item 5) -------------

BOB_CONNECTS = ["A1", "C1", "A2", "C2", "A3", "C4", "A4", "C5", "A5", "C6"]


def test_after_a_swap_every_record_names_the_colours_and_the_winner(
        players, mail_server, monkeypatch, capsys):
    """Alice Martin places C3 as Black, bob swaps and joins rows 1 and 6 with the black
    stones: the end mail's record, the `.txt`, the `.sgf` and `pbem export` all say bob
    played Black from the swap on and won, beside the result by colour (1-0)."""
    from pbem.operator.admin import start_game
    from pbem.cli import main
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    from pbem.web import create_app
    alice, bob = players("alice", "bob")
    game_id = start_game(mail_server, ENGINES["onyx"], {"board": "6", "setup": "open"},
                         [alice.address, bob.address])
    deliver_due(mail_server)
    alice.reply("name Alice Martin\nC3")
    bob.reply("swap")
    for number, move in enumerate(BOB_CONNECTS):
        (alice if number % 2 == 0 else bob).reply(move)
    assert "You won." in body(bob.last)
    mailed = record_in(body(alice.last))
    assert "You lost: bob won." in body(alice.last)
    tags = ('[Black "Alice Martin"]\n[White "bob"]\n[BlackAfterSwap "bob"]\n'
            '[WhiteAfterSwap "Alice Martin"]\n[Winner "bob"]\n[Result "1-0"]\n')
    assert tags in mailed
    client = create_app(mail_server).test_client()
    assert client.get(f"/games/{game_id}.txt").get_data(as_text=True) == mailed
    sgf = client.get(f"/games/{game_id}.sgf").get_data(as_text=True)
    assert "PB[bob]" in sgf and "PW[Alice Martin]" in sgf and "RE[B+]" in sgf
    monkeypatch.setenv("PBEM_DATABASE_URL", mail_server.database_url)
    monkeypatch.setenv("PBEM_SECRET_KEY", "test-secret-key")
    capsys.readouterr()
    assert main(["export", str(game_id)]) == 0
    assert capsys.readouterr().out == mailed
    assert parse_record(mailed).tag("Winner") == "bob"  # and it reads back


def test_a_resignation_after_a_swap_names_the_winner_too(config):
    game_id = start(config, "onyx", ["ann", "ben"], board=6, setup="open")
    play(game_id, (0, "C3"), (1, "swap"), (0, "A1"))
    resign(game_id, 0)  # ann, White since the swap, gives up: ben's black stones win
    from pbem.export.record import record_text
    from pbem.play import Table
    text = record_text(Table.load(game_id))
    assert ('[BlackAfterSwap "ben"]\n[WhiteAfterSwap "ann"]\n[Winner "ben"]\n'
            '[Termination "ann resigned"]\n[Result "1-0"]\n') in text


def test_the_game_page_names_each_seats_colour_after_the_swap(client, swapped):
    """#42: "Players: Black ann, White ben" beside "ann won" read as if Black had won."""
    page = words(client, f"/games/{swapped}")
    assert "Players White ann , Black ben" in page
    assert "Black ann" not in page and "White ben" not in page
    assert "0-1, ann won (ben resigned)" in page  # 0-1: White won, and ann is White


def test_the_api_names_each_seats_colour_after_the_swap(client, swapped, config):
    """#42: the API's players said `Black` for ann after the swap, in the game's own entry
    and in the index; a game without a swap keeps Black and White."""
    unswapped = start(config, "onyx", ["cat", "dan"], board=6, setup="open")
    play(unswapped, (0, "C3"), (1, "A1"))
    after = [{"label": "White", "name": "ann"}, {"label": "Black", "name": "ben"}]
    before = [{"label": "Black", "name": "cat"}, {"label": "White", "name": "dan"}]

    def labels(entry):
        return [{"label": p["label"], "name": p["name"]} for p in entry["players"]]
    assert labels(client.get(f"/api/games/{swapped}").get_json()) == after
    assert labels(client.get(f"/api/games/{unswapped}").get_json()) == before
    index = {g["id"]: labels(g) for g in client.get("/api/games").get_json()["games"]}
    assert index == {swapped: after, unswapped: before}
    index = client.get(f"/api/games?player={player_id('ben')}").get_json()["games"]
    assert [labels(g) for g in index] == [after]
