"""/verify over HTTP (Flask's test client): the page carries its checker inline and, for a
finished game, its record; a running game's record is refused, for its seed is secret;
the game page links to the check, and /rules/dealing shows the document it follows."""

from html import unescape

import pytest

from webgames import play, play_random, resign, start


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


def get(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return unescape(response.get_data(as_text=True))


def test_the_page_holds_its_checker_inline(client):
    from pathlib import Path
    page = get(client, "/verify")
    script = (Path(__file__).resolve().parent.parent / "templates/web/deal_check.js").read_text()
    assert script in page  # the whole file, as the tests run it: no other script to fetch
    assert "<script src" not in page
    response = client.get("/verify/deal_check.js")  # to read on its own
    assert response.get_data(as_text=True) == script
    assert response.content_type == "text/javascript; charset=utf-8"
    assert '<textarea id="record" name="record" rows="14" cols="80" spellcheck="false"></textarea>' in page


def test_a_finished_game_is_put_in_the_box(config, client):
    game_id = start(config, "baronoxx", ["alice", "bob"], seed="boxed")
    play_random(game_id)
    record = get(client, f"/games/{game_id}.txt")
    for url in (f"/games/{game_id}/verify", f"/verify?game={game_id}"):
        page = get(client, url)
        assert f"<h1>Check a deal: game #{game_id}</h1>" in page
        assert f'spellcheck="false">{record}</textarea>' in page
        assert 'id="refusal"' not in page


def test_a_running_game_is_refused_until_its_seed_is_out(config, client):
    game_id = start(config, "onix", ["alice", "bob"], seed="secret-seed")
    page = get(client, f"/games/{game_id}/verify")
    assert (f"Game #{game_id} is still running: its seed is revealed when it ends, and its "
            f"deal can be checked then.") in page
    assert "secret-seed" not in page and "Dealer:" not in page
    assert "There is no game #99." in get(client, "/verify?game=99")


def test_the_game_page_links_to_the_check_once_the_game_is_over(config, client):
    dealt = start(config, "onix", ["alice", "bob"], seed="linked")
    assert "/verify" not in get(client, f"/games/{dealt}")  # running: nothing to check yet
    resign(dealt, 0)
    assert f'<a href="/games/{dealt}/verify" id="verify-link">check this deal</a>' in get(
        client, f"/games/{dealt}")
    onyx = start(config, "onyx", ["alice", "bob"])
    play(onyx, (0, "F6"))
    resign(onyx, 1)
    assert "/verify" not in get(client, f"/games/{onyx}")  # Onyx deals nothing


def test_the_document_is_published_with_its_tables(client):
    page = get(client, "/rules/dealing")
    assert "<h1>Checking the deal</h1>" in page
    assert "<td>copy-set</td>" in page and "<td>OS</td>" in page
    assert 'href="/rules/dealing"' in get(client, "/rules/record")  # README links to it
