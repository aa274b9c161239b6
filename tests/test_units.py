"""deploy/systemd as an operator installs it: every unit's sandbox scores at most 4 in
`systemd-analyze security` (issue 17: the units were 8.5 EXPOSED), and the backup unit's
command, run as its user with its directory and environment file, makes a backup that
restores into a database holding the game.

The worker and web units themselves run in tests/test_e2e_postfix.py. systemd-analyze is
systemd's own tool: without it the test fails, saying what to install.
"""

import re
import shutil
import subprocess
import sys

import pytest

from deployed_pbem import PbemService, Site, install_pbem
from loopback_services import DEPLOY, free_port, give_to_service_user, scratch_directory

UNITS = sorted(path.name for path in (DEPLOY / "systemd").glob("*.service"))


@pytest.mark.parametrize("unit", UNITS)
def test_every_unit_is_sandboxed_to_an_exposure_of_at_most_4(unit):
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is missing: apt-get install systemd (the tool is enough)"
    done = subprocess.run([tool, "security", "--offline=yes", "--no-pager",
                           str(DEPLOY / "systemd" / unit)], capture_output=True, text=True,
                          timeout=120)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout)
    assert found, done.stdout + done.stderr
    assert float(found[1]) <= 4.0, done.stdout


@pytest.fixture
def site():
    root = scratch_directory("pbem-units-")
    site = Site(root, lmtp_port=free_port(), relay_port=free_port())
    site.state.mkdir()
    give_to_service_user(site.state)
    install_pbem(site)
    site.write_env_file({"PBEM_SECRET_KEY": "units-test-key"})
    yield site
    shutil.rmtree(root, ignore_errors=True)


def test_the_backup_unit_backs_up_a_running_database_that_restores(site):
    backups = site.root / "backups"  # /var/backups/pbem, made as the unit's comment says
    backups.mkdir()
    give_to_service_user(backups)
    worker = PbemService(site)  # the worker's first start makes the store, as deployed
    worker.start(ready_port=site.lmtp_port)
    worker.stop()
    service = PbemService(site, "systemd/pbem-backup.service")
    game_id = service.pbem("new", "onyx", "--player", "a@example.org", "--player",
                           "b@example.org").stdout.decode().split()[-1]
    command = [backups.as_posix() if part == "/var/backups/pbem" else part
               for part in service.command_line()]
    assert command[1:] == ["backup", str(backups), "--keep", "14"]
    done = subprocess.run(command, env=service.environment(), capture_output=True,
                          text=True, cwd=service.unit["WorkingDirectory"][0], timeout=120,
                          **service.as_service_user())
    assert done.returncode == 0, done.stderr
    made, = backups.iterdir()
    restored = site.root / "restored.db"  # deploy/README.md: install the copy, then start
    shutil.copyfile(made, restored)
    status = subprocess.run([sys.executable, "-m", "pbem", "status"], capture_output=True,
                            text=True, timeout=120, cwd=site.root,
                            env={"PBEM_DATABASE_URL": f"sqlite:///{restored}",
                                 "PBEM_SECRET_KEY": "units-test-key"})
    assert status.returncode == 0, status.stdout + status.stderr
    assert "games:        1 running" in status.stdout
    export = subprocess.run([sys.executable, "-m", "pbem", "export", game_id],
                            capture_output=True, text=True, timeout=120, cwd=site.root,
                            env={"PBEM_DATABASE_URL": f"sqlite:///{restored}",
                                 "PBEM_SECRET_KEY": "units-test-key"})
    assert export.stdout.startswith('[Game "Onyx"]'), export.stderr


def test_the_harness_gives_environment_files_the_last_word_as_systemd_does(tmp_path):
    """systemd.exec(5): EnvironmentFile= overrides Environment= (a drop-in's too), later
    files override earlier ones, and a "-" file may be missing. The worker@ unit relies
    on it (its instance file after pbem.env); the harness must read units the same way."""
    from deployed_pbem import read_unit
    (tmp_path / "site.env").write_text("PBEM_A=file\nPBEM_B=site\n")
    (tmp_path / "own.env").write_text("PBEM_B='own'\n")
    service = PbemService.__new__(PbemService)
    service.unit = read_unit(f"""[Service]
Environment=PBEM_A=line PBEM_C=line
EnvironmentFile={tmp_path}/site.env
EnvironmentFile={tmp_path}/own.env
EnvironmentFile=-{tmp_path}/missing.env
""")
    service.drop_in = {"PBEM_C": "drop-in", "PBEM_A": "drop-in"}
    env = service.environment()
    assert (env["PBEM_A"], env["PBEM_B"], env["PBEM_C"]) == ("file", "own", "drop-in")
