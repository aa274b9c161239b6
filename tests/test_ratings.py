"""Ratings: openskill's numbers on literal results (a win, a shared win, a ten-player
game), written in the transaction that ends a game, and rebuilt to the same numbers."""

from fractions import Fraction as F

import pytest

from pbem.competition.ratings import Rating, by_player, ranks, rate, replay

NEW = Rating()


def test_a_newcomer_is_25_give_or_take_8():
    assert str(NEW) == "25.0 ± 8.3"
    assert NEW.cautious == 0.0


def test_places_from_shares_of_the_win():
    assert ranks([F(1), F(0)]) == [1, 2]
    assert ranks([F(1, 2), F(1, 2), F(0)]) == [1, 1, 2]
    assert ranks([F(0), F(1), F(0), F(0)]) == [2, 1, 2, 2]


def test_two_newcomers_one_wins():
    winner, loser = rate([NEW, NEW], [F(1), F(0)])
    assert (round(winner.mu, 4), round(winner.sigma, 4)) == (27.6354, 8.0659)
    assert (round(loser.mu, 4), round(loser.sigma, 4)) == (22.3646, 8.0659)
    assert winner.games == loser.games == 1


def test_a_shared_win_moves_both_winners_alike():
    ann, ben, cat = rate([NEW, NEW, NEW], [F(1, 2), F(1, 2), F(0)])
    assert ann == ben
    assert round(ann.mu, 4) == 25.7173 and round(cat.mu, 4) == 23.5655
    assert ann.sigma == cat.sigma


def test_a_ten_player_game_one_winner_nine_equal_losers():
    after = rate([NEW] * 10, [F(1)] + [F(0)] * 9)
    assert str(after[0]) == "27.1 ± 8.3"
    assert len(set(after[1:])) == 1 and str(after[1]) == "24.8 ± 8.3"


def test_an_upset_moves_the_favourite_down_and_the_outsider_up():
    favourite, outsider = rate([Rating(30, 3), Rating(20, 6)], [F(0), F(1)])
    assert round(favourite.mu, 3) == 29.239 and round(outsider.mu, 3) == 23.04
    assert favourite.sigma < outsider.sigma


def test_a_player_in_two_seats_is_rated_once_by_the_best_share():
    assert by_player(["ann", "bot", "bot"], [F(0), F(0), F(1)]) == (["ann", "bot"], [F(0), F(1)])
    assert replay([(["bot", "bot"], [F(1), F(0)])]) == {}


def test_a_rated_game_has_a_share_for_each_seat():
    with pytest.raises(ValueError):
        rate([NEW, NEW], [F(1)])


# -- in the store ---------------------------------------------------------------------

def _end(config, game_id, result):
    from pbem.operator.admin import adjudicate_game
    adjudicate_game(config, game_id, result, "a literal result")


def _ratings():
    from pbem.store.competition_models import Rating as Row, RatingChange
    rows = {(r.player.email, r.engine): (r.mu, r.sigma, r.games) for r in Row.select()}
    history = sorted((c.game_id, c.player.email, c.mu, c.sigma, c.at)
                     for c in RatingChange.select())
    return rows, history


def test_ending_a_game_rates_it_and_rebuild_gives_the_same_numbers(config):
    from pbem.operator.admin import start_game
    from pbem.bookkeeping import rated
    from pbem.engines import ENGINES
    from pbem.store import transaction
    ann, ben, cat = "ann@example.org", "ben@example.org", "cat@example.org"
    onyx, baronoxx = ENGINES["onyx"], ENGINES["baronoxx"]
    first = start_game(config, onyx, {}, [ann, ben])
    _end(config, first, "1-0")
    rows, _ = _ratings()
    assert round(rows[(ann, "onyx")][0], 4) == 27.6354 and rows[(ben, "onyx")][2] == 1
    _end(config, start_game(config, onyx, {}, [ben, ann]), "1-0")
    _end(config, start_game(config, baronoxx, {}, [ann, ben, cat]), "1/2-1/2-0")
    _end(config, start_game(config, onyx, {"rated": "no"}, [ann, ben]), "1-0")  # friendly
    _end(config, start_game(config, onyx, {}, [ann, "bot:easy"]), "0-1")  # bots count
    start_game(config, onyx, {}, [ann, cat])  # still running: not rated
    live_rows, live_history = _ratings()
    assert live_rows[(ann, "onyx")][2] == 3 and live_rows[(cat, "baronoxx")][2] == 1
    assert live_rows[(ann, "baronoxx")] == live_rows[(ben, "baronoxx")]
    assert len(live_history) == 2 + 2 + 3 + 2
    with transaction():
        assert rated.rebuild() == 4
    assert _ratings() == (live_rows, live_history)


def test_a_friendly_game_says_so_and_a_bad_rated_value_is_explained(config):
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.engines.base import OptionError
    from pbem.store import Game
    game_id = start_game(config, ENGINES["onyx"], {"rated": "no"},
                         ["ann@example.org", "ben@example.org"])
    assert Game.get_by_id(game_id).rated is False
    with pytest.raises(OptionError, match="rated=yes .* or rated=no"):
        start_game(config, ENGINES["onyx"], {"rated": "maybe"},
                   ["ann@example.org", "ben@example.org"])


def test_a_cancelled_game_is_not_rated(config):
    from pbem.operator.admin import cancel_game, start_game
    from pbem.engines import ENGINES
    game_id = start_game(config, ENGINES["onyx"], {}, ["ann@example.org", "ben@example.org"])
    cancel_game(config, game_id, "a mistake")
    assert _ratings() == ({}, [])


def test_a_resignation_by_mail_is_rated_once_both_have_made_two_moves(onyx):
    from pbem.store.competition_models import Rating as Row
    game_id, alice, bob = onyx
    for person, move in zip([alice, bob] * 2, ["F6", "G5", "D4", "E7"]):
        person.reply(move)
    alice.reply("resign")
    assert {r.player.email: r.games for r in Row.select()} == {alice.address: 1,
                                                              bob.address: 1}


# -- farms ---------------------------------------------------------------------------------

def _game_mail(person, game_id):
    return [m for m in person.inbox if f"Onyx #{game_id}" in m["Subject"]][-1]


def _farm(carol, bob, games: int, moves: list[str]) -> list[int]:
    """The loop of a rating farm: carol seeks, bob joins, they play `moves` (carol first)
    and bob resigns; the games' ids."""
    from pbem.store import Game
    ids = []
    for _ in range(games):
        carol.write("seek onyx board=12")
        bob.write(f"join seek {_open_seek()}")
        game_id = Game.select().order_by(Game.id.desc()).first().id
        for person, move in zip([carol, bob] * len(moves), moves):
            person.reply(move, to=_game_mail(person, game_id))
        bob.reply("resign", to=_game_mail(bob, game_id))
        ids.append(game_id)
    return ids


def _open_seek() -> int:
    from pbem.store.competition_models import Seek
    return Seek.select().where(Seek.status == "open").order_by(Seek.id.desc()).first().id


def _confirmed(*people):
    for person in people:
        person.write("games")
        person.reply("yes")
    return people


def test_the_seek_join_resign_loop_lifts_nobodys_rating(players, mail_server):
    """Two addresses loop 8 times: one seeks, the other joins and resigns at move 0 (the
    farm of issue #29). No game is rated, the leaders' page stays empty, and each game's
    last mail says why."""
    from mailtest import body
    from pbem.store import Game
    from pbem.store.competition_models import Rating as Row
    from pbem.web import create_app
    carol, bob = _confirmed(*players("carol", "bob"))
    ids = _farm(carol, bob, 8, [])
    assert [g.status for g in Game.select()] == ["finished"] * 8
    assert Row.select().count() == 0
    assert [g.rated for g in Game.select()] == [False] * 8
    assert ("This game is not rated: carol and bob made fewer than 2 moves of their own; a "
            "game counts once every player has made 2.") in " ".join(
                body(_game_mail(carol, ids[-1])).split())
    page = create_app(mail_server).test_client().get("/ratings/onyx").get_data(as_text=True)
    assert "Nobody has 3 rated games of Onyx yet." in page


def test_at_most_two_rated_games_a_day_between_two_players(players, frozen_time):
    from mailtest import body
    from pbem.bookkeeping import rated
    from pbem.store import Game, transaction
    from pbem.store.competition_models import Rating as Row
    carol, bob = _confirmed(*players("carol", "bob"))
    ids = _farm(carol, bob, 4, ["F6", "G5", "D4", "E7"])
    assert [g.rated for g in Game.select().order_by(Game.id)] == [True, True, False, False]
    assert {r.player.email: r.games for r in Row.select()} == {carol.address: 2,
                                                              bob.address: 2}
    assert ("This game is not rated: carol and bob have played 2 rated games of this game "
            "together within a day already; at most 2 a day count.") in " ".join(
                body(_game_mail(bob, ids[2])).split())
    frozen_time.move(days=1, seconds=1)
    _farm(carol, bob, 1, ["F6", "G5", "D4", "E7"])
    assert {r.player.email: r.games for r in Row.select()} == {carol.address: 3,
                                                              bob.address: 3}
    live = _ratings()
    with transaction():
        assert rated.rebuild() == 3
    assert _ratings() == live


def test_a_move_the_server_made_for_a_player_is_not_their_own():
    from pbem.bookkeeping.rated import NOT_OWN_SOURCES
    from pbem.bookkeeping.ledger import AUTOMATIC
    assert AUTOMATIC in NOT_OWN_SOURCES


def test_rated_no_by_mail_makes_a_friendly_game_and_the_invitation_says_so(players):
    from mailtest import body
    from pbem.store import Game
    carol, bob = players("carol", "bob")
    carol.write("new onyx with bob@example.org board=12 rated=no")
    carol.reply("yes")
    assert Game.get().rated is False and "rated" not in Game.get().options
    assert "timeout=forfeit, rated=no) with carol, bob" in " ".join(body(bob.last).split())


def test_pbem_ratings_rebuild_and_show(store, config, tmp_path, monkeypatch, capsys):
    from pbem.cli import main
    from pbem.store.competition_models import Rating as Row
    monkeypatch.chdir(tmp_path)
    for name, value in {"PBEM_DATABASE_URL": store, "PBEM_SECRET_KEY": "k",
                        "PBEM_MAILDIR": str(tmp_path / "mail")}.items():
        monkeypatch.setenv(name, value)
    assert main(["new", "onyx", "--player", "a@example.org", "--player", "b@example.org"]) == 0
    _end(config, 1, "0-1")
    live = _ratings()
    Row.update(mu=0).execute()  # a rating gone wrong: the archive knows better
    capsys.readouterr()
    assert main(["ratings", "rebuild"]) == 0
    assert "ratings rebuilt from 1 finished rated game\n" in capsys.readouterr().out
    assert _ratings() == live
    assert main(["ratings", "show", "onyx"]) == 0
    assert capsys.readouterr().out.splitlines() == ["  1. b  27.6 ± 8.1  (1 rated game)",
                                                    "  2. a  22.4 ± 8.1  (1 rated game)"]
