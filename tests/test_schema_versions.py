"""A pbem and a database of different versions (#30 item 3).

A newer pbem migrated the database (here: the migration `0099_from_the_future` recorded
in a real store, as a later release would leave it): every process of this older pbem
refuses to start on it, exit 78 naming both versions (`pbem ingest` 75, so the MTA keeps
the mail); `pbem status` and `/healthz` say so. `pbem migrate` brings a schema up to date
once, as a rolling upgrade does before the processes restart, and `--back-to N` takes it
back, only with `--yes`, newest first, keeping the rows of the tables it does not drop.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from databases import first_start
from pbem import build
from pbem.store.database import applied_migrations, known_migrations, runner
from pbem.store.models import database

FUTURE = "0099_from_the_future"
NEWEST = known_migrations()[-1]
#: The migrations after 0018 (0025_bounces, 0026_conditional_moves, and those since)
AFTER_18 = [name for name in known_migrations() if int(name[:4]) > 18]


def record_future_migration(url: str) -> None:
    """What a newer pbem's start leaves: one more row in the migrations' history."""
    database.obj.execute_sql("INSERT INTO pbem_schema (name, applied) VALUES (%s, %s)"
                             if url.startswith("postgresql") else
                             "INSERT INTO pbem_schema (name, applied) VALUES (?, ?)",
                             (FUTURE, "2026-12-24 10:00:00"))


def run_pbem(*argv, cwd, url, **kwargs):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_DATABASE_URL=url, PBEM_SECRET_KEY="k", PBEM_SMTP_LISTEN="",
               PBEM_MAILDIR=str(cwd / "mail"))
    return subprocess.run([sys.executable, "-m", "pbem", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, **kwargs)


def test_every_process_refuses_a_schema_newer_than_its_code(store, tmp_path):
    record_future_migration(store)
    said = (f"the database's schema is newer than this pbem: it has migration {FUTURE}, which "
            f"pbem {build.describe()} does not know (its newest is {NEWEST}).")
    for argv, code in ((["worker"], 78), (["serve"], 78), (["migrate"], 78),
                       (["new", "onyx", "--player", "a@example.org", "--player",
                         "b@example.org"], 78), (["ingest"], 75)):
        done = run_pbem(*argv, cwd=tmp_path, url=store, input="Subject: x\n\nF6\n")
        assert done.returncode == code, (argv, done.stderr)
        assert done.stderr.startswith(f"pbem {argv[0]}: {said}"), done.stderr
        assert "Traceback" not in done.stderr
    assert "pbem migrate --back-to " in done.stderr and "deploy/README.md" in done.stderr
    web = subprocess.run([sys.executable, "-c", "import pbem.web.wsgi"], cwd=tmp_path,
                         env={**os.environ, "PBEM_DATABASE_URL": store,
                              "PBEM_SECRET_KEY": "k"}, capture_output=True, text=True,
                         timeout=120)
    assert web.returncode == 78
    assert web.stderr.startswith(f"pbem web: {said}")
    assert applied_migrations(database.obj)[-1] == FUTURE  # nobody touched the schema


def test_status_and_healthz_say_the_schema_is_newer(store, config, tmp_path):
    from pbem.operator.status import print_status
    from pbem.web import create_app
    record_future_migration(store)
    lines = []
    assert print_status(config, out=lines.append, workdir=tmp_path) == 1
    assert [line for line in lines if line.startswith("schema:")] == [
        f"schema:       NEWER THAN THIS PBEM: the database has {FUTURE}, which pbem "
        f"{build.describe()} does not know (its newest is {NEWEST}).\n              Every "
        f"pbem process of this version refuses to start on it (exit 78): install the pbem "
        f"that migrated it, or see deploy/README.md, \"Upgrades\""]
    response = create_app(config).test_client().get("/healthz")
    assert response.status_code == 503
    body = response.get_json()
    assert (body["ok"], body["database_ok"], body["schema_ok"]) == (False, True, False)
    assert (body["schema"], body["schema_known"], body["schema_unknown"]) == (
        FUTURE, NEWEST, [FUTURE])


def test_healthz_of_a_schema_this_code_knows(store, config):
    from pbem.web import create_app
    body = create_app(config).test_client().get("/healthz").get_json()
    assert (body["ok"], body["schema"], body["schema_waiting"], body["schema_unknown"]) == (
        True, NEWEST, [], [])


def test_migrate_brings_an_older_schema_up_to_date_once(tmp_path, monkeypatch, capsys):
    from pbem.cli import main
    url = first_start(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PBEM_DATABASE_URL", url)
    from pbem.store import open_database
    db = open_database(url)
    runner(db).down(target="0025_bounces")  # the store of 0.13.0: 0018 its newest
    db.close()
    assert main(["status"]) == 0
    assert (f"schema:       {len(AFTER_18)} migration(s) not applied yet "
            f"({', '.join(AFTER_18)}): `pbem migrate` applies them"
            ) in capsys.readouterr().out
    assert main(["migrate"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("applied 0025_bounces\napplied 0026_conditional_moves\n")
    assert out.count("applied ") == len(AFTER_18)
    assert out.endswith(f"schema: up to date at {NEWEST} ({len(known_migrations())} "
                        f"migrations)\n")
    assert main(["migrate"]) == 0
    assert capsys.readouterr().out.endswith("; nothing to do\n")
    database.initialize(None)


def test_migrate_back_to_undoes_only_with_yes_and_keeps_the_games(tmp_path, monkeypatch,
                                                                  capsys):
    from pbem.cli import main
    from pbem.store import Game, open_database
    url = first_start(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PBEM_DATABASE_URL", url)
    assert main(["new", "onyx", "--player", "a@example.org", "--player", "b@example.org"]) == 0
    capsys.readouterr()
    assert main(["migrate", "--back-to", "18"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"would undo, newest first: {', '.join(reversed(AFTER_18))}; "
                          f"the schema would then be at 0018_speed_fewer_indexes.\n")
    assert "run this again with --yes" in out
    db = open_database(url, migrate=False)
    assert applied_migrations(db)[-1] == NEWEST  # the plan changed nothing
    db.close()
    assert main(["migrate", "--back-to", "18", "--yes"]) == 0
    assert capsys.readouterr().out == (
        "".join(f"undone {name}\n" for name in reversed(AFTER_18))
        + "schema: at 0018_speed_fewer_indexes; start the pbem whose newest migration that "
          "is (CHANGELOG.md names each version's)\n")
    db = open_database(url, migrate=False)
    assert applied_migrations(db)[-1] == "0018_speed_fewer_indexes"
    assert not db.table_exists("bounce") and not db.table_exists("condition")
    assert [game.engine for game in Game.select()] == ["onyx"]  # the games stay
    db.close()
    assert main(["migrate", "--back-to", "19"]) == 2
    assert capsys.readouterr().err.startswith("pbem migrate: --back-to 19: no applied "
                                              "migration has that number; applied: 0001_")
    assert main(["migrate"]) == 0  # and forward again
    assert capsys.readouterr().out.startswith("applied 0025_bounces\n")
    database.initialize(None)


def test_migrate_makes_no_store(tmp_path, monkeypatch, capsys):
    from pbem.cli import main
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBEM_DATABASE_URL", raising=False)
    assert main(["migrate"]) == 1
    assert capsys.readouterr().err.startswith("pbem migrate: there is no database file ")
    assert list(tmp_path.iterdir()) == []
