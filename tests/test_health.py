"""Health for operators: `/healthz` (JSON; 503 when the database does not answer),
`pbem status` (the same as text; exit 1 when it does not), and the web as gunicorn
serves it in production (`pbem.web.wsgi:app`), stopped by SIGTERM.
"""

import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from mailtest import free_port, poll
from pbem.operator.admin import start_game
from pbem.config import Config
from pbem.engines import ENGINES
from pbem.store import open_database
from pbem.store.models import database
from pbem.web import create_app

TIMEOUT = 60  # seconds: generous, for a loaded machine; a pass takes far less


@pytest.fixture
def waiting_mail(config):
    """A running game whose two starting mails wait in the outbox (nothing delivers)."""
    start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    return config


def test_healthz_reports_the_database_and_the_outbox(waiting_mail):
    response = create_app(waiting_mail).test_client().get("/healthz")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    health = response.get_json()
    assert health["ok"] is True and health["database_ok"] is True
    assert (health["outbox_backlog"], health["outbox_retrying"]) == (2, 0)
    assert health["oldest_undelivered_seconds"] >= 0
    assert health["running_games"] == 1
    assert health["last_inbound_seconds"] is None  # no mail has come in yet


def unreachable(kind: str, tmp_path) -> str:
    """A PostgreSQL server nobody listens for, or a SQLite file in a missing directory."""
    if kind == "postgresql":
        return f"postgresql://pbem@127.0.0.1:{free_port()}/pbem"
    return f"sqlite:///{tmp_path / 'missing' / 'pbem.db'}"


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_healthz_answers_503_when_the_database_does_not(tmp_path, kind):
    url = unreachable(kind, tmp_path)
    open_database(url, migrate=False)  # peewee connects at the first query
    try:
        response = create_app(Config(database_url=url)).test_client().get("/healthz")
    finally:
        database.initialize(None)
    assert response.status_code == 503
    health = response.get_json()
    assert health["ok"] is False and health["database_ok"] is False
    assert health["database_error"]  # the driver's reason, for the operator
    assert health["outbox_backlog"] is None


def pbem(*args, env: dict, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pbem", *args], env={**os.environ, **env},
                          cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)


def test_pbem_status_prints_the_same_for_a_terminal(waiting_mail, tmp_path):
    done = pbem("status", env={"PBEM_DATABASE_URL": waiting_mail.database_url}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "database:     ok" in lines
    assert "outbox:       2 waiting" in lines
    assert "games:        1 running" in lines
    assert "last mail in: never" in lines


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_pbem_status_fails_when_the_database_does_not_answer(tmp_path, kind):
    url = unreachable(kind, tmp_path)
    done = pbem("status", env={"PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "k"}, cwd=tmp_path)
    assert done.returncode == 1
    # A SQLite file that is not there is not made: status says it is missing.
    said = "NOT REACHABLE" if kind == "postgresql" else "MISSING"
    assert f"database:     {said}: " in done.stdout
    assert "Traceback" not in done.stderr


def test_pbem_status_hides_the_database_password(tmp_path):
    url = f"postgresql://pbem:s3cret@127.0.0.1:{free_port()}/pbem"
    done = pbem("status", env={"PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "k"}, cwd=tmp_path)
    assert "pbem:***@127.0.0.1" in done.stdout and "s3cret" not in done.stdout


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return 0, ""


def start_gunicorn(config, cwd, workers: int = 2, preload: bool = False, **settings):
    """gunicorn serving pbem.web.wsgi:app on a free loopback port; (process, base URL).
    `settings`: more PBEM_* variables (PBEM_MONITOR_TOKEN, say)."""
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "-w", str(workers), "-b", f"127.0.0.1:{port}",
               "--no-control-socket", "--graceful-timeout", "10"]
    command += ["--preload"] * preload + ["pbem.web.wsgi:app"]
    env = {**os.environ, "PBEM_DATABASE_URL": config.database_url,
           "PBEM_DOMAIN": config.domain, "PBEM_SECRET_KEY": config.secret_key, **settings}
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    return process, f"http://127.0.0.1:{port}"


def stop(process) -> tuple[int, str]:
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    errors = process.stderr.read()
    process.stderr.close()
    return code, errors


@pytest.mark.parametrize("preload", [False, True], ids=["fork-then-load", "preload"])
def test_gunicorn_serves_the_web_from_forked_workers_and_stops_on_sigterm(
        waiting_mail, tmp_path, preload):
    server, base = start_gunicorn(waiting_mail, tmp_path, preload=preload)
    try:
        status, page = poll(lambda: (lambda r: r if r[0] == 200 else None)(get(base + "/")),
                            "the home page")
        assert "pbem@pbem.test" in page
        for _ in range(8):  # several requests, so both workers answer some
            status, body = get(base + "/healthz")
            assert status == 200 and '"outbox_backlog":2' in body.replace(" ", "")
    finally:
        code, errors = stop(server)
    assert code == 0, errors
    assert "Traceback" not in errors
