"""A game's Atom feed (#35 item 8): an entry per ply with its news as a spectator may
know it and the link to the position after it, an entry per comment (`say`), one for
the game's end; every feed parsed by an XML parser and checked against Atom's rules
(RFC 4287: ids, titles, dates, content types). Twin worlds: a secret choice, replaced
or not, changes no byte of the feed.
"""

import datetime as dt
import re
from html.parser import HTMLParser
from xml.etree import ElementTree

import pytest

from webgames import play, resign, start

ATOM = "{http://www.w3.org/2005/Atom}"
DATE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")  # RFC 3339


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


class Paragraphs(HTMLParser):
    """An entry's HTML content: its paragraphs' text and its links."""

    def __init__(self, markup: str):
        super().__init__()
        self.paragraphs, self.links = [], []
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag == "p":
            self.paragraphs.append("")
        if tag == "a":
            self.links.append(dict(attrs)["href"])

    def handle_data(self, data):
        self.paragraphs[-1] += data


def one(element, name: str):
    found = element.findall(ATOM + name)
    assert len(found) == 1, (name, len(found))
    return found[0]


def atom_entries(document: bytes) -> list[dict]:
    """The feed's entries, after checking what Atom requires of the feed and of each."""
    feed = ElementTree.fromstring(document)
    assert feed.tag == ATOM + "feed"
    assert one(feed, "id").text.startswith("http") and one(feed, "title").text
    newest = one(feed, "updated").text
    assert DATE.match(newest) and feed.findall(f"{ATOM}author/{ATOM}name")
    entries, ids = [], set()
    for entry in feed.findall(ATOM + "entry"):
        identity, updated = one(entry, "id").text, one(entry, "updated").text
        assert identity.startswith("http") and identity not in ids
        ids.add(identity)
        assert DATE.match(updated) and updated <= newest
        link = one(entry, "link")
        assert link.get("rel") == "alternate" and link.get("href").startswith("http")
        content = one(entry, "content")
        assert content.get("type") == "html"  # its text is HTML, escaped once in the XML
        shown = Paragraphs(content.text)
        entries.append({"title": one(entry, "title").text, "id": identity,
                        "link": link.get("href"), "updated": updated,
                        "news": shown.paragraphs, "links": shown.links})
    return entries


def feed_of(client, game_id: int) -> list[dict]:
    answer = client.get(f"/games/{game_id}.atom")
    assert answer.status_code == 200
    return atom_entries(answer.get_data())


def test_each_ply_comment_and_the_end_has_an_entry_with_its_news_and_position(config, client):
    from pbem.play import Table
    from pbem.store import transaction
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"), (1, "G5"))
    with transaction():
        Table.load(game_id).say(1, "your move, <alice> & co")
    play(game_id, (0, "D4"))
    page = f"http://localhost/games/{game_id}"
    entries = feed_of(client, game_id)
    times = [entry.pop("updated") for entry in entries]
    assert times == sorted(times, reverse=True)  # newest first
    assert entries == [
        {"title": "#3 alice: D4", "id": f"{page}?ply=3", "link": f"{page}?ply=3",
         "news": ["#3 alice: D4", "The position after ply 3"], "links": [f"{page}?ply=3"]},
        {"title": "bob says: your move, <alice> & co", "id": f"{page}?ply=2#said-1",
         "link": f"{page}?ply=2",
         "news": ["bob says (after ply 2): your move, <alice> & co",
                  "The position after ply 2"], "links": [f"{page}?ply=2"]},
        {"title": "#2 bob: G5", "id": f"{page}?ply=2", "link": f"{page}?ply=2",
         "news": ["#2 bob: G5", "The position after ply 2"], "links": [f"{page}?ply=2"]},
        {"title": "#1 alice: F6", "id": f"{page}?ply=1", "link": f"{page}?ply=1",
         "news": ["#1 alice: F6", "The position after ply 1"], "links": [f"{page}?ply=1"]}]
    resign(game_id, 1)
    end = feed_of(client, game_id)[0]
    assert (end["title"], end["id"], end["link"]) == (
        "Game over: 1-0, alice won (bob resigned)", f"{page}#end", page)
    assert end["news"] == ["Game over: 1-0, alice won (bob resigned)",
                           "The final position and the whole game"]


def test_a_round_of_6_nimmt_tells_its_reveal_and_keeps_each_choice_secret(config, client):
    from pbem.play import Table
    game_id = start(config, "baronoxx", ["alice", "bob", "carol"], seed="feed")
    hands = Table.load(game_id, lock=False).state.hands
    assert [list(hand) for hand in hands] == [[57, 63, 66, 84], [28, 37, 71, 93],
                                              [2, 30, 108, 110]]
    play(game_id, (0, "play 84"), (1, "play 93"), (2, "play 110"))
    entries = feed_of(client, game_id)
    # Each choice says only that it was made; the last one of the round reveals them all.
    assert [e["news"] for e in entries[:3]] == [
        ["#7 carol: chose in secret", "Round 1 revealed: 84 (#1), 93 (#2), 110 (#3)",
         "The position after ply 7"],
        ["#6 bob: chose in secret", "The position after ply 6"],
        ["#5 alice: chose in secret", "The position after ply 5"]]
    assert [e["title"] for e in entries[:2]] == [
        "#7 carol: chose in secret; Round 1 revealed: 84 (#1), 93 (#2), 110 (#3)",
        "#6 bob: chose in secret"]


def test_a_cancelled_game_says_so_and_keeps_its_secrets(config, client):
    from pbem.play import Table
    from pbem.store import transaction
    game_id = start(config, "baronoxx", ["alice", "bob", "carol"], seed="feed")
    play(game_id, (0, "play 84"))
    with transaction():
        Table.load(game_id).cancel("stopped by the administrator")
    entries = feed_of(client, game_id)
    assert entries[0]["title"] == "Cancelled (stopped by the administrator)"
    assert entries[1]["title"] == "#5 alice: chose in secret"
    assert "84" not in str(entries)


def test_a_secret_choice_changes_no_byte_of_the_feed(store, config, client, frozen_time):
    """Twin worlds, the same deal and the same public moves at the same times: in one,
    bob's pending choice of round 2 is his lowest card, replaced 15 minutes later by his
    second (counted by nobody, N14a); in the other it is his highest, once. The feed is
    the same, byte for byte, in both."""
    from databases import emptied
    from pbem.play import Table
    from pbem.store import Move, transaction

    def world(replaced: bool) -> bytes:
        frozen_time.now = dt.datetime(2026, 11, 30, 10, 0)
        game_id = start(config, "baronoxx", ["alice", "bob", "carol"], seed="feed")
        for seat, card in ((0, 84), (1, 93), (2, 110)):  # as in the test above
            frozen_time.move(hours=1)
            play(game_id, (seat, f"play {card}"))
        while Table.load(game_id).state.asked is not None:  # where a revealed card goes
            frozen_time.move(minutes=10)
            table = Table.load(game_id)
            seat = table.state.asked
            decision = table.engine.default_decision(table.state, seat)
            play(game_id, (seat, table.engine.notation(table.state, seat, decision)))
        frozen_time.move(hours=1)
        with transaction():
            Table.load(game_id).say(0, "well played")
        frozen_time.move(hours=1)
        hand = Table.load(game_id).state.hands[1]
        play(game_id, (1, f"play {hand[0] if replaced else hand[-1]}"))
        if replaced:
            frozen_time.move(minutes=15)
            play(game_id, (1, f"play {hand[1]}"))
        frozen_time.now = dt.datetime(2026, 11, 30, 20, 0)
        return client.get(f"/games/{game_id}.atom").get_data()

    replaced = world(replaced=True)
    logged = Move.select().count()
    emptied(store)
    once = world(replaced=False)
    assert Move.select().count() == logged - 1  # the replacement is in the record
    assert replaced == once
    entries = atom_entries(once)
    assert [e["title"] for e in entries[:2]] == ["#11 bob: chose in secret",
                                                 "alice says: well played"]
    reveal = next(e for e in entries if e["title"].startswith("#7 carol: chose in secret"))
    assert reveal["news"][1] == "Round 1 revealed: 84 (#1), 93 (#2), 110 (#3)"
