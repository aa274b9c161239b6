"""No page of a running game shows a secret, and no page shows an address.

Card games are played a few plies through the server's own write path; then every page a
visitor can reach — the game at every ply, the index, the player pages, each ply's SVG —
is fetched and searched for each secret:

- the text of every move the public may not read (`Move.visible['public']` differs), such
  as a deal (the deck order) or a secret choice;
- every label a seat's own diagram draws that the public diagram of the same ply does not
  (their hand: `view(state, seat)` against `view(state, None)`, drawn by the same engine).

The same search must find them once the game is over (a resignation ends it with hands
still held), so the check is shown to be able to fail.
"""

import datetime as dt
import html
import re
from dataclasses import dataclass

import pytest

from pbem.engines.base import CHANCE
from pbem.export.public import real_ply
from pbem.store import Game
from webgames import DOMAIN, address, play, play_random, resign, start

CARD_GAMES = [("onix", ["alice", "bob"]), ("baronoxx", ["alice", "bob", "carol"]),
              ("gemforge", ["alice", "bob"])]
PLIES = 12
LABEL = re.compile(r"<(text|title)\b[^>]*>([^<]+)</\1>")


@dataclass
class Secrets:
    moves: list[str]  # full texts of moves the public may not read
    labels: dict[int, set[str]]  # by ply: labels only some seat's diagram draws
    seats_differ: dict[int, bool]  # by ply: whether some seat's view shows more


def labels(svg: str) -> set[str]:
    return {html.unescape(text).strip() for _, text in LABEL.findall(svg)}


def secrets_of(game_id: int) -> Secrets:
    from pbem.engines import ENGINES
    from pbem.store import Game, Move
    game = Game.get_by_id(game_id)
    engine = ENGINES[game.engine]
    rows = list(Move.select().where(Move.game == game).order_by(Move.ply))
    public_texts = {row.visible.get("public") for row in rows}
    moves = [row.text for row in rows
             if row.visible.get("public") != row.text and row.text not in public_texts]
    # Long words of a hidden text, such as one pile's order in an Onix deal
    # ("A=X,X,O,…"), are secrets too: a page must not show a part of a deal either.
    public_words = {word for text in public_texts if text for word in text.split()}
    moves += sorted({word for text in moves for word in text.split()
                     if len(word) >= 10 and word not in public_words})
    players = len(game.seats)
    found, differ = {}, {}
    states = [(0, engine.start(game.options, players))] + [
        (row.ply, engine.from_json(row.state)) for row in rows]
    for ply, state in states:
        public = engine.view(state, None)
        shown = labels(engine.svg_diagram(public))
        found[ply] = set()
        differ[ply] = False
        for seat in range(players):
            own = engine.view(state, seat)
            found[ply] |= labels(engine.svg_diagram(own)) - shown
            differ[ply] |= {k: v for k, v in own.items() if k != "you"} != \
                {k: v for k, v in public.items() if k != "you"}
    return Secrets(moves, found, differ)


SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)


def leaked(page: str, secrets) -> list[str]:
    """The secrets this page shows: a short one (a card's number, `73`, which might be any
    number in a table) as a label of a diagram on the page, a longer one (a deal, a hand
    label such as `73 YRW`) anywhere in its text."""
    drawn = set().union(*(labels(svg) for svg in SVG.findall(page))) if "<svg" in page \
        else set()
    return sorted(s for s in secrets if s in drawn or (
        len(s) >= 5 and (html.escape(s, quote=False) in page or s in page)))


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


def fetch(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


def pages_of(client, game_id: int, plies: int, players: int) -> dict[str, str]:
    """Every page about this game a visitor can reach, by URL."""
    urls = ["/", "/games", "/games?status=running", f"/games?q=%23{game_id}",
            "/games?q=alice"] + [f"/players/{n}" for n in range(1, players + 1)]
    urls += [f"/games/{game_id}?ply={ply}" for ply in range(plies + 1)] + [f"/games/{game_id}"]
    urls += [f"/games/{game_id}/ply/{ply}.svg" for ply in range(plies + 1)]
    urls += [f"/games/{game_id}/print"]
    return {url: fetch(client, url) for url in urls}


def ply_of(url: str, plies: int) -> int | None:
    """The ply a page draws: the one asked for, the last (the game page, the printable
    page: the position now, and earlier ones whose cards are public by now), or none."""
    found = re.search(r"ply[=/](\d+)", url)
    if found:
        return int(found.group(1))
    return plies if re.search(r"/games/\d+(/print)?$", url) else None


@pytest.mark.parametrize("engine_id, names", CARD_GAMES, ids=[e for e, _ in CARD_GAMES])
def test_no_page_of_a_running_game_shows_a_secret(config, client, engine_id, names):
    game_id = start(config, engine_id, names, seed=f"secret-{engine_id}")
    plies = play_random(game_id, plies=PLIES, seed=engine_id)
    secrets = secrets_of(game_id)
    assert secrets.moves, "every card game deals in secret"
    if engine_id != "onix":  # Onix shows every seat the same; its secret is the piles' order
        assert any(secrets.labels.values()), "hands are drawn in their owners' diagrams"
    everything = set().union(*secrets.labels.values())
    # While it runs, pages number the plies the public may know (6 nimmt!'s preferences
    # and replaced choices, Gem Forge's answers are counted by nobody): ?ply=N is theirs.
    game = Game.get_by_id(game_id)
    for url, page in pages_of(client, game_id, game.shown_plies, len(names)).items():
        number = ply_of(url, game.shown_plies)
        ply = None if number is None else real_ply(game, number)
        assert leaked(page, secrets.moves) == [], url
        # A diagram draws its own ply; the lists draw none, so nothing may show there.
        assert leaked(page, secrets.labels[ply] if ply is not None else everything) == [], url


@pytest.mark.parametrize("engine_id, names", CARD_GAMES, ids=[e for e, _ in CARD_GAMES])
def test_a_finished_game_shows_every_hand_and_every_deal(config, client, engine_id, names):
    game_id = start(config, engine_id, names, seed=f"secret-{engine_id}")
    plies = play_random(game_id, plies=PLIES, seed=engine_id)
    secrets = secrets_of(game_id)
    resign(game_id, 0)
    last = fetch(client, f"/games/{game_id}")
    assert leaked(last, secrets.moves) == sorted(secrets.moves)  # the deals, the choices
    for ply in range(plies + 1):
        page = fetch(client, f"/games/{game_id}?ply={ply}")
        if secrets.seats_differ[ply]:
            assert leaked(page, secrets.labels[ply]) == sorted(secrets.labels[ply]), ply


def test_no_page_shows_an_address(config, client):
    game_id = start(config, "baronoxx", ["alice", "bob", "carol"], seed="addresses")
    play_random(game_id, plies=6)
    finished = start(config, "onyx", ["dave", "erin"])
    resign(finished, 1)
    urls = ["/", "/games", "/players/1", "/players/4", f"/games/{game_id}",
            f"/games/{game_id}?ply=3", f"/games/{finished}", "/rules/onyx",
            f"/games?q={address('alice')}", f"/games?q=nobody@{DOMAIN}", "/games?q=alice",
            f"/games?q=%40{DOMAIN}"]
    for url in urls:
        response = client.get(url, follow_redirects=True)
        assert response.status_code == 200, url
        page = response.get_data(as_text=True)
        assert "@" + DOMAIN not in page and "%40" + DOMAIN not in page, url
    response = client.get(f"/games?q={address('alice')}")
    assert response.headers["Location"] == "/games?player=1"


# -- G39: an answer in a reaction window changes nothing the public can fetch -------------

def public_urls(client, game_id: int) -> list[str]:
    """Every public page about the game, and the plies just after the last one shown."""
    urls = ["/", "/games", "/games?status=running", f"/games?q=%23{game_id}",
            "/players/1", "/players/2", "/players/3", f"/games/{game_id}",
            f"/games/{game_id}/print", f"/games/{game_id}/print?every=1",
            f"/games/{game_id}.txt", f"/games/{game_id}.sgf"]
    plies = int(re.search(r"<th>Plies</th><td>(\d+)</td>",
                          fetch(client, f"/games/{game_id}/print")).group(1))
    urls += [f"/games/{game_id}?ply={plies}", f"/games/{game_id}?ply={plies + 1}",
             f"/games/{game_id}/ply/{plies}.svg", f"/games/{game_id}/ply/{plies + 1}.svg"]
    return urls


def public_responses(client, urls: list[str]) -> dict[str, tuple]:
    """Each answer whole: status, headers and bytes."""
    answers = {}
    for url in urls:
        response = client.get(url)
        answers[url] = (response.status_code, sorted(response.headers.items()),
                        response.get_data())
    return answers


def open_window_asking_two(game_id: int):
    """Play a 3-player Gem Forge game until a reaction window asks two seats at once;
    returns the two."""
    from pbem.engines import ENGINES
    from pbem.play import Table
    engine = ENGINES["gemforge"]
    for _ in range(400):
        table = Table.load(game_id, lock=False)
        asked = sorted(s for s in table.to_act if s != CHANCE)
        if engine.shown_to_act(table.state, None) is None and len(asked) == 2:
            return asked
        play_random(game_id, plies=table.game.plies + 1, seed=f"g39-{table.game.plies}")
    raise AssertionError("no window asked two seats")


def test_a_pass_in_an_open_window_changes_no_public_answer(config, client):
    from pbem.play import Table
    from pbem.store import Move
    game_id = start(config, "gemforge", ["alice", "bob", "carol"], seed="g39")
    first, second = open_window_asking_two(game_id)
    urls = public_urls(client, game_id)
    before = public_responses(client, urls)
    plies = Table.load(game_id, lock=False).game.plies
    play(game_id, (first, "pass"))
    assert Move.select().where(Move.game == game_id).count() == plies + 1  # the record has it
    after = public_responses(client, urls)
    assert [url for url in urls if before[url] != after[url]] == []
    play(game_id, (second, "pass"))  # the window closes: its outcome is public once shown
    assert Table.load(game_id, lock=False).game.status == "running"


def test_a_window_nobody_may_learn_of_leaves_no_trace_after_it_closes(store, config, client,
                                                                     frozen_time):
    """Twin worlds, the same deal and the same public moves at the same times: in one, ben
    asked to be asked in copy windows (a standing answer, G38), was asked after ann's
    take and passed; in the other he was never asked. After ann's next action, and after
    one more, every public answer is the same in both, byte for byte: the ply count, the
    numbers, the list, the times (G39: who was asked, and who answered, is never shown)."""
    from databases import emptied
    from pbem.store import Move

    def world(asked: bool) -> list[dict[str, tuple]]:
        frozen_time.now = dt.datetime(2026, 11, 30, 10, 0)
        game_id = start(config, "gemforge", ["ann", "ben"], seed="forge")
        frozen_time.move(hours=1)
        play(game_id, (0, "keep T16 T05 T23"), (1, "keep T30 T15 T34"))  # ann is first
        if asked:
            frozen_time.move(minutes=5)
            play(game_id, (1, "pref copy-take ask"))
        frozen_time.now = dt.datetime(2026, 11, 30, 12, 0)
        play(game_id, (0, "take"))
        if asked:
            frozen_time.move(minutes=30)
            play(game_id, (1, "pass"))
        seen = []
        for hour, seat, action in ((14, 0, "set R T16"), (16, 1, "take")):
            frozen_time.now = dt.datetime(2026, 11, 30, hour, 0)
            play(game_id, (seat, action))
            seen.append(public_responses(client, public_urls(client, game_id)))
        return seen

    asked = world(asked=True)
    logged = Move.select().count()
    emptied(store)
    never = world(asked=False)
    assert Move.select().count() == logged - 2  # the standing answer and the pass
    for after_asked, after_never in zip(asked, never):
        assert after_asked.keys() == after_never.keys()
        differ = [url for url in after_asked if after_asked[url] != after_never[url]]
        assert differ == []
        page = after_asked["/games/1"][2].decode()
        assert "Someone" not in page and "reaction window" not in page
