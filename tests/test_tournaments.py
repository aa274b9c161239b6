"""Tournaments by mail: a round-robin of four from the organiser's mail to the final
standings mail, every answer and every game by mail; the scheduler's job starts the rounds."""

from fractions import Fraction as F

from mailtest import body

from pbem.competition import rounds
from pbem.policy.delivery import deliver_due
from pbem.store import Game
from pbem.store.competition_models import Entrant, Pairing, Rating, Tournament

ORDER = ["alice", "bob", "cat", "dan"]  # who beats whom: the earlier name wins


def text(message) -> str:
    return " ".join(body(message).split())


def game_mail(person, game_id):
    return [m for m in person.inbox if m["Subject"].endswith(f"Onyx #{game_id}")][-1]


def play_round(config, people, tournament_id, number):
    """Each game of the round: two moves each (a game counts for the ratings once both
    have made two), then the later name in ORDER resigns by mail."""
    for row in list(Pairing.select().where((Pairing.tournament == tournament_id)
                                           & (Pairing.round == number))):
        names = [p.split("@")[0] for p in _emails(row.players)]
        for name, move in zip(names * 2, ["F6", "G5", "D4", "E7"]):
            people[name].reply(move, to=game_mail(people[name], row.game_id))
        loser = max(names, key=ORDER.index)
        person = people[loser]
        person.reply("resign", to=game_mail(person, row.game_id))
        assert Game.get_by_id(row.game_id).status == "finished", text(person.last)
    assert rounds.advance(config) == 1  # the scheduler's job: the round is over
    deliver_due(config)


def _emails(player_ids):
    from pbem.store import Player
    return [Player.get_by_id(p).email for p in player_ids]


def test_a_round_robin_of_four_by_mail_to_the_final_standings(mail_server, players):
    alice, bob, cat, dan = players(*ORDER)
    people = dict(zip(ORDER, (alice, bob, cat, dan)))
    alice.write("new tournament onyx round-robin with alice@example.org bob@example.org "
                "cat@example.org dan@example.org board=12 time=3d")
    alice.reply("yes, that was me")  # the confirmation of a first mail
    assert "Tournament #1 (Onyx, round-robin, board=12, time=3d) is created" in text(alice.last)
    invitation = text(bob.last)
    assert "alice <alice@example.org> invites you to tournament #1" in invitation
    assert "Reply to this mail with `accept` or `decline`" in invitation
    bob.reply("accept")
    assert "You accepted tournament #1." in text(bob.last)
    assert rounds.advance(mail_server) == 0  # dan has not answered: nothing starts
    cat.reply("accept")
    dan.reply("Sure, count me in!")
    tournament = Tournament.get()
    assert (tournament.status, tournament.round, tournament.rounds) == ("running", 1, 3)
    first = text([m for m in dan.inbox if "Tournament" in m["Subject"]][-1])
    assert "Round 1 has begun." in first and "Round 1: alice – dan: game #1" in first
    assert "This is your game of round 1 of tournament #1." in text(game_mail(dan, 1))

    play_round(mail_server, people, tournament.id, 1)
    after_one = text([m for m in cat.inbox if "standings after round 1" in m["Subject"]][-1])
    assert "Standings after round 1:" in after_one and "Round 2 has begun." in after_one
    play_round(mail_server, people, tournament.id, 2)
    play_round(mail_server, people, tournament.id, 3)

    final = [m for m in bob.inbox if m["Subject"].endswith("final standings")]
    assert len(final) == 1
    assert "The tournament is over: alice wins." in text(final[0])
    assert ("  #  Player  Points       S-B  Buchholz  Games\n"
            "  1  alice        3         3         3      3\n"
            "  2  bob          2         1         4      3\n"
            "  3  cat          1         0         5      3\n"
            "  4  dan          0         0         6      3") in body(final[0]).replace("\r", "")
    assert Tournament.get().status == "finished"
    assert rounds.advance(mail_server) == 0
    # Every game was an ordinary rated game: each player has three rated Onyx games.
    assert {r.player.name: r.games for r in Rating.select()} == dict.fromkeys(ORDER, 3)
    pairs = {frozenset(row.players) for row in Pairing.select()}
    assert len(pairs) == 6


def test_a_withdrawal_loses_the_running_game_and_forfeits_the_rest(mail_server, players):
    alice, bob, cat = players("alice", "bob", "cat")
    alice.write("new tournament onyx round-robin with alice@example.org bob@example.org "
                "cat@example.org")
    alice.reply("yes")
    bob.reply("accept")
    cat.reply("yes")
    (first,) = Pairing.select().where(Pairing.round == 1, Pairing.game.is_null(False))
    withdrawing = next(p for p in (alice, bob, cat)
                       if p.address in _emails(first.players))
    withdrawing.write("withdraw tournament 1")
    answer = text(withdrawing.last)
    assert f"You withdrew from tournament #1; you play no more games in it. Your running " \
           f"games (#{first.game_id}) are lost." in answer
    assert Game.get_by_id(first.game_id).status == "finished"
    (entrant,) = Entrant.select().where(Entrant.withdrawn.is_null(False))
    assert (entrant.player.email, entrant.why) == (withdrawing.address, "withdrew")
    while Tournament.get().status == "running":
        for row in list(Pairing.select().where(Pairing.round == Tournament.get().round,
                                               Pairing.game.is_null(False))):
            game = Game.get_by_id(row.game_id)
            if game.status == "running":
                loser = _emails(row.players)[1]
                person = {p.address: p for p in (alice, bob, cat)}[loser]
                person.reply("resign", to=game_mail(person, row.game_id))
        rounds.advance(mail_server)
        deliver_due(mail_server)
    forfeits = [row for row in Pairing.select() if row.game_id is None and len(row.players) == 2]
    assert len(forfeits) == 1  # the withdrawn player's later game was not played
    (forfeit,) = forfeits
    assert F(forfeit.shares[forfeit.players.index(entrant.player_id)]) == 0
    final = [m for m in alice.inbox if m["Subject"].endswith("final standings")]
    assert f"{entrant.player.name} (withdrew)" in body(final[0])
