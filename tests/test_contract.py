"""The engine contract as a whole (pbem.engines.base): its four parts, one module each;
`legal` holds only real decisions; trailing punctuation is no notation in any game."""

import inspect

import pytest

from pbem.engines import ENGINES
from pbem.engines.base import Engine
from pbem.engines.chance import ChanceAndSecrecy
from pbem.engines.core import GameRules, move_text
from pbem.engines.correspondence import Correspondence
from pbem.engines.game import Game
from pbem.engines.records import RecordsAndPictures

PARTS = (GameRules, ChanceAndSecrecy, Correspondence, RecordsAndPictures)


def own_methods(cls) -> set[str]:
    return {name for name, value in vars(cls).items()
            if inspect.isfunction(value) and not name.startswith("_")}


def test_the_engine_is_the_small_core_and_three_optional_concerns_each_in_its_module():
    assert Engine.__mro__[1:5] == PARTS
    assert own_methods(Engine) == set()
    assert len({cls.__module__ for cls in PARTS}) == 4
    parts = [own_methods(cls) for cls in PARTS]
    assert sum(map(len, parts)) == len(set().union(*parts))  # each method in one part
    assert {"start", "to_act", "legal", "parse", "notation", "apply", "outcome", "view",
            "automatic", "to_json", "from_json"} <= own_methods(GameRules)
    assert {"deal", "determinize", "visible_notation", "anonymous"} <= own_methods(
        ChanceAndSecrecy)
    assert {"prompt", "split_line", "mail_done", "interrupts", "shown_to_act",
            "default_decision", "reveals"} <= own_methods(Correspondence)
    assert {"record_tags", "result_token", "text_diagram", "svg_diagram"} <= own_methods(
        RecordsAndPictures)


@pytest.mark.parametrize("text, read", [("Pass.", "Pass"), ("take X C. ", "take X C"),
                                        ("F6!", "F6"), ("play 23 ?", "play 23"),
                                        ("D4*", "D4*"), ("steal P2 4 -> new", "steal P2 4 -> new")])
def test_trailing_punctuation_that_no_notation_ends_with_is_dropped(text, read):
    assert move_text(text) == read


def test_every_game_reads_a_move_with_a_full_stop():
    onyx = Game(ENGINES["onyx"], {}, ["ann", "ben"])
    assert onyx.play(0, "F6.") == "F6"
    onix = Game(ENGINES["onix"], {}, ["ann", "ben"], seed="p")
    seat = next(iter(onix.to_act))
    text = onix.engine.notation(onix.state, seat, onix.engine.legal(onix.state, seat)[0])
    assert onix.play(seat, text + ".") == text


@pytest.mark.parametrize("engine_id", ["onix", "gemforge"])
def test_legal_holds_only_decisions_of_seats_the_game_waits_for(engine_id):
    """Onix lists no echoes of automatic steps; a Gem Forge seat that has kept its tiles
    has only its standing answers left, which any seat may send at any time (G38)."""
    engine = ENGINES[engine_id]
    game = Game(engine, {}, ["ann", "ben", "cat"], seed="legal")
    for _ in range(40):
        if not game.to_act:
            break
        for seat in range(3):
            legal = engine.legal(game.state, seat)
            assert all(not (isinstance(d, tuple) and d[0] == "repeat") for d in legal)
            if seat not in game.to_act:
                assert all(d[0] == "pref" for d in legal) if engine_id == "gemforge" \
                    else legal == []
        seat = min(game.to_act)
        game.play(seat, engine.notation(game.state, seat, engine.default_decision(
            game.state, seat) or engine.legal(game.state, seat)[0]))
