"""The operator's `pbem admin` tools, told as stories in mail: real SMTP in and out, a real
SQLite file (and PostgreSQL when configured), literal moves.

Cancel and adjudicate end a game through pbem.play, so the players are mailed and the
clocks stop; an adjudicated record carries its result and reason and `pbem record check`
accepts it. A banned address is never answered. Merged addresses play on as one player.
A forgotten player's address, name and raw mail are gone from every table, while the
games stay, with "a former player" on pages, exports, records and mails.
"""

import subprocess
import sys

import pytest

from mailtest import body
from pbem.operator.admin import (AdminError, adjudicate_game, ban, cancel_game, merge_players,
                        seat_shares, start_game, unban)
from pbem.engines import ENGINES
from pbem.export.record import record_text
from pbem.operator.forget import FORMER_PLAYER, forget_player
from pbem.policy.delivery import deliver_due
from pbem.play import Table
from pbem.store import Game, Inbound, Move, Outbox, Player, Seat
from pbem.store.models import Clock
from pbem.web import create_app


def moves_of(game_id):
    return [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def record_check(tmp_path, text: str) -> subprocess.CompletedProcess:
    path = tmp_path / "game.txt"
    path.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "pbem", "record", "check", str(path)],
                          capture_output=True, text=True, timeout=120)


# -- cancel and adjudicate ---------------------------------------------------------------

def test_cancelling_a_game_tells_both_players_why_and_stops_its_clocks(onyx_3d, mail_server):
    game_id, alice, bob = onyx_3d
    alice.reply("F6")
    cancel_game(mail_server, game_id, "the club season was called off")
    deliver_due(mail_server)
    for player in (alice, bob):
        text = body(player.last)
        assert "The administrator cancelled game #" in text
        assert "the club season was called off" in text
        assert "Game cancelled: by the administrator: the club season was called off." in text
    game = Game.get_by_id(game_id)
    assert (game.status, game.result) == ("cancelled", "*")
    assert not Clock.select().where((Clock.game == game_id) & Clock.waiting).exists()
    bob.reply("G5")  # the game is over: nothing is played
    assert moves_of(game_id) == ["F6"]


def test_an_adjudicated_record_carries_the_result_and_reason_and_passes_record_check(
        onyx_3d, mail_server, tmp_path):
    game_id, alice, bob = onyx_3d
    alice.reply("F6")
    bob.reply("G5")
    adjudicate_game(mail_server, game_id, "0-1", "Black stopped answering; White is ahead")
    deliver_due(mail_server)
    record = record_text(Table.load(game_id, lock=False))
    assert '[Termination "adjudicated by the administrator: Black stopped answering; White ' \
           'is ahead"]' in record
    assert '[Result "0-1"]' in record and record.rstrip().endswith("0-1")
    checked = record_check(tmp_path, record)
    assert checked.returncode == 0, checked.stderr
    assert "ok, 2 plies, result 0-1" in checked.stdout
    assert "Result: 0-1" in body(alice.last) and "White is ahead" in body(alice.last)
    assert not Clock.select().where((Clock.game == game_id) & Clock.waiting).exists()


def test_adjudicating_a_dealt_game_reveals_the_seed_and_the_record_replays(
        mail_server, players, tmp_path):
    alice, bob, carol = players("alice", "bob", "carol")
    game_id = start_game(mail_server, ENGINES["baronoxx"], {},
                         [alice.address, bob.address, carol.address])
    adjudicate_game(mail_server, game_id, "1/2-1/2-0", "a power cut at the club")
    record = record_text(Table.load(game_id, lock=False))
    assert "[Seed " in record and '[Result "1/2-1/2-0"]' in record
    checked = record_check(tmp_path, record)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize("text, players, shares", [
    ("1-0", 2, "1 0"), ("0.5-0.5", 2, "1/2 1/2"), ("0-1/2-1/2", 3, "0 1/2 1/2")])
def test_a_result_is_each_seats_share_of_the_win(text, players, shares):
    assert " ".join(map(str, seat_shares(text, players))) == shares


@pytest.mark.parametrize("text", ["1-1", "1-0-0", "white", "-1-2"])
def test_a_result_that_is_not_one_win_shared_is_refused_with_an_example(text):
    with pytest.raises(AdminError, match=r"e\.g\. 1-0 or 1/2-1/2"):
        seat_shares(text, 2)


def test_after_a_swap_the_onyx_record_gives_the_win_by_colour(onyx, mail_server, tmp_path):
    """RULINGS O8: bob's swap takes over Black's stone; alice (seat 0) now plays White.
    The administrator gives the players' shares; the record's token is by colour."""
    game_id, alice, bob = onyx
    alice.reply("F6")
    bob.reply("swap")
    adjudicate_game(mail_server, game_id, "1-0", "alice was winning")  # alice: 1
    record = record_text(Table.load(game_id, lock=False))
    assert '[Result "0-1"]' in record  # White won: alice
    assert [s.share for s in Seat.select().where(Seat.game == game_id)
            .order_by(Seat.number)] == ["1", "0"]
    assert record_check(tmp_path, record).returncode == 0


def test_only_a_running_game_is_adjudicated(onyx, mail_server):
    game_id, alice, bob = onyx
    cancel_game(mail_server, game_id, "test")
    with pytest.raises(AdminError, match=rf"game #{game_id} is cancelled; only a running"):
        adjudicate_game(mail_server, game_id, "1-0", "too late")
    with pytest.raises(AdminError, match="there is no game #999"):
        cancel_game(mail_server, 999, "no such game")


# -- ban ---------------------------------------------------------------------------------

def test_a_banned_address_is_never_answered_and_its_moves_are_not_played(onyx, mail_server):
    game_id, alice, bob = onyx
    ban("Alice@Example.org", "abuse")
    before = len(alice.inbox)
    alice.reply("F6")
    alice.write("games")
    assert moves_of(game_id) == []
    assert len(alice.inbox) == before
    outcomes = [row.outcome for row in Inbound.select().order_by(Inbound.id)]
    assert outcomes[-2:] == ["ignored: banned address"] * 2
    unban("alice@example.org")
    alice.reply("F6", to=alice.inbox[0])
    assert moves_of(game_id) == ["F6"]


def test_a_banned_domain_covers_every_address_in_it(players, mail_server):
    stranger, = players("mallory")
    ban("@example.org")
    stranger.write("new onyx with someone@example.net")
    assert stranger.inbox == []
    assert Inbound.select().first().outcome == "ignored: banned address"


# -- merge -------------------------------------------------------------------------------

def test_merged_addresses_are_one_player_who_plays_on_from_the_new_one(onyx, mail_server,
                                                                       players):
    game_id, alice, bob = onyx
    alice_work, = players("alice.work")
    alice_work.write("games")  # the new address has a player row of its own
    alice_work.reply("yes")  # its confirmation
    kept = merge_players(mail_server, alice.address, alice_work.address)
    deliver_due(mail_server)
    assert kept.email == alice_work.address
    assert Player.get_or_none(Player.email == alice.address) is None
    assert [s.player.email for s in Seat.select().where(Seat.game == game_id)
            .order_by(Seat.number)] == [alice_work.address, bob.address]
    assert f"#{game_id}" in body(alice_work.last)  # told where the games went
    first = alice.inbox[0]  # the game's reply address still leads to the seat
    alice_work.reply("F6", to=first)
    assert moves_of(game_id) == ["F6"]
    alice.reply("G5", to=first)  # the old address is no longer the seat's player
    assert moves_of(game_id) == ["F6"]


def test_a_merge_into_a_new_address_moves_the_player(onyx, mail_server, players):
    game_id, alice, bob = onyx
    new, = players("alice2")
    merge_players(mail_server, alice.address, new.address)
    deliver_due(mail_server)
    new.reply("F6", to=alice.inbox[0])
    assert moves_of(game_id) == ["F6"]


def test_a_merge_keeps_the_links_cut_with_link_new_dead(onyx, mail_server, players):
    """alice cut her seat links (`link new`), then the operator merged her into her work
    address, whose player never did: the link she cut must stay dead (#41 item 7)."""
    from pbem.vocabulary.tokens import play_token
    game_id, alice, bob = onyx
    alice_work, = players("alice.work")
    alice_work.write("games")
    alice_work.reply("yes")
    client = create_app(mail_server).test_client()
    cut, renewed = (f"/play/{play_token(mail_server.secret_key, game_id, 0, generation)}"
                    for generation in (0, 1))
    alice.write("link new")
    assert (client.get(cut).status_code, client.get(renewed).status_code) == (404, 200)
    merge_players(mail_server, alice.address, alice_work.address)
    assert (client.get(cut).status_code, client.get(renewed).status_code) == (404, 200)


def test_two_addresses_seated_in_one_game_are_not_merged(onyx, mail_server):
    game_id, alice, bob = onyx
    with pytest.raises(AdminError, match=rf"both sit in game #{game_id}"):
        merge_players(mail_server, alice.address, bob.address)


# -- forget ------------------------------------------------------------------------------

def stored_text(tmp_path, config) -> str:
    """Every table of the SQLite file, dumped as text by the sqlite3 tool's own library."""
    import sqlite3
    path = config.database_url.split("sqlite:///", 1)[1]
    with sqlite3.connect(path) as connection:
        connection.text_factory = lambda data: data.decode("utf-8", "replace")
        return "\n".join(connection.iterdump())


def test_a_forgotten_player_is_gone_but_the_game_stays_with_a_former_player(
        onyx, mail_server, tmp_path, store):
    game_id, alice, bob = onyx
    alice.reply("F6")
    bob.reply("G5")
    with pytest.raises(AdminError, match="add --resign"):
        forget_player(mail_server, alice.address)
    forget_player(mail_server, alice.address, resign=True)
    deliver_due(mail_server)
    # bob is told, without her name; she is mailed nothing more
    assert f"{FORMER_PLAYER} left the game" in body(bob.last)
    assert "alice" not in body(bob.last)
    assert all("left the game" not in body(m) for m in alice.inbox)
    game = Game.get_by_id(game_id)
    assert (game.status, game.result) == ("finished", "0-1")
    assert moves_of(game_id) == ["F6", "G5"]
    # pages, exports and records show "a former player", never her name or address
    web = create_app(mail_server).test_client()
    for url in (f"/games/{game_id}", f"/games/{game_id}.txt", f"/games/{game_id}/print",
                "/games"):
        page = web.get(url).get_data(as_text=True)
        assert FORMER_PLAYER in page, url
        assert "alice" not in page.lower(), url
    assert f'[Black "{FORMER_PLAYER}"]' in record_text(Table.load(game_id, lock=False))
    if store.startswith("sqlite"):
        assert "alice" not in stored_text(tmp_path, mail_server).lower()
    assert not Inbound.select().where(Inbound.sender == alice.address).exists()
    assert not Outbox.select().where(Outbox.recipient == alice.address).exists()


def test_mail_that_comes_in_while_forget_searches_is_erased_too(
        onyx, mail_server, tmp_path, store, monkeypatch):
    """The stored mail is searched before the write locks the store; what comes in between
    is found by the second, short search inside the write."""
    from pbem.operator.forget import Found
    game_id, alice, bob = onyx
    cancel_game(mail_server, game_id, "she asked to be forgotten")
    searched = Found.search

    def search_then_mail(self, addresses, game_ids):
        searched(self, addresses, game_ids)
        if not getattr(self, "mailed", False):  # after the first search, before the write
            self.mailed = True
            alice.write("games\n\nAlice Example <alice@example.org>")
    monkeypatch.setattr(Found, "search", search_then_mail)
    forget_player(mail_server, alice.address)
    (mail,) = Inbound.select()  # hers, which came in between
    assert (bytes(mail.raw), mail.sender) == (b"", "")
    if store.startswith("sqlite"):
        assert "alice" not in stored_text(tmp_path, mail_server).lower()


def test_a_forgotten_address_that_writes_again_is_a_stranger(onyx, mail_server):
    game_id, alice, bob = onyx
    cancel_game(mail_server, game_id, "she asked to be forgotten")
    forget_player(mail_server, alice.address)
    deliver_due(mail_server)
    before = len(alice.inbox)
    alice.reply("F6", to=alice.inbox[0])
    assert len(alice.inbox) == before  # the seat's player is someone else now
    assert Inbound.select().order_by(Inbound.id.desc()).first().outcome == \
        "ignored: From is not the seat's player"


def test_second_addresses_go_with_a_merge_and_with_a_forget(onyx, mail_server):
    from pbem.store import Address
    game_id, alice, bob = onyx
    alice_row = Player.get(Player.email == alice.address)
    Address.create(player=alice_row, email="alice@home.example", confirmed=True)
    with pytest.raises(AdminError, match="a second address of the player at alice@example"):
        merge_players(mail_server, bob.address, "alice@home.example")
    kept = merge_players(mail_server, alice.address, "carol@example.org")
    assert [a.email for a in kept.addresses] == ["alice@home.example"]
    cancel_game(mail_server, game_id, "closing")
    forget_player(mail_server, "carol@example.org")
    assert not Address.select().exists()


def test_forgetting_a_player_adds_no_mail_to_unconfirmed_addresses_in_status(
        onyx, mail_server):
    """The copies of mail sent about her games lose their recipient; they were mail to
    confirmed players, and stay out of the hourly count of mail to new addresses."""
    from pbem.operator.status import check, describe
    game_id, alice, bob = onyx
    start_game(mail_server, ENGINES["onyx"], {}, [bob.address, "dave@example.org"])
    deliver_due(mail_server)  # dave is mailed once: his game's start
    Player.update(confirmed=False).where(Player.email == "dave@example.org").execute()
    alice.reply("F6")
    bob.reply("G5")
    deliver_due(mail_server)
    before = check()
    assert before.unconfirmed_mail_last_hour == 1
    forget_player(mail_server, alice.address, resign=True)
    deliver_due(mail_server)
    assert Outbox.select().where(Outbox.recipient == "").count() > 1  # the erased copies
    after = check()
    assert after.unconfirmed_mail_last_hour == 1
    assert "unconfirmed:  1 mails to new addresses in the last hour" in describe(after)
