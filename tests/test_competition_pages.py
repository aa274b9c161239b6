"""The competition's pages: a game's leaders with a minimum of games, a player's
ratings with a server-drawn SVG history, a tournament's standings, the open seeks."""

import re

import pytest

from pbem.competition.plot import history_svg


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


def page(client, url, status=200) -> str:
    response = client.get(url)
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    return response.get_data(as_text=True)


def words(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _games(config, results):
    from pbem.operator.admin import adjudicate_game, start_game
    from pbem.engines import ENGINES
    for black, white, result in results:
        game_id = start_game(config, ENGINES["onyx"], {}, [f"{black}@example.org",
                                                           f"{white}@example.org"])
        adjudicate_game(config, game_id, result, "a literal result")


def test_the_leaders_need_three_rated_games(client, config):
    _games(config, [("ann", "ben", "1-0"), ("ben", "ann", "0-1"), ("ann", "ben", "1-0"),
                    ("cat", "ann", "1-0")])
    html = words(page(client, "/ratings/onyx"))
    assert "need 3 rated games to appear" in html
    assert re.search(r"1 ann \d+\.\d ± \d+\.\d 4 2 ben \d+\.\d ± \d+\.\d 3", html)
    assert "cat" not in html  # one game only
    page(client, "/ratings/chess", status=404)


def test_a_players_page_shows_each_rating_and_its_history(client, config):
    from pbem.store import Player
    _games(config, [("ann", "ben", "1-0"), ("ben", "ann", "1-0")])
    ann = Player.get(Player.email == "ann@example.org")
    html = page(client, f"/players/{ann.id}")
    assert "<svg" in html and "<polyline" in html and "<script" not in html
    assert 'aria-label="Onyx rating: ' in html and "after 2 rated games" in html
    assert re.search(r"Onyx ?: \d+\.\d ± \d+\.\d \(2 rated games\)", words(html))


def test_the_history_picture_is_drawn_from_the_numbers():
    svg = history_svg([(27.6, 8.1), (25.9, 7.8)], "Onyx rating")
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert svg.count(",") > 6 and "game 2" in svg and "25.9 ± 7.8 after 2 rated games" in svg
    assert "No rated games yet." in history_svg([])


def test_a_tournament_page_and_the_seeks_page(client, config):
    from pbem.commands.speaker import Speaker
    from pbem.players import player_for
    from pbem.commands import seeks, tournaments
    from pbem.store import transaction
    with transaction():
        ann = player_for("ann@example.org")
        ann.confirmed = True
        ann.save()
        tournaments.new_tournament(Speaker(config, ann), "onyx swiss rounds=3 with "
                                   "ann@example.org ben@example.org cat@example.org")
        seeks.seek(Speaker(config, ann), "onyx board=12")
    html = words(page(client, "/tournaments/1"))
    assert "Onyx, Swiss, 3 rounds. Inviting. Waiting for the answers of ben, cat." in html
    assert "#1 Onyx, Swiss, 3 rounds: inviting" in words(page(client, "/tournaments"))
    assert "#1 Onyx, board=12 ann 25.0 ± 8.3" in words(page(client, "/seeks"))
    page(client, "/tournaments/9", status=404)
