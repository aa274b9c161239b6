"""The random-playthrough test every registered engine must pass (DESIGN.md, Tests).

A seeded game of random legal decisions must end; every legal decision must round-trip
through its canonical notation; every view shows what `apply` did by itself; snapshots must round-trip; `apply` must not touch the
state it is given; no view may change when what that viewer cannot see is redealt;
and replaying the game's record must give the live state. Duel (tests/duel.py) stands
in for the dealt games until they land, so the chance and secrecy paths are exercised.
"""

import json
import random

import pytest

from notation.record import format_record, parse_record
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE
from pbem.engines.game import Game, replay, selfplay

from duel import Duel

CASES = [
    ("onyx", {}, 2),
    ("onyx", {"board": "6", "setup": "open"}, 2),
    ("onyx", {"board": "16"}, 2),
    ("onyx", {"board": "20", "setup": "open"}, 2),
    ("onix", {}, 2),
    ("onix", {"advanced": "true"}, 3),
    ("onix", {}, 4),
    ("onix", {"advanced": "true"}, 5),
    ("onix", {}, 6),
    ("onix", {"advanced": "true"}, 6),
    ("baronoxx", {}, 2),
    ("baronoxx", {"variant": "1"}, 3),
    ("baronoxx", {"variant": "2"}, 4),
    ("baronoxx", {"variant": "1+2", "games": "2"}, 7),
    ("baronoxx", {"variant": "2"}, 10),
    ("baronoxx", {}, 10),
    ("gemforge", {}, 2),
    ("gemforge", {}, 3),
    ("gemforge", {}, 4),
    ("duel", {}, 2),
    ("duel", {}, 3),
]
SAMPLE = 40  # legal decisions round-tripped per ply (all of them when fewer)


@pytest.fixture(autouse=True)
def duel_registered(monkeypatch):
    monkeypatch.setitem(ENGINES, "duel", Duel())


def test_every_registered_engine_has_a_playthrough_case():
    assert {"onyx", "onix", "baronoxx", "gemforge"} <= set(ENGINES) - {"duel"}
    assert set(ENGINES) <= {engine for engine, _, _ in CASES}


@pytest.mark.parametrize("engine_id, options, players", CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_playthrough(engine_id, options, players, seed):
    engine = ENGINES[engine_id]
    rng = random.Random(seed)
    game = Game(engine, options, [f"p{n}" for n in range(players)], seed=f"seed{seed}")
    redealt = 0
    while game.to_act:
        assert len(game.plies) < 5000, "the game does not end"
        state = game.state
        before = json.dumps(engine.to_json(state))
        _check_snapshot(engine, state)
        redealt += _check_views(engine, state, players, rng)
        shown = [(done["seat"], done["text"]) for done in engine.view(state, None)["automatic"]]
        assert shown == engine.automatic(state), "the view shows what apply did by itself"
        for seat in game.to_act - {CHANCE}:
            legal = engine.legal(state, seat)
            assert legal, f"seat {seat} must act but has no legal decision"
            assert engine.prompt(state, seat).strip(), "mail ends with what to do now"
            for decision in rng.sample(legal, min(SAMPLE, len(legal))):
                text = engine.notation(state, seat, decision)
                assert engine.parse(state, seat, text) == decision, text
        seat = rng.choice(sorted(game.to_act))
        decision = engine.random_decision(state, seat, rng)
        assert decision in engine.legal(state, seat)
        game.play(seat, engine.notation(state, seat, decision))
        assert json.dumps(engine.to_json(state)) == before, "apply changed its input"
    assert engine.outcome(game.state) is not None
    if engine.dealt:
        assert redealt, "determinize never hid anything: the secrecy check was vacuous"
    record = parse_record(format_record(game.record()))
    Game.from_record(record).check_result(record)
    assert engine.to_json(replay(record)) == engine.to_json(game.state)


def _check_snapshot(engine, state):
    data = json.loads(json.dumps(engine.to_json(state)))
    assert engine.to_json(engine.from_json(data)) == engine.to_json(state)


def _check_views(engine, state, players, rng) -> int:
    """Every view is JSON; redealing what a viewer cannot see leaves their view alone."""
    changed = 0
    for viewer in [None, *range(players)]:
        view = engine.view(state, viewer)
        json.dumps(view)
        other = engine.determinize(state, viewer, rng)
        changed += engine.to_json(other) != engine.to_json(state)
        assert engine.view(other, viewer) == view, f"the view of seat {viewer} leaks"
    return changed


@pytest.mark.parametrize("engine_id, options, players", CASES)
def test_seeded_runs_are_identical(engine_id, options, players):
    engine = ENGINES[engine_id]
    first = format_record(selfplay(engine, options, players, "42").record())
    again = format_record(selfplay(engine, options, players, "42").record())
    other = format_record(selfplay(engine, options, players, "43").record())
    assert first == again and first != other


def test_a_revealed_seed_proves_the_deal():
    engine = ENGINES["duel"]
    record = selfplay(engine, {}, 2, "7").record()
    text = format_record(record)
    assert "Dealer: deal" in text and '[Seed "selfplay/7"]' in text
    Game.from_record(parse_record(text))  # the deals match the seed
    forged_deal = parse_record(text)
    forged_deal.moves[0].text = "deal 1 2 3 4"
    with pytest.raises(Exception, match="ply 1 .*the seed deals"):
        Game.from_record(forged_deal)
    wrong_seed = parse_record(text)
    wrong_seed.set_tag("Seed", "selfplay/8")
    with pytest.raises(Exception, match="does not match the SeedSHA256 commitment"):
        Game.from_record(wrong_seed)


def test_a_running_game_keeps_its_seed_secret():
    engine = ENGINES["duel"]
    game = Game(engine, {}, ["ann", "ben"], seed="secret-seed")
    text = format_record(game.record())
    assert "SeedSHA256" in text and "secret-seed" not in text
    assert "Dealer: deal" in text  # the server's own record; views decide what players see


def test_a_transcribed_deal_without_a_seed_is_checked_by_the_rules():
    record = parse_record('[Game "Duel"]\n[Seat1 "ann"]\n[Seat2 "ben"]\n[Result "*"]\n\n'
                          'Dealer: deal 1 2 3 3; *\n')
    with pytest.raises(Exception, match="ply 1 .*different cards"):
        Game.from_record(record)
    record = parse_record('[Game "Duel"]\n[Seat1 "ann"]\n[Seat2 "ben"]\n[Result "0-1"]\n\n'
                          'Dealer: deal 1 2 8 9; ann: play 1; ben: play 8; 2: play 9;\n'
                          'ann: play 2; 0-1\n')
    game = Game.from_record(record)
    game.check_result(record)
    assert engine_scores(game) == [0, 2]


def engine_scores(game):
    return game.engine.view(game.state, None)["scores"]


def test_a_replayed_record_keeps_its_commitment_and_seed():
    engine = ENGINES["duel"]
    running = Game(engine, {}, ["ann", "ben"], seed="s3")
    text = format_record(running.record())
    assert format_record(Game.from_record(parse_record(text)).record()) == text
    finished = format_record(selfplay(engine, {}, 2, "5").record())
    assert format_record(Game.from_record(parse_record(finished)).record()) == finished
