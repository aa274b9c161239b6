"""The export routes through Flask's test client: what each serves, what each refuses,
and that nothing hidden or private leaves with them."""

import io
import re
import zipfile

import pytest

from pbem.cli import main
from pbem.engines.baronoxx.render import card_text
from pbem.web import create_app

from export_games import ADDRESSES, new_game, onyx_game, play_as, play_randomly, say

#: Seed "export-test" deals these hands in a two-player Baron Oxx game (alice, bob).
HANDS = {"alice": [25, 32, 49, 75], "bob": [6, 41, 50, 81]}


@pytest.fixture
def client(config):
    return create_app(config).test_client()


def check_record(text: str, tmp_path, capsys) -> str:
    """What `pbem record check` says of a downloaded record (exit 0 required)."""
    path = tmp_path / "download.txt"
    path.write_text(text, encoding="utf-8")
    assert main(["record", "check", str(path)]) == 0
    return capsys.readouterr().out.replace(str(path), "download.txt").strip()


def exports_of(client, game_id: int, plies: int) -> dict[str, str]:
    """Every export of a game that answers 200, by URL."""
    every = -(-plies // 100) or 1  # a diagram after every ply, or as many as a page takes
    urls = [f"/games/{game_id}.txt", f"/games/{game_id}.sgf",
            f"/games/{game_id}/print?every={every}"]
    urls += [f"/games/{game_id}/ply/{ply}.svg?caption=1" for ply in range(plies + 1)]
    answers = {url: client.get(url) for url in urls}
    return {url: r.get_data(as_text=True) for url, r in answers.items() if r.status_code == 200}


def test_a_running_onyx_game_exports_its_record_with_the_result_star(client):
    game_id = onyx_game(plies=4)
    say(game_id, 1, "nice square")
    answer = client.get(f"/games/{game_id}.txt")
    assert answer.status_code == 200
    assert answer.content_type == "text/plain; charset=utf-8"
    assert answer.headers["Content-Disposition"] == f'inline; filename="pbem-{game_id}-onyx.txt"'
    assert answer.headers["Cache-Control"] == "public, max-age=0"  # the next move changes it
    assert answer.get_data(as_text=True).endswith(
        "\n1. A1 DE34 2. BC34 DE12 {bob: nice square} *\n")


def test_a_finished_onyx_game_downloads_as_a_record_that_checks(client, tmp_path, capsys):
    game_id = onyx_game()
    answer = client.get(f"/games/{game_id}.txt")
    assert answer.headers["Cache-Control"] == "public, max-age=86400"  # it never changes
    text = answer.get_data(as_text=True)
    assert '[Result "1-0"]' in text
    assert check_record(text, tmp_path, capsys) == "download.txt: ok, 43 plies, result 1-0"


def test_sgf_for_onyx_and_404_for_other_games(client):
    game_id = onyx_game()
    answer = client.get(f"/games/{game_id}.sgf")
    assert answer.status_code == 200 and answer.mimetype == "application/x-go-sgf"
    text = answer.get_data(as_text=True)
    assert text.startswith(f"(;FF[4]GM[1]CA[UTF-8]AP[pbem:1]SZ[11]\nGN[Onyx #{game_id}]"
                           f"PB[alice]PW[bob]DT[")
    assert "RE[B+]" in text and "\n;B[ec]N[C5*]MA[ee][gc]\n;AE[ee][gc]\n" in text
    card_game = new_game("onix")
    refused = client.get(f"/games/{card_game}.sgf")
    assert refused.status_code == 404 and refused.mimetype == "text/plain"
    assert refused.get_data(as_text=True) == (f"Game #{card_game} is Onix; SGF is written "
                                              f"for Onyx only. Its record is at "
                                              f"/games/{card_game}.txt.\n")


def test_svg_of_any_ply_sized_for_print_with_a_caption(client):
    game_id = onyx_game(plies=4)
    answer = client.get(f"/games/{game_id}/ply/3.svg?size=8cm&caption=1")
    assert answer.status_code == 200 and answer.mimetype == "image/svg+xml"
    svg = answer.get_data(as_text=True)
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="8cm" height="')
    assert f">Onyx #{game_id}, alice v bob: after ply 3 of 4 (BC34)</text>" in svg
    start = client.get(f"/games/{game_id}/ply/0.svg?size=300").get_data(as_text=True)
    assert start.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="300" ')
    assert "0 black and 0 white stones" in start and "alice v bob" not in start  # no caption


@pytest.mark.parametrize("ply", ["-1", "5", "abc", "1.0", "%20"])
def test_a_ply_that_does_not_exist_is_not_found(client, ply):
    game_id = onyx_game(plies=4)
    answer = client.get(f"/games/{game_id}/ply/{ply}.svg")
    assert answer.status_code == 404 and answer.mimetype == "text/plain"
    assert "plies run from 0 (the start) to 4." in answer.get_data(as_text=True)


@pytest.mark.parametrize("query", ["size=0", "size=tiny", "size=9000", "caption=2",
                                   "caption=yes"])
def test_bad_diagram_options_are_refused(client, query):
    game_id = onyx_game(plies=2)
    answer = client.get(f"/games/{game_id}/ply/1.svg?{query}")
    assert answer.status_code == 400 and answer.mimetype == "text/plain"


@pytest.mark.parametrize("path", [".txt", ".sgf", "/ply/0.svg", "/print"])
def test_unknown_games_are_not_found(client, path):
    answer = client.get(f"/games/404{path}")
    assert answer.status_code == 404
    assert answer.get_data(as_text=True) == "There is no game #404.\n"


HUGE = "9" * 40  # far beyond any integer SQLite or PostgreSQL can store


@pytest.mark.parametrize("path", [f"/games/{HUGE}", f"/games/{HUGE}.txt", f"/games/{HUGE}.sgf",
                                  f"/games/{HUGE}/print", f"/games/{HUGE}/ply/1.svg",
                                  f"/games/{HUGE}/ply/{HUGE}.svg", f"/players/{HUGE}",
                                  f"/games/{2 ** 31}.txt", f"/games/{2 ** 63}/print"])
def test_a_number_too_large_for_the_database_is_not_found(client, path):
    assert client.get(path).status_code == 404


def test_an_invitation_has_nothing_to_export(client):
    from pbem.players import player_for
    from pbem.engines import ENGINES
    from pbem.play import create_game
    alice, bob = player_for("alice@example.org"), player_for("bob@example.org")
    game = create_game(ENGINES["onyx"], {}, [alice, bob], creator=alice, accepted=False)
    answer = client.get(f"/games/{game.id}.txt")
    assert answer.status_code == 404
    assert "players are still being invited" in answer.get_data(as_text=True)


def test_the_print_page_has_the_header_moves_comments_and_diagrams(client):
    game_id = onyx_game(plies=31)
    say(game_id, 0, "that takes two")
    page = client.get(f"/games/{game_id}/print?every=10").get_data(as_text=True)
    assert f"<h1>Onyx #{game_id}: alice v bob</h1>" in page
    assert "<tr><th>Black</th><td>alice</td></tr>" in page
    assert "<tr><th>White</th><td>bob</td></tr>" in page
    assert "<tr><th>Options</th><td>board=6, setup=open</td></tr>" in page
    assert "<tr><th>Result</th><td>*</td></tr>" in page
    assert ('<li><span class="who">alice:</span> C5* <span class="comment">alice: that '
            'takes two</span></li>') in page
    assert page.count("<svg") == 4  # after plies 10, 20, 30 and 31
    assert "<figcaption>After ply 30</figcaption>" in page
    assert "@media print" in page
    assert client.get(f"/games/{game_id}/print?every=0").get_data(as_text=True).count("<svg") == 0
    refused = client.get(f"/games/{game_id}/print?every=ten")
    assert refused.status_code == 400 and "every='ten' is not a number" in refused.get_data(
        as_text=True)


def test_a_running_card_game_shows_no_hand_in_any_export(client):
    game_id = new_game("baronoxx")
    play_as(game_id, 0, "play 25")  # alice's secret choice; bob has not chosen yet
    record = client.get(f"/games/{game_id}.txt")
    assert record.status_code == 403 and record.mimetype == "text/plain"
    assert "The full record, with the seed, is published when the game ends" in (
        record.get_data(as_text=True))
    assert client.get(f"/games/{game_id}.sgf").status_code == 404
    exports = exports_of(client, game_id, plies=4)
    assert sorted(exports) == [f"/games/{game_id}/ply/{ply}.svg?caption=1" for ply in range(5)
                               ] + [f"/games/{game_id}/print?every=1"]
    page = exports[f"/games/{game_id}/print?every=1"]
    moves = re.findall(r"<li>(.*?)</li>", page)
    assert moves == [
        '<span class="who">Dealer:</span> a secret choice',
        '<span class="who">Dealer:</span> a secret choice',
        '<span class="who">Dealer:</span> rows 68 18 55 16 30',
        '<span class="who">alice:</span> a secret choice']
    assert "published when the game ends" in page
    for text in exports.values():
        for card in HANDS["alice"] + HANDS["bob"]:
            assert card_text(card) not in text
            assert f">{card}<" not in text  # a card's number drawn on a diagram
        for figure in re.findall(r"<figure>.*?</figure>", text, re.S):
            assert not {str(card) for card in HANDS["alice"] + HANDS["bob"]} & set(
                re.findall(r">(\d+)<", figure))


def test_a_finished_card_game_publishes_everything_with_the_seed(client, tmp_path, capsys):
    game_id = new_game("baronoxx")
    play_randomly(game_id)
    answer = client.get(f"/games/{game_id}.txt")
    assert answer.status_code == 200
    text = answer.get_data(as_text=True)
    assert '[Seed "export-test"]' in text and "Dealer: draw #1 25 32 49 75;" in text
    assert re.fullmatch(r"download\.txt: ok, \d+ plies, result [-0-9/]+",
                        check_record(text, tmp_path, capsys))
    page = client.get(f"/games/{game_id}/print").get_data(as_text=True)
    assert "<code>export-test</code>" in page and "draw #1 25 32 49 75" in page


def test_no_export_shows_a_player_address(client):
    onyx = onyx_game(plies=6)
    say(onyx, 0, "hello")
    cards = new_game("gemforge", players=3)
    play_randomly(cards, plies=12)
    done = new_game("onix")
    play_randomly(done)
    for game_id, plies in ((onyx, 6), (cards, 12), (done, None)):
        if plies is None:
            plies = int(re.search(r"<tr><th>Plies</th><td>(\d+)</td>", client.get(
                f"/games/{game_id}/print").get_data(as_text=True)).group(1))
        exports = exports_of(client, game_id, plies)
        assert exports
        for url, text in exports.items():
            for address in ADDRESSES:
                assert address not in text, url
            if "/print?" not in url:  # the page's CSS has @page and @media
                assert "@" not in text, url


def test_the_zip_holds_the_finished_records_that_match_the_filters(client, tmp_path, capsys):
    first, second = onyx_game(), onyx_game()
    onyx_game(plies=5)  # running: not in the zip
    cards = new_game("baronoxx")
    play_randomly(cards)
    answer = client.get("/games/export.zip?game=onyx")
    assert answer.status_code == 200 and answer.mimetype == "application/zip"
    assert answer.headers["Content-Disposition"] == 'attachment; filename="pbem-games.zip"'
    archive = zipfile.ZipFile(io.BytesIO(answer.get_data()))
    assert archive.namelist() == [f"pbem-{second}-onyx.txt", f"pbem-{first}-onyx.txt"]
    for name in archive.namelist():
        text = archive.read(name).decode()
        assert check_record(text, tmp_path, capsys) == "download.txt: ok, 43 plies, result 1-0"
    everything = zipfile.ZipFile(io.BytesIO(client.get("/games/export.zip").get_data()))
    assert everything.namelist() == [f"pbem-{cards}-baronoxx.txt", f"pbem-{second}-onyx.txt",
                                     f"pbem-{first}-onyx.txt"]


@pytest.mark.parametrize("query, status, words", [
    ("game=chess", 400, "game='chess' is not a game here"),
    ("status=running", 400, "finished games only"),
    ("player=abc", 400, "player='abc' is not a number"),
    ("game=gemforge", 404, "No finished game matches these filters."),
    ("q=%00", 400, "q= holds a control character (U+0000)"),
    ("q=a%00b@x.y", 400, "q= holds a control character (U+0000)"),
])
def test_the_zip_refuses_filters_it_cannot_use(client, query, status, words):
    onyx_game()
    answer = client.get(f"/games/export.zip?{query}")
    assert answer.status_code == status and answer.mimetype == "text/plain"
    assert words in answer.get_data(as_text=True)


def test_a_window_answer_names_nobody_in_the_print_while_the_game_runs(
        config, client, monkeypatch, capsys):
    """RULINGS G39, as the game page has it: the print page and `pbem export --format
    html` leave out who was asked in a reaction window and who answered, until the game
    ends."""
    from webgames import play, resign, start
    game_id = start(config, "gemforge", ["ann", "ben"], seed="forge")
    play(game_id, (0, "keep T16 T05 T23"), (1, "keep T30 T15 T34"))  # ann is first
    play(game_id, (1, "pref copy-take ask"), (0, "take"), (1, "pass"))
    monkeypatch.setenv("PBEM_DATABASE_URL", config.database_url)
    monkeypatch.setenv("PBEM_SECRET_KEY", "test-secret-key")

    def plies() -> list[list[str]]:
        """The plies of the print page, on the web and from the CLI (who: what)."""
        page = client.get(f"/games/{game_id}/print?every=0").get_data(as_text=True)
        assert main(["export", str(game_id), "--format", "html", "--every", "0"]) == 0
        printed = capsys.readouterr().out
        return [[re.sub(r"<[^>]+>", "", li) for li in re.findall(r"<li>(.*?)</li>", html)]
                for html in (page, printed)]

    web, cli = plies()
    assert web == cli
    # ben's standing answer and his pass are not printed at all while the game runs
    assert web[4:] == ["ann: a secret choice", "ben: a secret choice", "ann: take"]
    resign(game_id, 0)
    web, cli = plies()
    assert web == cli
    assert web[4:] == ["ann: keep T16 T05 T23", "ben: keep T30 T15 T34",
                       "ben: pref copy-take ask", "ann: take", "ben: pass"]
