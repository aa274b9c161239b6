"""Onyx rules, ruling by ruling (RULINGS.md O1–O9), on literal positions."""

import json

import pytest

from pbem.engines import get_engine
from pbem.engines.base import IllegalMove, InvalidMove, OptionError
from pbem.engines.onyx.board import board_of

ONYX = get_engine("onyx")
BLACK_SEAT, WHITE_SEAT = 0, 1


def position(size, black="", white="", to_move="black", plies=10):
    """A literal position: stones by name, the colour to move; no swap made."""
    board = board_of(size)
    cells = ["."] * board.points
    for names, mark in ((black, "b"), (white, "w")):
        for name in names.split():
            cells[board.index[name]] = mark
    return ONYX.from_json({"board": size, "cells": "".join(cells), "to_move": to_move,
                           "swapped": False, "plies": plies, "winner": None, "last": None})


def play(state, *moves):
    for text in moves:
        (seat,) = ONYX.to_act(state)
        state, _ = ONYX.play(state, seat, text)
    return state


def stones(state):
    view = ONYX.position(state)
    return " ".join(view["black"]), " ".join(view["white"])


def neighbours(size, name):
    board = board_of(size)
    return {board.names[q] for q in board.neighbours[board.index[name]]}


# -- O2–O4: geometry ---------------------------------------------------------------------

def test_o3_twelve_board_has_204_points_and_565_lines():
    board = board_of(12)
    assert (board.corners, board.points - board.corners, board.line_count) == (144, 60, 565)


def test_o3_square_cells_alternate_with_triangle_pairs():
    board = board_of(12)
    assert {"DE910", "BC1112", "AB45", "AB67", "KL1011"} <= set(board.names)
    assert not {"AB56", "BC45", "KL1112", "AB12"} & set(board.index)


def test_o3_diagonals_have_their_chirality():
    # odd row: the diagonal joins (g, r)-(g+1, r+1); even row: (g, r+1)-(g+1, r)
    assert "D4" in neighbours(12, "C3") and "D3" not in neighbours(12, "C4")
    assert "E2" in neighbours(12, "D3") and "E3" not in neighbours(12, "D2")
    # The mirror image is a different game: its diagonal would run the other way.
    assert "C3" not in neighbours(12, "B4")


def test_o4_square_corners_meet_only_through_the_midpoint():
    assert neighbours(12, "DE910") == {"D9", "E9", "D10", "E10"}
    assert "E10" not in neighbours(12, "D9") and "D10" not in neighbours(12, "E9")
    assert neighbours(12, "D9") == {"C9", "E9", "D8", "D10", "CD89", "DE910", "E8"}


def test_o4_edge_corner_point_lines():
    assert neighbours(12, "A1") == {"B1", "A2", "B2"}
    assert neighbours(12, "L12") == {"K12", "L11", "K11"}
    assert neighbours(12, "A12") == {"B12", "A11"}  # the diagonal A11-B12 passes it by


# -- O5: setup ---------------------------------------------------------------------------

def test_o5_standard_twelve_setup_and_its_192_first_moves():
    state = ONYX.start({})
    assert stones(state) == ("A6 L6 A7 L7", "F1 G1 F12 G12")
    assert len(ONYX.legal(state, BLACK_SEAT)) == 192
    assert ONYX.legal(state, WHITE_SEAT) == []


def test_o5_standard_sixteen_setup():
    state = ONYX.start({"board": "16"})
    assert stones(state) == ("A8 P8 A9 P9", "H1 I1 H16 I16")


@pytest.mark.parametrize("size", [6, 8, 14, 26])
def test_o5_open_variation_is_an_empty_board(size):
    state = ONYX.start({"board": str(size), "setup": "open"})
    assert stones(state) == ("", "")


@pytest.mark.parametrize("options, complaint", [
    ({"board": "14"}, "no standard setup"),
    ({"board": "13", "setup": "open"}, "even number from 6 to 26"),
    ({"board": "28", "setup": "open"}, "even number from 6 to 26"),
    ({"setup": "closed"}, "standard, open"),
    ({"colour": "red"}, "no option 'colour'"),
])
def test_options_are_refused_with_a_reason(options, complaint):
    with pytest.raises(OptionError, match=complaint):
        ONYX.resolve_options(options)


# -- O6: placing -------------------------------------------------------------------------

def test_o6_a_midpoint_needs_four_empty_corners():
    state = position(12, black="D9")
    with pytest.raises(IllegalMove, match="all four corners .* D9 is occupied"):
        ONYX.parse(state, BLACK_SEAT, "DE910")
    after = play(position(12), "DE910", "D9")  # the corners may be filled later
    assert stones(after) == ("DE910", "D9")


def test_o6_a_taken_point_is_refused_and_free_neighbours_suggested():
    state = position(12, white="E7")
    with pytest.raises(IllegalMove, match=r"E7 is taken \(a white stone\)\. Free points "
                                          r"next to it: E6, D7, F7, E8, F8\."):
        ONYX.parse(state, BLACK_SEAT, "e7")


def test_off_board_points_and_missing_midpoints_are_refused():
    state = position(6)
    with pytest.raises(IllegalMove, match="G3 is off the 6×6 board"):
        ONYX.parse(state, BLACK_SEAT, "G3")
    with pytest.raises(IllegalMove, match="BC45 has no midpoint"):
        ONYX.parse(state, BLACK_SEAT, "BC45")


# -- O7: captures (the rulebook's 6×6 examples) ------------------------------------------

RULEBOOK_6X6 = dict(black="A4 B3 C2 C4 D3", white="A5 B4 D2")


def test_o7_black_b5_captures_a5_and_b4():
    after = play(position(6, **RULEBOOK_6X6, to_move="black"), "B5*")
    assert stones(after) == ("C2 B3 D3 A4 C4 B5", "D2")
    assert ONYX.view(after, None)["last"] == {"move": "B5*", "point": "B5",
                                              "captured": ["A5", "B4"]}


def test_o7_white_c3_captures_two_pairs():
    after = play(position(6, **RULEBOOK_6X6, to_move="white"), "C3**")
    assert stones(after) == ("A4", "D2 C3 B4 A5")


def test_o7_after_black_captures_the_double_capture_is_gone():
    # B4 is gone, so square BC34 captures nothing; CD23 still takes C2 and D3.
    after = play(position(6, **RULEBOOK_6X6, to_move="black"), "B5", "C3")
    assert stones(after) == ("B3 A4 C4 B5", "D2 C3")
    assert ONYX.view(after, None)["last"]["move"] == "C3*"


def test_o7_no_capture_when_the_midpoint_is_occupied():
    state = position(6, black="A4 AB45", white="A5 B4")
    assert ONYX.notation(state, BLACK_SEAT, board_of(6).index["B5"]) == "B5"


def test_o7_a_midpoint_stone_never_captures_or_is_captured():
    board = board_of(6)
    state = position(6, black="A4", white="A5")
    assert ONYX.notation(state, BLACK_SEAT, board.index["BC34"]) == "BC34"
    # Square CD45 has a white midpoint: Black's C4 opposite D5 captures nothing there.
    state = position(6, black="D5", white="D4 C5 CD45", to_move="black")
    assert stones(play(state, "C4")) == ("C4 D5", "D4 C5 CD45")


def test_o7_only_the_mover_captures():
    # Black's B4 completes White's pattern (Black on opposite corners A4 and B5, White
    # on A5): White did not move, so nothing is captured.
    state = position(6, black="A4 B5", white="A5", to_move="black")
    assert stones(play(state, "B4")) == ("A4 B4 B5", "A5")


def test_o9_capture_marks_must_match_when_given():
    state = position(6, **RULEBOOK_6X6, to_move="white")
    with pytest.raises(IllegalMove, match=r"C3\* was read, but C3 captures two pairs "
                                          r"\(B3 C2 C4 D3\): write C3\*\*"):
        ONYX.parse(state, WHITE_SEAT, "C3*")
    with pytest.raises(IllegalMove, match=r"A1\* was read, but A1 captures nothing: write A1"):
        ONYX.parse(state, WHITE_SEAT, "A1*")
    assert ONYX.play(state, WHITE_SEAT, "c3")[1] == "C3**"  # marks may be left out


# -- O8: swap ----------------------------------------------------------------------------

def test_o8_swap_hands_black_to_the_second_seat_and_the_first_moves_white():
    state = play(ONYX.start({}), "F6")
    assert ONYX.to_act(state) == {WHITE_SEAT} and -1 in ONYX.legal(state, WHITE_SEAT)
    state, text = ONYX.play(state, WHITE_SEAT, "SWAP")
    assert text == "swap"
    assert ONYX.to_act(state) == {BLACK_SEAT}
    view = ONYX.view(state, BLACK_SEAT)
    assert (view["to_move"], view["colours"], view["you"]) == ("white", ["white", "black"],
                                                               "white")
    state = play(state, "G5")
    assert stones(state) == ("A6 F6 L6 A7 L7", "F1 G1 G5 F12 G12")
    assert ONYX.to_act(state) == {WHITE_SEAT}  # the second seat now places black stones


def test_a_resignation_is_scored_by_colour_so_after_a_swap_the_first_seat_is_white():
    state = play(ONYX.start({}), "F6")
    assert ONYX.resigned_result(state, BLACK_SEAT) == "0-1"  # Black resigned: White won
    state = play(state, "swap")
    assert ONYX.resigned_result(state, BLACK_SEAT) == "1-0"  # now White: Black won
    assert ONYX.resigned_result(state, WHITE_SEAT) == "0-1"


def test_o8_swap_only_as_the_second_ply():
    with pytest.raises(IllegalMove, match="only as the second move"):
        ONYX.parse(ONYX.start({}), BLACK_SEAT, "swap")
    state = play(ONYX.start({}), "F6", "G5")
    with pytest.raises(IllegalMove, match="only as the second move"):
        ONYX.parse(state, BLACK_SEAT, "swap")


# -- O1: winning -------------------------------------------------------------------------

def test_o1_black_wins_by_joining_bottom_and_top():
    # Up column A, through the midpoint AB45 to B5, and on to row 6.
    state = position(6, black="A1 A2 A3 A4 AB45 B5", white="F1 F2", to_move="black")
    after = play(state, "B6")
    assert ONYX.outcome(after).winners == {BLACK_SEAT}
    assert ONYX.position(after)["winner"] == "black" and ONYX.to_act(after) == frozenset()
    assert ONYX.result_token(after) == "1-0"
    with pytest.raises(IllegalMove, match="The game is over: Black has won"):
        ONYX.parse(after, WHITE_SEAT, "F3")


def test_o1_a_corner_point_belongs_to_both_its_edges():
    # White's chain along row 6 from A6 to F6: A6 is on column A, F6 on column F.
    state = position(6, white="A6 B6 C6 D6 E6", black="A1", to_move="white")
    assert ONYX.position(play(state, "F6"))["winner"] == "white"
    # Black along column F reaches row 6 at F6 and row 1 at F1.
    state = position(6, black="F2 F3 F4 F5 F6", white="A1", to_move="black")
    assert ONYX.position(play(state, "F1"))["winner"] == "black"


def test_o1_diagonal_of_a_square_is_no_connection():
    # A4 and B5 are opposite corners of square AB45: not joined without the midpoint.
    state = position(6, black="A1 A2 A3 A4 B5", white="F1", to_move="black")
    assert ONYX.position(play(state, "B6"))["winner"] is None


def test_o1_a_capturing_move_can_win():
    # B4 joins A3 (triangle diagonal) to B5, and captures B3 and C4 in square BC34.
    state = position(6, black="A1 A2 A3 C3 B5 B6", white="B3 C4 F1", to_move="black")
    after, text = ONYX.play(state, BLACK_SEAT, "B4")
    assert text == "B4*" and stones(after)[1] == "F1"
    assert ONYX.outcome(after).reason == "Black connected rows 1 and 6"


# -- O9: notation ------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["DE910", "de910", "DE-910", "d9/e10", "E10/D9", " De910 "])
def test_o9_midpoint_spellings(text):
    assert ONYX.play(position(12), BLACK_SEAT, text)[1] == "DE910"


@pytest.mark.parametrize("text, complaint", [
    ("F", "not an Onyx move"),
    ("pass", "not an Onyx move"),
    ("DF910", "two neighbouring columns"),
    ("DE911", "two consecutive rows"),
    ("d9/e11", "two opposite corners"),
    ("swap*", "swap captures nothing"),
])
def test_o9_malformed_moves_say_what_would_work(text, complaint):
    with pytest.raises(InvalidMove, match=complaint):
        ONYX.parse(position(12), BLACK_SEAT, text)


def test_it_is_not_your_turn():
    with pytest.raises(IllegalMove, match="not your turn: the game waits for Black"):
        ONYX.parse(ONYX.start({}), WHITE_SEAT, "F6")


# -- the contract: pure, serialisable ----------------------------------------------------

def test_apply_leaves_the_old_state_alone_and_snapshots_round_trip():
    state = position(6, **RULEBOOK_6X6, to_move="white")
    before = json.dumps(ONYX.to_json(state))
    after = play(state, "C3")
    assert json.dumps(ONYX.to_json(state)) == before
    restored = ONYX.from_json(json.loads(json.dumps(ONYX.to_json(after))))
    assert ONYX.to_json(restored) == ONYX.to_json(after)
    # the rebuilt chains behave the same: Black can still win through them
    assert ONYX.view(restored, 0) == ONYX.view(after, 0)


def chains(state):
    """The chains of a position as sets of point names, whatever their roots."""
    board, found = board_of(state.size), {}
    for p, cell in enumerate(state.cells):
        if cell:
            root = p
            while state.parent[root] != root:
                root = state.parent[root]
            found.setdefault(root, set()).add(board.names[p])
    return sorted(sorted(chain) for chain in found.values())


def test_a_snapshot_keeps_the_chains_and_an_old_one_rebuilds_them():
    # Black's C3 joins C1 C2 and C4 into one chain touching row 1; the snapshot carries
    # it; one written before the chains were kept (no "chains", no "reach") is rebuilt
    # to the same chains, and Black wins through them either way.
    state = play(position(6, black="C1 C2 C4", white="E5 E6"), "C3")
    snapshot = json.loads(json.dumps(ONYX.to_json(state)))
    assert set(snapshot) >= {"chains", "reach"}
    old = {key: value for key, value in snapshot.items() if key not in ("chains", "reach")}
    loaded, rebuilt = ONYX.from_json(snapshot), ONYX.from_json(old)
    assert chains(loaded) == chains(rebuilt) == chains(state) == [
        ["C1", "C2", "C3", "C4"], ["E5", "E6"]]
    assert loaded.parent == state.parent and loaded.reach == state.reach
    for start in (loaded, rebuilt):
        end = play(start, "A1", "C5", "A2", "C6")
        assert ONYX.position(end)["winner"] == "black"


def test_views_are_json_and_public():
    state = play(ONYX.start({}), "F6", "swap", "DE910")
    view = ONYX.view(state, None)
    json.dumps(view)
    assert view["last"] == {"move": "DE910", "point": "DE910", "captured": []}
    assert ONYX.view(state, 0)["black"] == view["black"]


# -- the moves kept in the state (legal's list derived by apply) --------------------------

def test_a_double_capture_frees_its_corners_and_the_midpoints_it_emptied():
    # White's C3** removes B3 C2 C4 D3: they are free again, and so are the midpoints of
    # CD45 and DE34 whose squares are now empty; BC34 and CD23 keep C3 or D2, so stay
    # blocked. The list is the one built from the board.
    state = position(6, **RULEBOOK_6X6, to_move="white")
    ONYX.legal(state, WHITE_SEAT)  # the list kept in the state, for apply to derive from
    after = play(state, "C3**")
    names = {board_of(6).names[p] for p in ONYX.legal(after, BLACK_SEAT)}
    assert {"B3", "C2", "C4", "D3", "CD45", "DE34"} <= names
    assert not {"C3", "BC34", "CD23", "A4"} & names
    assert ONYX.legal(after, BLACK_SEAT) == _plain_legal(after)


def _plain_legal(state):
    """legal's list built from the board alone, as a loaded snapshot has it."""
    return ONYX.legal(ONYX.from_json(json.loads(json.dumps(ONYX.to_json(state)))),
                      state.seat_of(state.to_move))


@pytest.mark.parametrize("options", [{}, {"board": "6", "setup": "open"},
                                     {"board": "16"}, {"board": "10", "setup": "open"}])
def test_the_kept_moves_match_the_board_over_random_games(options):
    # legal every ply, derived by apply from the last one, against the list built from
    # the board; the games take turns choosing by the list and by random_decision.
    import random
    rng, captures = random.Random(18), 0
    for game in range(30):
        state = ONYX.start(options)
        while ONYX.to_act(state):
            (seat,) = ONYX.to_act(state)
            moves = ONYX.legal(state, seat)
            assert moves == _plain_legal(state)
            move = rng.choice(moves) if game % 2 else ONYX.random_decision(state, seat, rng)
            state = ONYX.apply(state, seat, move)
            captures += bool(state.last[1])
    assert captures > 20  # the games did capture, freeing points and midpoints
