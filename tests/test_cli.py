"""The `pbem` command as a user meets it: what it prints, what it refuses, its exit code.

Everything runs through `pbem.cli.main(argv)` in-process, except one run of the installed
console script; the process as an operator meets it is in test_cli_operator.py. The
records are literal Onyx games on a 6×6 open board (RULINGS O3, O7):

    6  . - . - . - . - . - .      AB45 is a square (A = column 0, row 4: 0 + 4 is even),
       | / | . | / | . | / |      so Black's B5, opposite Black's A4, captures White's
    5  . - . - . - . - . - .      A5 and B4 while the midpoint AB45 is empty.
       | . | \\ | . | \\ | . |
    4  . - . - . - . - . - .
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from notation.record import parse_record
from pbem.cli import main

OPEN_6 = """\
[Game "Onyx"]
[Board "6"]
[Setup "open"]
[Black "alice"]
[White "bob"]
"""

CAPTURE = OPEN_6 + """\
[Result "*"]

1. A4 A5 2. F1 B4 3. B5* *
"""

# The same game, but White's second stone goes on Black's A4.
TAKEN_POINT = OPEN_6 + """\
[Result "*"]

1. A4 A5 2. F1 A4 3. B5* *
"""

# Black runs up column A and joins rows 1 and 6 (O1); White's column C joins nothing.
BLACK_WINS = OPEN_6 + """\
[Result "1-0"]

1. A1 C1 2. A2 C2 3. A3 C3 4. A4 C4 5. A5 C5 6. A6 1-0
"""

# Bob swaps (O8): he takes over Black's C3, and alice, now White, places the next stone.
SWAP = OPEN_6 + """\
[Result "*"]

1. C3 swap 2. D4 *
"""

AFTER_PLY_2 = """\
    A   B   C   D   E   F
 6  . - . - . - . - . - .  6
    | / | . | / | . | / |
 5 (O)- . - . - . - . - .  5
    | . | \\ | . | \\ | . |
 4  X - . - . - . - . - .  4
    | / | . | / | . | / |
 3  . - . - . - . - . - .  3
    | . | \\ | . | \\ | . |
 2  . - . - . - . - . - .  2
    | / | . | / | . | / |
 1  . - . - . - . - . - .  1
    A   B   C   D   E   F

X Black   O White   (X) last move
Last move: A5
Black to move.
"""


def pbem(capsys, *argv: str) -> tuple[int, str, str]:
    """Run `pbem ARGV...`; returns (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def shown(capsys, tmp_path, record: str) -> dict:
    code, out, err = pbem(capsys, "record", "show", write(tmp_path, "game.txt", record),
                          "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


# -- selfplay ----------------------------------------------------------------------------

@pytest.mark.parametrize("options, tags", [
    ([], ['[Board "12"]', '[Setup "standard"]']),
    (["--option", "board=16"], ['[Board "16"]', '[Setup "standard"]']),
    (["--option", "setup=open", "--option", "board=6"], ['[Board "6"]', '[Setup "open"]']),
], ids=["default", "board-16", "open-6"])
def test_selfplay_prints_a_finished_record_that_record_check_accepts(
        capsys, tmp_path, options, tags):
    code, record, err = pbem(capsys, "selfplay", "onyx", "--seed", "3", *options)
    assert (code, err) == (0, "")
    assert record.startswith('[Game "Onyx"]\n')
    assert all(tag in record.splitlines() for tag in tags)
    assert record.rstrip().endswith(("1-0", "0-1"))  # Onyx has no draws (O1)
    assert all(len(line) <= 79 for line in record.splitlines())
    path = write(tmp_path, "selfplay.txt", record)
    code, out, err = pbem(capsys, "record", "check", path)
    plies = len(parse_record(record).moves)
    assert (code, err) == (0, "")
    assert out == f"{path}: ok, {plies} plies, result {record.split()[-1]}\n"


def test_the_same_seed_gives_the_same_record_and_another_seed_another(capsys):
    first = pbem(capsys, "selfplay", "onyx", "--seed", "42")[1]
    again = pbem(capsys, "selfplay", "onyx", "--seed", "42")[1]
    other = pbem(capsys, "selfplay", "onyx", "--seed", "43")[1]
    assert first == again
    assert first != other


@pytest.mark.parametrize("argv, message", [
    (["onyx", "--option", "board=13"],
     "pbem selfplay: board=13: the board size is an even number from 6 to 26"),
    (["onyx", "--option", "board=14"],
     "pbem selfplay: board=14 has no standard setup (it needs a size divisible by 4, "
     "such as 12 or 16); add setup=open."),
    (["onyx", "--option", "colour=red"],
     "pbem selfplay: Onyx has no option 'colour' (its options: board, setup)."),
    (["onyx", "--option", "setup=closed"],
     "pbem selfplay: setup=closed is not allowed: choose one of standard, open."),
    (["onyx", "--option", "board"],
     "pbem selfplay: options are written K=V, such as board=16; not 'board'"),
    (["onyx", "--players", "3"], "pbem selfplay: Onyx is played by 2 players, not 3."),
    (["chess"], "pbem selfplay: unknown game 'chess'; the games are: onyx (Onyx, 2 players), "
                "onix (Onix, 2-6 players), baronoxx (6 nimmt! Baron Oxx, 2-10 players; also "
                "6nimmt), gemforge (Gem Forge, 2-4 players; also gem-forge)"),
], ids=["board-13", "board-14-standard", "colour", "setup", "no-equals", "players",
        "unknown-game"])
def test_selfplay_refuses_what_it_cannot_play_with_a_message(capsys, argv, message):
    code, out, err = pbem(capsys, "selfplay", *argv)
    assert code != 0
    assert out == ""
    assert err == message + "\n"


# -- record check ------------------------------------------------------------------------

def test_record_check_reads_several_files_and_names_the_corrupt_one(capsys, tmp_path):
    capture = write(tmp_path, "capture.txt", CAPTURE)
    taken = write(tmp_path, "taken.txt", TAKEN_POINT)
    won = write(tmp_path, "won.txt", BLACK_WINS)
    code, out, err = pbem(capsys, "record", "check", capture, taken, won)
    assert code == 1
    assert out == (f"{capture}: ok, 5 plies, result *\n"
                   f"{won}: ok, 11 plies, result 1-0\n")
    assert err == (f"{taken}: ply 4 (A4): A4 is taken (a black stone). "
                   f"Free points next to it: A3, B4.\n")


def test_record_check_names_a_wrong_capture_mark(capsys, tmp_path):
    path = write(tmp_path, "marks.txt", CAPTURE.replace("B5*", "B5**"))
    code, out, err = pbem(capsys, "record", "check", path)
    assert (code, out) == (1, "")
    assert err.startswith(f"{path}: ply 5 (B5**): ")
    assert "write B5*." in err


@pytest.mark.parametrize("text, complaint", [
    ("Dear Bob,\nmy move is F6.\n",
     'line 1: a record starts with tag pairs such as [Game "Onyx"]'),
    (CAPTURE.replace("2. F1", "2. F1 }"), "line 8: '}' without an opening '{'"),
], ids=["not-a-record", "stray-brace"])
def test_record_check_refuses_a_syntax_error_with_its_line(capsys, tmp_path, text,
                                                           complaint):
    path = write(tmp_path, "refused.txt", text)
    code, out, err = pbem(capsys, "record", "check", path)
    assert (code, out, err) == (1, "", f"{path}: {complaint}\n")


def test_record_check_names_a_missing_file(capsys, tmp_path):
    missing = str(tmp_path / "missing.txt")
    capture = write(tmp_path, "capture.txt", CAPTURE)
    code, out, err = pbem(capsys, "record", "check", missing, capture)
    assert code == 1
    assert out == f"{capture}: ok, 5 plies, result *\n"
    assert err.startswith(f"{missing}: ")
    assert "No such file" in err


@pytest.mark.parametrize("record, complaint", [
    (CAPTURE.replace('[Result "*"]', '[Result "1-0"]').replace("B5* *", "B5* 1-0"),
     "the Result is '1-0' but the moves give '*' (the game is not over)"),
    (CAPTURE.replace('[Result "*"]', '[Result "1-0"]'),
     "the Result tag says '1-0' but the movetext ends with '*'"),
    (BLACK_WINS.replace("1-0", "*"),
     "the Result is '*' but the moves give '1-0' (Black connected rows 1 and 6)"),
    (BLACK_WINS.replace("1-0", "0-1"),
     "the Result is '0-1' but the moves give '1-0' (Black connected rows 1 and 6)"),
], ids=["claims-a-win-too-early", "tag-disagrees-with-token", "win-left-open",
        "wrong-winner"])
def test_record_check_refuses_a_result_that_is_not_true(capsys, tmp_path, record,
                                                        complaint):
    path = write(tmp_path, "result.txt", record)
    code, out, err = pbem(capsys, "record", "check", path)
    assert (code, out) == (1, "")
    assert err == f"{path}: {complaint}\n"


def test_record_check_refuses_a_move_after_the_win(capsys, tmp_path):
    path = write(tmp_path, "late.txt", BLACK_WINS.replace("6. A6 1-0", "6. A6 F6 1-0"))
    code, out, err = pbem(capsys, "record", "check", path)
    assert (code, out) == (1, "")
    assert err.startswith(f"{path}: ply 12 (F6): the game is already over")


# -- record show -------------------------------------------------------------------------

def test_record_show_json_gives_the_stones_the_mover_and_the_winner(capsys, tmp_path):
    position = shown(capsys, tmp_path, CAPTURE)
    assert list(position) == ["black", "white", "to_move", "winner"]
    assert sorted(position["black"]) == ["A4", "B5", "F1"]
    assert position["white"] == []  # A5 and B4 were captured
    assert (position["to_move"], position["winner"]) == ("white", None)


def test_record_show_json_of_a_won_game(capsys, tmp_path):
    position = shown(capsys, tmp_path, BLACK_WINS)
    assert sorted(position["black"]) == ["A1", "A2", "A3", "A4", "A5", "A6"]
    assert sorted(position["white"]) == ["C1", "C2", "C3", "C4", "C5"]
    assert (position["to_move"], position["winner"]) == (None, "black")


def test_record_show_json_after_a_swap_keeps_the_stone_black(capsys, tmp_path):
    position = shown(capsys, tmp_path, SWAP)
    assert position == {"black": ["C3"], "white": ["D4"], "to_move": "black",
                        "winner": None}


def test_record_show_ply_draws_the_board_after_that_many_moves(capsys, tmp_path):
    path = write(tmp_path, "capture.txt", CAPTURE)
    code, out, err = pbem(capsys, "record", "show", path, "--ply", "2")
    assert (code, err) == (0, "")
    assert out == AFTER_PLY_2


def test_record_show_without_ply_draws_the_end_with_the_capture(capsys, tmp_path):
    path = write(tmp_path, "capture.txt", CAPTURE)
    code, out, err = pbem(capsys, "record", "show", path)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert " 5  . -(X)- . - . - . - .  5" in lines  # B5 is the last move
    assert " 4  X - . - . - . - . - .  4" in lines  # B4 is gone
    assert lines[-2:] == ["Last move: B5*, capturing A5 B4", "White to move."]


def test_record_show_ply_0_is_the_empty_board(capsys, tmp_path):
    path = write(tmp_path, "capture.txt", CAPTURE)
    code, out, err = pbem(capsys, "record", "show", path, "--ply", "0")
    assert (code, err) == (0, "")
    board = out.split("\n\n")[0]
    assert "X" not in board and "O" not in board
    assert "Last move" not in out
    assert out.endswith("Black to move.\n")


def test_record_show_of_a_won_game_says_who_won(capsys, tmp_path):
    path = write(tmp_path, "won.txt", BLACK_WINS)
    code, out, err = pbem(capsys, "record", "show", path)
    assert (code, err) == (0, "")
    assert out.endswith("Last move: A6\nBlack has won.\n")


@pytest.mark.parametrize("ply", ["6", "-1", "99"])
def test_record_show_refuses_a_ply_out_of_range(capsys, tmp_path, ply):
    path = write(tmp_path, "capture.txt", CAPTURE)
    code, out, err = pbem(capsys, "record", "show", path, "--ply", ply)
    assert (code, out) == (1, "")
    assert err == f"{path}: --ply must be from 0 to 5\n"


def test_record_show_refuses_a_corrupt_record_at_its_ply(capsys, tmp_path):
    path = write(tmp_path, "taken.txt", TAKEN_POINT)
    code, out, err = pbem(capsys, "record", "show", path, "--json")
    assert (code, out) == (1, "")
    assert err.startswith(f"{path}: ply 4 (A4): A4 is taken")


def test_record_show_may_stop_before_a_corrupt_ply(capsys, tmp_path):
    path = write(tmp_path, "taken.txt", TAKEN_POINT)
    code, out, err = pbem(capsys, "record", "show", path, "--ply", "3", "--json")
    assert (code, err) == (0, "")
    position = json.loads(out)
    assert sorted(position["black"]) == ["A4", "F1"]
    assert position["white"] == ["A5"]
    assert (position["to_move"], position["winner"]) == ("white", None)


# -- games, no command (serve: test_serve.py) ------------------------------------------------------------

def test_games_lists_onyx_and_its_options(capsys):
    code, out, err = pbem(capsys, "games")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert "onyx: Onyx, 2 players" in lines
    assert re.search(r"^\s+board=12\s+board size: an even number from 6 to 26$", out, re.M)
    assert re.search(r"^\s+setup=standard\s+standard .*open", out, re.M)
    assert out.split("onix:")[0].splitlines()[-2:] == [
        "    time=3d  the clock: 3d for each move, 10d+2d a bank of 10 days plus 2 after each "
        "move, or none",
        "    timeout=forfeit  when a player's time runs out: forfeit (they lose), auto (a "
        "move is played for them) or bot (a bot plays it)"]


def test_no_command_prints_the_help_and_fails(capsys):
    code, out, err = pbem(capsys)
    assert code == 2
    assert "record" in out and "selfplay" in out


# -- the installed console script --------------------------------------------------------

def test_the_console_script_is_installed_and_plays_like_main(capsys):
    script = Path(sys.executable).parent / "pbem"
    run = subprocess.run([str(script), "selfplay", "onyx", "--seed", "5"],
                         capture_output=True, text=True, timeout=30)
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout == pbem(capsys, "selfplay", "onyx", "--seed", "5")[1]
    assert run.stdout.startswith('[Game "Onyx"]\n')


# -- files as people have them ----------------------------------------------------------

def test_record_check_reads_several_games_from_one_file(capsys, tmp_path):
    path = write(tmp_path, "club.txt", CAPTURE + "\n" + BLACK_WINS.replace("A6 1-0", "A6 *"))
    code, out, err = pbem(capsys, "record", "check", path)
    assert (code, out) == (1, f"{path} game 1: ok, 5 plies, result *\n")
    assert err == (f"{path} game 2: the Result tag says '1-0' but the movetext ends "
                   f"with '*'\n")


def test_record_show_picks_a_game_of_the_file(capsys, tmp_path):
    path = write(tmp_path, "club.txt", CAPTURE + "\n" + BLACK_WINS)
    code, out, err = pbem(capsys, "record", "show", path, "--game", "2", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["winner"] == "black"
    code, out, err = pbem(capsys, "record", "show", path, "--game", "3")
    assert (code, err) == (1, f"{path}: --game must be from 1 to 2\n")


def test_a_syntax_error_in_the_second_game_names_the_line_of_the_file(capsys, tmp_path):
    text = CAPTURE + "\n" + BLACK_WINS.replace("6. A6", "6. A6 }")
    path = write(tmp_path, "club.txt", text)
    code, out, err = pbem(capsys, "record", "check", path)
    line = text.split("\n").index("1. A1 C1 2. A2 C2 3. A3 C3 4. A4 C4 5. A5 C5 6. A6 } 1-0")
    assert (code, err) == (1, f"{path}: line {line + 1}: '}}' without an opening '{{'\n")


def test_a_comment_line_that_starts_with_a_bracket_is_no_new_game(capsys, tmp_path):
    path = write(tmp_path, "note.txt", CAPTURE.replace("3. B5* *", "{a capture,\n[see the "
                                                        "rulebook]} 3. B5* *"))
    code, out, err = pbem(capsys, "record", "check", path)
    assert (code, out, err) == (0, f"{path}: ok, 5 plies, result *\n", "")


def test_a_record_saved_with_a_byte_order_mark_is_read(capsys, tmp_path):
    path = tmp_path / "notepad.txt"
    path.write_bytes(b"\xef\xbb\xbf" + CAPTURE.replace("\n", "\r\n").encode())
    code, out, err = pbem(capsys, "record", "check", str(path))
    assert (code, err) == (0, "")


def test_dash_reads_the_record_from_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CAPTURE.encode())))
    code, out, err = pbem(capsys, "record", "check", "-")
    assert (code, out, err) == (0, "-: ok, 5 plies, result *\n", "")
