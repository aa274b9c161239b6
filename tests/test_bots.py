"""The bots (pbem.bots): legal, blind to what their seat may not see, and sharp in Onyx.

Budgets are tiny on purpose (a few iterations, level `easy` for Onyx): these tests show
what a bot may and may not do, the bench (bench/bots.py) measures how well it plays.
"""

import random

import pytest

from pbem import bots
from pbem.bots import onyx as onyx_bot
from pbem.engines import ENGINES, get_engine
from pbem.engines.base import CHANCE
from pbem.engines.onyx.board import board_of

from test_onyx import RULEBOOK_6X6, position  # literal Onyx positions

ONYX = get_engine("onyx")

CARD_GAMES = [("onix", {}, 2), ("onix", {"advanced": "true"}, 4), ("onix", {}, 6),
              ("baronoxx", {}, 3), ("baronoxx", {"variant": "2"}, 10),
              ("gemforge", {}, 2), ("gemforge", {}, 4)]


def random_positions(game, options, players, count, seed):
    """`count` positions of a random game (restarted when one ends), each with a seat
    the game waits for; the dealer's moves are dealt on the way."""
    engine, rng = ENGINES[game], random.Random(seed)
    state, found = engine.start(options, players, seed=str(seed)), []
    while len(found) < count:
        acting = engine.to_act(state)
        if not acting:
            state = engine.start(options, players, seed=str(rng.random()))
            continue
        if acting == {CHANCE}:
            state = engine.apply(state, CHANCE, engine.deal(state, rng))
            continue
        seat = rng.choice(sorted(acting))
        if rng.random() < 0.3:
            found.append((state, seat))
        state = engine.apply(state, seat, engine.random_decision(state, seat, rng))
    return engine, found


@pytest.mark.parametrize("game, options, players", CARD_GAMES)
def test_a_card_bot_decides_the_same_in_every_world_its_seat_cannot_tell_apart(
        game, options, players):
    engine, positions = random_positions(game, options, players, 12, seed=players)
    for n, (state, seat) in enumerate(positions):
        worlds = [state] + [engine.determinize(state, seat, random.Random(k))
                            for k in range(2)]
        decisions = [bots.decide(engine, world, seat, "easy", seed="s", ply=n,
                                 iterations=5, time_limit=None) for world in worlds]
        texts = {engine.notation(world, seat, d) for world, d in zip(worlds, decisions)}
        assert len(texts) == 1, (n, texts)


@pytest.mark.parametrize("game, options, players", CARD_GAMES)
def test_a_card_bot_makes_a_legal_decision(game, options, players):
    engine, positions = random_positions(game, options, players, 10, seed=7)
    for n, (state, seat) in enumerate(positions):
        decision = bots.decide(engine, state, seat, "easy", seed="t", ply=n,
                               iterations=4, time_limit=None)
        assert decision in engine.legal(state, seat)
        engine.apply(state, seat, decision)


def test_the_same_seed_and_ply_give_the_same_decision():
    engine, positions = random_positions("onix", {}, 3, 1, seed=3)
    state, seat = positions[0]
    first = [bots.decide(engine, state, seat, "easy", seed="g", ply=4, iterations=8,
                         time_limit=None) for _ in range(2)]
    assert first[0] == first[1]


@pytest.mark.parametrize("options", [{}, {"board": "6", "setup": "open"}])
def test_an_onyx_bot_makes_a_legal_move(options):
    engine, positions = random_positions("onyx", options, 2, 8, seed=11)
    for n, (state, seat) in enumerate(positions):
        for level in ("easy", "normal"):
            decision = bots.decide(engine, state, seat, level, seed="o", ply=n)
            assert decision in engine.legal(state, seat)


# Black (rows 1 and 6) lacks only C4; White's stones are scattered.
COLUMN_C = dict(black="C1 C2 C3 C5 C6", white="E2 E3 F5")


@pytest.mark.parametrize("level", bots.LEVELS)
def test_an_onyx_bot_takes_a_winning_point(level):
    state = position(6, **COLUMN_C, to_move="black")
    move = bots.decide(ONYX, state, 0, level, seed="w")
    assert ONYX.notation(state, 0, move) == "C4"
    assert ONYX.outcome(ONYX.apply(state, 0, move)).winners == {0}


@pytest.mark.parametrize("level", bots.LEVELS)
def test_an_onyx_bot_blocks_the_point_that_would_lose(level):
    state = position(6, **COLUMN_C, to_move="white")
    move = bots.decide(ONYX, state, 1, level, seed="b")
    after = ONYX.apply(state, 1, move)
    assert not any(ONYX.apply(after, 0, reply).winner for reply in ONYX.legal(after, 0))


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_an_onyx_bot_does_not_leave_the_rulebooks_double_capture_open(level):
    state = position(6, **RULEBOOK_6X6, to_move="black")  # White threatens C3**
    assert onyx_bot.captures(ONYX, position(6, **RULEBOOK_6X6, to_move="white"), 1)
    after = ONYX.apply(state, 0, bots.decide(ONYX, state, 0, level, seed="d"))
    assert not [m for m in onyx_bot.captures(ONYX, after, 1)
                if ONYX.notation(after, 1, m).endswith("**")]


def test_onyx_evaluation_counts_the_stones_each_colour_still_needs():
    state = position(6, **COLUMN_C)
    assert onyx_bot.to_go(state, 1) == 1  # Black: C4
    assert onyx_bot.to_go(position(6), 1) == 6
    assert onyx_bot.evaluate(state, 1) > 0


def test_an_onyx_bot_swaps_a_strong_black_and_keeps_an_edge_stone():
    strong = position(6, black="C1 C2 C3 C5", to_move="white", plies=1)
    edge = ONYX.apply(ONYX.start({"setup": "open"}), 0, board_of(12).index["F1"])
    assert ONYX.notation(strong, 1, bots.decide(ONYX, strong, 1, "normal")) == "swap"
    assert ONYX.notation(edge, 1, bots.decide(ONYX, edge, 1, "normal")) != "swap"


def test_bot_addresses_and_names():
    assert bots.bot_level("bot") == "normal"
    assert bots.bot_level("BOT:Hard") == "hard"
    assert bots.bot_level("alice@example.org") is None
    assert bots.is_bot("bot:easy") and not bots.is_bot("bot:genius")
    with pytest.raises(bots.NotABot, match="bot:easy, bot:normal or bot:hard"):
        bots.bot_level("bot:genius")
    assert bots.bot_name("hard") == "Bot (hard)"


def test_the_bots_import_only_the_engines():
    import subprocess
    import sys
    code = ("import sys, pbem.bots, pbem.bots.arena, pbem.bots.onyx, pbem.bots.search; "
            "print(sorted(m for m in sys.modules if m.startswith(('pbem.', 'flask', "
            "'peewee')) and not m.startswith(('pbem.engines', 'pbem.bots'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_a_card_bot_stops_before_an_iteration_would_pass_its_cpu_cap(monkeypatch):
    """The cap bounds a decision: the search starts another iteration only if one as long
    as the longest so far ends inside it (stopping once past it gave a p99 of 2.01 s at
    a cap of 2; an average is a poor guide where iterations vary)."""
    from pbem.bots import cpu_cap
    clock = {"now": 0.0}
    monkeypatch.setattr(cpu_cap.time, "process_time", lambda: clock["now"])
    cap = cpu_cap.CpuCap(2.0)
    assert cap.allows_another()  # the first, always
    for now in (1.0, 1.25):  # an iteration of 1 s, then one of 0.25 s
        clock["now"] = now
        allowed = cap.allows_another()
    assert not allowed  # at 1.25, another of 1 s would end at 2.25 (the mean, 2.0 ok)
    clock["now"] = 0.0
    exact = cpu_cap.CpuCap(2.0)
    exact.allows_another()
    clock["now"] = 1.0
    assert exact.allows_another()  # a second of 1 s ends at 2.0: inside
    assert cpu_cap.CpuCap(None).allows_another()


def test_a_playout_is_worth_half_the_win_and_half_the_others_beaten():
    """search.ranked_reward, on literal standings (tuples compare as a tie-break does):
    at four players the win alone is a rare signal, the others beaten a steady one."""
    from pbem.bots.search import ranked_reward
    standing = [(3, -5), (3, -7), (1, 0), (3, -5)]
    assert ranked_reward(0.5, standing, 0) == 0.5 * 0.5 + 0.5 * (2.5 / 3)  # a tie: half
    assert ranked_reward(0.0, standing, 2) == 0.0  # beats nobody
    assert ranked_reward(1.0, [(4, 0), (2, -1), (2, -3)], 0) == 1.0
    assert ranked_reward(0.0, [10, 12, 15], 1) == 0.25  # Gem Forge's points
