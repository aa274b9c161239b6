"""The bench's ledger of bot games (bench/bot_ledger.py): each game a line with the code
that played it; `--tally` pools a line's parts, each game number once, one code apart
from another. A line of the bar is an hour of a core, so it is run in parts."""

import json
import sys

import pytest

from bench import bot_ledger, bots

ENTRY = {"code": "c0de", "game": "baronoxx", "players": 3, "contestant": "bot:hard",
         "fill": "style:keeper", "seed": "bench/baronoxx"}


def write(path, *games, **changes):
    for k, share, seconds in games:
        bot_ledger.record(str(path), {**ENTRY, **changes, "k": k, "share": share,
                                      "seconds": seconds})


def test_a_line_run_in_two_parts_tallies_as_one_run(tmp_path):
    whole, parts = tmp_path / "whole.jsonl", tmp_path / "parts.jsonl"
    bots.strength(2, "onix", "hoarder", "easy", 3, ledger=str(whole))
    bots.strength(1, "onix", "hoarder", "easy", 3, ledger=str(parts))
    bots.strength(1, "onix", "hoarder", "easy", 3, ledger=str(parts), first=1)
    entries = [json.loads(line) for line in whole.read_text().splitlines()]
    assert [(e["k"], e["contestant"], e["fill"], e["players"]) for e in entries] == [
        (0, "bot:easy", "style:hoarder", 3), (1, "bot:easy", "style:hoarder", 3)]
    assert {e["code"] for e in entries} == {bot_ledger.current("onix")}
    assert all(e["seconds"] for e in entries)  # the bot's own decisions, that game's
    [one], [other] = bot_ledger.tally([str(whole)]), bot_ledger.tally([str(parts)])
    assert one.games == other.games and sorted(one.games) == [0, 1]


def test_a_game_number_counts_once_and_codes_are_kept_apart(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, (0, 1.0, [0.5]), (1, 0.0, [0.7]), (1, 1.0, [0.9]), (2, 0.5, [0.6]))
    write(ledger, (0, 0.0, [1.5]), code="other")
    mine, other = bot_ledger.tally([str(ledger)])
    assert (mine.code, mine.games, mine.seconds) == ("c0de", {0: 1.0, 1: 0.0, 2: 0.5},
                                                      [0.5, 0.7, 0.6])
    assert (other.code, other.games) == ("other", {0: 0.0})
    assert [line.code for line in bot_ledger.tally([str(ledger)], "other")] == ["other"]


def test_a_line_under_sixty_games_is_not_shown_and_sixty_games_are(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, *[(k, 1.0 if k % 2 else 0.0, [1.0]) for k in range(59)])
    [line] = bot_ledger.tally([str(ledger)])
    assert line.verdict() == ("1.47x the fair share, lower bound above it; "
                              "under 60 games: not shown")
    write(ledger, (59, 1.0, [1.0]))
    [line] = bot_ledger.tally([str(ledger)])
    assert line.verdict() == "1.50x the fair share, lower bound above it"
    row = bot_ledger.report([line])[2]
    assert "| 60 (0–59) | 50.0% | 37.7%–62.3% | 33.3% |" in row


def test_the_fingerprint_changes_with_the_deciding_code_only(tmp_path):
    for folder in bot_ledger.DECIDING:
        (tmp_path / folder).mkdir(parents=True)
    search = tmp_path / "pbem/bots/search.py"
    search.write_text('"""The search."""\n\ndef budget():\n    return 1\n')
    before = bot_ledger.code_fingerprint(tmp_path)
    search.write_text('"""The search, its budget."""\n\ndef budget():\n'
                      '    """Work, not time."""\n    return 1  # per decision\n')
    assert bot_ledger.code_fingerprint(tmp_path) == before  # words only
    search.write_text('"""The search."""\n\ndef budget():\n    return 2\n')
    changed = bot_ledger.code_fingerprint(tmp_path)
    (tmp_path / "pbem/mail.py").write_text("anything\n")
    assert changed != before
    assert bot_ledger.code_fingerprint(tmp_path) == changed  # not a deciding module


def test_tally_on_the_command_line_prints_a_table(tmp_path, monkeypatch, capsys):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, (0, 1.0, [0.25, 0.75]))
    monkeypatch.setattr(sys, "argv", ["bench.bots", "--tally", str(ledger)])
    bots.main()
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("| code | game | players | contestant | other seats |")
    assert out[2] == ("| c0de | baronoxx | 3 | bot:hard | style:keeper | 1 (0–0) | 100.0% "
                      "| 20.7%–100.0% | 33.3% | 3.00x the fair share, lower bound not "
                      "above it; under 60 games: not shown | 750, 750 ms |")


def test_the_same_command_again_plays_only_the_games_the_ledger_lacks(tmp_path, capsys):
    ledger = tmp_path / "ledger.jsonl"
    bots.strength(1, "onix", "grabber", "easy", 3, ledger=str(ledger), first=1)
    bots.strength(3, "onix", "grabber", "easy", 3, ledger=str(ledger))
    assert [json.loads(line)["k"] for line in ledger.read_text().splitlines()] == [1, 0, 2]
    assert "(2 games; 1 more in" in capsys.readouterr().out
    bots.strength(3, "onix", "grabber", "easy", 3, ledger=str(ledger))
    assert len(ledger.read_text().splitlines()) == 3


def test_a_game_s_fingerprint_leaves_out_the_modules_only_another_game_runs(tmp_path):
    for folder in bot_ledger.DECIDING:
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "pbem/engines/gemforge").mkdir()
    search = tmp_path / "pbem/bots/search.py"
    habit = tmp_path / "pbem/bots/heuristic_gemforge.py"
    rules = tmp_path / "pbem/engines/gemforge/rules.py"
    for module in (search, habit, rules):
        module.write_text("VALUE = 1\n")

    def fingerprints():
        return {game: bot_ledger.code_fingerprint(tmp_path, game)
                for game in ("baronoxx", "gemforge", "onix")}

    before = fingerprints()
    habit.write_text("VALUE = 2\n")
    rules.write_text("VALUE = 2\n")
    after = fingerprints()
    assert after["gemforge"] != before["gemforge"]
    assert after["baronoxx"] == before["baronoxx"] and after["onix"] == before["onix"]
    search.write_text("VALUE = 2\n")  # every game's search
    assert all(now != then for now, then in zip(fingerprints().values(), after.values()))


def test_tally_now_keeps_each_game_s_lines_of_its_code_as_it_stands(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, (0, 1.0, [0.5]), code=bot_ledger.current("baronoxx"))
    write(ledger, (0, 1.0, [0.5]), code=bot_ledger.current("onix"), game="onix")
    write(ledger, (1, 0.0, [0.5]), code=bot_ledger.current("baronoxx"), game="onix")
    lines = bot_ledger.tally([str(ledger)], bot_ledger.NOW)
    assert {(line.game, tuple(line.games)) for line in lines} == {("baronoxx", (0,)),
                                                                  ("onix", (0,))}


def test_a_game_another_process_recorded_meanwhile_is_not_played_again(tmp_path,
                                                                        monkeypatch):
    # Two processes on one line: while this one plays game 0, the other records game 1.
    ledger, played = tmp_path / "ledger.jsonl", []
    real_arena = bots.arena

    def arena(engine, match, games, options, count, first, **kwargs):
        played.append(first)
        if first == 0:
            write(ledger, (1, 0.0, [0.1]), code=bot_ledger.current("onix"),
                  game="onix", contestant="bot:easy", fill="style:grabber",
                  seed="bench/onix")
        return real_arena(engine, match, games, options, count, first=first, **kwargs)

    monkeypatch.setattr(bots, "arena", arena)
    bots.strength(3, "onix", "grabber", "easy", 3, ledger=str(ledger))
    assert played == [0, 2]
    assert sorted(bot_ledger.tally([str(ledger)])[0].games) == [0, 1, 2]


def test_an_entry_cut_short_by_a_stopped_process_is_left_out(tmp_path, capsys):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, (0, 1.0, [0.5]))
    with open(ledger, "a") as out:
        out.write('{"code": "c0de", "game": "baro')
    write(ledger, (1, 0.0, [0.5]))  # the next process's entry starts a line of its own
    [line] = bot_ledger.tally([str(ledger)])
    assert line.games == {0: 1.0, 1: 0.0}
    assert capsys.readouterr().err == f"{ledger}:2: not a whole entry, left out\n"


def test_tally_of_a_ledger_that_is_not_there_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench.bots", "--tally", str(tmp_path / "no.jsonl")])
    with pytest.raises(SystemExit) as stopped:
        bots.main()
    assert stopped.value.code == 2
    assert f"no ledger at {tmp_path / 'no.jsonl'}" in capsys.readouterr().err


def games(count, wins):
    """`count` games, the first `wins` of them won."""
    return [(k, 1.0 if k < wins else 0.0, [0.9]) for k in range(count)]


def tally_of(ledger, code, monkeypatch, capsys) -> list[str]:
    """What `python -m bench.bots --tally LEDGER --code CODE` prints, table by table."""
    monkeypatch.setattr(sys, "argv", ["bench.bots", "--tally", str(ledger), "--code", code])
    bots.main()
    return capsys.readouterr().out.split("\n\n")


def test_the_bar_says_which_lines_of_the_family_are_met_and_which_are_missing(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    line = {"game": "gemforge", "seed": "bench/gemforge"}
    write(ledger, *games(60, 60), **line, fill="style:habit")
    write(ledger, *games(60, 30), **line, fill="style:drawer")  # 1.5x, 37.7-62.3%
    write(ledger, *games(60, 29), **line, fill="style:miner")  # 1.45x: short of 1.5x
    write(ledger, *games(10, 10), **line, fill="style:careless")
    write(ledger, *games(60, 60), **line, fill="mixed", contestant="bot:normal")
    write(ledger, *games(60, 24), **line, fill="mixed", players=4)  # 40%, 28.6-52.6%
    rows = bot_ledger.bar(bot_ledger.tally([str(ledger)]), {"gemforge": (3, 4)},
                          {"gemforge": ("habit", "drawer", "miner", "careless")})
    assert rows[2:] == [
        "| gemforge | 3 | ≥ 1.5x the fair share, lower bound above the fair share "
        "| habit, drawer | miner | careless (10) | mixed |",
        "| gemforge | 4 | lower bound above the fair share | mixed | — | — "
        "| habit, drawer, miner, careless |"]


def test_at_the_largest_table_the_lower_bound_must_clear_the_fair_share(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, *games(60, 10), game="baronoxx", players=10, fill="mixed")  # 9.3-28.0%
    [line] = bot_ledger.tally([str(ledger)])
    assert line.standing().mean > 0.1 and not line.meets_bar()


def test_tally_of_one_code_prints_the_bar_after_the_lines(tmp_path, monkeypatch, capsys):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, *games(60, 40))
    out = tally_of(ledger, "c0de", monkeypatch, capsys)
    assert out[1] == "The bar of #46 (hard, code c0de):"
    assert out[2].splitlines()[2] == (
        "| baronoxx | 3 | ≥ 1.5x the fair share, lower bound above the fair share "
        "| keeper | — | — | habit, dumper, counter, careless, mixed |")


def test_the_bar_of_one_game_s_fingerprint_shows_that_game_s_tables_only(
        tmp_path, monkeypatch, capsys):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, *games(60, 40), game="onix", seed="bench/onix", fill="style:grabber")
    bar = tally_of(ledger, "c0de", monkeypatch, capsys)[2].splitlines()[2:]
    assert [row.split(" | ")[0:2] for row in bar] == [["| onix", "3"], ["| onix", "6"]]


def test_every_module_of_one_game_is_there():
    # A module renamed without this table would count for every game: safe, but each
    # change to it would then start every game's lines again.
    for modules in bot_ledger.ONE_GAME.values():
        for module in modules:
            assert (bot_ledger.ROOT / module).exists(), module


def test_normal_s_lines_are_measured_with_their_share_not_judged(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    line = {"game": "onix", "seed": "bench/onix", "contestant": "bot:normal"}
    write(ledger, *games(60, 15), **line, fill="style:grabber")  # 25%: under the fair share
    write(ledger, *games(12, 6), **line, fill="mixed")
    write(ledger, *games(60, 60), game="onix", seed="bench/onix", fill="style:habit")  # hard
    rows = bot_ledger.measured(bot_ledger.tally([str(ledger)]), {"onix": (3,)},
                               {"onix": ("habit", "grabber")}, "bot:normal")
    assert rows[2:] == ["| onix | 3 | grabber 25.0% (15.8%–37.2%) | mixed (12) | habit |"]


def test_tally_of_the_code_now_ends_with_normal_s_measuring(tmp_path, monkeypatch, capsys):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, *games(60, 30), code=bot_ledger.current("baronoxx"),
          contestant="bot:normal", fill="mixed")
    out = tally_of(ledger, "now", monkeypatch, capsys)
    assert out[3] == "Normal against the family (#46 item 1, code now):"
    assert out[4].splitlines()[2] == (
        "| baronoxx | 3 | mixed 50.0% (37.7%–62.3%) | — "
        "| habit, dumper, keeper, counter, careless |")


def test_a_change_of_code_is_measured_game_by_game_on_the_same_deals(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, (0, 1.0, [0.9]), (1, 0.0, [0.9]), (2, 0.0, [0.9]), (3, 0.5, [0.9]),
          code="old")
    write(ledger, (0, 1.0, [0.9]), (1, 1.0, [0.9]), (2, 0.0, [0.9]), (3, 1.0, [0.9]),
          (4, 0.0, [0.9]))  # game 4: no deal of the old code to pair it with
    write(ledger, (0, 1.0, [0.9]), (1, 1.0, [0.9]), fill="mixed")  # not at the old code
    write(ledger, (7, 1.0, [0.9]), fill="style:habit", code="old")
    write(ledger, (7, 0.0, [0.9]), fill="style:habit")  # one game: no error to give
    [step] = bot_ledger.changes(bot_ledger.tally([str(ledger)], "c0de"),
                                bot_ledger.tally([str(ledger)], "old"))
    assert (step.numbers, step.before, step.after, step.better, step.worse) == (
        [0, 1, 2, 3], 0.375, 0.75, 2, 0)
    # The changes 0, 1, 0, 0.5: their spread 0.479, over the root of 4 games.
    assert step.error == pytest.approx(0.2394, abs=1e-4)
    assert bot_ledger.compared([step])[2] == (
        "| baronoxx | 3 | bot:hard | style:keeper | 4 (0–3) | 37.5% | 75.0% "
        "| +37.5 (23.9) | 2, 0 |")


def test_tally_before_an_earlier_code_ends_with_the_change(tmp_path, monkeypatch, capsys):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, *games(4, 1), code="old")
    write(ledger, *games(4, 3))
    monkeypatch.setattr(sys, "argv", ["bench.bots", "--tally", str(ledger), "--code",
                                      "c0de", "--before", "old"])
    bots.main()
    out = capsys.readouterr().out.split("\n\n")
    assert out[5] == ("On the same deals, code c0de against old (change: after − before, "
                      "points a game; SE of the mean):")
    assert out[6].splitlines()[2] == ("| baronoxx | 3 | bot:hard | style:keeper | 4 (0–3) "
                                      "| 25.0% | 75.0% | +50.0 (28.9) | 2, 0 |")
    monkeypatch.setattr(sys, "argv", ["bench.bots", "--tally", str(ledger), "--before",
                                      "old"])
    with pytest.raises(SystemExit):
        bots.main()
    assert "--before is for --tally with --code" in capsys.readouterr().err


def test_two_levels_of_one_code_are_compared_game_by_game_on_the_same_deals(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, (0, 1.0, [0.9]), (1, 0.0, [0.9]), (2, 1.0, [0.9]), (3, 0.5, [0.9]))
    write(ledger, (0, 0.0, [0.3]), (1, 0.0, [0.3]), (2, 1.0, [0.3]),
          contestant="bot:normal")  # game 3 not played by normal: left out
    write(ledger, (0, 1.0, [0.3]), (1, 1.0, [0.3]), contestant="bot:normal",
          fill="mixed")  # hard has no mixed line to pair it with
    write(ledger, (0, 1.0, [0.9]), (1, 1.0, [0.9]), code="old",
          contestant="bot:normal")  # another code's: not in this tally
    [step] = bot_ledger.between(bot_ledger.tally([str(ledger)], "c0de"), "bot:normal",
                                "bot:hard")
    assert (step.line.contestant, step.numbers, step.before, step.better, step.worse) == (
        "bot:normal", [0, 1, 2], pytest.approx(2 / 3), 0, 1)
    assert step.after == pytest.approx(1 / 3)
    assert bot_ledger.compared([step], "hard", "normal")[:3] == [
        "| game | players | contestant | other seats | same deals | hard | normal "
        "| change (SE) | games better, worse |",
        "|---|---|---|---|---|---|---|---|---|",
        "| baronoxx | 3 | bot:normal | style:keeper | 3 (0–2) | 66.7% | 33.3% "
        "| -33.3 (33.3) | 0, 1 |"]


def test_the_changes_of_a_table_s_lines_are_pooled_as_one_row(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    for fill, new in (("style:keeper", 1.0), ("style:habit", 0.5)):
        write(ledger, (0, 0.0, [0.9]), (1, 0.0, [0.9]), fill=fill, code="old")
        write(ledger, (0, new, [0.9]), (1, 0.0, [0.9]), fill=fill)
    write(ledger, (4, 0.0, [0.9]), (5, 0.0, [0.9]), players=10, code="old")
    write(ledger, (4, 1.0, [0.9]), (5, 1.0, [0.9]), players=10)  # one line: no pool
    found = bot_ledger.changes(bot_ledger.tally([str(ledger)], "c0de"),
                               bot_ledger.tally([str(ledger)], "old"))
    [whole] = bot_ledger.pooled(found)
    assert (whole.line.players, whole.line.fill, whole.numbers) == (
        3, "all", [0, 1, 0, 1])
    assert (whole.before, whole.after, whole.better, whole.worse) == (0, 0.375, 2, 0)
    # The steps 0.5, 0, 1, 0 (habit's games 0 and 1, then keeper's): deal 0 went up in
    # both lines, so its steps count as one. About the mean 0.375, deal 0's add up to
    # 0.75 and deal 1's to -0.75: the root of 2/1 * (0.75² + 0.75²), over 4 steps, is
    # 0.375 (as 4 independent steps it would be 0.239).
    assert whole.error == pytest.approx(0.375)
    assert bot_ledger.compared(found)[-1] == (
        "| baronoxx | 3 | bot:hard | all | 4 (0–1) | 0.0% | 37.5% | +37.5 (37.5) "
        "| 2, 0 |")


def test_tally_with_levels_ends_with_normal_against_hard(tmp_path, monkeypatch, capsys):
    ledger = tmp_path / "ledger.jsonl"
    write(ledger, *games(4, 3))
    write(ledger, *games(4, 1), contestant="bot:normal")
    monkeypatch.setattr(sys, "argv", ["bench.bots", "--tally", str(ledger), "--code",
                                      "c0de", "--levels", "normal", "hard"])
    bots.main()
    out = capsys.readouterr().out.split("\n\n")
    assert out[5] == ("On the same deals, code c0de: normal against hard (change: "
                      "normal − hard, points a game; SE of the mean):")
    assert out[6].splitlines()[:3] == [
        "| game | players | contestant | other seats | same deals | hard | normal "
        "| change (SE) | games better, worse |",
        "|---|---|---|---|---|---|---|---|---|",
        "| baronoxx | 3 | bot:normal | style:keeper | 4 (0–3) | 75.0% | 25.0% "
        "| -50.0 (28.9) | 0, 2 |"]
    monkeypatch.setattr(sys, "argv", ["bench.bots", "--tally", str(ledger), "--levels",
                                      "normal", "hard"])
    with pytest.raises(SystemExit):
        bots.main()
    assert "--levels is for --tally with --code" in capsys.readouterr().err
    monkeypatch.setattr(sys, "argv", ["bench.bots", "--tally", str(ledger), "--code",
                                      "c0de", "--levels", "hard", "hard"])
    with pytest.raises(SystemExit):
        bots.main()
    assert "--levels names two different levels" in capsys.readouterr().err
