"""Annotated records: variations `( ... )`, glyphs (`!?`, `$14`) and comments anywhere;
`pbem record check` checks every variation and names a bad move by its path, `pbem
record show --variation` steps into one, and the SGF of an Onyx record carries them as
branches and move annotations, read back here by an independent SGF parser (sgfmill).
"""

from __future__ import annotations

import pytest
from sgfmill import sgf

from notation.record import (Move, RecordSyntaxError, Variation, format_record,
                             parse_record)
from pbem.cli import main
from pbem.engines.game import Game, RecordError, replay_variation
from pbem.export.sgf import onyx_sgf

# An annotated Onyx game in pbem's layout: a comment before the first move, glyphs on a
# move and after it ($14), a variation with a nested one and a comment after it, and a
# second variation of the same ply.
ANNOTATED = """\
[Game "Onyx"]
[Board "12"]
[Setup "standard"]
[Black "alice"]
[White "bob"]
[Annotator "carol"]
[Result "*"]

{Annotated by carol.} 1. F6!? G5 $14 {bob answers at once.} 2. D4 (2. E5
{central} 2... E6 3. G7 (3. F5?? G6) 3... E4) {or simply} (2. H7) 2... E7
3. G7! *
"""

LABELLED = """\
[Game "Onix"]
[Seat1 "alice"]
[Seat2 "bob"]
[Result "*"]

Dealer: deal 3 1 2; alice: take X A; ! (alice: take O B; ?) bob: take O B; *
"""


def write(tmp_path, text: str, name: str = "game.txt"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# -- the syntax ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", [ANNOTATED, LABELLED], ids=["onyx", "labelled"])
def test_an_annotated_record_is_written_back_byte_for_byte(text):
    assert format_record(parse_record(text)) == text


def test_what_the_annotated_record_holds():
    record = parse_record(ANNOTATED)
    assert record.comments == ["Annotated by carol."]
    assert record.moves[0] == Move("F6", glyphs=["!?"])
    assert record.moves[1] == Move("G5", glyphs=["$14"], comments=["bob answers at once."])
    d4 = record.moves[2]
    assert [len(v.moves) for v in d4.variations] == [4, 1]
    first = d4.variations[0]
    assert first.moves[0] == Move("E5", comments=["central"])
    assert first.moves[2].variations == [Variation([Move("F5", glyphs=["??"]), Move("G6")])]
    assert first.after == ["or simply"]
    assert [m.text for m in record.moves] == ["F6", "G5", "D4", "E7", "G7"]
    assert record.moves[4].glyphs == ["!"]


def test_a_glyph_after_a_labelled_move_and_its_variation():
    record = parse_record(LABELLED)
    take = record.moves[1]
    assert take.glyphs == ["!"]
    assert take.variations[0].moves == [Move("take O B", actor="alice", glyphs=["?"])]


@pytest.mark.parametrize("movetext, words", [
    ("1. F6 (G5", "never closed with ')'"),
    ("1. F6 G5) *", "')' without an opening '('"),
    ("(1. F6) *", "follows the move it is an alternative to"),
    ("1. F6 () *", "at least one move"),
    ("1. F6 (G5 1-0) *", "a result '1-0' inside a variation"),
    ("1. F6!!! *", "a move's mark is one of"),
    ("1. F6 {why} ! *", "right after its move"),
])
def test_movetext_that_is_not_annotated_as_it_should_be(movetext, words):
    with pytest.raises(RecordSyntaxError, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse_record(f'[Game "Onyx"]\n\n{movetext}\n')


def test_a_variation_may_not_open_inside_a_labelled_move():
    with pytest.raises(RecordSyntaxError, match="a variation '\\(' inside the move of alice"):
        parse_record('[Game "Onix"]\n\nalice: take ( X A; *\n')


# -- checking and showing -------------------------------------------------------------------

def test_record_check_checks_every_variation(tmp_path, capsys):
    assert main(["record", "check", write(tmp_path, ANNOTATED)]) == 0
    assert "ok, 5 plies" in capsys.readouterr().out


def test_record_check_names_the_first_bad_move_by_its_path(tmp_path, capsys):
    bad = ANNOTATED.replace("(3. F5?? G6)", "(3. F5?? F5)")
    assert main(["record", "check", write(tmp_path, bad)]) == 1
    assert capsys.readouterr().err == (
        f"{tmp_path / 'game.txt'}: variation 1 of ply 3, move 3, variation 1, move 2 (F5): "
        "F5 is taken (a black stone). Free points next to it: F4, G4.\n")
    bad = ANNOTATED.replace("(2. H7)", "(2. H7 G6 3. G6)")
    with pytest.raises(RecordError) as error:
        Game.from_record(parse_record(bad))
    assert str(error.value).startswith("variation 2 of ply 3, move 3 (G6): G6 is taken")


def test_record_show_steps_into_a_variation(tmp_path, capsys):
    path = write(tmp_path, ANNOTATED)
    assert main(["record", "show", path, "--ply", "3", "--variation", "1/3", "--json"]) == 0
    inside = capsys.readouterr().out
    assert '"last": {"point": "G7"' in inside or '"G7"' in inside
    game = replay_variation(parse_record(ANNOTATED), 3, [1, 3])
    assert [ply.text for ply in game.plies] == ["F6", "G5", "E5", "E6", "G7"]
    nested = replay_variation(parse_record(ANNOTATED), 3, [1, 3, 1, 2])
    assert [ply.text for ply in nested.plies] == ["F6", "G5", "E5", "E6", "F5", "G6"]


@pytest.mark.parametrize("arguments, words", [
    (["--ply", "3", "--variation", "3/1"], "ply 3 has 2 variations, not 3"),
    (["--ply", "3", "--variation", "1/5"], "variation 1 of ply 3 has 4 moves, not 5"),
    (["--ply", "2", "--variation", "1/1"], "ply 2 has 0 variations, not 1"),
    (["--variation", "1/1"], "--variation needs --ply"),
    (["--ply", "3", "--variation", "one"], "write VARIATION/MOVES, such as 2/3"),
])
def test_record_show_says_which_variations_there_are(tmp_path, capsys, arguments, words):
    assert main(["record", "show", write(tmp_path, ANNOTATED), *arguments]) == 1
    assert words in capsys.readouterr().err


# -- SGF ------------------------------------------------------------------------------------

def test_sgf_carries_variations_as_branches_and_glyphs_as_annotations():
    game = sgf.Sgf_game.from_bytes(onyx_sgf(parse_record(ANNOTATED)).encode())
    root = game.get_root()
    f6 = root[0]
    assert f6.get("N") == "F6" and f6.get("IT") is True
    g5 = f6[0]
    assert g5.get("N") == "G5" and g5.get("C") == "$14\nbob answers at once."
    assert len(g5) == 3  # the game's D4 and the two variations in its place
    main_line, first, second = list(g5)
    assert [node.get("N") for node in game.get_main_sequence()[1:]] == [
        "F6", "G5", "D4", "E7", "G7"]
    assert main_line.get("C") == "or simply"  # said after the variation, of D4
    assert game.get_main_sequence()[-1].get("TE") == 1
    assert first.get("N") == "E5" and first.get("C") == "central"
    e6 = first[0]
    assert [child.get("N") for child in e6] == ["G7", "F5"]
    assert e6[1].get("BM") == 2 and e6[1][0].get("N") == "G6"
    assert second.get("N") == "H7" and len(second) == 0
    colour, _ = second.get_move()
    assert colour == "b"


def test_sgf_names_a_bad_move_in_a_variation_by_its_path():
    with pytest.raises(RecordError, match="variation 2 of ply 3, move 1"):
        onyx_sgf(parse_record(ANNOTATED.replace("(2. H7)", "(2. F6)")))
