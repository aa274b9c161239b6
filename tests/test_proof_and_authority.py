"""Proof, not appearances (#41 items 1-3): what a mail or a page may do is decided once,
by pbem.authority's table, from what it proves — a seat's reply token, an account token,
an aligned DMARC pass, a confirmation, a seat's link — and a From header alone proves
nothing.

Mail goes through the server's real SMTP listener (the embedded one, which checks no
DMARC: there every mail's From is as good as forged) or, where the header our MTA adds
is what is tested, through the pipeline as literal RFC 822 text. Pages through Flask's
test client on the same store.
"""

import re
from dataclasses import replace

import pytest

from mailtest import body
from pbem import authority
from pbem.authority import Proof
from pbem.intake.pipeline import receive
from pbem.store import Address, Inbound, Move, Player, Request

CONFIRM_SUBJECT = "[pbem] please confirm your commands"
MTA = "mx.pbem.test"

SEAT_REPLY = Proof(authority.SEAT_REPLY, 1, 0)
SEAT_LINK = Proof(authority.SEAT_LINK, 1, 0)
OTHER_SEAT_LINK = Proof(authority.SEAT_LINK, 1, 1)
PROOFS = [Proof(authority.FROM_ALONE), SEAT_LINK, SEAT_REPLY, Proof(authority.ACCOUNT_TOKEN),
          Proof(authority.DMARC_PASS), Proof(authority.CONFIRMATION)]


@pytest.mark.parametrize("line, expected", [
    # line                              From  link  reply acct  dmarc confirmation
    ("name Forged Name",                (0,   0,    1,    1,    1,    0)),
    ("address add mallory@evil.test",   (0,   0,    1,    1,    1,    0)),
    ("address remove bob@work.example", (0,   0,    1,    1,    1,    0)),
    ("address",                         (1,   1,    1,    1,    1,    1)),
    ("vacation 30d",                    (0,   0,    1,    1,    1,    0)),
    ("vacation",                        (1,   1,    1,    1,    1,    1)),
    ("web off",                         (0,   0,    1,    1,    1,    0)),
    ("digest on",                       (0,   0,    1,    1,    1,    0)),
    ("pictures off",                    (0,   0,    1,    1,    1,    0)),
    ("link new",                        (0,   0,    1,    1,    1,    0)),
    ("withdraw tournament 1",           (0,   0,    1,    1,    1,    0)),
    ("join seek 3",                     (0,   0,    1,    1,    1,    0)),
    ("seek onyx board=16",              (0,   0,    1,    1,    1,    0)),
    ("new onyx with bob@example.org",   (0,   0,    1,    1,    1,    0)),
    ("follow 3",                        (0,   0,    1,    1,    1,    0)),
    ("annotate 3",                      (0,   0,    1,    1,    1,    0)),
    ("games",                           (1,   1,    1,    1,    1,    1)),
    ("help",                            (1,   1,    1,    1,    1,    1)),
    ("seeks",                           (1,   1,    1,    1,    1,    1)),
    ("F6",                              (0,   1,    1,    1,    1,    0)),
    ("say good luck",                   (0,   1,    1,    1,    1,    0)),
    ("resign",                          (0,   1,    1,    1,    1,    0)),
    ("accept",                          (0,   1,    1,    1,    1,    0)),
    ("quiet",                           (0,   1,    1,    1,    1,    0)),
])
def test_one_table_says_what_each_proof_may_do(line, expected):
    assert tuple(int(authority.allows(proof, line, 1, 0)) for proof in PROOFS) == expected


POWERS = {  # every command of the catalogue, written with an argument, and what it needs
    "move": "seat", "board": "seat", "history": "seat", "say": "seat", "undo": "seat",
    "if": "seat", "next": "seat", "conditions": "seat", "resign": "seat", "accept": "seat",
    "decline": "seat", "quiet": "seat", "normal": "seat", "loud": "seat", "mail": "seat",
    "digest": "account", "web": "account", "link": "account", "pictures": "account",
    "games": "ask", "follow": "account", "unfollow": "account", "new": "account",
    "name": "account", "address": "account", "remind": "ask", "annotate": "account",
    "help": "ask", "vacation": "account", "tournament": "ask", "withdraw": "account",
    "seek": "account", "seeks": "ask", "join": "account",
}


def test_every_command_has_its_power_in_the_table():
    from pbem.commands.catalogue import COMMANDS
    assert {c.name: authority.needs(f"{c.name} x") for c in COMMANDS} == POWERS


def test_a_seats_proof_acts_for_that_seat_only_and_a_confirmation_for_its_lines_only():
    assert not authority.allows(OTHER_SEAT_LINK, "F6", 1, 0)
    assert not authority.allows(SEAT_REPLY, "F6", 2, 0)
    confirmed = Proof(authority.CONFIRMATION, confirmed=("name Alice B.",))
    assert authority.allows(confirmed, "name  Alice B.")
    assert not authority.allows(confirmed, "name Mallory")
    assert not authority.allows(confirmed, "address add mallory@evil.test")


def test_the_readme_prints_the_table():
    from pathlib import Path
    from pbem.commands.catalogue import proof_table
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert proof_table() in readme


# -- 1. a From alone asks the registered address to confirm ------------------------------

def confirmations(person) -> list:
    return [m for m in person.inbox if m["Subject"] == CONFIRM_SUBJECT]


def outcome_of(message) -> str:
    return Inbound.get(Inbound.message_id == message["Message-ID"]).outcome


@pytest.fixture
def alice(players):
    """A confirmed player with a name and no second address: the victim."""
    (person,) = players("alice")
    person.write_unproven("games")
    person.reply("yes")  # confirms the address: the held `games` runs
    Player.update(name="Alice").where(Player.email == person.address).execute()
    person.unread()
    return person


@pytest.mark.parametrize("line", [
    "name Forged Name", "web off", "vacation 30d", "address add mallory@evil.test",
    "address remove alice@work.example", "digest on", "pictures off", "link new",
    "new onyx with mallory@evil.test", "seek onyx", "join seek 1", "withdraw tournament 1",
    "withdraw seek 1", "follow 1", "unfollow 1", "annotate 1", "accept", "decline 1"])
def test_a_forged_from_changes_nothing_and_asks_the_registered_address(alice, sink, line):
    before = Player.get(Player.email == alice.address)
    forged = alice.write_unproven(line)  # From alice, no token: as anyone could write it
    assert outcome_of(forged) == "held: the registered address was asked to confirm"
    after = Player.get(Player.email == alice.address)
    assert (after.name, after.web, after.digest, after.pictures, after.links) == (
        "Alice", before.web, before.digest, before.pictures, before.links)
    assert not Address.select().exists()
    (asked,) = alice.unread()  # one mail, to alice alone, and nothing else said
    assert asked["Subject"] == CONFIRM_SUBJECT
    assert f"  {line}" in body(asked)
    assert "Nothing was done yet." in " ".join(body(asked).split())
    assert sink.to("mallory@evil.test") == []


def test_the_reply_to_the_confirmation_carries_it_out_and_nothing_more(alice, sink):
    alice.write_unproven("address add second@example.net\nname Alice B.")
    (asked,) = alice.unread()
    assert sink.to("second@example.net") == []  # told nobody else
    alice.reply("yes, that was me", to=asked)
    assert Player.get(Player.email == alice.address).name == "Alice B."
    assert len(sink.to("second@example.net")) == 1  # now the new address is asked
    answer = alice.unread()[-1]
    assert "Done: address add second@example.net" in body(answer)
    again = alice.reply("yes", to=asked)  # used up
    assert outcome_of(again) == "ignored: confirmation not for this sender, or already used"


def test_someone_else_cannot_answer_the_confirmation(alice, players):
    alice.write_unproven("name Forged Name")
    (asked,) = alice.unread()
    (mallory,) = players("mallory")
    message = mallory.compose("yes", to=asked["Reply-To"], subject="Re: confirm")
    mallory.send(message)
    assert Player.get(Player.email == alice.address).name == "Alice"
    assert Request.get(Request.kind == "command").open


def test_a_flood_of_forged_commands_asks_at_most_three_times_an_hour(alice):
    for number in range(6):
        alice.write_unproven(f"name Forged {number}")
    assert len(confirmations(alice)) == 3
    assert Player.get(Player.email == alice.address).name == "Alice"


def test_asking_needs_no_proof_and_is_answered_at_the_registered_address(alice):
    asked = alice.write_unproven("games")
    assert outcome_of(asked) == "done: 1 line(s)"
    (answer,) = alice.unread()
    assert "Done: games" in body(answer)


def test_a_reply_to_any_mail_from_pbem_proves_the_player(alice):
    """The answer to `games` carries her account token in its reply address: a reply to
    it from her address acts at once, as a game mail's reply does."""
    alice.write_unproven("games")
    (answer,) = alice.unread()
    assert answer["Reply-To"].startswith("pbem+a-")
    alice.reply("name Alice B.\nvacation", to=answer)
    assert Player.get(Player.email == alice.address).name == "Alice B."
    assert confirmations(alice) == []


def test_an_account_token_from_another_address_proves_nothing(alice, players):
    alice.write_unproven("games")
    (answer,) = alice.unread()
    (bob,) = players("bob")
    bob.write_unproven("games")  # bob is new: his mail waits for his own confirmation
    bob.reply("yes")
    forged = bob.compose("name Forged Name", to=answer["Reply-To"], subject="Re: x")
    forged.replace_header("From", alice.address)  # alice's token, alice's From: ...
    alice.send(forged)  # ... from anyone's machine, and it is hers: it must act
    assert Player.get(Player.email == alice.address).name == "Forged Name"
    stolen = bob.compose("name Stolen", to=answer["Reply-To"], subject="Re: x")
    bob.send(stolen)  # her token from bob's address: bob's own mail, unproven for him
    assert Player.get(Player.email == bob.address).name != "Stolen"


def test_link_new_ends_the_account_tokens_mailed_before(alice):
    alice.write_unproven("games")
    (old,) = alice.unread()
    alice.reply("link new", to=old)
    assert Player.get(Player.email == alice.address).links == 1
    alice.unread()
    late = alice.reply("name Late", to=old)
    assert outcome_of(late) == "held: the registered address was asked to confirm"


# -- 1. the MTA's verdict: an aligned DMARC pass proves, dmarc=none does not -------------

def from_alice(headers: str, text: str, number: int) -> bytes:
    return (f"{headers}From: Alice <alice@example.org>\r\nTo: pbem@pbem.test\r\n"
            f"Subject: pbem\r\nMessage-ID: <dmarc-proof-{number}@example.org>\r\n"
            f"Date: Mon, 30 Nov 2026 10:00:00 +0000\r\n\r\n{text}\r\n").encode()


def test_dmarc_none_proves_nothing_and_an_aligned_pass_proves_the_player(config):
    config = replace(config, authserv_id=MTA)
    Player.create(email="alice@example.org", name="Alice", confirmed=True)
    none = f"Authentication-Results: {MTA}; dmarc=none (p=none dis=none) header.from=example.org\r\n"
    assert receive(config, from_alice(none, "name Forged Name", 1)) == \
        "held: the registered address was asked to confirm"
    elsewhere = f"Authentication-Results: {MTA}; dmarc=pass header.from=evil.test\r\n"
    assert receive(config, from_alice(elsewhere, "name Forged Name", 2)) == \
        "ignored: DMARC pass for evil.test, not for the From domain example.org"
    passed = f"Authentication-Results: {MTA}; dmarc=pass header.from=example.org\r\n"
    assert receive(config, from_alice(passed, "name Alice B.", 3)) == "done: 1 line(s)"
    assert Player.get(Player.email == "alice@example.org").name == "Alice B."


# -- 2. a seat's link acts for its seat, nothing else ----------------------------------------

@pytest.fixture
def page(mail_server, players):
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    from pbem.web import create_app
    alice, bob = players("alice", "bob")
    game_id = start_game(mail_server, ENGINES["onyx"], {}, [alice.address, bob.address])
    deliver_due(mail_server)
    client = create_app(mail_server, after_move=lambda: deliver_due(mail_server)).test_client()
    url = re.search(r"(/play/\S+)", " ".join(body(alice.last).split())).group(1)
    return client, url, alice, game_id


def typed(client, url: str, text: str):
    html = client.get(f"{url}?move={text}").get_data(as_text=True)
    form = re.search(r'<form method="post"[^>]*class="confirm">.*?</form>', html, re.S)
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form[0]))
    return client.post(url, data=fields)


@pytest.mark.parametrize("line", ["address add sem@evil.test", "name Stolen", "vacation 20d",
                                  "link new", "web off", "pictures off"])
def test_the_move_form_refuses_what_changes_the_account(page, sink, line):
    client, url, alice, game_id = page
    before = Player.get(Player.email == alice.address)
    answer = typed(client, url, line)
    assert answer.status_code == 409
    assert "changes your account, which a seat&#39;s page cannot" in answer.get_data(as_text=True)
    after = Player.get(Player.email == alice.address)
    assert (after.name, after.web, after.pictures, after.links) == (
        before.name, before.web, before.pictures, before.links)
    assert not Address.select().exists() and sink.to("sem@evil.test") == []
    assert typed(client, url, "F6").status_code == 303  # its own seat: yes
    assert [m.text for m in Move.select().where(Move.game == game_id, Move.seat >= 0)] == ["F6"]


def test_the_account_link_goes_to_the_registered_address_only(page, sink):
    client, url, alice, game_id = page
    csrf = re.search(r'name="csrf" value="(\w+)"', client.get(url).get_data(as_text=True))[1]
    alice.unread()
    shown = client.post(url + "/account", data={"csrf": csrf}).get_data(as_text=True)
    assert "A link to your account&#39;s page went to your address" in shown
    assert "/play/account/" not in shown
    (mail,) = alice.unread()
    account = re.search(r"(/play/account/\S+)", body(mail)).group(1)
    assert "pictures" in client.get(account).get_data(as_text=True)
    token = account.rsplit("/", 1)[1]
    player, expires, mac = token.split("-")
    assert client.get(f"/play/account/{player}-{int(expires) + 60}-{mac}").status_code == 404
    assert client.get(f"/play/account/{player}-{expires}-{'0' * 32}").status_code == 404


# -- 3. forged mail never spends the victim's budget ---------------------------------------

def test_forged_mail_does_not_lock_the_player_out(server_with, players):
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.policy.delivery import deliver_due
    config, person = server_with(rate_limit=20)
    alice, bob = person("alice"), person("bob")
    game_id = start_game(config, ENGINES["onyx"], {}, [alice.address, bob.address])
    deliver_due(config)
    turn = alice.last
    for _ in range(21):  # From alice, to pbem@: anyone can write these
        alice.write_unproven("I am alice, believe me")
    flooded = Inbound.select().where(Inbound.outcome.startswith("ignored: 21 unproven"))
    assert flooded.count() == 1
    assert alice.reply("F6", to=turn) is not None
    assert [m.text for m in Move.select().where(Move.game == game_id, Move.seat >= 0)] == ["F6"]


def test_mail_that_failed_dmarc_does_not_spend_the_players_budget(config):
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.vocabulary.tokens import reply_address, seat_token
    config = replace(config, authserv_id=MTA, rate_limit=20)
    game_id = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    to = reply_address(seat_token(config.secret_key, game_id, 0), config.domain)
    failed = f"Authentication-Results: {MTA}; dmarc=fail header.from=example.org\r\n"
    for number in range(21):
        raw = from_alice(failed, "F6", 100 + number).replace(b"To: pbem@pbem.test", f"To: {to}".encode())
        assert receive(config, raw).startswith(("ignored: DMARC fail", "ignored: 21 unproven"))
    passed = f"Authentication-Results: {MTA}; dmarc=pass header.from=example.org\r\n"
    raw = from_alice(passed, "F6", 200).replace(b"To: pbem@pbem.test", f"To: {to}".encode())
    assert receive(config, raw) == "done: 1 line(s)"


# -- `accept` to pbem@ (#42 item 4, on this table) -------------------------------------------

def confirmed(person):
    person.write_unproven("games")
    person.reply("yes")
    person.unread()
    return person


def test_accept_to_pbem_answers_the_one_invitation_waiting(players):
    alice, bob = (confirmed(p) for p in players("alice", "bob"))
    alice.write("new onyx with bob@example.org")
    (invitation,) = bob.unread()
    answer = bob.write("accept")  # to his account's address, not the invitation's
    assert outcome_of(answer) == "done: 1 line(s)"
    assert "Done: accept" in body(bob.inbox[-2]) or "Done: accept" in body(bob.last)
    assert Seat_answers() == ["accepted", "accepted"]


def Seat_answers():
    from pbem.store import Seat
    return [seat.answer for seat in Seat.select().order_by(Seat.game, Seat.number)]


def test_accept_to_pbem_names_the_invitations_when_several_wait(players):
    alice, bob, carol = (confirmed(p) for p in players("alice", "bob", "carol"))
    alice.write("new onyx with bob@example.org")
    carol.write("new onyx with bob@example.org")
    bob.unread()
    bob.write("accept")
    (answer,) = bob.unread()
    words = " ".join(body(answer).split())
    assert ("2 invitations wait for your answer: #1 Onyx with alice; #2 Onyx with carol. "
            "Write `accept N` with the game's number, e.g. `accept 1`.") in words
    bob.write("accept 2")
    assert Seat_answers() == ["accepted", None, "accepted", "accepted"]


def test_a_reply_to_an_old_invitation_names_the_one_waiting(players):
    alice, bob = (confirmed(p) for p in players("alice", "bob"))
    alice.write("new onyx with bob@example.org")
    (old,) = bob.unread()
    bob.reply("decline", to=old)
    alice.write("new onyx with bob@example.org")
    bob.unread()
    bob.reply("accept", to=old)
    words = " ".join(body(bob.last).split())
    assert "game #1 is cancelled; there is nothing to accept in it." in words
    assert "Waiting for your answer: #2 Onyx with alice;" in words


# -- ids that leave the server say nothing and are never reused ----------------------------

def test_a_requests_reply_address_carries_a_random_key_not_its_id(alice):
    alice.write_unproven("name One")
    alice.write_unproven("name Two")
    first, second = (m["Reply-To"] for m in confirmations(alice))
    keys = [re.fullmatch(r"pbem\+r-([a-z2-7]{20})@pbem\.test", a).group(1) for a in (first, second)]
    rows = list(Request.select().where(Request.kind == "command").order_by(Request.id))
    assert keys == [row.key for row in rows] and keys[0] != keys[1]
    assert rows[1].id == rows[0].id + 1  # the ids are sequential; the addresses say nothing


def test_an_address_by_id_from_before_the_keys_reaches_only_its_own_request(alice, players):
    """A request mailed before keys (`c-<id>-<mac>`) is still answered; once the id
    belongs to a request with a key, that address reaches nothing."""
    from pbem.vocabulary.tokens import confirm_token, reply_address
    alice.write_unproven("name Old Way")
    request = Request.get(Request.kind == "command")
    old = reply_address(confirm_token("test-secret-key", request.id), "pbem.test")
    assert outcome_of(alice.send(alice.compose("yes", to=old, subject="Re"))) == \
        "ignored: confirmation not for this sender, or already used"  # it has a key
    Request.update(key=None).where(Request.id == request.id).execute()  # as before 0043
    alice.send(alice.compose("yes", to=old, subject="Re"))
    assert Player.get(Player.email == alice.address).name == "Old Way"


def test_a_confirmation_answered_after_seven_days_is_told_so_and_does_nothing(alice):
    import datetime as dt
    alice.write_unproven("name Too Late")
    (asked,) = alice.unread()
    request = Request.get(Request.kind == "command")
    Request.update(created=request.created - dt.timedelta(days=8)).execute()
    late = alice.reply("yes", to=asked)
    assert outcome_of(late) == "ignored: a confirmation answered after 7 days"
    (told,) = alice.unread()
    assert told["Subject"] == "[pbem] your confirmation came too late"
    assert Player.get(Player.email == alice.address).name == "Alice"
    again = alice.reply("yes", to=asked)
    assert outcome_of(again) == "ignored: confirmation not for this sender, or already used"
    assert alice.unread() == []  # told once
