"""Counters across the documented rolling upgrade (deploy/README.md "Upgrades"): between
`pbem migrate` and their restart, the old workers play moves and take mail on the new
schema without counting them (they know no counters). Those events must show in
`/metrics` at once and stay counted after the hourly roll-up: no counter falls when the
new web replaces the old one, which counted rows.

An old worker's writes are its INSERTs: every column it knows, none it does not.
"""

from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.intake.retention import prune
from pbem.play import Table
from pbem.store import Move, transaction
from pbem.store.models import database, utcnow
from test_metrics import scrape

OLD_MOVE_COLUMNS = ("game_id, seat, text, labelled, state, visible, source, anonymous, "
                    "revealed, created")


def an_old_workers_move(game_id: int, ply: int, seat: int, text: str) -> None:
    """The move as a worker of 0.12.0 (573b333) writes it: a copy of ply 1's columns."""
    mark = database.obj.param
    database.obj.execute_sql(
        f"INSERT INTO move (ply, shown, {OLD_MOVE_COLUMNS}) SELECT {mark}, {mark}, "
        f"{OLD_MOVE_COLUMNS.replace('seat, text', f'{mark}, {mark}')} FROM move "
        f"WHERE game_id = {mark} AND ply = 1", (ply, ply, seat, text, game_id))


def an_old_workers_mail(message_id: str, outcome: str) -> None:
    mark = database.obj.param
    database.obj.execute_sql(
        f"INSERT INTO inbound (message_id, sender, raw, received, outcome) VALUES "
        f"({mark}, {mark}, {mark}, {mark}, {mark})",
        (message_id, "bob@example.org", b"", utcnow(), outcome))


def totals(config) -> dict:
    return {name: value for name, value in scrape(config).items()
            if name[0] in ("pbem_moves_total", "pbem_mails_in_total", "pbem_refusals_total")}


def test_what_old_workers_do_mid_upgrade_is_counted_and_stays_counted(config):
    game_id = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    with transaction():
        Table.load(game_id).play(0, "F6")  # this version: counted as it is played
    an_old_workers_move(game_id, 2, 1, "G7")
    an_old_workers_move(game_id, 3, 0, "H8")
    an_old_workers_mail("<m1@example.org>", "done: 1 line(s)")
    an_old_workers_mail("<m2@example.org>", "ignored: robot (Auto-Submitted: auto-replied)")
    an_old_workers_mail("<m3@example.org>", "received")  # still being handled

    seen = totals(config)
    assert seen[("pbem_moves_total", ("game", "onyx"))] == 3
    assert seen[("pbem_mails_in_total", ("outcome", "done"))] == 1
    assert seen[("pbem_mails_in_total", ("outcome", "ignored"))] == 1
    assert seen[("pbem_refusals_total", ("reason", "robot"))] == 1

    prune(config)  # the hourly roll-up counts them for good
    assert not Move.select().where(~Move.counted).exists()
    assert totals(config) == seen
    prune(config)
    assert totals(config) == seen  # nothing counted twice
