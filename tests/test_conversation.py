"""The mail conversation as a whole, through real SMTP on loopback: one complete game of
each kind by mail (3 players; Onyx 2), and each mail setting. Read in order, a player's
mails name every move of the others that the player may see exactly once; a player gets
a mail when the game waits for them, at the start and end, and little else.
"""

import datetime as dt
import random

import pytest

from conversation import check_told_once, news_lines
from mailtest import body
from pbem.operator.admin import start_game
from pbem.policy.conversation import waits_in_log
from pbem.policy.digest import send_digests
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE
from pbem.policy.delivery import deliver_due
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.play import Table
from pbem.store import Game, Move, Player, Seat

NAMES = ["ann", "ben", "cat"]
GAMES = [("onyx", 2), ("onix", 3), ("baronoxx", 3), ("gemforge", 3)]


def game_mails(person, game_id):
    """The mails of this game the person got (its own thread; digests carry it too)."""
    return [m for m in person.inbox
            if f"#{game_id}" in str(m["Subject"]) or "daily digest" in str(m["Subject"])]


def play_by_mail(config, people, game_id, rng, between=None, limit=3000):
    """Honest random players: whoever the game waits for mails a legal decision to their
    seat's reply address. `between()` runs after each mail (the digest's day)."""
    for _ in range(limit):
        table = Table.load(game_id, lock=False)
        if table.game.status != "running":
            return
        seat = rng.choice(sorted(table.to_act - {CHANCE}))
        decision = table.engine.random_decision(table.state, seat, rng)
        text = table.engine.notation(table.state, seat, decision)
        address = reply_address(seat_token(config.secret_key, game_id, seat), config.domain)
        person = people[seat]
        person.send(person.compose(text, to=address, subject="Re: our game"))
        assert Game.get_by_id(game_id).plies > table.game.plies, body(person.last)
        if between:
            between()
    raise AssertionError("the game did not end")


def waits(game_id: int, engine, seat: int, start_state) -> int:
    """How many times the game began to wait for `seat`, ply by ply (an upper bound for
    the mails the waits cause: a mail may carry several plies)."""
    moves = (Move.select(Move.seat, Move.text, Move.state, Move.visible)
             .where(Move.game == game_id).order_by(Move.ply))
    return waits_in_log(engine, start_state, moves, seat)


@pytest.mark.parametrize("engine_id, count", GAMES)
def test_a_whole_game_tells_everyone_everything_once(mail_server, players, engine_id, count):
    engine = ENGINES[engine_id]
    people = players(*NAMES[:count])
    game_id = start_game(mail_server, engine, {}, [p.address for p in people],
                         seed=f"conversation/{engine_id}")
    deliver_due(mail_server)
    play_by_mail(mail_server, people, game_id, random.Random(engine_id))
    start = engine.start(Game.get_by_id(game_id).options, count, Game.get_by_id(game_id).seed)
    for seat, person in enumerate(people):
        mails = game_mails(person, game_id)
        assert check_told_once(game_id, seat, NAMES.__getitem__, mails) > 0
        assert "Game over" in body(mails[-1]) and "The record of the game:" in body(mails[-1])
        # A mail when the game waits for them, the start and the end: not one per move.
        idle = [m for m in mails[1:-1] if "It is your turn" not in body(m)]
        assert idle == [], [body(m)[:300] for m in idle[:3]]
        assert len(mails) <= waits(game_id, engine, seat, start) + 2


@pytest.mark.parametrize("engine_id, settings", [
    ("gemforge", ("loud", "quiet", "digest")),
    ("baronoxx", ("normal", "loud", "digest")),
    ("onix", ("quiet", "digest", "normal")),
])
def test_every_mail_setting_tells_everything_once(mail_server, players, frozen_time,
                                                  engine_id, settings):
    engine = ENGINES[engine_id]
    people = players(*NAMES)
    game_id = start_game(mail_server, engine, {"time": "30d"}, [p.address for p in people],
                         seed=f"settings/{engine_id}")
    deliver_due(mail_server)
    for seat, setting in enumerate(settings):
        if setting == "digest":
            Player.update(digest=True).where(Player.email == people[seat].address).execute()
        else:
            Seat.update(mail=setting).where((Seat.game == game_id) & (Seat.number == seat)
                                            ).execute()
    moves = [0]

    def a_day_passes_now_and_then():
        moves[0] += 1
        if moves[0] % 25 == 0:
            frozen_time.move(days=1)
            send_digests(mail_server, frozen_time.now + dt.timedelta(hours=8))
            deliver_due(mail_server)
    play_by_mail(mail_server, people, game_id, random.Random(engine_id),
                 between=a_day_passes_now_and_then)
    counts = {}
    for seat, person in enumerate(people):
        mails = game_mails(person, game_id)
        counts[settings[seat]] = len(mails)
        assert check_told_once(game_id, seat, NAMES.__getitem__, mails) > 0, settings[seat]
    if "loud" in counts and "quiet" in counts:
        assert counts["loud"] > counts["quiet"]


# -- the small things a group of friends meets first ----------------------------------

def test_a_quiet_players_next_mail_names_everything_since_the_last(mail_server, players):
    """`quiet` loses nothing: the turn mail lists both others' turns, by name."""
    ann, ben, cat = players(*NAMES)
    game_id = start_game(mail_server, ENGINES["onix"], {}, [ann.address, ben.address,
                                                             cat.address], seed="quiet")
    deliver_due(mail_server)
    Seat.update(mail="quiet").where(Seat.number == 0).execute()
    _one(mail_server, [ann, ben, cat], game_id)  # ann's turn: she plays it
    before = len(ann.inbox)
    while 0 not in Table.load(game_id, lock=False).to_act:  # ben's turn, then cat's
        _one(mail_server, [ann, ben, cat], game_id)
    assert len(ann.inbox) == before + 1  # one mail: the game waits for her again
    news = "\n".join(news_lines(ann.last))
    assert " ben: " in news and " cat: " in news, news


def _one(config, people, game_id):
    table = Table.load(game_id, lock=False)
    seat = min(table.to_act - {CHANCE})
    decision = table.engine.random_decision(table.state, seat, random.Random(seat))
    text = table.engine.notation(table.state, seat, decision)
    address = reply_address(seat_token(config.secret_key, game_id, seat), config.domain)
    people[seat].send(people[seat].compose(text, to=address, subject="Re: game"))
