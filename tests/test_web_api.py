"""The read-only JSON API and the Atom feeds: their answers, their schema as the README
documents it, and the same secrecy as the pages (tests/test_web_secrecy.py's search).
"""

import json
import re
from pathlib import Path

import pytest

from test_web_secrecy import (CARD_GAMES, PLIES, leaked, open_window_asking_two,
                              public_responses, secrets_of)
from webgames import DOMAIN, play, play_random, resign, start

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


def answer(client, url: str, status: int = 200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return response


def test_a_game_its_moves_and_a_position(config, client):
    from pbem.play import Table
    from pbem.store import transaction
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"), (1, "G5"))
    with transaction():
        Table.load(game_id).say(0, "good luck")
    play(game_id, (0, "D4"))
    game = answer(client, f"/api/games/{game_id}").get_json()
    assert [(m["ply"], m["actor"], m["text"], m["comments"]) for m in game["moves"]] == [
        (1, "alice", "F6", []), (2, "bob", "G5", ["alice: good luck"]), (3, "alice", "D4", [])]
    assert game["players"] == [
        {"seat": 0, "label": "Black", "player": 1, "name": "alice", "share": None},
        {"seat": 1, "label": "White", "player": 2, "name": "bob", "share": None}]
    assert (game["status"], game["waiting"], game["options"]) == (
        "running", "bob to move", {"board": "12", "setup": "standard"})
    view = answer(client, f"/api/games/{game_id}/ply/1").get_json()["view"]
    assert view["last"] == {"move": "F6", "point": "F6", "captured": []}
    assert "G5" not in view["white"]
    assert answer(client, f"/api/games/{game_id}/ply/4", 404).get_json() == {
        "error": f"Game #{game_id} has plies 0 to 3; there is no ply 4."}
    assert answer(client, "/api/games/99", 404).get_json() == {
        "error": "There is no game number 99."}


def test_the_index_takes_the_pages_filters(config, client):
    onyx = start(config, "onyx", ["alice", "bob"])
    onix = start(config, "onix", ["carol", "alice"], seed="api")
    resign(onix, 0)
    ids = lambda url: [g["id"] for g in answer(client, url).get_json()["games"]]  # noqa: E731
    assert ids("/api/games") == [onix, onyx]
    assert ids("/api/games?game=onyx") == [onyx]
    assert ids("/api/games?status=finished&result=0-1") == [onix]
    assert ids(f"/api/games?q=alice@{DOMAIN}") == [onix, onyx]
    assert ids(f"/api/games?q=nobody@{DOMAIN}") == []
    finished = answer(client, "/api/games?status=finished").get_json()["games"][0]
    assert finished["outcome"] == "alice won"
    assert [p["share"] for p in finished["players"]] == ["0", "1"]
    assert answer(client, "/api/games?status=over", 400).get_json()["error"] == (
        "status='over' is not a status; use one of inviting, running, finished, cancelled.")
    for url in ("/api/games", f"/api/games/{onyx}", f"/api/games/{onix}/ply/1"):
        assert "@" + DOMAIN not in answer(client, url).get_data(as_text=True), url


def keys(value, into: set) -> set:
    if isinstance(value, dict):
        into |= set(value)
        for inner in value.values():
            keys(inner, into)
    elif isinstance(value, list):
        for inner in value:
            keys(inner, into)
    return into


def test_every_key_of_every_answer_is_in_the_readmes_schema(config, client):
    game_id = start(config, "baronoxx", ["alice", "bob"], seed="schema")
    play_random(game_id, plies=6)
    resign(game_id, 1)
    schema = README.read_text(encoding="utf-8").split("### Feeds and the JSON API", 1)[1]
    schema = schema.split("\n## ", 1)[0]
    documented = set(re.findall(r'"(\w+)":', schema))
    for url in ("/api/games", f"/api/games/{game_id}", f"/api/games/{game_id}/ply/6"):
        body = answer(client, url).get_json()
        views = [body.pop("view")] if "view" in body else []
        views += [seat.pop("view") for seat in body.get("seats") or []]
        body.pop("options", None)  # the game's own options (`pbem games` lists them)
        assert keys(body, set()) - documented == set(), url  # a VIEW is the engine's own
        assert all(isinstance(view, dict) and view for view in views)
        assert len(views) in (0, 3), url  # finished: the public view and both seats'


@pytest.mark.parametrize("engine_id, names", CARD_GAMES, ids=[e for e, _ in CARD_GAMES])
def test_no_answer_about_a_running_game_shows_a_secret(config, client, engine_id, names):
    from pbem.engines import ENGINES
    from pbem.store import Game, Move
    game_id = start(config, engine_id, names, seed=f"secret-{engine_id}")
    plies = play_random(game_id, plies=PLIES, seed=engine_id)
    secrets = secrets_of(game_id)
    urls = ["/api/games", f"/api/games/{game_id}", f"/games/{game_id}.atom", "/players/1.atom"]
    # While it runs, the API numbers the plies the public may know (6 nimmt!'s
    # preferences and replaced choices, Gem Forge's answers are counted by nobody).
    shown = Game.get_by_id(game_id).shown_plies
    urls += [f"/api/games/{game_id}/ply/{ply}" for ply in range(shown + 1)]
    everything = set().union(*secrets.labels.values())
    for url in urls:
        text = answer(client, url).get_data(as_text=True)
        assert leaked(text, secrets.moves) == [], url
        assert leaked(text, {s for s in everything if len(s) >= 5}) == [], url
    engine = ENGINES[engine_id]
    for row in Move.select().where((Move.game == game_id)  # each position is the public one
                                   & ~Move.anonymous):
        shown = answer(client, f"/api/games/{game_id}/ply/{row.shown}").get_json()
        assert shown["view"] == json.loads(json.dumps(
            engine.view(engine.from_json(row.state), None)))
        assert shown["seats"] is None
    game = answer(client, f"/api/games/{game_id}").get_json()
    assert game["seed"] is None
    resign(game_id, 0)
    over = answer(client, f"/api/games/{game_id}").get_data(as_text=True)
    assert leaked(over, secrets.moves) == sorted(secrets.moves)  # now all of it
    assert Game.get_by_id(game_id).seed in over


def test_a_pass_in_an_open_window_changes_no_api_answer_or_feed(config, client):
    from pbem.play import Table
    game_id = start(config, "gemforge", ["alice", "bob", "carol"], seed="g39")
    first, second = open_window_asking_two(game_id)
    plies = Table.load(game_id, lock=False).game.plies
    known = answer(client, f"/api/games/{game_id}").get_json()["plies"]
    urls = ["/api/games", "/api/games?status=running", f"/api/games/{game_id}",
            f"/api/games/{game_id}/ply/{known}", f"/api/games/{game_id}/ply/{known + 1}",
            f"/games/{game_id}.atom", "/players/1.atom", "/players/2.atom",
            "/players/3.atom"]
    before = public_responses(client, urls)
    play(game_id, (first, "pass"))
    assert Table.load(game_id, lock=False).game.plies == plies + 1
    after = public_responses(client, urls)
    assert [url for url in urls if before[url] != after[url]] == []


def test_the_feeds_of_a_game_and_a_player(config, client):
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"), (1, "G5"))
    feed = answer(client, f"/games/{game_id}.atom")
    assert feed.content_type == "application/atom+xml; charset=utf-8"
    text = feed.get_data(as_text=True)
    assert re.findall(r"<entry>\s*<title>([^<]+)</title>", text) == [
        "#2 bob: G5", "#1 alice: F6"]
    ply_2 = f"http://localhost/games/{game_id}?ply=2"
    assert f'<link rel="alternate" type="text/html" href="{ply_2}"/>' in text
    resign(game_id, 1)
    mine = answer(client, "/players/1.atom").get_data(as_text=True)
    assert "<title>alice&#39;s games</title>" in mine
    assert "<title>Onyx #1: alice vs bob, finished: 1-0 (alice won)</title>" in mine
    assert answer(client, "/players/9.atom", 404)
    from xml.etree import ElementTree
    for document in (text, mine):  # well-formed Atom
        root = ElementTree.fromstring(document.encode())
        assert root.tag == "{http://www.w3.org/2005/Atom}feed"


def test_feed_links_are_at_the_base_url_whatever_host_the_request_names(config):
    from dataclasses import replace
    from pbem.web import create_app
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"))
    base = "https://pbem.example.org"
    client = create_app(replace(config, base_url=base + "/")).test_client()
    for url in (f"/games/{game_id}.atom", "/players/1.atom"):
        text = client.get(url, headers={"Host": "internal.example:8000"}).get_data(as_text=True)
        links = re.findall(r'href="([^"]+)"', text) + re.findall(r"<id>([^<]+)</id>", text)
        assert len(links) >= 4, text
        assert [link for link in links if not link.startswith(base + "/")] == [], url
        assert "internal.example" not in text
    feed = client.get(f"/games/{game_id}.atom", headers={"Host": "internal.example:8000"})
    assert f'href="{base}/games/{game_id}?ply=1"' in feed.get_data(as_text=True)


def test_a_pass_in_an_open_window_mails_no_spectator(config, client):
    """G39 for spectators: an answer nobody may learn of is no turn of the game for them,
    whichever door it came in by (here the seat's page, which mails as mail does)."""
    from pbem.vocabulary.tokens import play_token
    from pbem.store import Outbox, Player
    from pbem.store.models import Follow
    game_id = start(config, "gemforge", ["alice", "bob", "carol"], seed="g39")
    first, second = open_window_asking_two(game_id)
    dan = Player.create(email=f"dan@{DOMAIN}", name="dan", confirmed=True)
    Follow.create(player=dan, game=game_id, told=0)
    url = f"/play/{play_token(config.secret_key, game_id, first)}"
    shown = client.get(url, query_string={"move": "pass"}).get_data(as_text=True)
    form = re.search(r'<form method="post".*?</form>', shown, re.S).group(0)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    before = Outbox.select().where(Outbox.recipient == dan.email).count()
    assert client.post(url, data=fields).status_code == 303
    assert Outbox.select().where(Outbox.recipient == dan.email).count() == before
