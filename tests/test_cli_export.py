"""`pbem export` against the configured database: each format, files, the zip, and a
clear message with a non-zero exit for what it cannot export."""

import io
import zipfile

import pytest

from pbem.cli import main

from export_games import new_game, onyx_game, play_randomly, say


@pytest.fixture
def pbem(store, tmp_path, monkeypatch, capsys):
    """pbem(*args) -> (exit status, stdout, stderr), reading the test's database."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PBEM_DATABASE_URL", store)
    monkeypatch.setenv("PBEM_SECRET_KEY", "test-secret-key")
    monkeypatch.setenv("PBEM_BASE_URL", "https://pbem.example")

    def run(*args):
        status = main(["export", *args])
        out, err = capsys.readouterr()
        return status, out, err
    return run


def test_the_record_by_default_to_stdout(pbem):
    game_id = onyx_game(plies=4)
    say(game_id, 0, "off we go")
    assert pbem(str(game_id)) == (0, """\
[Game "Onyx"]
[Board "6"]
[Setup "open"]
[Black "alice"]
[White "bob"]
[Result "*"]

1. A1 DE34 2. BC34 DE12 {alice: off we go} *
""", "")


def test_sgf_svg_and_html_to_files(pbem, tmp_path):
    game_id = onyx_game()
    assert pbem(str(game_id), "--format", "sgf", "--output", "game.sgf") == (0, "", "")
    sgf = (tmp_path / "game.sgf").read_text(encoding="utf-8")
    assert sgf.startswith(f"(;FF[4]GM[1]CA[UTF-8]AP[pbem:1]SZ[11]\nGN[Onyx #{game_id}]")
    assert sgf.endswith("\n;B[ac]N[A5])\n")  # A5: Black joins the top and the bottom
    status, svg, _ = pbem(str(game_id), "--format", "svg", "--ply", "31", "--size", "6cm",
                          "--caption")
    assert status == 0 and svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="6cm"')
    assert f"Onyx #{game_id}, alice v bob: after ply 31 of 43 (C5*)" in svg
    assert pbem(str(game_id), "--format", "html", "--every", "20",
                "--output", "game.html")[0] == 0
    page = (tmp_path / "game.html").read_text(encoding="utf-8")
    assert f'<a href="https://pbem.example/games/{game_id}.txt">record</a>' in page
    assert page.count("<svg") == 3  # after plies 20, 40 and 43


def test_all_finished_records_as_a_zip(pbem, tmp_path):
    onyx = onyx_game()
    cards = new_game("baronoxx")
    play_randomly(cards)
    onyx_game(plies=3)  # running
    assert pbem("--all", "--game", "onyx", "--output", "onyx.zip") == (
        0, "1 records written to onyx.zip\n", "")
    archive = zipfile.ZipFile(io.BytesIO((tmp_path / "onyx.zip").read_bytes()))
    assert archive.namelist() == [f"pbem-{onyx}-onyx.txt"]
    assert pbem("--all", "--status", "finished", "--output", "all.zip")[0] == 0
    archive = zipfile.ZipFile(tmp_path / "all.zip")
    assert archive.namelist() == [f"pbem-{cards}-baronoxx.txt", f"pbem-{onyx}-onyx.txt"]


@pytest.mark.parametrize("args, status, message", [
    (["12345"], 1, "pbem export: There is no game #12345.\n"),
    (["abc"], 2, "pbem export: 'abc' is not a game number (pbem export 12)\n"),
    ([], 2, "pbem export: name a game (pbem export 12), or --all for a zip\n"),
    (["--all"], 2, "pbem export: --all writes a zip: name it with --output FILE.zip\n"),
    (["--all", "--game", "chess", "--output", "x.zip"], 1,
     "pbem export: game='chess' is not a game here; the games are: onyx, onix, baronoxx, "
     "gemforge.\n"),
    (["--all", "--game", "gemforge", "--output", "x.zip"], 1,
     "pbem export: No finished game matches these filters.\n"),
])
def test_what_cannot_be_exported_says_why(pbem, args, status, message):
    onyx_game(plies=2)
    assert pbem(*args) == (status, "", message)


def test_a_running_card_game_record_is_refused_and_sgf_is_for_onyx_only(pbem):
    cards = new_game("onix")
    status, out, err = pbem(str(cards))
    assert (status, out) == (1, "")
    assert err.startswith(f"pbem export: Game #{cards} (Onix) is running, and its record would "
                          f"show the cards in the players' hands.")
    assert pbem(str(cards), "--format", "sgf") == (
        1, "", f"pbem export: game #{cards} is Onix; SGF is written for Onyx only "
               f"(try --format record)\n")
    onyx = onyx_game(plies=2)
    assert pbem(str(onyx), "--format", "svg", "--ply", "3") == (
        1, "", f"pbem export: Game #{onyx} has no ply '3': plies run from 0 (the start) to 2.\n")
    assert pbem(str(onyx), "--output", "/nonexistent/dir/x.txt") == (
        1, "", "pbem export: cannot write /nonexistent/dir/x.txt: No such file or directory\n")


def test_all_takes_the_index_filters_player_result_and_search(pbem, tmp_path):
    from pbem.store import Player
    onyx = onyx_game()  # alice beats bob, 1-0
    cards = new_game("baronoxx", players=3)  # alice, bob and carol
    play_randomly(cards)
    onyx_game(plies=3)  # running: never zipped
    carol = Player.get(Player.email == "carol@example.org").id

    def zipped(*filters) -> list[str]:
        status, out, err = pbem("--all", *filters, "--output", "some.zip")
        assert (status, err) == (0, ""), err
        return zipfile.ZipFile(tmp_path / "some.zip").namelist()

    assert zipped("--player", str(carol)) == [f"pbem-{cards}-baronoxx.txt"]
    assert zipped("--result", "1-0") == [f"pbem-{onyx}-onyx.txt"]
    assert zipped("--q", "caro") == [f"pbem-{cards}-baronoxx.txt"]
    assert zipped("--search", "BOB@example.org") == [f"pbem-{cards}-baronoxx.txt",
                                                     f"pbem-{onyx}-onyx.txt"]
    assert zipped("--search", f"#{onyx}") == [f"pbem-{onyx}-onyx.txt"]
    assert zipped("--q", "alice", "--game", "baronoxx") == [f"pbem-{cards}-baronoxx.txt"]


@pytest.mark.parametrize("args, message", [
    (["--player", "carol"], "player='carol' is not a number; player is 1, 2, 3 …"),
    (["--result", "won"], "result='won' is not a result; write each seat's share of the "
                          "win, such as 1-0, 0-1 or 1/2-1/2-0, or * for running."),
    (["--q", "a\x00b@x.y"], "q= holds a control character (U+0000), which no game, name "
                            "or address has; type it without."),
    (["--search", "\udcff"], "q= holds a byte that is not UTF-8 (U+DCFF), which no game, "
                             "name or address has; type it without."),
    (["--q", "dave"], "No finished game matches these filters."),
])
def test_all_refuses_filters_it_cannot_use(pbem, args, message):
    onyx_game()
    assert pbem("--all", *args, "--output", "x.zip") == (1, "", f"pbem export: {message}\n")
