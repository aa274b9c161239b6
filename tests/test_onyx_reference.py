"""Cross-check the project's Onyx engine against the independent reference.

The reference (``tests/onyx_reference.py``) was written from the rulebook and the
rulings alone.  Here it first checks itself against the facts the rulings print
(204 points, 565 lines, 192 first moves, the rulebook's capture examples); then it
plays hundreds of seeded random games, and the project must agree, through its
command line only (``pbem record check`` / ``pbem record show --json``), on every
record: accept it, and end in the same position.  Corrupted records must be refused
at the right ply.
"""

from __future__ import annotations

import functools
import json
import random
import re

import pytest

try:
    from . import onyx_reference as ref
except ImportError:
    import os
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import onyx_reference as ref


# -- helpers -----------------------------------------------------------------


def cli(capsys, *argv: str) -> tuple[int, str]:
    """Run the project's CLI; return (exit code, stdout + stderr)."""
    from pbem.cli import main

    capsys.readouterr()
    try:
        code = main(list(argv))
    except SystemExit as stop:  # an argparse-style exit still counts as refusal
        code = stop.code if isinstance(stop.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def write(tmp_path, text: str, name: str = "game.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def check_and_show(capsys, tmp_path, record: str, final: dict) -> None:
    """The project accepts the record and ends in the reference's position."""
    path = write(tmp_path, record)
    code, out = cli(capsys, "record", "check", path)
    assert code == 0, f"record refused:\n{out}\n--- record ---\n{record}"
    code, out = cli(capsys, "record", "show", path, "--json")
    assert code == 0, f"show failed:\n{out}\n--- record ---\n{record}"
    shown = json.loads(out)
    assert set(shown["black"]) == set(final["black"]), record
    assert set(shown["white"]) == set(final["white"]), record
    assert shown["to_move"] == final["to_move"], record
    assert shown["winner"] == final["winner"], record


def assert_refused_at(capsys, tmp_path, record: str, ply: int) -> None:
    path = write(tmp_path, record)
    code, out = cli(capsys, "record", "check", path)
    assert code != 0, f"corrupt record accepted (ply {ply}):\n{record}"
    assert re.search(rf"\bply {ply}\b", out, re.IGNORECASE), (
        f"refusal does not name ply {ply}:\n{out}\n--- record ---\n{record}")


def record_of(n: int, setup: str, moves: list[str], result: str | None = None) -> str:
    game = ref.Game.new(n, setup)
    return game.record(moves=moves, result="*" if result is None else result)


def counts(moves: list[str]) -> tuple[int, int, int]:
    """(single captures, double captures, swaps) among move texts."""
    return (sum(m.endswith("*") and not m.endswith("**") for m in moves),
            sum(m.endswith("**") for m in moves),
            sum(m == "swap" for m in moves))


# -- the corpus ----------------------------------------------------------------

# (board, setup, finished games, cut-short games)
PLAN = [
    (12, "standard", 70, 25),
    (12, "open", 35, 15),
    (16, "standard", 20, 10),
    (16, "open", 12, 8),
    (6, "open", 40, 6),
    (26, "open", 1, 3),
]


def corpus_specs() -> list[tuple[int, str, int, int | None]]:
    """(board, setup, seed index, max plies or None) for every corpus game."""
    specs = []
    for n, setup, finished, cut in PLAN:
        for i in range(finished):
            specs.append((n, setup, i, None))
        limits = random.Random(f"limits/{n}/{setup}")
        for i in range(cut):
            if i < 3:
                limit = i + 1  # after Black's first stone, after a possible swap, ...
            else:
                limit = limits.randint(4, n * n // 2)
            specs.append((n, setup, finished + i, limit))
    specs.append((12, "standard", 999, 0))  # no move at all
    return specs


SPECS = corpus_specs()


@functools.lru_cache(maxsize=None)
def corpus_game(n: int, setup: str, index: int, limit: int | None) -> ref.Game:
    rng = random.Random(f"onyx/{n}/{setup}/{index}")
    return ref.random_game(rng, n, setup, swap_probability=0.4, max_plies=limit)


def corpus_record(spec) -> tuple[str, dict]:
    game = corpus_game(*spec)
    # every third game without move numbers: the numbers are optional
    return game.record(move_numbers=spec[2] % 3 != 1), game.final()


def spec_id(spec) -> str:
    n, setup, index, limit = spec
    return f"{n}-{setup}-{index}" + ("" if limit is None else f"-cut{limit}")


# -- the reference checks itself -----------------------------------------------


def test_reference_board_facts():
    board = ref.Board(12)
    assert len(board.names) == 204 and len(board.squares) == 60
    assert len(board.lines) == 565
    game = ref.Game.new(12, "standard")
    assert len(game.legal_points()) == 192
    assert game.final() == {"black": ["A6", "A7", "L6", "L7"],
                            "white": ["F1", "F12", "G1", "G12"],
                            "to_move": "black", "winner": None}
    big = ref.Game.new(16, "standard")
    assert big.stones(ref.BLACK) == ["A8", "A9", "P8", "P9"]
    assert big.stones(ref.WHITE) == ["H1", "H16", "I1", "I16"]
    ids = board.ids

    def joined(a, b):
        return ids[b] in board.adjacent[ids[a]]

    assert joined("C3", "D4") and joined("D3", "E2")  # O3's triangle examples
    assert not joined("D9", "E10") and not joined("E9", "D10")  # square DE910
    assert {board.names[q] for q in board.adjacent[ids["DE910"]]} == {
        "D9", "E9", "D10", "E10"}
    assert {"AB45", "BC1112"} <= set(ids)


def test_reference_rulebook_captures():
    game = ref.replay(6, "open", EXAMPLE_MOVES)
    assert game.moves == EXAMPLE_MOVES and not game.over  # no capture on the way
    assert game.text_of(game.board.ids["C3"]) == "C3**"
    game.play("C3**")
    assert game.stones(ref.BLACK) == ["A4"]
    game = ref.replay(6, "open", EXAMPLE_MOVES + ["F2", "B5*"])
    assert game.stones(ref.WHITE) == ["D2", "F1", "F2"]
    # after Black's capture the double capture is gone; C3 now takes one pair
    assert game.text_of(game.board.ids["C3"]) == "C3*"
    with pytest.raises(ref.IllegalMove):
        game.play("C3**")


def test_reference_corpus_is_not_vacuous():
    singles = doubles = swaps = finished = cut = 0
    for spec in SPECS:
        game = corpus_game(*spec)
        s, d, w = counts(game.moves)
        singles, doubles, swaps = singles + s, doubles + d, swaps + w
        finished += game.over
        cut += not game.over
        assert game.over or spec[3] is not None
    assert len(SPECS) >= 200
    assert singles >= 1000 and doubles >= 50 and swaps >= 50
    assert finished >= 150 and cut >= 50


def test_reference_swap_and_win():
    game = ref.replay(6, "open", ["C3", "swap", "D4"])
    assert game.final()["white"] == ["D4"] and game.final()["to_move"] == "black"
    game = ref.replay(6, "open", ["A1", "B1", "A2", "B2", "A3", "B3", "A4", "B4",
                                  "A5", "B5"])
    assert not game.over
    game.play("A6")
    assert game.final()["winner"] == "black" and game.result() == "1-0"


# -- the project agrees: whole games -------------------------------------------


@pytest.mark.parametrize("spec", SPECS, ids=spec_id)
def test_engine_replays_random_game(spec, capsys, tmp_path):
    record, final = corpus_record(spec)
    check_and_show(capsys, tmp_path, record, final)


def spelled_differently(game: ref.Game, rng: random.Random) -> list[str]:
    """The same moves in other accepted input forms (O9)."""
    board, out = game.board, []
    for text in game.moves:
        name, stars = text.rstrip("*"), text[len(text.rstrip("*")):]
        if rng.random() < 0.5:
            stars = ""  # a capture marker may be omitted
        if name in board.ids and board.is_midpoint(board.ids[name]):
            sq = board.square_of_midpoint[board.ids[name]]
            ll, ur = board.names[sq.corners[0]], board.names[sq.corners[3]]
            # DE910 -> de910, d9/e10, DE-910
            name = rng.choice([name, name.lower(), f"{ll}/{ur}".lower(),
                               f"{name[:2]}-{name[2:]}"])
        elif rng.random() < 0.5:
            name = name.lower()
        out.append(name + stars)
    return out


@pytest.mark.parametrize("index", range(6))
def test_engine_accepts_other_spellings(index, capsys, tmp_path):
    game = corpus_game(12, "standard", index, None)
    moves = spelled_differently(game, random.Random(index))
    check_and_show(capsys, tmp_path, record_of(12, "standard", moves, game.result()),
                   game.final())


# -- the project refuses corrupted records at the right ply --------------------


def corrupt_games(count: int, salt: str):
    """Finished 12x12 / 16x16 corpus games (all have captures), each with an rng."""
    pool = [s for s in SPECS if s[3] is None and s[0] in (12, 16)]
    rng = random.Random(salt)
    return [(corpus_game(*spec), spec, random.Random(f"{salt}/{i}"))
            for i, spec in enumerate(rng.sample(pool, count))]


def position_before(game: ref.Game, ply: int) -> ref.Game:
    return ref.replay(game.board.n, game.setup, game.moves[:ply - 1])


def corrupted(game: ref.Game, ply: int, text: str, rng: random.Random) -> str:
    """Put text at ply (1-based); keep the rest, or cut the record after it."""
    moves = list(game.moves)
    moves[ply - 1:ply] = [text]
    if rng.random() < 0.5:
        return record_of(game.board.n, game.setup, moves[:ply], "*")
    return record_of(game.board.n, game.setup, moves, game.result())


def points_where(pos: ref.Game, wanted) -> list[int]:
    return [p for p in range(len(pos.cells)) if wanted(p)]


CORRUPTIONS = {}


def corruption(fn):
    CORRUPTIONS[fn.__name__] = fn
    return fn


@corruption
def occupied_point(game, rng):
    ply = rng.randint(2, len(game.moves))
    pos = position_before(game, ply)
    taken = points_where(pos, lambda p: pos.cells[p] != ref.EMPTY)
    return ply, pos.board.names[rng.choice(taken)]


@corruption
def blocked_midpoint(game, rng):
    for _ in range(100):
        ply = rng.randint(2, len(game.moves))
        pos = position_before(game, ply)
        blocked = [sq.midpoint for sq in pos.board.squares
                   if pos.cells[sq.midpoint] == ref.EMPTY
                   and any(pos.cells[c] != ref.EMPTY for c in sq.corners)]
        if blocked:
            return ply, pos.board.names[rng.choice(blocked)]
    raise AssertionError("no blocked midpoint found")


@corruption
def marker_on_quiet_move(game, rng):
    ply = rng.randint(1, len(game.moves))
    pos = position_before(game, ply)
    quiet = points_where(pos, lambda p: pos.placeable(p) and not pos.captures(p))
    return ply, pos.board.names[rng.choice(quiet)] + rng.choice(["*", "**"])


@corruption
def one_marker_too_few_or_many(game, rng):
    plies = [i + 1 for i, m in enumerate(game.moves) if m.endswith("*")]
    doubles = [i + 1 for i, m in enumerate(game.moves) if m.endswith("**")]
    if doubles and rng.random() < 0.5:
        ply = rng.choice(doubles)
        text = game.moves[ply - 1]
        return ply, rng.choice([text[:-1], text + "*"])  # "**" -> "*" or "***"
    ply = rng.choice(plies)
    return ply, game.moves[ply - 1].rstrip("*") + "**"  # "*" -> "**"


@corruption
def late_swap(game, rng):
    return rng.randint(3, len(game.moves)), "swap"


@corruption
def move_after_the_end(game, rng):
    free = points_where(game, game.placeable)  # may be none: the last move filled it
    return len(game.moves) + 1, game.board.names[rng.choice(free or [0])]


CASES = [(name, i) for name in CORRUPTIONS for i in range(8)]


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_engine_refuses_corrupt_record(name, index, capsys, tmp_path):
    game, _spec, rng = corrupt_games(8, f"corrupt/{name}")[index]
    ply, text = CORRUPTIONS[name](game, rng)
    if ply > len(game.moves):  # a move after the end
        moves = game.moves + [text]
        record = record_of(game.board.n, game.setup, moves, game.result())
    else:
        assert text != game.moves[ply - 1]
        record = corrupted(game, ply, text, rng)
        # the reference agrees that exactly this ply is wrong
        pos = position_before(game, ply)
        with pytest.raises(ref.IllegalMove):
            pos.play(text)
    assert_refused_at(capsys, tmp_path, record, ply)


@pytest.mark.parametrize("index", range(8))
def test_engine_refuses_wrong_result(index, capsys, tmp_path):
    game, _spec, rng = corrupt_games(8, "corrupt/result")[index]
    right = game.result()
    wrong = {"1-0": ["0-1", "*"], "0-1": ["1-0", "*"]}[right][index % 2]
    record = record_of(game.board.n, game.setup, game.moves, wrong)
    path = write(tmp_path, record)
    code, out = cli(capsys, "record", "check", path)
    assert code != 0, f"wrong Result {wrong} (really {right}) accepted"
    assert "result" in out.lower(), out


def test_engine_swap_makes_ply_three_white(capsys, tmp_path):
    game = ref.replay(12, "standard", ["F6", "swap", "G5"])
    final = game.final()
    assert final["white"] == ["F1", "F12", "G1", "G12", "G5"] and "F6" in final["black"]
    check_and_show(capsys, tmp_path, record_of(12, "standard", game.moves), final)


# -- the rulebook's 6x6 capture examples through the project -------------------

# Black A4 B3 C2 C4 D3, White A5 B4 D2 as in the illustration, plus F1 so that
# White is to move; no square gets four corners, so nothing is captured on the way.
EXAMPLE_MOVES = ["A4", "A5", "B3", "B4", "C2", "D2", "C4", "F1", "D3"]


def test_engine_rulebook_double_capture(capsys, tmp_path):
    game = ref.replay(6, "open", EXAMPLE_MOVES + ["C3**"])
    assert game.final() == {"black": ["A4"], "white": ["A5", "B4", "C3", "D2", "F1"],
                            "to_move": "black", "winner": None}
    check_and_show(capsys, tmp_path, record_of(6, "open", game.moves), game.final())


def test_engine_rulebook_single_capture(capsys, tmp_path):
    game = ref.replay(6, "open", EXAMPLE_MOVES + ["F2", "B5*"])
    assert game.final() == {"black": ["A4", "B3", "B5", "C2", "C4", "D3"],
                            "white": ["D2", "F1", "F2"],
                            "to_move": "white", "winner": None}
    check_and_show(capsys, tmp_path, record_of(6, "open", game.moves), game.final())
    # "the double-capture cannot occur as the B4 corner would no longer be occupied"
    after = ref.replay(6, "open", game.moves + ["C3*"])
    assert after.stones(ref.BLACK) == ["A4", "B3", "B5", "C4"]
    check_and_show(capsys, tmp_path, record_of(6, "open", after.moves), after.final())
    assert_refused_at(capsys, tmp_path,
                      record_of(6, "open", game.moves + ["C3**"]), len(game.moves) + 1)
