"""What Onix players see (X6, X7): views, mail diagrams, SVG, and the deal as others read it;
and the whole game from the command line."""

import json
import random
import xml.etree.ElementTree as ElementTree

import pytest

from notation.record import format_record, parse_record
from pbem.cli import main
from pbem.engines.base import CHANCE
from pbem.engines.game import Game, selfplay

from onix_position import ENGINE, play, position

# The cards below the tops are all squares and crosses; no top or Collection shows one.
SECRET = """
piles: A=[S S X S O] B=[X S D] C=[S X OD] D=[X S S O] E=[S X S X D]
P1: 1=[O] 2=[D] hoard=2
P2: 1=[O D] 5=[OD] hoard=4
discard: 3
"""


def test_the_view_shows_tops_sizes_collections_hoard_sizes_and_the_discard_count():
    view = ENGINE.view(position(SECRET), 1)
    assert [(p["name"], p["top"], p["size"]) for p in view["piles"]] == [
        ("A", "O", 5), ("B", "D", 3), ("C", "OD", 3), ("D", "O", 4), ("E", "D", 5)]
    assert view["collections"][1] == [{"number": 1, "cards": ["O", "D"]},
                                      {"number": 5, "cards": ["OD"]}]
    assert view["hoards"] == [2, 4] and view["discard"] == 3
    assert view["you"] == 1 and view["revealed"] is None


@pytest.mark.parametrize("viewer", [None, 0, 1])
def test_nobody_sees_the_order_below_the_tops_not_in_the_view_nor_the_diagrams(viewer):
    state = position(SECRET)
    view = ENGINE.view(state, viewer)
    text, svg = ENGINE.text_diagram(view), ENGINE.svg_diagram(view)
    assert "S" not in [p["top"] for p in view["piles"]]
    changed = set()
    for seed in range(5):
        other = ENGINE.determinize(state, viewer, random.Random(seed))
        changed.add(other.piles != state.piles)
        assert ENGINE.view(other, viewer) == view
        assert ENGINE.text_diagram(ENGINE.view(other, viewer)) == text
        assert ENGINE.svg_diagram(ENGINE.view(other, viewer)) == svg
    assert any(changed), "determinize never redealt the cards below the tops"


def test_others_read_the_deal_as_its_face_up_cards_only():
    game = Game(ENGINE, {}, ["ann", "ben"], seed="deal")
    start = ENGINE.start({}, 2)
    deal = ENGINE.parse(start, CHANCE, game.plies[0].text)
    seen = ENGINE.visible_notation(start, CHANCE, deal, 0)
    assert seen.startswith("deal first P") and len(seen.split()) == 9  # 5 tops
    assert ENGINE.visible_notation(game.state, game.state.turn,
                                   ENGINE.legal(game.state, game.state.turn)[0], 1)


def test_after_the_end_everything_is_shown():
    game = selfplay(ENGINE, {}, 3, "end")
    view = ENGINE.view(game.state, None)
    revealed = view["revealed"]
    assert view["step"] == "over" and view["winner"] and view["result"]
    assert sum(map(len, revealed["piles"])) == sum(p["size"] for p in view["piles"])
    assert [len(h) for h in revealed["hoards"]] == view["hoards"]
    assert "Revealed at the end" in ENGINE.text_diagram(view)


def test_the_mail_diagram_fits_72_columns_and_explains_itself():
    state = play(position(SECRET), "take O A")
    text = ENGINE.text_diagram(ENGINE.view(state, 0))
    assert max(map(len, text.splitlines())) <= 72
    assert "A: S  (4)" in text and "discard: 3" in text
    assert "P1 (you)" in text and "2:[D]" in text and "1:[O D] 5:[OD]" in text
    assert "Taken, still to place: O from A" in text
    assert "O circle=Draw" in text and "to place the cards taken" in text


def test_every_view_of_a_long_game_fits_72_columns():
    game = Game(ENGINE, {"advanced": "true"}, [f"p{n}" for n in range(6)], seed="wide")
    rng = random.Random(3)
    while game.to_act:
        text = ENGINE.text_diagram(ENGINE.view(game.state, 0))
        assert max(map(len, text.splitlines())) <= 72, text
        seat = game.state.turn
        game.play(seat, ENGINE.notation(game.state, seat,
                                        ENGINE.random_decision(game.state, seat, rng)))


def test_the_svg_is_well_formed_with_the_piles_in_their_circle():
    view = ENGINE.view(position(SECRET), None)
    svg = ENGINE.svg_diagram(view, size=480, caption="after move 3")
    root = ElementTree.fromstring(svg)
    assert root.get("width") == "480"
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert {"A", "B", "C", "D", "E", "Hoard 2", "Hoard 4", "after move 3"} <= set(texts)


def test_views_are_json():
    game = selfplay(ENGINE, {"advanced": "true"}, 4, "json")
    json.dumps(ENGINE.view(game.state, 2))
    json.dumps(ENGINE.position(game.state))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("advanced", ["false", "true"])
def test_selfplay_from_the_command_line_gives_a_record_that_checks(players, advanced,
                                                                   tmp_path, capsys):
    assert main(["selfplay", "onix", "--players", str(players), "--seed", "9",
                 "--option", f"advanced={advanced}"]) == 0
    text = capsys.readouterr().out
    assert f'[Advanced "{advanced}"]' in text and "Dealer: deal first P" in text
    path = tmp_path / "game.txt"
    path.write_text(text)
    assert main(["record", "check", str(path)]) == 0
    assert "ok" in capsys.readouterr().out
    assert main(["record", "show", str(path), "--ply", "4"]) == 0


def test_a_game_dealt_with_real_cards_can_be_transcribed_and_checked():
    played = selfplay(ENGINE, {}, 2, "table")
    record = played.record()
    record.tags = [(k, v) for k, v in record.tags if k not in ("Seed", "SeedSHA256")]
    text = format_record(record)
    game = Game.from_record(parse_record(text))
    game.check_result(parse_record(text))
    assert ENGINE.to_json(game.state) == ENGINE.to_json(played.state)


def test_the_diagram_in_the_notation_guide_is_what_the_engine_draws():
    from pathlib import Path
    guide = (Path(__file__).parent.parent / "notation" / "onix.md").read_text()
    record = guide.split("## The start of a game\n\n```\n")[1].split("```")[0]
    game = Game.from_record(parse_record(record))
    assert ENGINE.text_diagram(ENGINE.view(game.state, None)) in guide


def test_a_forced_step_sent_again_is_a_ply_that_changes_nothing_and_replays():
    game = _played_until(lambda state: state.autos)
    seat, text, _ = game.state.autos[0]
    before = ENGINE.to_json(game.state)
    assert game.play(seat, text) == text
    after = ENGINE.to_json(game.state)
    assert after == before | {"echoed": [text], "automatic": []}
    with pytest.raises(Exception):
        game.play(seat, text)  # only once
    record = parse_record(format_record(game.record()))
    assert ENGINE.to_json(Game.from_record(record).state) == ENGINE.to_json(game.state)


def _played_until(wanted, players=3):
    """A random game stopped where `wanted(state)` first holds (trying seeds in turn)."""
    for seed in range(100):
        game = Game(ENGINE, {}, [f"p{n}" for n in range(players)], seed=f"until{seed}")
        rng = random.Random(seed)
        while game.to_act and not wanted(game.state):
            seat = game.state.turn
            game.play(seat, ENGINE.notation(game.state, seat,
                                            ENGINE.random_decision(game.state, seat, rng)))
        if game.to_act:
            return game
    raise AssertionError("no game reached the position wanted")
