"""A Swiss by mail with an odd number (a bye each round), a first round on the
organiser's date, and a player who lets the clock run out without a move, withdrawn."""

from mailtest import body

from pbem.competition import rounds
from pbem.policy.delivery import deliver_due
from pbem.store import Game, Player
from pbem.store.competition_models import Entrant, Pairing, Tournament
from pbem.commands.server_moves import run_due

NAMES = ["ann", "ben", "cat", "dan", "eve"]


def text(message) -> str:
    return " ".join(body(message).split())


def emails(ids):
    return [Player.get_by_id(p).email for p in ids]


def test_a_swiss_of_five_on_a_date_with_byes_and_a_no_show(mail_server, players, frozen_time):
    people = {p.address: p for p in players(*NAMES)}
    ann = people["ann@example.org"]
    ann.write("new tournament onyx swiss rounds=3 start=2026-12-02 time=1d with "
              + " ".join(people))
    ann.reply("yes")
    assert "(Onyx, Swiss, 3 rounds, time=1d, from 2026-12-02) is created" in text(ann.last)
    for person in list(people.values())[1:]:
        person.reply("accept")
    assert "Everyone has answered: the first round starts on 2026-12-02." in text(
        people["eve@example.org"].last)
    assert Tournament.get().round == 0  # the organiser's day has not come
    assert rounds.advance(mail_server) == 0
    frozen_time.move(hours=38)  # Wed 2 Dec 00:00
    assert rounds.advance(mail_server) == 1
    deliver_due(mail_server)
    first = list(Pairing.select().where(Pairing.round == 1))
    assert [emails(p.players) for p in first if p.game_id is None] == [["eve@example.org"]]
    assert "eve rests (1 point)" in text([m for m in people["eve@example.org"].inbox
                                          if "Tournament" in m["Subject"]][-1])
    # Round 1: ann (Black) beats cat, who resigns; ben (Black) plays his first move and
    # dan never answers.
    games = {tuple(emails(p.players)): p.game_id for p in first if p.game_id}
    assert set(games) == {("ann@example.org", "cat@example.org"),
                          ("ben@example.org", "dan@example.org")}

    def reply(address, game_id, line):
        person = people[address]
        person.reply(line, to=[m for m in person.inbox if m["Subject"].endswith(f"Onyx #{game_id}")][-1])
    reply("cat@example.org", games[("ann@example.org", "cat@example.org")], "resign")
    reply("ben@example.org", games[("ben@example.org", "dan@example.org")], "F6")
    frozen_time.move(days=1, minutes=1)
    run_due(mail_server)  # dan's clock runs out: he loses without a move of his
    assert rounds.advance(mail_server) == 1
    deliver_due(mail_server)
    dan = Entrant.get(Entrant.player == Player.get(Player.email == "dan@example.org"))
    assert (dan.withdrawn, dan.why) == (1, "lost a game on time without a move")
    second = list(Pairing.select().where(Pairing.round == 2))
    assert all("dan@example.org" not in emails(p.players) for p in second)
    assert sum(len(p.players) for p in second) == 4 and all(p.game_id for p in second)
    standings_mail = [m for m in ann.inbox if "standings after round 1" in m["Subject"]][-1]
    assert "dan (withdrew)" in body(standings_mail)
    met = {frozenset(p.players) for p in first + second if len(p.players) == 2}
    assert len(met) == 4  # nobody met twice
    assert Game.select().where(Game.status == "running").count() == 2


def test_a_many_player_swiss_seats_tables_by_score(config):
    from pbem.operator.admin import adjudicate_game
    from pbem.commands.speaker import Speaker
    from pbem.players import player_for
    from pbem.commands.tournaments import answer_invitation, new_tournament
    from pbem.store import Request, transaction
    addresses = [f"{name}@example.org" for name in NAMES + ["fay"]]
    with transaction():
        ann = player_for(addresses[0])
        ann.confirmed = True
        ann.save()
        new_tournament(Speaker(config, ann), "baronoxx swiss rounds=2 table=3 with "
                       + " ".join(addresses))
        for request in list(Request.select().where(Request.kind == "tournament")):
            answer_invitation(Speaker(config, request.player), request, ["accept"])
    first = list(Pairing.select().where(Pairing.round == 1).order_by(Pairing.id))
    assert [len(p.players) for p in first] == [3, 3] and all(p.game_id for p in first)
    for row in first:  # the first seat wins each table
        adjudicate_game(config, row.game_id, "1-0-0", "a literal result")
    assert rounds.advance(config) == 1
    second = list(Pairing.select().where(Pairing.round == 2).order_by(Pairing.id))
    winners = {emails(p.players)[0] for p in first}
    assert set(emails(second[0].players)) >= winners  # the two winners share table 1
    assert [len(p.players) for p in second] == [3, 3]
    with transaction():
        rows, names = rounds.table_of(Tournament.get())
    assert [r.points for r in rows][:2] == [1, 1]


def _invited(config, line):
    """The organiser (ann, confirmed) writes `line`; returns the invitations' requests."""
    from pbem.commands.speaker import Speaker
    from pbem.players import player_for
    from pbem.commands.tournaments import new_tournament
    from pbem.store import Request
    ann = player_for("ann@example.org")
    ann.confirmed = True
    ann.save()
    answer = new_tournament(Speaker(config, ann), line)
    return answer, list(Request.select().where(Request.kind == "tournament")
                        .order_by(Request.id))


def test_a_decline_leaves_the_others_to_play_and_too_few_cancel(config):
    from pbem.commands.speaker import Speaker
    from pbem.commands.tournaments import answer_invitation
    from pbem.store import transaction
    with transaction():
        answer, (ben, cat, dan) = _invited(
            config, "onyx swiss rounds=2 with ben@example.org cat@example.org dan@example.org")
        assert "You organise it and do not play." in answer[0]
        for request, line in ((ben, "accept"), (cat, "Sorry, can't"), (dan, "yes")):
            answer_invitation(Speaker(config, request.player), request, [line])
        tournament = Tournament.get()
        assert (tournament.status, tournament.round) == ("running", 1)
        (game,) = Pairing.select().where(Pairing.round == 1)
        assert sorted(emails(game.players)) == ["ben@example.org", "dan@example.org"]
    with transaction():
        _, requests = _invited(config, "onyx round-robin with eve@example.org fay@example.org")
        eve, fay = requests[-2:]
        answer_invitation(Speaker(config, eve.player), eve, ["decline"])
        answer_invitation(Speaker(config, fay.player), fay, ["accept"])
        assert Tournament.get_by_id(2).status == "cancelled"


def test_a_tournament_refuses_what_it_cannot_run(config):
    import pytest
    from pbem.commands.speaker import Refused
    from pbem.engines.base import OptionError
    with pytest.raises(Refused, match="needs its number of rounds: `rounds=5`"):
        _invited(config, "onyx swiss with ben@example.org cat@example.org")
    with pytest.raises(Refused, match="a round-robin seats two at each game"):
        _invited(config, "baronoxx round-robin table=3 with ben@example.org cat@example.org "
                         "dan@example.org")
    with pytest.raises(OptionError, match="board"):
        _invited(config, "onyx round-robin board=7 with ben@example.org cat@example.org")
    with pytest.raises(Refused, match="bots do not play tournaments"):
        _invited(config, "onyx round-robin with ben@example.org bot:easy")
