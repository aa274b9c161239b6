"""Onyx diagrams: the text one mailed to players, the SVG one for the web and print."""

import math
import xml.etree.ElementTree as ET

from pbem.engines.onyx.board import board_of
from pbem.engines.onyx.render import coordinates

from test_onyx import ONYX, play, position

SVG = "{http://www.w3.org/2000/svg}"


def after_black_b5():
    return play(position(6, black="A4 B3 C2 C4 D3", white="A5 B4 D2 CD45"), "B5")


def test_text_diagram_shows_stones_cells_coordinates_and_the_last_move():
    assert ONYX.text_diagram(ONYX.view(after_black_b5(), None)) == """\
    A   B   C   D   E   F
 6  . - . - . - . - . - .  6
    | / | . | / | . | / |
 5  . -(X)- . - . - . - .  5
    | . | \\ | O | \\ | . |
 4  X - . - X - . - . - .  4
    | / | . | / | . | / |
 3  . - X - . - X - . - .  3
    | . | \\ | . | \\ | . |
 2  . - . - X - O - . - .  2
    | / | . | / | . | / |
 1  . - . - . - . - . - .  1
    A   B   C   D   E   F

X Black   O White   (X) last move
Last move: B5*, capturing A5 B4
White to move."""


def test_text_diagram_marks_a_midpoint_move():
    state = play(position(6, black="A1", white="F1"), "AB45")
    text = ONYX.text_diagram(ONYX.view(state, None))
    assert "    |(X)| \\ | . | \\ | . |" in text and text.endswith("White to move.")


def test_a_diagram_leaves_the_empty_board_it_starts_from_empty():
    # Every diagram is written over one cached empty board of its size: the stones and
    # the last move's brackets of one must not show in the next.
    ONYX.text_diagram(ONYX.view(after_black_b5(), None))
    text = ONYX.text_diagram(ONYX.view(position(6, black="", white="F1"), None))
    assert " 5  . - . - . - . - . - .  5" in text and "X" not in text.split("\n\n")[0]
    assert "(" not in text.split("\n\n")[0] and " 1  . - . - . - . - . - O  1" in text


def test_text_diagram_names_the_winner():
    state = play(position(6, black="A1 A2 A3 A4 A5", white="F1"), "A6")
    assert ONYX.text_diagram(ONYX.view(state, None)).endswith("Black has won.")


def test_every_board_line_has_the_same_length_in_the_true_geometry():
    for size in (6, 12, 26):
        board, points = board_of(size), coordinates(size)
        lengths = {round(math.dist(points[a], points[b]), 9)
                   for a in range(board.corners) for b in board.neighbours[a]
                   if b < board.corners}
        assert lengths == {1.0}


def test_squares_are_square_and_midpoints_sit_in_their_middle():
    board, points = board_of(12), coordinates(12)
    for mid, (ll, lr, ul, ur) in enumerate(board.mid_corners, start=board.corners):
        assert math.isclose(math.dist(points[ll], points[ur]), math.sqrt(2))
        assert math.isclose(math.dist(points[lr], points[ul]), math.sqrt(2))
        assert math.isclose(math.dist(points[mid], points[ll]), math.sqrt(0.5))


def test_chirality_a_mirrored_board_is_a_different_game():
    # C3-D4 is a triangle side (length 1); C4-D3 crosses nothing and is longer.
    board, points = board_of(12), coordinates(12)
    at = lambda name: points[board.index[name]]
    assert math.isclose(math.dist(at("C3"), at("D4")), 1)
    assert math.dist(at("C4"), at("D3")) > 1.5


def test_svg_draws_every_line_stone_and_label():
    state = after_black_b5()
    svg = ONYX.svg_diagram(ONYX.view(state, None), size=400, caption="After 1. B5*")
    root = ET.fromstring(svg)
    assert root.get("width") == "400"
    assert root.find(f"{SVG}title").text.startswith("Onyx 6×6: 6 black and 2 white stones")
    assert len(root.findall(f".//{SVG}line")) == board_of(6).line_count
    circles = root.findall(f".//{SVG}circle")
    assert len(circles) == 6 + 2 + 1  # the stones and the ring around the last move
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "After 1. B5*" in texts and {"A", "F", "1", "6"} <= set(texts)
    assert len(root.findall(f".//{SVG}path")) == 2  # a cross on each captured point


def test_svg_without_caption_or_last_move():
    svg = ONYX.svg_diagram(ONYX.view(ONYX.start({}), None))
    root = ET.fromstring(svg)
    assert root.get("width") == "480" and len(root.findall(f".//{SVG}circle")) == 8
    assert root.get("aria-label").endswith("black to move")


def test_the_empty_board_and_its_stones_are_drawn_once_per_size_and_width():
    """A diagram copies the empty board and its stones' SVG rather than writing them
    again (a 26×26 board's were most of a mail's picture, and of a print page)."""
    from pbem.engines.onyx import render
    assert render._layout(26, 480) is render._layout(26, 480)
    assert render._stones(26, 480) is render._stones(26, 480)
    assert render._layout(26, 480) is not render._layout(26, 240)
