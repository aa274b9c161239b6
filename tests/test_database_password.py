"""PBEM_DATABASE_URL as deploy/README.md says to write it, against a PostgreSQL that checks
passwords: a password with `@ : / % #` is %-encoded, and every process (the store,
`pbem backup`, `pbem status`) reads it the same way; a wrong one stops a worker with one
line and exit 78, which its unit does not restart for."""

import os
import subprocess
import sys

import pytest

from pgcluster import Cluster

PASSWORD = "p@ss:w/rd%#x 1"  # every character the README names, and a space


@pytest.fixture(scope="module")
def cluster():
    with Cluster() as pg:
        pg.role("pbem", PASSWORD)
        yield pg


def run_pbem(*argv, cwd, url, **settings):
    base = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env = {**base, "PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "k" * 32,
           "PBEM_LMTP_LISTEN": "", "PBEM_SMTP_LISTEN": "", **settings}
    return subprocess.run([sys.executable, "-m", "pbem", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_percent_encoded_password_opens_the_store(cluster):
    from pbem.store import open_database
    from pbem.store.database import applied_migrations
    from pbem.store.models import database
    db = open_database(cluster.url("pbem", PASSWORD))
    try:
        assert "0038_counters_workers" in applied_migrations(db)
    finally:
        db.close()
        database.initialize(None)


def test_status_and_backup_read_the_same_password(cluster, tmp_path):
    url = cluster.url("pbem", PASSWORD)
    from pbem.store import open_database
    from pbem.store.models import database
    open_database(url).close()
    database.initialize(None)
    status = run_pbem("status", cwd=tmp_path, url=url)
    assert "database:     ok" in status.stdout, status.stdout + status.stderr
    assert PASSWORD not in status.stdout and "%40" not in status.stdout  # shown as ***
    (tmp_path / "backups").mkdir()
    backup = run_pbem("backup", str(tmp_path / "backups"), cwd=tmp_path, url=url)
    assert backup.returncode == 0, backup.stderr


def test_a_wrong_password_stops_the_worker_with_one_line_and_exit_78(cluster, tmp_path):
    url = cluster.url("pbem", "not the password")
    done = run_pbem("worker", cwd=tmp_path, url=url)
    assert done.returncode == 78, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("pbem worker: PBEM_DATABASE_URL: PostgreSQL refused the login")
    assert 'password authentication failed for user "pbem"' in lines[0]
    assert "not the password" not in done.stderr and "not%20the" not in done.stderr


def test_a_database_that_is_not_there_is_a_setting_too(cluster, tmp_path):
    done = run_pbem("worker", cwd=tmp_path, url=cluster.url("pbem", PASSWORD, "pbme"))
    assert done.returncode == 78, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert 'database "pbme" does not exist' in done.stderr


def test_a_server_that_does_not_answer_is_restarted_for_in_one_line(tmp_path):
    from mailtest import free_port
    done = run_pbem("worker", cwd=tmp_path,
                    url=f"postgresql://pbem:x@127.0.0.1:{free_port()}/pbem")
    assert done.returncode == 1, done.stderr  # Restart=on-failure: it may come back
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("pbem worker: the database does not answer"), done.stderr
