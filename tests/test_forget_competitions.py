"""`pbem admin forget` takes the player out of every tournament and open challenge, as
their own `withdraw` would (#29 item 4): no later round pairs "a former player", no
mail is queued to the forgotten row's address, and a tournament still inviting goes on
without them. Real SMTP on loopback, a real store."""

from mailtest import body

from pbem.competition import rounds
from pbem.operator.forget import FORMER_PLAYER, forget_player
from pbem.policy.delivery import deliver_due
from pbem.store import Game, Outbox, Player
from pbem.store.competition_models import Entrant, Pairing, Seek, Tournament


def text(message) -> str:
    return " ".join(body(message).split())


def game_mail(person, game_id):
    return [m for m in person.inbox if m["Subject"].endswith(f"Onyx #{game_id}")][-1]


def four_in_a_round_robin(players):
    alice, bob, cat, dave = players("alice", "bob", "cat", "dave")
    alice.write("new tournament onyx round-robin with alice@example.org bob@example.org "
                "cat@example.org dave@example.org")
    alice.reply("yes, that was me")
    for person in (bob, cat, dave):
        person.reply("accept")
    assert Tournament.get().status == "running"
    return alice, bob, cat, dave


def test_a_forgotten_player_is_withdrawn_and_later_rounds_pair_them_no_more(
        mail_server, players):
    people = four_in_a_round_robin(players)
    by_address = {p.address: p for p in people}
    dave = people[3]
    dave_id = Player.get(Player.email == dave.address).id
    (daves_game,) = [row for row in Pairing.select().where(Pairing.round == 1)
                     if dave_id in row.players]
    forget_player(mail_server, dave.address, resign=True)
    deliver_due(mail_server)
    entrant = Entrant.get(Entrant.player == dave_id)
    assert (entrant.withdrawn, entrant.why) == (1, "withdrew")
    assert Game.get_by_id(daves_game.game_id).status == "finished"
    opponent = next(by_address[Player.get_by_id(p).email] for p in daves_game.players
                    if p != dave_id)
    assert (f"{FORMER_PLAYER} withdrew from tournament #1"
            in text(game_mail(opponent, daves_game.game_id)))
    while Tournament.get().status == "running":  # the others play every game out
        for row in list(Pairing.select().where(Pairing.round == Tournament.get().round,
                                               Pairing.game.is_null(False))):
            if Game.get_by_id(row.game_id).status == "running":
                assert dave_id not in row.players
                loser = by_address[Player.get_by_id(row.players[1]).email]
                loser.reply("resign", to=game_mail(loser, row.game_id))
        assert rounds.advance(mail_server) == 1
        deliver_due(mail_server)
    later = list(Pairing.select().where(Pairing.round > 1))
    assert later and all(row.game_id is None for row in later if dave_id in row.players)
    assert not Outbox.select().where(Outbox.recipient.endswith("@forgotten.invalid")).exists()
    final = [m for m in people[0].inbox if m["Subject"].endswith("final standings")]
    assert f"{FORMER_PLAYER} (withdrew)" in body(final[0])


def test_forgetting_between_rounds_needs_no_resign_and_still_withdraws(mail_server, players):
    people = four_in_a_round_robin(players)
    dave = people[3]
    dave_id = Player.get(Player.email == dave.address).id
    (daves_game,) = [row for row in Pairing.select().where(Pairing.round == 1)
                     if dave_id in row.players]
    dave.reply("resign", to=game_mail(dave, daves_game.game_id))  # his game is over
    forget_player(mail_server, dave.address)  # no game of his runs: no --resign needed
    assert Entrant.get(Entrant.player == dave_id).withdrawn == 1


def test_a_tournament_still_inviting_counts_the_forgotten_as_declined(mail_server, players):
    alice, bob, cat, dave = players("alice", "bob", "cat", "dave")
    alice.write("new tournament onyx round-robin with alice@example.org bob@example.org "
                "cat@example.org dave@example.org")
    alice.reply("yes, that was me")
    bob.reply("accept")
    cat.reply("accept")
    forget_player(mail_server, dave.address)  # the last answer missing was his
    deliver_due(mail_server)
    tournament = Tournament.get()
    assert (tournament.status, tournament.round) == ("running", 1)
    dave_id = Player.get(Player.name == FORMER_PLAYER).id
    assert Entrant.get(Entrant.player == dave_id).answer == "declined"
    assert all(dave_id not in row.players for row in Pairing.select())
    assert "Round 1 has begun." in text([m for m in bob.inbox if "Tournament" in m["Subject"]][-1])
    assert not Outbox.select().where(Outbox.recipient.endswith("@forgotten.invalid")).exists()


def test_a_forgotten_players_open_seek_is_withdrawn(mail_server, players):
    (carol, bob) = players("carol", "bob")
    carol.write("seek onyx")
    carol.reply("yes, that was me")
    assert Seek.get().status == "open"
    forget_player(mail_server, carol.address)
    assert Seek.get().status == "withdrawn"
    bob.write("join seek 1")
    bob.reply("yes, that was me")
    assert "seek #1 is not open (any more)" in text(bob.last)
    assert Game.select().count() == 0


def test_no_invitation_row_keeps_a_forgotten_address(mail_server, players):
    (alice,) = players("alice")
    alice.write("new onyx with dave@example.org")
    alice.reply("yes, that was me")
    from pbem.store.models import Invitation
    assert Invitation.get().address == "dave@example.org"
    forget_player(mail_server, "dave@example.org", resign=True)
    row = Invitation.get()
    assert row.address.endswith("@forgotten.invalid") and not row.waiting


def test_the_row_left_by_a_forget_cannot_be_invited(mail_server, players):
    alice, dave = players("alice", "dave")
    dave.write("seeks")
    dave.reply("yes, that was me")
    forget_player(mail_server, dave.address)
    former = Player.get(Player.name == FORMER_PLAYER).email
    alice.write(f"new onyx with {former}")
    alice.reply("yes, that was me")
    assert (f"{former} cannot be invited: no mail reaches that address (the player there "
            f"asked to be forgotten).") in text(alice.last)
    assert Game.select().count() == 0
    alice.write(f"new tournament onyx round-robin with {alice.address} {former}")
    assert "cannot be invited" in text(alice.last)
    assert Tournament.select().count() == 0
