"""The bench's UCT player for Onyx (bench/onyx_uct.py, #34 item 4) on literal positions:
its playouts keep the rules, it takes the one winning point, and it swaps when Black's
stones win by force. Each premise is checked against the engine first, so a test cannot
pass on a position that does not say what its name says."""

import random

from bench.onyx_uct import choose, playout  # bench/ is on the path: tests/conftest.py
from pbem.engines import get_engine
from pbem.engines.onyx.engine import SWAP

from test_onyx import position  # literal Onyx positions

ONYX = get_engine("onyx")




def seat(state):
    (acting,) = ONYX.to_act(state)
    return acting


def winning_moves(state):
    """The texts of the moves that end the game at once in the mover's favour."""
    mover = seat(state)
    return {ONYX.notation(state, mover, move) for move in ONYX.legal(state, mover)
            if move != SWAP and ONYX.apply(state, mover, move).winner}


def test_a_playout_is_a_game_the_engine_accepts_move_by_move():
    # Random positions of a 12×12 standard game; every point a playout plays is legal
    # there, and it reports the winner the engine finds. Captures must have happened.
    rng, captures = random.Random("uct-playouts"), 0
    for _ in range(40):
        state = ONYX.start({"board": "12", "setup": "standard"})
        for _ in range(rng.randrange(30)):
            state = ONYX.apply(state, seat(state), ONYX.random_decision(state, seat(state),
                                                                        rng))
        played = []
        winner, _ = playout(state, rng, played)
        for point in played:
            assert point in ONYX.legal(state, seat(state))
            captures += ONYX.notation(state, seat(state), point).endswith("*")
            state = ONYX.apply(state, seat(state), point)
        assert winner and state.winner == winner and not ONYX.to_act(state)
    assert captures > 10


def test_it_takes_the_one_point_that_joins_its_edges():
    # Black's column C runs from row 1 to C5; C6 and D6 (the triangle diagonal C5–D6)
    # would reach row 6, and White holds D6 (its row 4 is cut at C4). Nothing else wins.
    state = position(6, black="C1 C2 C3 C4 C5", white="D6 A4 B4 D4 E4")
    assert winning_moves(state) == {"C6"}
    move, _ = choose(ONYX, state, seat(state), 5.0, random.Random(1), iterations=300)
    assert ONYX.notation(state, seat(state), move) == "C6"


def test_it_swaps_when_blacks_stones_win_by_force():
    # Move 2 (plies=1), White to answer: Black's column C reaches C5 with two ways to row
    # 6 (C6 and D6), and one White stone blocks only one. Taking over Black wins.
    state = position(6, black="C1 C2 C3 C4 C5", white="A3 F4", to_move="white", plies=1)
    assert SWAP in ONYX.legal(state, seat(state))
    for answer in ONYX.legal(state, seat(state)):
        if answer != SWAP:  # every White stone leaves Black a winning point
            assert winning_moves(ONYX.apply(state, seat(state), answer))
    move, _ = choose(ONYX, state, seat(state), 5.0, random.Random(2), iterations=400)
    assert move == SWAP


def test_every_move_of_a_short_game_is_legal():
    # Two UCT players on 6×6 with 30 iterations a move: each choice is a legal decision,
    # and the game ends with a winner.
    state, rng = ONYX.start({"board": "6", "setup": "open"}), random.Random(3)
    while ONYX.to_act(state):
        move, _ = choose(ONYX, state, seat(state), 5.0, rng, iterations=30)
        assert move in ONYX.legal(state, seat(state))
        state = ONYX.apply(state, seat(state), move)
    assert ONYX.outcome(state) is not None


def test_a_match_in_parts_plays_games_by_their_numbers(monkeypatch):
    # --first K: game K's seed and seats come from K, so parts make up one longer run.
    from bench import onyx_uct
    played = []

    def play(match, number, engine):
        played.append(number)
        return {"bot_seat": number % 2, "bot_share": 1.0, "plies": 9, "swapped": False,
                "seconds": 0.0}
    monkeypatch.setattr(onyx_uct.Match, "play", play)
    monkeypatch.setattr(onyx_uct.Match, "lines", lambda match: [])
    onyx_uct.run(2, 4.0, first=100)
    assert played == [100, 101]
