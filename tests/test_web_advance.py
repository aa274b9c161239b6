"""Moves in advance on a seat's page (#32 item 5), through Flask's test client with plain
HTML (no JavaScript): Onyx's lines built by clicking (the opponent's move, then the
answer, each position drawn), kept through the same path as mail (the page posts the
`if` text), shown as a tree and removed a branch at a time; 6 nimmt!'s queued cards shown
and cleared. Nobody else's page shows any of it.

Onyx 12×12: alice (Black) played F6, so bob is to move and alice may build lines.
"""

import html
import re

import pytest

from pbem.vocabulary.tokens import play_token
from pbem.store import Move
from pbem.store.models import Condition
from webgames import play, start


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


def link(config, game_id: int, seat: int) -> str:
    return f"/play/{play_token(config.secret_key, game_id, seat)}"


def get(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


def forms(page: str) -> list[dict[str, str]]:
    return [dict((name, html.unescape(value)) for name, value in
                 re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))
            for form in re.findall(r'<form method="post".*?</form>', page, re.S)]


def point_link(page: str, point: str) -> str:
    found = re.search(rf'<a class="point" href="([^"]+)"[^>]*data-point="{point}"', page)
    assert found, f"no link on {point}"
    return html.unescape(found.group(1))


def kept(game_id: int, seat: int = 0):
    row = Condition.get_or_none((Condition.game == game_id) & (Condition.seat == seat))
    return row.lines if row is not None else None


def test_a_line_is_built_by_clicking_and_kept_through_the_if_command(config, client):
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"))
    lines = link(config, game_id, 0) + "/lines"
    page = get(client, lines)
    assert "Click where you expect bob to play." in page
    page = get(client, point_link(page, "G5"))  # bob's move, drawn
    assert "After G5" in page and "Click your answer to G5." in page
    assert "5 black and 5 white stones; last move G5; black to move" in page  # drawn
    page = get(client, point_link(page, "H4"))
    assert "Keep this line" in page and "<code>if G5 H4</code>" in page
    page = get(client, point_link(page, "C3"))  # on: bob's C3 ...
    page = get(client, point_link(page, "D4"))  # ... and the answer D4
    keep = [f for f in forms(page) if "lines" in f][0]
    assert keep["lines"] == "if G5 H4 C3 D4"
    answer = client.post(lines, data=keep)
    assert answer.status_code == 303 and "done=Lines+kept" in answer.headers["Location"]
    assert kept(game_id) == [["G5", "H4", "C3", "D4"]]
    # a second line from the position after G5 H4: the tree grows by a branch
    page = get(client, lines + "?line=G5+H4+J10")
    page = get(client, point_link(page, "K2"))
    keep = [f for f in forms(page) if f["lines"].endswith("if G5 H4 J10 K2")][0]
    assert keep["lines"] == "if G5 H4 C3 D4;if G5 H4 J10 K2"
    client.post(lines, data=keep)
    assert kept(game_id) == [["G5", "H4", "C3", "D4"], ["G5", "H4", "J10", "K2"]]
    page = get(client, lines)
    tree = re.findall(r'<li style="margin-left: ([\d.]+)rem">if <a[^>]*><code>(\w+)</code></a>: '
                      r'<code>(\w+)</code>', page)
    assert tree == [("0.0", "G5", "H4"), ("1.2", "C3", "D4"), ("1.2", "J10", "K2")]
    seat_page = get(client, link(config, game_id, 0))  # the seat page shows the tree too
    assert "Conditional moves" in seat_page and "<code>J10</code>: <code>K2</code>" in seat_page
    # bob plays G5: H4 is played for alice at once, as by mail
    client_bob = link(config, game_id, 1)
    bob_page = get(client, client_bob + "?move=G5")
    assert "You have no conditional moves in this game." in bob_page  # his own: none
    below = bob_page.split("</svg>")[-1]  # the board's points are links: J10 is one
    assert "J10" not in below and "K2" not in below and "H4" not in below
    client.post(client_bob, data=forms(bob_page)[0])
    assert [m.text for m in Move.select().where(Move.game == game_id)
            .order_by(Move.ply)] == ["F6", "G5", "H4"]
    assert kept(game_id) == [["C3", "D4"], ["J10", "K2"]]


def test_a_branch_is_removed_and_the_last_removal_clears_them(config, client):
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"))
    lines = link(config, game_id, 0) + "/lines"
    page = get(client, lines + "?line=G5+H4+C3+D4")
    client.post(lines, data=[f for f in forms(page) if "lines" in f][0])
    page = get(client, lines + "?line=G7+H8")
    client.post(lines, data=[f for f in forms(page) if "lines" in f][0])
    assert kept(game_id) == [["G5", "H4", "C3", "D4"], ["G7", "H8"]]
    page = get(client, lines)
    removals = [f for f in forms(page) if "lines" in f][-3:]  # one per branch
    assert [f["lines"] for f in removals] == ["if G7 H8", "if G5 H4;if G7 H8",
                                              "if G5 H4 C3 D4"]
    client.post(lines, data=removals[1])  # if C3: D4 goes, if G5: H4 stays
    assert kept(game_id) == [["G5", "H4"], ["G7", "H8"]]
    client.post(lines, data=removals[0])  # if G5 (and below) goes
    assert kept(game_id) == [["G7", "H8"]]
    page = get(client, lines)
    last = [f for f in forms(page) if "lines" in f][-1]
    assert last["lines"] == "conditions off"
    answer = client.post(lines, data=last)
    assert "done=Lines+cleared" in answer.headers["Location"]
    assert kept(game_id) is None


def test_the_builder_refuses_what_mail_refuses(config, client):
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"))
    lines = link(config, game_id, 0) + "/lines"
    page = get(client, lines + "?line=G5+F6")
    assert "F6 cannot be played there" in html.unescape(page)
    assert "Keep this line" not in page
    mine_to_move = get(client, link(config, game_id, 1) + "/lines")
    assert "It is your turn: play your move first" in mine_to_move
    forged = client.post(lines, data={"csrf": "0" * 32, "lines": "if G5 H4"})
    assert forged.status_code == 403 and kept(game_id) is None
    page = get(client, lines + "?line=G5+H4")
    form = [f for f in forms(page) if "lines" in f][0]
    for other in ("F7", "resign", "if G5 H4\nresign", "say hello"):
        assert client.post(lines, data={**form, "lines": other}).status_code == 400
    assert [m.text for m in Move.select().where(Move.game == game_id)] == ["F6"]
    # a line that clashes is refused as by mail, and the page says why
    client.post(lines, data=form)
    clash = client.post(lines, data={**form, "lines": "if G5 H4;if G5 C3"})
    assert clash.status_code == 409 and "you answer G5 with H4 already" in \
        html.unescape(clash.get_data(True))


def test_the_card_game_page_shows_the_queue_and_clears_it(config, client):
    game_id = start(config, "baronoxx", ["carol", "dave"], seed="queue")
    url = link(config, game_id, 0)
    page = get(client, url + "?move=next+33+63")
    assert "the command next:" in page
    answer = client.post(url, data=forms(page)[0])
    assert answer.status_code == 200
    shown = html.unescape(answer.get_data(True))
    assert ("Queued: play 33 for this round, which waits for your card: it is played at "
            "once, then play 63.") in " ".join(shown.split())
    page = get(client, url)
    assert "Queued cards" in page and "<li><code>play 63</code></li>" in page
    assert "play 33" not in page.split('id="h-advance"')[1].split("</ol>")[0]  # played
    other = get(client, link(config, game_id, 1))
    assert "No cards queued" in other and "play 63" not in other
    clear = [f for f in forms(page) if f.get("move") == "next off"][0]
    client.post(url, data=clear)
    assert kept(game_id) is None
    assert "No cards queued" in get(client, url)
