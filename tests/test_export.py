"""The export package without HTTP: SGF for Onyx (its mapping read back), the record as
published, diagram sizes, and the refusals for ply numbers and options."""

import re
from pathlib import Path

import pytest

from notation.record import parse_record
from pbem.engines import ENGINES
from pbem.engines.game import Game
from pbem.export.diagram import parse_caption, parse_size, printed_at, ply_svg
from pbem.export.printable import parse_every
from pbem.export.record import record_text
from pbem.export.sgf import LETTERS, onyx_sgf
from pbem.export.source import ExportError, load_table, parse_ply

from export_games import ONYX_6, new_game, onyx_game, play, say

SIX_BY_SIX = """\
[Game "Onyx"]
[Board "6"]
[Setup "open"]
[Black "alice"]
[White "bob"]
[Result "1-0"]

1. A1 DE34 2. BC34 DE12 3. D4 D5 4. AB23 E1 5. A4 A2 6. D3 F2 7. E3 BC12 8. F1
E2 9. B1 C4 10. C3 F6 11. F4 D6 12. A6 A3 13. F5 B3 14. B5 E4 15. C1 D2 16. C5*
B4 17. C4 E5 18. E6 D1 19. B2 B6 20. C2 C6 21. F3 D5 22. A5 1-0
"""


def read_sgf(text: str, size: int) -> tuple[dict, set, set]:
    """A small reader for what onyx_sgf writes: the root's properties, and the black and
    white stones at the end as Onyx names (AB/AW, B/W, AE applied in order)."""
    columns = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    names = {}
    for g in range(size):
        for r in range(1, size + 1):
            names[LETTERS[2 * g] + LETTERS[2 * (size - r)]] = f"{columns[g]}{r}"
            if g + 1 < size and r + 1 <= size and (g + r) % 2 == 0:  # a square's midpoint
                names[LETTERS[2 * g + 1] + LETTERS[2 * (size - r) - 1]] = (
                    f"{columns[g:g + 2]}{r}{r + 1}")
    nodes = text.strip()[1:-1].split("\n;")
    root = dict(re.findall(r"([A-Z]{1,2})\[((?:[^\]\\]|\\.)*)\]", nodes[0]))
    stones = {"B": set(), "W": set()}
    for node in nodes:
        for key, values in re.findall(r"(AB|AW|AE|B|W)((?:\[[a-zA-Z]{2}\])+)", node):
            points = {names[p] for p in re.findall(r"\[([a-zA-Z]{2})\]", values)}
            if key == "AE":
                stones["B"] -= points
                stones["W"] -= points
            else:
                stones[key[-1]] |= points
    return root, stones["B"], stones["W"]


def test_the_sgf_of_a_six_by_six_game_replays_to_its_final_position():
    record = parse_record(SIX_BY_SIX)
    sgf = onyx_sgf(record, game_name="Onyx #7", date="2026-11-30")
    assert sgf.startswith("(;FF[4]GM[1]CA[UTF-8]AP[pbem:1]SZ[11]\nGN[Onyx #7]PB[alice]"
                          "PW[bob]DT[2026-11-30]RE[B+]\nC[Onyx on a 6×6 board (open setup)")
    assert "\n;B[ak]N[A1]\n;W[hf]N[DE34]\n;B[df]N[BC34]\n" in sgf  # A1, the square D3-E4
    # C5* takes the white pair C4 and D5: marked on the move, removed by the next node.
    assert "\n;B[ec]N[C5*]MA[ee][gc]\n;AE[ee][gc]\n;W[ce]N[B4]\n" in sgf
    root, black, white = read_sgf(sgf, 6)
    final = Game.from_record(record).engine.view(Game.from_record(record).state, None)
    assert (black, white) == (set(final["black"]), set(final["white"]))
    assert root["RE"] == "B+" and root["SZ"] == "11"


def test_the_sgf_keeps_comments_and_names_who_played_black_after_a_swap():
    game = Game(ENGINES["onyx"], {}, ["alice", "bob"])
    for text in ("F6", "swap", "G7"):
        (seat,) = game.to_act
        game.play(seat, text)
    record = game.record()
    record.moves[1].comments.append("bob: mine now]")
    sgf = onyx_sgf(record)
    # The standard setup: Black on A6 A7 L6 L7, White on F1 G1 F12 G12.
    assert "\nAB[am][wm][ak][wk]AW[kw][mw][ka][ma]PL[B]\n;B[km]N[F6]\n" in sgf
    assert ("\n;N[swap]C[swap: bob takes over the black stone and plays Black from now on; "
            "alice plays White and moves next.\nbob: mine now\\]]\n;W[mk]N[G7])") in sgf
    assert "\nPB[bob]PW[alice]RE[?]\n" in sgf


def test_a_running_onyx_record_has_the_result_star_and_every_comment(store):
    game_id = new_game("onyx", options={"board": "6", "setup": "open"})
    say(game_id, 1, "good luck")
    play(game_id, "A1", "DE34")
    say(game_id, 0, "a {quiet} start")
    play(game_id, "BC34")
    assert record_text(load_table(game_id)) == """\
[Game "Onyx"]
[Board "6"]
[Setup "open"]
[Black "alice"]
[White "bob"]
[Result "*"]

{bob: good luck} 1. A1 DE34 {alice: a (quiet) start} 2. BC34 *
"""


def test_a_finished_record_is_the_published_game(store):
    text = record_text(load_table(onyx_game()))
    assert text.endswith("B4 17. C4 E5 18. E6 D1 19. B2 B6 20. C2 C6 21. F3 D5 22. A5 1-0\n")
    Game.from_record(parse_record(text)).check_result(parse_record(text))


def test_a_running_card_game_record_is_refused_until_the_end(store):
    game_id = new_game("baronoxx")
    with pytest.raises(ExportError) as refused:
        record_text(load_table(game_id))
    assert refused.value.status == 403
    assert "published when the game ends" in refused.value.message


def test_plies_run_from_the_start_to_the_last(store):
    table = load_table(onyx_game(plies=4))
    assert [parse_ply(table, text) for text in ("0", "4", None)] == [0, 4, 4]
    for bad in ("-1", "5", "x", "1.5", "²", ""):
        with pytest.raises(ExportError) as refused:
            parse_ply(table, bad)
        assert refused.value.status == 404
        assert "plies run from 0 (the start) to 4" in refused.value.message
    svg = ply_svg(table, 2, with_caption=True)
    assert "Onyx #1, alice v bob: after ply 2 of 4 (DE34)" in svg
    assert "1 black and 1 white stones; last move DE34" in svg


def test_unknown_and_unstarted_games_are_not_found(store):
    with pytest.raises(ExportError) as refused:
        load_table(99)
    assert (refused.value.status, refused.value.message) == (404, "There is no game #99.")


def test_sizes_in_pixels_or_as_a_print_width():
    assert parse_size(None) == (480, None)
    assert parse_size("320") == (320, None)
    assert parse_size("8cm") == (302, "8cm")
    assert parse_size("80mm") == (302, "80mm")
    assert parse_size("3.5in") == (336, "3.5in")
    for bad in ("0", "99", "4001", "8 cm", "-5", "8furlongs", "1e3", "100m"):
        with pytest.raises(ExportError) as refused:
            parse_size(bad)
        assert refused.value.status == 400
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="302" height="151" viewBox="0 0 302 151">'
    assert printed_at(svg, "8cm") == ('<svg xmlns="http://www.w3.org/2000/svg" width="8cm" '
                                      'height="4.00cm" viewBox="0 0 302 151">')


def test_captions_and_diagram_intervals_are_numbers_or_refused():
    assert [parse_caption(text) for text in (None, "", "0", "1")] == [False, False, False, True]
    with pytest.raises(ExportError):
        parse_caption("yes")
    assert [parse_every(text, 300) for text in (None, "0", "5")] == [20, 0, 5]
    for bad in ("-1", "x", "1"):  # every=1 would print 300 diagrams
        with pytest.raises(ExportError) as refused:
            parse_every(bad, 300)
        assert refused.value.status == 400


def test_the_onyx_game_of_the_notation_guide_is_the_one_played():
    assert " ".join(move.text for move in parse_record(SIX_BY_SIX).moves) == " ".join(ONYX_6)


def test_the_example_in_the_sgf_guide_is_what_pbem_writes():
    guide = (Path(__file__).parent.parent / "notation" / "sgf.md").read_text(encoding="utf-8")
    record = re.search(r"```\n(\[Game .*?)```", guide, re.S).group(1)
    sgf = re.search(r"```sgf\n(.*?)```", guide, re.S).group(1)
    assert onyx_sgf(parse_record(record), game_name="Onyx #12", date="2026-11-30") == sgf


def test_a_cancelled_card_game_keeps_its_record_private(store):
    from pbem.play import Table
    from pbem.store import transaction
    game_id = new_game("gemforge")
    with transaction():
        Table.load(game_id).cancel("the players agreed to stop")
    with pytest.raises(ExportError) as refused:
        record_text(load_table(game_id))
    assert (refused.value.status, refused.value.message) == (
        403, f"Game #{game_id} (Gem Forge) was cancelled before it ended; its record would "
             f"show the cards in the players' hands, so it stays private.")
