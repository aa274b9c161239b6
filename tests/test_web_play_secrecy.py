"""A seat's page shows that seat's view and nothing of another seat's: at every ply of a
card game, the page of every seat is fetched and searched for the others' secrets.

A seat's secrets at a ply, as the other seats must not see them:
- the full text of every move so far that the other seat may not read
  (`Move.visible[str(other)]` differs), and the long words of it (a deal's pile orders);
- every label the seat's own diagram draws that the other's diagram of the same ply
  does not (its hand, its secret choice).

The same search finds them on the owner's own page, so the check is shown to fail where
it should (tests/test_web_secrecy.py does the same for the public pages).
"""

import random
import re

import pytest

from pbem.engines.base import CHANCE
from pbem.vocabulary.tokens import play_token
from test_web_secrecy import CARD_GAMES, labels, leaked
from webgames import start

PLIES = 12


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


def hidden_from(game_id: int, viewer: int, ply: int) -> set[str]:
    """Everything of the others that `viewer` may not see after `ply` plies."""
    from pbem.engines import ENGINES
    from pbem.store import Game, Move
    game = Game.get_by_id(game_id)
    engine = ENGINES[game.engine]
    rows = list(Move.select().where((Move.game == game) & (Move.ply <= ply)).order_by(Move.ply))
    key = str(viewer)
    mine = {row.visible.get(key) for row in rows}
    hidden = {row.text for row in rows if row.visible.get(key) != row.text
              and row.text not in mine}
    state = engine.from_json(rows[-1].state) if rows else engine.start(game.options,
                                                                      len(game.seats))
    own = labels(engine.svg_diagram(engine.view(state, viewer)))
    # The viewer's own options (its buttons) may read like another's secret choice
    # (`pref row 3 high`): offering them tells nothing of the others.
    options = set()
    if game.status == "running" and CHANCE not in engine.to_act(state):
        options = {engine.notation(state, viewer, d)
                   for d in engine.offered(state, viewer)}
    # A long word of a hidden text (a card's name in a deal) is a secret unless the
    # viewer may read it: in a move it may see, its own view (its hand), its options.
    my_words = {word for text in mine | own | options if text
                for word in re.findall(r"[\w-]+", text)}
    hidden |= {word for text in hidden for word in text.split()
               if len(word) >= 10 and word not in my_words}
    for other in range(len(game.seats)):
        if other != viewer:
            hidden |= labels(engine.svg_diagram(engine.view(state, other))) - own
    return hidden - options


def play_one(game_id: int, rng: random.Random) -> bool:
    """One random legal decision of a seat the game waits for; False once it is over."""
    from pbem.play import Table
    from pbem.store import transaction
    with transaction():
        table = Table.load(game_id)
        waiting = sorted(s for s in table.to_act if s != CHANCE)
        if not waiting:
            return False
        seat = rng.choice(waiting)
        decision = table.engine.random_decision(table.state, seat, rng)
        table.play(seat, table.engine.notation(table.state, seat, decision))
    return True


@pytest.mark.parametrize("engine_id, names", CARD_GAMES, ids=[e for e, _ in CARD_GAMES])
def test_no_seat_page_shows_another_seats_secret_at_any_ply(config, client, engine_id, names):
    from pbem.store import Game
    game_id = start(config, engine_id, names, seed=f"seat-secret-{engine_id}")
    rng = random.Random(engine_id)
    caught = 0  # the owner's page shows what the others' may not: the search can fail
    searched = 0
    for _ in range(PLIES):
        ply = Game.get_by_id(game_id).plies
        for seat in range(len(names)):
            url = f"/play/{play_token(config.secret_key, game_id, seat)}"
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
            page = response.get_data(as_text=True)
            secrets = hidden_from(game_id, seat, ply)
            searched += len(secrets)
            assert leaked(page, secrets) == [], (seat, ply)
            for other in range(len(names)):
                if other != seat:
                    caught += bool(leaked(page, hidden_from(game_id, other, ply)))
        if not play_one(game_id, rng):
            break
    assert searched, "every card game deals in secret"
    if engine_id != "onix":  # Onix shows every seat the same; its secret is the deal
        assert caught, "each seat's own page shows its own secrets"
