"""`pbem restore FILE`, told as the issue's story (#43 item 4), on SQLite and on a
PostgreSQL that checks passwords with a role that is no superuser (tests/pgcluster.py).

A mail waits in the outbox while the relay is down; the backup is taken; the mail goes
out, and a move comes after it; the server is restored five hours later. Then: the mail
that waited is held, not sent a second time; each player gets one mail saying which time
the server went back to, with their own view of the game and what to send again; the
clocks moved on by the time lost; the move is taken again.
"""

import datetime as dt
import itertools
import re

import pytest

from databases import only_on

from mailtest import Sink, body
from pbem.cli import main
from pbem.policy.delivery import deliver_due
from pbem.store import Move, Outbox, open_database
from pbem.store.models import Clock, database
from pbem.bookkeeping import ledger
from pgcluster import Cluster

PASSWORD = "r3store:me@"
NAMES = itertools.count(1)


@pytest.fixture(scope="module")
def cluster():
    with Cluster() as pg:
        yield pg


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    """Overrides conftest's: a SQLite file, or a database of its own role on the
    password-checking cluster (as deploy/README.md sets one up)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'pbem.db'}"
    else:
        pg = request.getfixturevalue("cluster")
        role = f"pbem{next(NAMES)}"
        pg.role(role, PASSWORD)
        url = pg.url(role, PASSWORD)
    open_database(url)
    yield url
    database.close()
    database.initialize(None)


@pytest.fixture
def settings(config, monkeypatch):
    """The command line's settings: the test's store and key."""
    for name, value in (("PBEM_DATABASE_URL", config.database_url),
                        ("PBEM_SECRET_KEY", config.secret_key), ("PBEM_DOMAIN", config.domain)):
        monkeypatch.setenv(name, value)


def moves_of(game_id):
    return [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def only_file(directory):
    [made] = [p for p in directory.iterdir() if p.suffix in (".db", ".dump")]
    return made


def test_a_restore_holds_the_waiting_mail_tells_the_players_and_gives_the_time_back(
        onyx_3d, mail_server, sink, frozen_time, settings, tmp_path, capsys, monkeypatch):
    game_id, alice, bob = onyx_3d  # Mon 30 Nov 2026 10:00, 3 days a move, alice to move
    frozen_time.move(hours=1)  # 11:00: the relay is down, alice moves
    sink.stop()
    alice.reply("F6")
    [waiting] = Outbox.select().where(Outbox.sent.is_null())
    assert waiting.recipient == "bob@example.org"
    frozen_time.move(minutes=10)  # 11:10: the nightly backup
    backups = tmp_path / "backups"
    backups.mkdir()
    assert main(["backup", str(backups)]) == 0
    frozen_time.move(minutes=5)  # 11:15: the relay is back; bob's mail goes; bob moves
    sink.start()
    deliver_due(mail_server)
    told_bob = bob.last["Message-ID"]
    bob.reply("G5")
    assert moves_of(game_id) == ["F6", "G5"]
    frozen_time.move(hours=5)  # 16:15: the disk failed; back to the backup
    before = len(sink.messages)
    capsys.readouterr()
    assert main(["restore", str(only_file(backups))]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"restored {only_file(backups)}: the server went back to "
                           f"Mon 30 Nov 2026 11:10 UTC, 5 hours 5 minutes ago\n")
    assert "held: 1 mail(s) that waited at the backup" in said
    assert "deadlines: moved on by 5 hours 5 minutes in 1 running game(s)" in said
    assert "told: 2 player(s)" in said
    assert moves_of(game_id) == ["F6"]

    # The mail that waited at the backup (and went out after it) is held, not sent again
    held = Outbox.get_by_id(waiting.id)
    assert held.held is not None and held.sent is None
    monkeypatch.setenv("PBEM_SMTP_RELAY", mail_server.smtp_relay)
    assert main(["deliver"]) == 0  # "every mail waiting, now": not the held one
    assert "sent 2; 0 waiting\nheld: 1 (by `pbem restore`, not sent" in capsys.readouterr().out
    after = [to for to, _ in sink.messages[before:]]
    assert sorted(after) == [["alice@example.org"], ["bob@example.org"]]
    assert [m for m in bob.inbox if m["Message-ID"] == told_bob] == [bob.inbox[-2]]
    assert main(["outbox", "--held"]) == 0
    listed = capsys.readouterr().out
    assert f"HELD by pbem restore 2026-11-30 16:15: was it sent after the backup? " \
           f"Message-ID {told_bob}" in listed

    # Each player: the time gone back to, what to send again, their game as it stands
    to_bob, to_alice = body(bob.last), body(alice.last)
    for text in (to_bob, to_alice):
        assert ("The server had to go back to its backup of Mon 30 Nov 2026 11:10 UTC: "
                "whatever reached it after that time") in " ".join(text.split())
    assert "It waits for you: if you sent your move after that time, send it again now." \
        in " ".join(to_bob.split())
    assert "If you sent a move or a command to this game after that time, it was not " \
           "kept" in " ".join(to_alice.split())
    assert "every deadline in the game moved on by 5 hours 5 minutes" in " ".join(
        to_bob.split())
    assert "G5" not in to_bob and "G5" not in to_alice

    # bob's wait began at 11:00 with 3 days: it ends 5 h 5 min later than it did
    clock = Clock.get((Clock.game == game_id) & (Clock.seat == 1))
    assert ledger.deadline(clock) == dt.datetime(2026, 12, 3, 16, 5)
    assert "You have 2 days 23 hours left (until Thu 3 Dec 2026 16:05 UTC)." in to_bob

    # The move lost is taken again, and its news reaches alice
    bob.reply("G5")
    assert moves_of(game_id) == ["F6", "G5"]
    assert re.search(r"#2 bob: G5", body(alice.last))

    # The operator found the held mail in Postfix's log: it went; drop it
    assert main(["outbox", "drop", "--all-held"]) == 0
    assert "1 mail dropped" in capsys.readouterr().out
    assert not Outbox.select().where(Outbox.held.is_null(False)).exists()


def test_held_mail_released_by_the_operator_goes_once(config, settings, tmp_path, capsys):
    from test_deliver import a_message
    from pbem.mail.outbox import queue
    queue(a_message(1, "ann@example.org"), "ann@example.org")  # waiting at the backup
    backups = tmp_path / "backups"
    backups.mkdir()
    assert main(["backup", str(backups)]) == 0
    assert main(["restore", str(only_file(backups))]) == 0
    assert "held: 1 mail(s)" in capsys.readouterr().out
    from pbem.operator.status import check, describe
    assert ("held:         1 mail(s) held by `pbem restore`: `pbem outbox --held`, then "
            "retry or drop each") in describe(check())
    from test_metrics import scrape
    metrics = scrape(config)  # not a backlog the relay is blamed for (PbemOutboxBacklogOld)
    assert (metrics[("pbem_outbox_held",)], metrics[("pbem_outbox_backlog",)]) == (1, 0)
    relay = Sink().start()
    try:
        from dataclasses import replace
        deliver_due(replace(config, smtp_relay=relay.address))
        assert relay.messages == []
        assert main(["outbox", "retry", "--all-held"]) == 0  # Postfix never had it
        deliver_due(replace(config, smtp_relay=relay.address))
        deliver_due(replace(config, smtp_relay=relay.address))
        assert [to for to, _ in relay.messages] == [["ann@example.org"]]
    finally:
        relay.stop()


def test_each_player_is_shown_only_their_own_hand(mail_server, players, settings, tmp_path):
    """6 nimmt!: the restore's mail to each seat draws that seat's view of the game as it
    now stands, and no line of another seat's hand."""
    from test_mail_secrecy import diagram, others_secret_lines, text
    from pbem.operator.admin import start_game
    from pbem.engines import ENGINES
    from pbem.play import Table
    people = players("ann", "ben", "cat")
    game_id = start_game(mail_server, ENGINES["baronoxx"], {}, [p.address for p in people],
                         seed="restore/hands")
    deliver_due(mail_server)
    backups = tmp_path / "backups"
    backups.mkdir()
    assert main(["backup", str(backups)]) == 0
    hand = Table.load(game_id).state.hands[0]
    people[0].reply(f"play {min(hand)}", quote=False)  # lost with the restore
    assert main(["restore", str(only_file(backups))]) == 0
    deliver_due(mail_server)
    table = Table.load(game_id, lock=False)
    assert table.game.plies == len(moves_of(game_id)) and table.to_act == {0, 1, 2}
    names = ["ann", "ben", "cat"]
    for seat, person in enumerate(people):
        mail = text(person.last)
        assert "The server had to go back to its backup of" in mail
        assert diagram(table.engine, table.state, seat, names).rstrip("\n") in mail
        lines = {line.strip() for line in mail.splitlines()}
        for other, secrets in others_secret_lines(table.engine, table.state, seat,
                                                  names).items():
            assert secrets and not secrets & lines, f"{names[seat]} saw {names[other]}'s"


def test_a_restore_is_refused_while_a_worker_runs(config, settings, tmp_path, capsys):
    from pbem.store import workers
    backups = tmp_path / "backups"
    backups.mkdir()
    assert main(["backup", str(backups)]) == 0
    workers.tick("mx1", listeners=1, listening=1)
    assert main(["restore", str(only_file(backups))]) == 1
    said = capsys.readouterr().err
    assert said.startswith("pbem restore: pbem is running: worker mx1 (")
    assert "nothing was changed" in said


def test_a_backup_of_the_other_database_kind_is_refused(config, settings, tmp_path, capsys):
    other = tmp_path / ("pbem-20261201-031500.dump" if config.database_url.startswith(
        "sqlite") else "pbem-20261201-031500.db")
    other.write_bytes(b"PGDMP\x01\x0e" if other.suffix == ".dump"
                      else b"SQLite format 3\x00" + bytes(100))
    assert main(["restore", str(other)]) == 1
    said = capsys.readouterr().err
    assert "but PBEM_DATABASE_URL names" in said and "check --env-file" in said


@only_on("sqlite")  # the old backup is made by hand, as a SQLite file
def test_a_backup_made_before_backups_were_recorded_goes_back_to_its_newest_time(
        onyx_3d, mail_server, frozen_time, settings, tmp_path, capsys):
    """A copy with no row of its own (a pbem before 0042 made it): the time it goes back
    to is the newest the copy shows, here alice's move at 11:00."""
    import sqlite3
    game_id, alice, bob = onyx_3d
    frozen_time.move(hours=1)
    alice.reply("F6")
    frozen_time.move(minutes=30)
    backups = tmp_path / "backups"
    backups.mkdir()
    assert main(["backup", str(backups)]) == 0
    old = sqlite3.connect(only_file(backups))
    old.execute("DELETE FROM backup")
    old.commit()
    old.close()
    frozen_time.move(hours=2)
    assert main(["restore", str(only_file(backups))]) == 0
    said = capsys.readouterr().out
    assert ("the server went back to Mon 30 Nov 2026 11:00 UTC (the newest time it shows: "
            "it was made by a pbem that did not record its backups), 2 hours 30 minutes "
            "ago") in said
