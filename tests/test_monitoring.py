"""What the operator watches besides mail flowing (#43 item 5): how much of our mail
bounces and when the last backup was made, in `/metrics` (for the shipped alerts) and in
`pbem status`; and an empty database said to be empty, with what fills it, rather than
"NOT REACHABLE: relation outbox does not exist".
"""

import datetime as dt
import os
import sqlite3
import subprocess
import sys

import pytest

from pbem.cli import main
from pgcluster import Cluster
from test_bounces import DSN, last_return_path, report, sink  # noqa: F401 - the relay
from test_metrics import scrape


@pytest.fixture
def settings(config, monkeypatch):
    for name, value in (("PBEM_DATABASE_URL", config.database_url),
                        ("PBEM_SECRET_KEY", config.secret_key)):
        monkeypatch.setenv(name, value)


def status_lines() -> list[str]:
    """`pbem status`'s lines of the test's store (main would open it read-only)."""
    from pbem.operator.status import check, describe
    return describe(check())


def test_a_bounce_is_counted_for_the_alert_and_status_says_so(onyx, sink, mail_server,  # noqa: F811
                                                               settings, capsys):
    game_id, alice, bob = onyx
    alice.reply("F6")
    assert scrape(mail_server)[("pbem_bounces_total",)] == 0
    assert "bounces:      none in the last day" in status_lines()
    report(mail_server, DSN, last_return_path(sink, "bob@example.org"))
    assert scrape(mail_server)[("pbem_bounces_total",)] == 1
    assert "bounces:      1 address(es) bounced in the last day" in status_lines()


def test_the_last_backup_is_a_metric_and_a_status_line(config, frozen_time, settings,
                                                       tmp_path, capsys):
    assert scrape(config)[("pbem_last_backup_timestamp_seconds",)] == 0
    assert ("backup:       none recorded (`pbem backup`; deploy/README.md, \"Backups\")"
            in status_lines())
    assert main(["backup", str(tmp_path / "tonight.db")]) == 0  # Mon 30 Nov 2026 10:00
    taken = dt.datetime(2026, 11, 30, 10, 0, tzinfo=dt.timezone.utc).timestamp()
    assert scrape(config)[("pbem_last_backup_timestamp_seconds",)] == taken
    frozen_time.move(hours=26, minutes=5)
    assert "backup:       the last whole one 1 d 2 h ago" in status_lines()


@pytest.fixture(scope="module")
def cluster():
    with Cluster() as pg:
        pg.role("pbem", "empty at first")
        yield pg


def run_pbem(*argv, cwd, url):
    base = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    return subprocess.run([sys.executable, "-m", "pbem", *argv], cwd=cwd,
                          env={**base, "PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "k" * 32},
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_an_empty_database_is_said_to_be_empty_and_pbem_migrate_fills_it(kind, tmp_path,
                                                                          request):
    if kind == "sqlite":
        sqlite3.connect(tmp_path / "pbem.db").close()  # a file, no tables
        url = f"sqlite:///{tmp_path / 'pbem.db'}"
    else:
        url = request.getfixturevalue("cluster").url("pbem", "empty at first")
    said = run_pbem("status", cwd=tmp_path, url=url)
    assert said.returncode == 1
    assert ("database:     EMPTY: it holds no pbem tables. `pbem migrate` creates them (so "
            "does the first start of `pbem worker`)") in said.stdout.splitlines()
    assert "NOT REACHABLE" not in said.stdout
    migrated = run_pbem("migrate", cwd=tmp_path, url=url)
    assert migrated.returncode == 0, migrated.stderr
    assert "applied 0001_initial" in migrated.stdout
    said = run_pbem("status", cwd=tmp_path, url=url)
    assert said.returncode == 0, said.stdout
    assert "database:     ok" in said.stdout


def test_migrate_still_makes_no_sqlite_file_in_the_wrong_directory(tmp_path):
    done = run_pbem("migrate", cwd=tmp_path, url=f"sqlite:///{tmp_path / 'pbem.db'}")
    assert done.returncode == 1 and "there is no database file" in done.stderr
    assert list(tmp_path.iterdir()) == []
