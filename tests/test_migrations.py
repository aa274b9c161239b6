"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL.

The schema is only ever created by pbem/migrations/ (so that existing databases upgrade
in place); a field added to a model without its migration would work in no test that
creates tables from the models, and fail on the first real database. This compares what
the migrations made, column by column and index by index, with the models.
"""

import pytest
from peewee import ModelIndex

from pbem.store.models import database
from pbem.store.tables import MODELS


def _migrated_columns(table: str) -> dict[str, bool]:
    return {column.name: column.null for column in database.obj.get_columns(table)}


def _model_columns(model) -> dict[str, bool]:
    return {field.column_name: field.null for field in model._meta.sorted_fields}


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model._meta.table_name)
def test_every_table_has_the_models_columns(store, model):
    table = model._meta.table_name
    assert _migrated_columns(table) == _model_columns(model)


def _condition(sql: str) -> str:
    """An index's WHERE, as both databases may write it: 'sent is null'."""
    where = sql.lower().partition(" where ")[2]
    return " ".join(where.replace('"', "").replace("(", " ").replace(")", " ").split())


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model._meta.table_name)
def test_every_declared_index_exists(store, model):
    """Every index the model declares, and no other, with its columns, uniqueness and
    condition (a partial index's WHERE)."""
    migrated = {(tuple(index.columns), index.unique, _condition(index.sql or ""))
                for index in database.obj.get_indexes(model._meta.table_name)
                if not index.name.endswith("_pkey")}  # PostgreSQL's primary key
    declared = set()
    for index in model._meta.indexes:
        if isinstance(index, ModelIndex):  # Model.add_index, with a condition
            condition = _condition(database.obj.get_sql_context().sql(index).query()[0])
            declared.add((tuple(field.column_name for field in index._expressions),
                          index._unique, condition))
        else:
            fields, unique = index
            declared.add((tuple(model._meta.fields[name].column_name for name in fields),
                          unique, ""))
    declared |= {((field.column_name,), bool(field.unique), "")
                 for field in model._meta.sorted_fields
                 if (field.index or field.unique) and not field.primary_key}
    assert declared == migrated


def test_a_new_mail_is_written_into_no_index_it_does_not_need(store):
    """A move by mail inserts an inbound and an outbox row; their indexes of what is set
    later (sent, failed, the retention date) leave the new row out, so the insert does
    not write them (0018). A row this pbem writes is counted (0040): not in the index of
    rows an older pbem wrote uncounted."""
    partial = {index.name: _condition(index.sql)
               for table in ("inbound", "outbox") for index in database.obj.get_indexes(table)
               if " where " in (index.sql or "").lower()}
    assert partial == {"inbound_kept_until": "kept_until is not null",
                       "outbox_unsent": "sent is null", "outbox_sent": "sent is not null",
                       "outbox_failed": "failed is not null",
                       "inbound_uncounted": "not counted"}


def test_no_table_without_a_model(store):
    tables = set(database.obj.get_tables()) - {"pbem_schema"}
    assert tables == {model._meta.table_name for model in MODELS}


def old_row(model, **values):
    """A row written as the schema of the moment has it: the model's fields that its
    table has (a later migration's column is not there yet), their defaults unless given;
    read back with those fields only."""
    from peewee import Table
    present = {c.name for c in database.obj.get_columns(model._meta.table_name)}
    fields = [f for f in model._meta.sorted_fields if f.column_name in present]
    row = {}
    for field in fields:
        if field.name in values:
            row[field.column_name] = field.db_value(values[field.name])
        elif field is not model._meta.primary_key and field.default is not None:
            default = field.default() if callable(field.default) else field.default
            row[field.column_name] = field.db_value(default)
    key = model._meta.primary_key.column_name
    table = Table(model._meta.table_name, [*row, key]).bind(database.obj)
    [(new_id,)] = table.insert(row).returning(getattr(table, key)).tuples().execute()
    return model.select(*fields).where(model._meta.primary_key == new_id).get()


def test_0030_writes_in_the_invitations_still_waiting(store):
    """An upgraded server keeps its limits: the invitations that waited before 0030 (a
    game's seat, a tournament's entrant, a second address's request, each to an address
    that never confirmed) are rows of `invitation` after it; answered ones are not."""
    from playhouse.migrations import Runner

    from pbem.engines import get_engine
    from pbem.play import create_game
    from pbem.store.database import MIGRATIONS
    from pbem.store.models import Address, Invitation, Player, Request
    from pbem.store.competition_models import Entrant, Tournament
    runner = Runner(database.obj, directory=str(MIGRATIONS), table_name="pbem_schema")
    names = [m.name for m in runner.migrations()]
    runner.down(names[names.index("0030_invitations") - 1])
    alice = old_row(Player, email="alice@example.org", name="alice", confirmed=True)
    bob = old_row(Player, email="bob@example.org", name="bob", confirmed=True)
    victim = old_row(Player, email="victim@v.test", name="victim")
    carol = old_row(Player, email="carol@c.test", name="carol")
    game = create_game(get_engine("onyx"), {}, [alice, victim], alice, accepted=False)
    create_game(get_engine("onyx"), {}, [alice, bob], alice, accepted=False)  # confirmed
    tournament = Tournament.create(engine="onyx", kind="round-robin", options={},
                                   organiser=bob)
    Entrant.create(tournament=tournament, player=victim, number=0)
    Entrant.create(tournament=tournament, player=carol, number=1, answer="declined")
    Address.create(player=alice, email="second@s.test")
    request = old_row(Request, kind="address", player=alice, lines=["second@s.test"])
    Address.create(player=bob, email="other@s.test", confirmed=True)
    old_row(Request, kind="address", player=bob, lines=["other@s.test"], open=False)
    runner.up()
    rows = {(row.inviter.email, row.address, row.kind, row.subject, row.waiting)
            for row in Invitation.select()}
    assert rows == {("alice@example.org", "victim@v.test", "game", game.id, True),
                    ("bob@example.org", "victim@v.test", "tournament", tournament.id, True),
                    ("alice@example.org", "second@s.test", "address", request.id, True)}


def test_the_counters_go_on_from_where_the_counted_rows_left_them(store, config, tmp_path,
                                                                   monkeypatch, capsys):
    """0038 (#30 item 6): after the upgrade each counter starts at what the old one,
    counting rows, said last, so nothing jumps: mail in by its outcome (not the ones
    still running), refusals by reason, players' moves by game, mail given up."""
    from pbem.operator.admin import start_game
    from pbem.cli import main
    from pbem.engines import ENGINES
    from pbem.play import Table
    from pbem.store import Inbound, Outbox, counters, open_database, transaction
    from pbem.store.models import utcnow
    game_id = start_game(config, ENGINES["onyx"], {}, ["a@example.org", "b@example.org"])
    with transaction():
        Table.load(game_id).play(0, "F6")
    for number, outcome in enumerate(["done: 1 line(s)", "ignored: robot (auto-replied)",
                                      "held: confirmation asked for", "received",
                                      "done: confirmed (after confirmation)"]):
        Inbound.create(message_id=f"<{number}@example.org>", sender="c@example.org",
                       raw=b"", outcome=outcome)
    Outbox.update(failed=utcnow()).where(Outbox.id == Outbox.select(Outbox.id).limit(1)
                                         .scalar()).execute()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PBEM_DATABASE_URL", store)
    monkeypatch.setenv("PBEM_SECRET_KEY", "k")
    database.close()
    assert main(["migrate", "--back-to", "36", "--yes"]) == 0
    assert main(["migrate"]) == 0
    assert "applied 0038_counters_workers" in capsys.readouterr().out
    open_database(store, migrate=False)
    assert counters.totals("mails_in") == {"done": 2, "held": 1, "ignored": 1}
    assert counters.totals("refusals") == {"robot": 1}
    assert counters.totals("moves") == {"onyx": 1}
    assert counters.totals("outbox_given_up") == {"": 1}


def test_0044_starts_each_follow_at_its_games_last_comment(store):
    """#42: a spectator's mail now carries the comments since their last mail; a follow
    made before the upgrade starts at its game's last comment, so what was said before
    is not mailed again (a game without comments starts at 0)."""
    from playhouse.migrations import Runner

    from pbem.engines import get_engine
    from pbem.play import create_game
    from pbem.store import Comment
    from pbem.store.database import MIGRATIONS
    from pbem.store.models import Follow, Player
    runner = Runner(database.obj, directory=str(MIGRATIONS), table_name="pbem_schema")
    names = [m.name for m in runner.migrations()]
    runner.down(names[names.index("0044_follow_heard") - 1])
    alice, bob, carol = (old_row(Player, email=f"{n}@example.org", name=n, confirmed=True)
                         for n in ("alice", "bob", "carol"))
    said = create_game(get_engine("onyx"), {}, [alice, bob], alice, accepted=True)
    quiet = create_game(get_engine("onyx"), {}, [bob, alice], alice, accepted=True)
    for text in ("hello", "good luck"):
        old_row(Comment, game=said, ply=0, seat=0, text=text)
    old_row(Follow, player=carol, game=said)
    old_row(Follow, player=carol, game=quiet)
    runner.up()
    last = Comment.select(Comment.id).where(Comment.text == "good luck").scalar()
    assert {f.game_id: f.heard for f in Follow.select()} == {said.id: last, quiet.id: 0}
