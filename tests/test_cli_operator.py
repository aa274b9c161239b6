"""The `pbem` process as an operator meets it: pipes that close early, --version, settings
from the environment and the env file, status, admin commands, and which commands may
make a store (only `serve` and `worker`).

Each runs as a real process (`run_pbem`) or through `pbem.cli.main(argv)`, as in
test_cli.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from databases import first_start, only_on
from pbem.cli import main


# -- the process as an operator meets it: pipes, --version, settings, status ------------

def run_pbem(*argv: str, cwd, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """`python -m pbem ARGV` in `cwd` with only the PBEM_* settings given."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    return subprocess.run([sys.executable, "-m", "pbem", *argv], cwd=cwd,
                          env={**base, **(env or {})}, capture_output=True, text=True,
                          timeout=120, **kwargs)


@pytest.mark.parametrize("argv, code", [
    (["games"], 141), (["selfplay", "baronoxx", "--players", "4"], 141), (["status"], 141),
    (["--help"], 0), (["--version"], 0)],  # argparse itself ignores a closed stdout
    ids=["games", "selfplay", "status", "help", "version"])
def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path, argv, code):
    """`pbem games | head`: the pipe is closed before pbem writes, so the write fails."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    process = subprocess.Popen([sys.executable, "-m", "pbem", *argv], cwd=tmp_path, env=base,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader is gone: every write to stdout is EPIPE
    errors = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=120) == code  # 141: as a shell reports SIGPIPE
    assert "Traceback" not in errors and "BrokenPipe" not in errors, errors


def test_version(tmp_path):
    from pbem import build
    done = run_pbem("--version", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, f"pbem {build.describe()}\n")


def test_status_without_settings_creates_nothing_and_says_what_is_missing(tmp_path):
    done = run_pbem("status", cwd=tmp_path)
    assert done.returncode == 1
    assert f"database:     MISSING: there is no database file {tmp_path / 'pbem.db'}" \
        in done.stdout
    assert f"secret key:   NONE: PBEM_SECRET_KEY is not set and there is no " \
           f"{tmp_path / 'pbem-secret.key'}" in done.stdout
    assert list(tmp_path.iterdir()) == []
    assert done.stderr == ""


def test_status_opens_an_existing_database_read_only_and_leaves_the_key_alone(tmp_path):
    first_start(tmp_path)  # pbem.db and pbem-secret.key, as the worker's first start
    run_pbem("new", "onyx", "--player", "a@example.org", "--player", "b@example.org",
             cwd=tmp_path)
    key = (tmp_path / "pbem-secret.key").read_text()
    (tmp_path / "pbem.db").chmod(0o444)  # a write would fail: status must not try
    done = run_pbem("status", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "games:        1 running" in done.stdout
    assert "schema:       up to date at 00" in done.stdout
    assert f"secret key:   from {tmp_path / 'pbem-secret.key'}" in done.stdout
    assert (tmp_path / "pbem-secret.key").read_text() == key


def test_status_reads_the_servers_database_whatever_characters_its_path_holds(tmp_path):
    home = tmp_path / "games #1 of mine?"  # as written: no URL decoding anywhere
    home.mkdir()
    url = f"sqlite:///{home / 'pbem%41.db'}"
    env = {"PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "k"}
    first_start(tmp_path, url)
    done = run_pbem("new", "onyx", "--player", "a@example.org", "--player", "b@example.org",
                    cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    done = run_pbem("status", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "games:        1 running" in done.stdout
    assert [p.name for p in home.iterdir() if p.suffix == ".db"] == ["pbem%41.db"]


@pytest.mark.parametrize("argv, code", [(["worker"], 78), (["status"], 78), (["deliver"], 78),
                                        (["ingest"], 75)])
def test_a_bad_setting_is_named_without_a_traceback(tmp_path, argv, code):
    done = run_pbem(*argv, cwd=tmp_path, input="",
                    env={"PBEM_DIGEST_HOUR": "7am", "PBEM_LMTP_LISTEN": "127.0.0.1:lmtp"})
    assert done.returncode == code
    assert done.stderr == (
        "pbem: the settings cannot be used:\n"
        "  PBEM_LMTP_LISTEN='127.0.0.1:lmtp' cannot be used: wanted host:port, such as "
        "127.0.0.1:8024, or empty for off.\n"
        "  PBEM_DIGEST_HOUR='7am' cannot be used: wanted a whole number from 0 to 23.\n")
    assert list(tmp_path.iterdir()) == []


def test_env_file_gives_the_settings_literally(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    env_file = tmp_path / "pbem.env"
    env_file.write_text(f"# as in deploy/pbem.env.example\n"
                        f"PBEM_DATABASE_URL=sqlite:///{state / 'pbem.db'}\n"
                        f"PBEM_SECRET_KEY=not$HOME;`expanded`\n"
                        f"PBEM_DOMAIN=pbem.example.org\n")
    first_start(tmp_path, f"sqlite:///{state / 'pbem.db'}")
    (tmp_path / "pbem-secret.key").unlink()  # PBEM_SECRET_KEY is set: no file is read
    run_pbem("--env-file", str(env_file), "new", "onyx", "--player", "a@example.org",
             "--player", "b@example.org", cwd=state)
    done = run_pbem("--env-file", str(env_file), "status", cwd=state)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("pbem for pbem@pbem.example.org, database sqlite:///")
    assert "secret key:   from PBEM_SECRET_KEY" in done.stdout
    assert not (state / "pbem-secret.key").exists()
    missing = run_pbem("--env-file", str(tmp_path / "nope.env"), "status", cwd=state)
    assert missing.returncode == 78
    assert f"cannot read the environment file {tmp_path / 'nope.env'}" in missing.stderr


def test_admin_commands_run_from_the_command_line(tmp_path):
    first_start(tmp_path)
    started = run_pbem("new", "onyx", "--player", "a@example.org", "--player", "b@example.org",
                       cwd=tmp_path)
    game_id = started.stdout.split()[-1]
    done = run_pbem("admin", "adjudicate", game_id, "--result", "1-0", "--reason",
                    "b left the club", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"game #{game_id} adjudicated 1-0; its players are told\n"
    again = run_pbem("admin", "cancel", game_id, "--reason", "twice", cwd=tmp_path)
    assert again.returncode == 1
    assert again.stderr == (f"pbem admin cancel: game #{game_id} is finished; only a running "
                            f"or inviting game can be cancelled\n")
    assert run_pbem("admin", "ban", "@spam.example", cwd=tmp_path).returncode == 0
    listed = run_pbem("admin", "bans", cwd=tmp_path).stdout
    assert listed.startswith("@spam.example  since ")
    record = run_pbem("export", game_id, cwd=tmp_path).stdout
    assert '[Termination "adjudicated by the administrator: b left the club"]' in record


def test_admin_in_the_wrong_directory_creates_no_database(tmp_path):
    done = run_pbem("admin", "ban", "x@example.org", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(f"pbem admin ban: there is no database file "
                                  f"{tmp_path / 'pbem.db'} (nothing was created).")
    assert list(tmp_path.iterdir()) == []


# -- only `serve` and `worker` make a store -----------------------------------------------

@pytest.mark.parametrize("argv", [
    ["new", "onyx", "--player", "a@example.org", "--player", "b@example.org"],
    ["deliver"], ["ratings", "rebuild"], ["ratings", "show", "onyx"], ["export", "1"],
    ["export", "--all", "--output", "all.zip"], ["outbox"], ["outbox", "retry", "--all-failed"],
    ["admin", "bans"]], ids=" ".join)
def test_a_command_in_the_wrong_directory_makes_no_store(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("PBEM_")]:
        monkeypatch.delenv(name)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert re.match(rf"pbem [a-z ]+: there is no database file {tmp_path / 'pbem.db'} "
                    rf"\(nothing was created\)\.\n", err), err
    assert "The first `pbem worker` or `pbem serve` creates it." in err
    assert list(tmp_path.iterdir()) == []  # no pbem.db, no pbem-secret.key, no maildir


def test_ingest_without_a_store_asks_the_mta_to_keep_the_mail(tmp_path):
    done = run_pbem("ingest", cwd=tmp_path, input="Subject: x\n\nF6\n")
    assert done.returncode == 75  # EX_TEMPFAIL: Postfix retries once the settings are right
    assert done.stderr.startswith(f"pbem ingest: try again later: there is no database file "
                                  f"{tmp_path / 'pbem.db'} (nothing was created).")
    assert list(tmp_path.iterdir()) == []


def test_a_command_that_signs_mail_wants_the_workers_key_and_makes_none(tmp_path):
    first_start(tmp_path)
    (tmp_path / "pbem-secret.key").unlink()  # a store without the key it was made with
    done = run_pbem("new", "onyx", "--player", "a@example.org", "--player", "b@example.org",
                    cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(f"pbem new: there is no secret key: PBEM_SECRET_KEY is not "
                                  f"set and there is no {tmp_path / 'pbem-secret.key'} "
                                  f"(nothing was created).")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pbem.db"]
    listed = run_pbem("outbox", cwd=tmp_path)  # reading the outbox signs nothing
    assert (listed.returncode, listed.stderr) == (0, "")


@only_on("postgresql")
def test_a_command_refuses_an_empty_postgresql_database_and_creates_no_table(
        store, monkeypatch, capsys):
    import psycopg

    from databases import empty_postgres
    from pbem.store.models import database
    database.close()
    empty_postgres(store)  # createdb done, no worker started yet
    monkeypatch.setenv("PBEM_DATABASE_URL", store)
    monkeypatch.setenv("PBEM_SECRET_KEY", "k")
    assert main(["deliver"]) == 1
    assert "holds no pbem tables (nothing was created)" in capsys.readouterr().err
    with psycopg.connect(store) as connection:
        assert connection.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
                                  ).fetchone() == (0,)


def test_the_help_says_the_env_file_wins_over_the_environment(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "the file's settings win over the same ones in the environment" in text
