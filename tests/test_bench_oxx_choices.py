"""bench/oxx_choices.py: 6 nimmt! card choices weighed against many-world values."""

import random
import sys

import pytest

from bench import oxx_choices
from pbem.bots import search

E = oxx_choices.ENGINE


def test_positions_are_seat_0_choosing_a_card_among_three_at_the_table_asked():
    states = oxx_choices.positions(3, 10, "counter")
    assert len(states) == 3
    for state in states:
        assert state.players == 10 and 0 in E.to_act(state)
        world = search.canonical(E, state, 0)
        options = search.candidates(E, world, 0)
        assert len(options) >= 3
        assert all(E.notation(world, 0, d).startswith("play") for d in options)


def test_each_card_is_valued_by_its_mean_reward_the_same_for_the_same_seed():
    [state] = oxx_choices.positions(1, 3, "keeper")
    world = search.canonical(E, state, 0)
    cards = {E.notation(world, 0, d) for d in search.candidates(E, world, 0)}
    first = oxx_choices.values(state, 12, "keeper", random.Random(1))
    assert set(first) == cards and all(0.0 <= v <= 1.0 for v in first.values())
    assert oxx_choices.values(state, 12, "keeper", random.Random(1)) == first
    # The bots' model draws the others' styles from the family: other worlds, values.
    assert oxx_choices.values(state, 12, None, random.Random(1)) != first


def test_the_report_weighs_every_chooser_by_the_model_and_by_the_table():
    lines = oxx_choices.measure(2, 3, "dumper", 8)
    assert lines[0] == ("6 nimmt! 3 players, seat 0 among dumper players, 2 positions, "
                        "8 worlds a card:")
    assert [line.split(",")[0].strip() for line in lines[1:]] == [
        "hard", "hard", "normal", "normal", "habit", "habit"]
    assert all("the best card" in line and " of 2" in line for line in lines[1:])


@pytest.mark.parametrize("arguments, said", [
    (["--players", "11"], "--players: 6 nimmt! seats 2 to 10"),
    (["--positions", "0"], "--positions and --worlds must be 1 or more"),
    (["--worlds", "0"], "--positions and --worlds must be 1 or more")])
def test_a_table_or_a_count_it_cannot_measure_is_a_usage_error(arguments, said, monkeypatch,
                                                                capsys):
    monkeypatch.setattr(sys, "argv", ["bench.oxx_choices", *arguments])
    with pytest.raises(SystemExit) as exit:
        oxx_choices.main()
    assert exit.value.code == 2 and said in capsys.readouterr().err
