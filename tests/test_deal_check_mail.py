"""Games played by mail, from the first mail to the end, and their deals checked from
what a player is left holding: the record in the last mail, re-dealt by the JavaScript
re-dealer (tests/deal_check.js) alone, and the mail's link to the check page, which
holds that record. Random but honest players, as in tests/test_mail_engines.py.
"""

import random
from html import unescape

import pytest

from databases import only_on
from mailtest import body, html, record_in
from notation.record import parse_record
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE
from pbem.mail.outbox import deliver_due
from pbem.play import Table
from pbem.store import Game
from test_deal_check import check_text, dealer_plies

pytestmark = only_on("sqlite")  # what is checked is the mail's record, not the store
NAMES = ["ann", "ben", "cat", "dan"]


def play_by_mail(mail_server, people, engine_id: str, seed: str) -> int:
    """A whole game: each player answers the game's latest mail to them with a random
    legal decision, until the game is over. Returns the game's id."""
    engine = ENGINES[engine_id]
    game_id = start_game(mail_server, engine, {}, [p.address for p in people], seed=seed)
    deliver_due(mail_server)
    rng = random.Random(seed)
    while Game.get_by_id(game_id).status == "running":
        table = Table.load(game_id)
        seat = rng.choice(sorted(table.to_act - {CHANCE}))
        text = engine.notation(table.state, seat, engine.random_decision(table.state, seat, rng))
        latest = next(m for m in reversed(people[seat].inbox) if m["Reply-To"])
        people[seat].reply(text, to=latest, quote=False)
        assert Game.get_by_id(game_id).plies > table.game.plies, body(people[seat].last)
    return game_id


@pytest.mark.parametrize("engine_id, count", [("onix", 2), ("baronoxx", 2), ("gemforge", 2),
                                              ("gemforge", 4)])
def test_a_game_played_by_mail_re_deals_from_its_last_mail(mail_server, players, engine_id,
                                                           count, tmp_path):
    people = players(*NAMES[:count])
    game_id = play_by_mail(mail_server, people, engine_id, f"deal-check/{engine_id}/{count}")
    link = f"{mail_server.web_url}/games/{game_id}/verify"
    for person in people:
        final = body(person.last).replace("\r\n", "\n")
        assert f"Or check the deal in your own browser, on this page:\n  {link}\n" in final
        assert f'<a href="{link}">check the deal in your own browser</a>' in html(person.last)
    text = record_in(body(people[0].last))
    report = check_text(text, tmp_path)
    assert report["ok"], report["problems"]
    assert report["generator"] == "HMAC-SHA256-2"
    assert {d["ply"]: d["text"] for d in report["deals"]} == dealer_plies(text)
    assert {d["status"] for d in report["deals"]} == {"ok"}
    assert len(parse_record(text).moves) == Game.get_by_id(game_id).plies
    kinds = [move.split()[0] for move in dealer_plies(text).values()]
    if engine_id == "gemforge":  # worth checking: the action cards ran out, by mail too
        assert kinds.count("cards") >= 2, kinds

    from pbem.web import create_app
    page = create_app(mail_server).test_client().get(f"/games/{game_id}/verify")
    assert page.status_code == 200
    assert text in unescape(page.get_data(as_text=True))  # the record, in the page's box

