"""Mail and web are two doors into the same game: whole games played half by the seats'
pages and half by mail, through the server's real SMTP listener and its web app.

Each decision is a random legal one of a seat the game waits for (a fixed seed), sent in
turn by mail (a reply to the seat's latest game mail) and from the seat's page (read
back, then confirmed). The record must be the one the same moves make when played
without either door, and every move must carry where it came from.
"""

import random
import re

import pytest

from mailtest import body, latest_game_mail
from pbem.engines.base import CHANCE
from pbem.vocabulary.tokens import play_token




def by_page(client, config, game_id: int, seat: int, text: str) -> None:
    url = f"/play/{play_token(config.secret_key, game_id, seat)}"
    shown = client.get(url, query_string={"move": text}).get_data(as_text=True)
    form = re.search(r'<form method="post".*?</form>', shown, re.S)
    assert form, (text, re.findall(r'class="refusal"[^>]*>(.*?)</p>', shown))
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form.group(0)))
    answer = client.post(url, data=fields)
    assert answer.status_code == 303, (text, answer.get_data(as_text=True)[-2000:])


def play_both_ways(config, client, players, game_id: int, seed: str, limit: int = 2000):
    """Random legal decisions to the end, odd ones by mail, even ones by page; returns
    how many went each way."""
    from pbem.play import Table
    rng = random.Random(seed)
    ways = {"mail": 0, "web": 0}
    for turn in range(limit):
        table = Table.load(game_id, lock=False)
        waiting = sorted(s for s in table.to_act if s != CHANCE)
        if not waiting:
            return ways
        seat = waiting[0]
        decision = table.engine.random_decision(table.state, seat, rng)
        text = table.engine.notation(table.state, seat, decision)
        plies = table.game.plies
        if turn % 2:
            player = players[seat]
            player.reply(text, to=latest_game_mail(player), quote=False)
            ways["mail"] += 1
        else:
            by_page(client, config, game_id, seat, text)
            ways["web"] += 1
        after = Table.load(game_id, lock=False).game.plies
        assert after > plies, (turn, text, body(players[seat].last)[:600])
    raise AssertionError(f"game #{game_id} did not end in {limit} decisions")


def same_moves_without_a_door(config, engine_id: str, names, options, seed: str,
                              game_id: int) -> str:
    """The record the same players' moves make when played straight through pbem.play."""
    from notation.record import format_record
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.play import Table
    from pbem.store import Move, transaction
    moves = list(Move.select().where((Move.game == game_id) & (Move.seat != CHANCE))
                 .order_by(Move.ply))
    other = start_game(config, ENGINES[engine_id], options,
                       [f"{name}@example.org" for name in names], seed=seed)
    for move in moves:
        with transaction():
            table = Table.load(other)
            if table.game.status == "running":
                table.play(move.seat, move.text)
    return format_record(Table.load(other, lock=False).record())


@pytest.mark.parametrize("engine_id, names, options", [
    ("onyx", ["alice", "bob"], {"board": "8", "time": "none"}),
    ("gemforge", ["alice", "bob", "carol"], {"time": "none"}),
], ids=["onyx", "gemforge"])
def test_a_whole_game_half_by_page_half_by_mail(mail_server, players, engine_id, names,
                                                options):
    from notation.record import format_record
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    from pbem.play import Table
    from pbem.store import Move
    from pbem.web import create_app
    config = mail_server
    people = players(*names)
    seed = f"two-doors-{engine_id}"
    game_id = start_game(config, ENGINES[engine_id], options,
                         [person.address for person in people], seed=seed)
    deliver_due(config)
    client = create_app(config, after_move=lambda: deliver_due(config)).test_client()
    ways = play_both_ways(config, client, people, game_id, seed)
    assert ways["mail"] > 5 and ways["web"] > 5
    table = Table.load(game_id, lock=False)
    assert table.game.status == "finished"
    sources = {move.source for move in Move.select().where(Move.game == game_id)}
    assert "web" in sources and any(s.startswith("<") for s in sources)
    record = format_record(table.record())
    assert record == same_moves_without_a_door(config, engine_id, names, options, seed,
                                               game_id)
    for person in people:  # everyone heard the end by mail, whichever door moved last
        assert "The record of the game:" in body(person.last)
