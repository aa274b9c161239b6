"""The web archive over HTTP (Flask's test client on a real database): the index and its
filters, a game at any ply, a player's page, the rules pages, and every bad input
answered with 404 or 400 and a sentence, never a crash."""

import re

import pytest

from databases import only_on
from webgames import DOMAIN, address, play, play_random, resign, start


@pytest.fixture
def client(config):
    from pbem.web import create_app
    return create_app(config).test_client()


def get(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code,
                                            response.get_data(as_text=True)[:500])
    return response.get_data(as_text=True)


def text_of(html: str) -> str:
    """The page's words, tags dropped and spaces folded, to compare with literal text."""
    words = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    return re.sub(r" ([,.:)])", r"\1", words.replace("( ", "("))


@pytest.fixture
def onyx_game(config):
    game_id = start(config, "onyx", ["alice", "bob"])
    play(game_id, (0, "F6"), (1, "G5"), (0, "D4"))
    return game_id


# -- the index ---------------------------------------------------------------------------

def test_index_lists_games_newest_first_with_names_and_links(config, client, onyx_game):
    later = start(config, "baronoxx", ["carol", "dave", "erin"])
    page = get(client, "/games")
    assert page.index(f'href="/games/{later}"') < page.index(f'href="/games/{onyx_game}"')
    words = text_of(page)
    assert f"6 nimmt! Baron Oxx #{later} carol, dave, erin running" in words
    assert f"Onyx #{onyx_game} alice, bob running, 3 plies" in words
    assert '<a href="/players/1">alice</a>' in page
    assert '<label for="f-q">' in page and '<nav aria-label="Site">' in page


def test_filters_by_game_status_result_and_player(config, client, onyx_game):
    cards = start(config, "onix", ["bob", "carol"])
    resign(cards, 0)  # carol wins: 0-1
    assert f"/games/{cards}\"" not in get(client, "/games?game=onyx")
    assert f"/games/{onyx_game}\"" in get(client, "/games?game=onyx")
    finished = get(client, "/games?status=finished")
    assert f"/games/{cards}\"" in finished and f"/games/{onyx_game}\"" not in finished
    assert "Onix #2 bob, carol finished: 0-1 (carol won)" in text_of(finished)
    assert f"/games/{cards}\"" in get(client, "/games?result=0-1")
    assert "No games match these filters." in text_of(get(client, "/games?result=1-0"))
    alice = get(client, "/games?player=1")
    assert f"/games/{onyx_game}\"" in alice and f"/games/{cards}\"" not in alice
    assert "Games of alice." in text_of(alice)
    # The zip of finished records keeps the filters (but not the page).
    assert 'href="/games/export.zip?game=onyx&amp;status=finished"' in get(
        client, "/games?game=onyx&status=finished")


def test_search_by_name_game_number_and_address(config, client, onyx_game):
    other = start(config, "onyx", ["carol", "dave"])
    assert f"/games/{other}\"" in get(client, "/games?q=CAR")
    assert f"/games/{onyx_game}\"" not in get(client, "/games?q=car")
    assert f"/games/{onyx_game}\"" in get(client, f"/games?q=%23{onyx_game}")
    # An address finds its player's games, but the address leaves the URL at once.
    response = client.get(f"/games?q={address('dave')}&game=onyx")
    assert response.status_code == 302
    assert response.headers["Location"] == "/games?game=onyx&player=4"
    unknown = get(client, "/games?q=nobody@players.test")
    assert "No player has the address you typed" in unknown
    assert "@" + DOMAIN not in unknown and "nobody" not in unknown
    # A part of an address is not a search for addresses: nobody lists a domain's players.
    assert "No games" in text_of(get(client, "/games?q=players.test"))


def test_index_pages_keep_the_filters(config, client):
    from pbem.engines import ENGINES
    from pbem.play import create_game
    from pbem.players import player_for
    from pbem.store import transaction
    from pbem.export.search import PAGE_SIZE
    with transaction():
        alice, bob = player_for(address("alice")), player_for(address("bob"))
        ids = [create_game(ENGINES["onyx"], {}, [alice, bob], alice, accepted=False).id
               for _ in range(PAGE_SIZE + 3)]
    first = get(client, "/games?game=onyx")
    assert f'href="/games/{ids[-1]}"' in first and f'href="/games/{ids[2]}"' not in first
    assert '<a rel="next" href="/games?game=onyx&amp;page=2">Older games</a>' in first
    second = get(client, "/games?game=onyx&page=2")
    assert [int(n) for n in re.findall(r'href="/games/(\d+)"', second)] == ids[2::-1]
    assert '<a rel="prev" href="/games?game=onyx">Newer games</a>' in second
    assert "No games" in get(client, "/games?page=9")


@pytest.mark.parametrize("query, complaint", [
    ("game=chess", "game='chess' is not a game here"),
    ("status=paused", "status='paused' is not a status"),
    ("result=white", "result='white' is not a result"),
    ("page=0", "page='0' is not a number"),
    ("page=-2", "page='-2' is not a number"),
    ("page=two", "page='two' is not a number"),
    ("page=99999999999", "page='99999999999' is not a number"),
    ("player=alice", "player='alice' is not a number"),
    ("q=" + "x" * 201, "the search is 201 characters long"),
])
def test_bad_filters_are_refused_with_a_sentence(client, query, complaint):
    page = get(client, f"/games?{query}", status=400)
    assert complaint in page.replace("&#39;", "'")


def test_the_index_costs_the_same_queries_for_many_games(config, client):
    """Two queries a page (games, then their seats), not one per row."""
    from pbem.store import database
    for n in range(3):
        start(config, "onyx", [f"p{n}a", f"p{n}b"], seed=f"s{n}")
    counted = []
    original = database.obj.execute_sql

    def counting(sql, params=None, *args, **kwargs):
        counted.append(sql)
        return original(sql, params, *args, **kwargs)
    database.obj.execute_sql = counting
    try:
        get(client, "/games")
        few = len(counted)
        for n in range(3, 20):
            start(config, "onyx", [f"p{n}a", f"p{n}b"], seed=f"s{n}")
        counted.clear()
        get(client, "/games")
    finally:
        del database.obj.execute_sql
    assert len(counted) == few == 2



@only_on("sqlite")  # its query planner's words; PostgreSQL's plan depends on statistics
@pytest.mark.parametrize("args", [{}, {"game": "onyx"}, {"status": "finished"},
                                  {"game": "onyx", "status": "finished"}, {"result": "1-0"},
                                  {"game": "gemforge", "result": "0-1"}, {"player": "1"}])
def test_a_deep_index_page_finds_its_games_in_an_index_not_in_the_rows(config, args):
    """OFFSET steps over every earlier match: over index entries, not over game rows
    that each hold a snapshot (migration 0006)."""
    from pbem.store import Game, database
    from pbem.export.search import GameFilters, find_games
    ids = find_games(GameFilters.from_args(args), Game.id).offset(5000).limit(51)
    sql, params = ids.sql()
    plan = [row[3] for row in database.obj.execute_sql("EXPLAIN QUERY PLAN " + sql, params)]
    reading_games = [step for step in plan if re.match(r"(SCAN|SEARCH) t1\b", step)]
    assert reading_games and all("COVERING INDEX" in step or "PRIMARY KEY" in step
                                 for step in reading_games), plan


# -- a game ------------------------------------------------------------------------------

def test_game_page_shows_players_options_status_turn_and_moves(client, onyx_game):
    page = get(client, f"/games/{onyx_game}")
    words = text_of(page)
    assert "Players Black alice, White bob" in words
    assert ('<abbr title="board size: an even number from 6 to 26">board</abbr>=12, '
            '<abbr title="standard (four stones each) or open (empty board)">setup</abbr>'
            '=standard') in page
    assert "Status running Turn bob to move since" in words
    assert re.findall(r'<li value="(\d)"[^>]*><a href="/games/1\?ply=\d">([^<]+)</a>', page) \
        == [("1", "alice: F6"), ("2", "bob: G5"), ("3", "alice: D4")]
    assert '<li value="3" aria-current="step">' in page
    assert "Ply 3 of 3" in words and "After ply 3: alice D4. This is the position now." in words
    assert "<title>Onyx 12×12: 6 black and 5 white stones; last move D4; white to move</title>" \
        in page
    assert 'href="/games/1.txt" download="pbem-1-onyx.txt"' in page
    assert 'href="/games/1.sgf" download="pbem-1-onyx.sgf"' in page and 'href="/games/1/ply/3.svg"' in page
    assert 'href="/rules/onyx/notation"' in page
    assert "Checking the deal" not in page  # Onyx deals nothing


def test_game_page_shows_the_time_control_and_whose_clock_runs(config, client, frozen_time):
    game_id = start(config, "onyx", ["alice", "bob"], time="3d")
    play(game_id, (0, "F6"))
    frozen_time.move(hours=12)
    words = text_of(get(client, f"/games/{game_id}"))
    assert ("Time 3 days per move; when it runs out, the game is lost (forfeit). bob has 2 days "
            "12 hours left (until Thu 3 Dec 2026 10:00 UTC). Moves") in words
    resign(game_id, 1)
    words = text_of(get(client, f"/games/{game_id}"))
    assert ("Time 3 days per move; when it runs out, the game is lost (forfeit). Moves"
            in words)


def test_the_public_page_says_a_clock_is_paused_but_not_until_when(config, client,
                                                                   frozen_time):
    """Opponents are told when a vacation ends (in their mail); a visitor is not."""
    from pbem.store import Player, transaction
    from pbem.timekeeping import vacations
    game_id = start(config, "onyx", ["alice", "bob"], time="3d")
    frozen_time.move(days=1)
    with transaction():
        vacations.command(config, Player.get(Player.email == address("alice")), "7d")
    words = text_of(get(client, f"/games/{game_id}"))
    assert ("Time 3 days per move; when it runs out, the game is lost (forfeit). alice is "
            "on vacation: the game waits for them, and their clock is paused with 2 days "
            "left. Moves") in words
    assert "Dec 2026" not in words


def test_the_turn_is_dated_from_when_the_wait_began(config, client, frozen_time):
    """In 6 nimmt! another player's choice is a write, not the start of the wait for the
    two still choosing."""
    game_id = start(config, "baronoxx", ["ann", "ben", "cat"], seed="clock-18")
    frozen_time.move(hours=5)
    play(game_id, (0, "play 80"))
    words = text_of(get(client, f"/games/{game_id}"))
    assert "Turn ben, cat to move since 2026-11-30 10:00 UTC Started" in words
    frozen_time.move(hours=1)
    play(game_id, (1, "play 67"))
    words = text_of(get(client, f"/games/{game_id}"))
    assert "Turn cat to move since 2026-11-30 10:00 UTC Started" in words
    frozen_time.move(hours=1)
    play(game_id, (2, "play 2"))  # 2 fits no row: cat is asked which to take, anew
    words = text_of(get(client, f"/games/{game_id}"))
    assert "Turn cat to move since 2026-11-30 17:00 UTC Started" in words


def test_a_window_answer_names_nobody_while_the_game_runs(config, client):
    """RULINGS G39: who was asked in a reaction window, and who answered, stays unsaid."""
    from pbem.engines import ENGINES
    from pbem.play import Table
    forge = ENGINES["gemforge"]
    game_id = start(config, "gemforge", ["ann", "ben"], seed="forge")
    for seat in (0, 1):
        state = Table.load(game_id, lock=False).state
        play(game_id, (seat, forge.notation(state, seat, forge.default_decision(state, seat))))
    active = Table.load(game_id, lock=False).state.active
    other = 1 - active
    play(game_id, (other, "pref copy-take ask"), (active, "take"), (other, "pass"))
    page = get(client, f"/games/{game_id}")
    listed = re.findall(r'<li value="(\d+)"[^>]*><a [^>]*>([^<:]+):', page)
    names = ["ann", "ben"]
    # ben's standing answer and his pass are not in the list at all, nor counted: the
    # take is ply 7 of 7 to the public, though the log holds 9 plies
    assert listed[-2:] == [("6", names[other]), ("7", names[active])]
    assert "Ply 7 of 7" in page and "Someone" not in page
    assert Table.load(game_id, lock=False).game.plies == 9
    resign(game_id, active)
    page = get(client, f"/games/{game_id}")
    listed = re.findall(r'<li value="(\d+)"[^>]*><a [^>]*>([^<:]+):', page)
    assert listed[-3:] == [("7", names[other]), ("8", names[active]), ("9", names[other])]
    assert f"{names[other]}: pass" in page and "Someone" not in page


def test_game_page_steps_through_plies(client, onyx_game):
    start_page = get(client, f"/games/{onyx_game}?ply=0")
    assert "Ply 0 of 3" in start_page and "The start, before any move" in start_page
    assert '<span class="off">Previous</span>' in start_page
    assert 'data-rel="next" rel="next" href="/games/1?ply=1"' in start_page
    middle = get(client, f"/games/{onyx_game}?ply=2")
    assert "After ply 2: bob <code>G5</code>" in middle
    assert 'data-rel="prev" rel="prev" href="/games/1?ply=1"' in middle
    assert 'data-rel="next" rel="next" href="/games/1?ply=3"' in middle
    assert 'data-rel="last" href="/games/1?ply=3"' in middle
    assert "last move G5" in middle and "last move D4" not in middle


@pytest.mark.parametrize("query", ["ply=-1", "ply=4", "ply=999999999999999999999", "ply=two",
                                   "ply=1.5", "ply=", "ply=%C2%B2", "ply=+1"])
def test_bad_plies_are_not_found(client, onyx_game, query):
    page = get(client, f"/games/{onyx_game}?{query}", status=404)
    assert "This game has plies 0 to 3" in page


@pytest.mark.parametrize("url", ["/games/999", "/games/0", "/games/abc", "/games/-1",
                                 "/games/99999999999", "/players/999", "/players/abc",
                                 "/players/99999999999", "/rules/chess",
                                 "/rules/chess/notation"])
def test_unknown_things_are_not_found(client, onyx_game, url):
    get(client, url, status=404)


def test_not_found_pages_say_what_is_missing(client, onyx_game):
    assert "There is no game number 999." in get(client, "/games/999", status=404)
    assert "There is no player number 999." in get(client, "/players/999", status=404)
    assert "There is no game &#39;chess&#39; here; the games are: onyx, onix, baronoxx, " \
        "gemforge." in get(client, "/rules/chess", status=404)


def test_an_invitation_shows_who_is_still_to_accept(config, client):
    from pbem.engines import ENGINES
    from pbem.play import create_game
    from pbem.players import player_for
    from pbem.store import transaction
    with transaction():
        alice, bob = player_for(address("alice")), player_for(address("bob"))
        game = create_game(ENGINES["onix"], {}, [alice, bob], alice, accepted=False)
    page = get(client, f"/games/{game.id}")
    assert "Status inviting Turn waiting for bob to accept" in text_of(page)
    assert "The game has not started." in page
    get(client, f"/games/{game.id}?ply=1", status=404)


def test_a_finished_dealt_game_reveals_the_seed_and_how_to_check_it(config, client):
    import hashlib
    game_id = start(config, "onix", ["alice", "bob"], seed="open-sesame")
    play_random(game_id, plies=4)
    running = get(client, f"/games/{game_id}")
    commitment = hashlib.sha256(b"open-sesame").hexdigest()
    assert commitment in running and "open-sesame" not in running
    resign(game_id, 1)
    page = get(client, f"/games/{game_id}")
    words = text_of(page)
    assert "Status finished: 1-0, alice won (bob resigned)" in words
    assert "<pre><code>open-sesame</code></pre>" in page
    assert ("<code>python3 -c 'import hashlib; print(hashlib.sha256(\"open-sesame\".encode())"
            ".hexdigest())'</code>") in page.replace("&#34;", '"').replace("&#39;", "'")
    assert "pbem record check pbem-1-onix.txt" in words
    assert 'href="/games/1.txt" download="pbem-1-onix.txt"' in page


def test_the_record_check_on_the_page_passes_for_the_downloaded_record(config, client,
                                                                      tmp_path):
    """Step 3 of "Checking the deal", as a reader would follow it."""
    import subprocess
    import sys
    game_id = start(config, "baronoxx", ["alice", "bob"], seed="check-me")
    play_random(game_id, plies=10)
    resign(game_id, 0)
    page = get(client, f"/games/{game_id}")
    name = re.search(r"<code>pbem record check ([^<]+)</code>", page).group(1)
    record = get(client, f"/games/{game_id}.txt")
    assert '[Seed "check-me"]' in record
    (tmp_path / name).write_text(record)
    done = subprocess.run([sys.executable, "-m", "pbem", "record", "check", name],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_hash_command_prints_the_commitment(config, client):
    """The one-liner on the page, run as a reader would run it."""
    import html
    import shlex
    import subprocess
    import sys
    game_id = start(config, "baronoxx", ["alice", "bob"], seed="it's \"quoted\"")
    resign(game_id, 0)
    page = get(client, f"/games/{game_id}")
    command = html.unescape(re.search(r"<code>(python3 -c [^<]+)</code>", page).group(1))
    words = shlex.split(command)
    done = subprocess.run([sys.executable, *words[1:]], capture_output=True, text=True,
                          timeout=60)
    from pbem.store import Game
    assert done.stdout.strip() == Game.get_by_id(game_id).commitment


# -- players -----------------------------------------------------------------------------

def test_player_page_lists_games_and_results(config, client, onyx_game):
    lost = start(config, "onix", ["alice", "bob"])
    resign(lost, 0)
    won = start(config, "baronoxx", ["carol", "alice"])
    resign(won, 0)
    page = get(client, "/players/1")
    words = text_of(page)
    assert "<h1>alice</h1>" in page
    assert "2 finished games: 1 won, 0 shared, 1 lost. 1 running." in words
    assert f"6 nimmt! Baron Oxx #{won} carol, alice finished: 0-1 (alice won) won" in words
    assert f"Onix #{lost} alice, bob finished: 0-1 (bob won) lost" in words
    assert f"Onyx #{onyx_game} alice, bob running, 3 plies" in words
    get(client, "/players/1?page=x", status=400)


def test_a_shared_win_is_shared(config, client):
    game_id = start(config, "baronoxx", ["alice", "bob", "carol"])
    resign(game_id, 2)
    assert "alice and bob shared the win" in get(client, f"/games/{game_id}")
    assert "shared (1/2)" in get(client, "/players/1")


# -- rules, home, stylesheet ---------------------------------------------------------------

def test_rules_pages_summarise_and_link_the_notation_guide(client):
    assert 'href="/rules/gemforge"' in get(client, "/rules")
    rules = get(client, "/rules/onyx")
    assert "the first to complete a chain of stones" in rules
    assert 'href="/rules/onyx/notation"' in rules
    assert "<code>board=12</code>" in rules
    guide = get(client, "/rules/onyx/notation")
    assert "<h1>Onyx notation</h1>" in guide
    assert 'href="/rules/record"' in guide  # README.md, the record format, is a page too
    assert "<table>" in get(client, "/rules/onix/notation")
    record = get(client, "/rules/record")
    assert "<h1>The pbem game record</h1>" in record
    assert 'href="/rules/onyx/notation"' in record
    assert "<title>Baron Oxx" not in get(client, "/rules/BaronOxx")  # any case finds it


def test_home_links_to_the_archive_and_the_stylesheet_is_served(client, onyx_game):
    home = get(client, "/")
    assert '<a href="/games">Browse the archive of games</a>' in home
    assert 'href="/games/1"' in home and "pbem@pbem.test" in home
    response = client.get("/archive.css")
    assert response.status_code == 200 and response.mimetype == "text/css"
    assert b"@media (min-width: 52rem)" in response.data
    response.close()


@pytest.mark.parametrize("query, char", [("q=%00", "U+0000"), ("q=a%00b@x.y", "U+0000"),
                                         ("q=al%01ice", "U+0001"), ("q=al%09ice", "U+0009"),
                                         ("page=1&q=%7F", "U+007F")])
def test_a_control_character_in_the_search_is_refused(client, onyx_game, query, char):
    """PostgreSQL cannot compare a NUL at all: the search says so, and never echoes what
    was typed (it may be an address)."""
    page = get(client, f"/games?{query}", status=400)
    assert f"q= holds a control character ({char}), which no game, name or address has" in (
        text_of(page))
    assert "b@x.y" not in page


def test_a_name_that_is_an_address_shows_only_its_local_part(client, onyx_game):
    """`name` refuses '@'; a name stored some other way (an old database, a hand edit)
    still never puts an address on a page or in a download."""
    from pbem.store import Player
    Player.update(name=address("alice")).where(Player.email == address("alice")).execute()
    for url in (f"/games/{onyx_game}", "/games", "/players/1", f"/games/{onyx_game}.txt",
                f"/games/{onyx_game}/print"):
        page = get(client, url)
        assert "alice" in page and f"@{DOMAIN}" not in page, url
