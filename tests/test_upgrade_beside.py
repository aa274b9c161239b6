"""A rolling upgrade installs the new version under the running processes (deploy/README.md
"Upgrades", step 2): the old web, still running, must answer with its own templates until
it is restarted, not render the new ones with its old code.

The installed package is copied into a directory of its own (as a wheel lays it out:
templates/ inside pbem/) and served by gunicorn from there; then the files are replaced
as `pip install` of a newer version replaces them: a seat page that names an endpoint
this code does not have (as 573b333's web met main's `seat_page.pictures`: a BuildError, 500), a new
stylesheet. The running web goes on answering with what it started with.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from mailtest import free_port, poll
from test_health import get
from pbem.access import page_token
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.store import Seat

ROOT = Path(__file__).resolve().parent.parent
NEW_SEAT_PAGE = "{{ url_for('seat_page.next_version_only', token=token) }} a newer version's page\n"


def installed_copy(site: Path) -> None:
    """pbem as a wheel installs it: pbem/, pbem/templates/, notation/."""
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "pbem", site / "pbem", ignore=ignore)
    shutil.copytree(ROOT / "notation", site / "notation", ignore=ignore)
    shutil.copytree(ROOT / "templates", site / "pbem" / "templates", ignore=ignore)


def test_the_running_web_keeps_its_templates_when_a_new_version_is_installed(config,
                                                                              tmp_path):
    game = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    seat = Seat.get((Seat.game == game) & (Seat.number == 0))
    link = f"/play/{page_token(config, game, 0, seat.player)}"
    site = tmp_path / "site"
    installed_copy(site)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(site), "PBEM_DATABASE_URL": config.database_url,
           "PBEM_DOMAIN": config.domain, "PBEM_SECRET_KEY": config.secret_key}
    web = subprocess.Popen([sys.executable, "-m", "gunicorn", "-w", "1", "-b",
                            f"127.0.0.1:{port}", "--no-control-socket", "pbem.web.wsgi:app"],
                           env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        poll(lambda: get(base + "/")[0] == 200, "the web")  # up; no seat page shown yet
        stylesheet = get(base + "/archive.css")[1]
        # pip install of the next version, under the running web
        (site / "pbem" / "templates" / "web" / "seat.html").write_text(NEW_SEAT_PAGE)
        (site / "pbem" / "templates" / "web" / "style.css").write_text("body {}\n")
        status, page = get(base + link)
        assert status == 200, page[:500]
        assert "a newer version's page" not in page and "alice" in page
        assert get(base + "/archive.css") == (200, stylesheet)
    finally:
        web.terminate()
        errors = web.communicate(timeout=60)[1]
    assert "BuildError" not in errors, errors[-2000:]


def test_status_mid_upgrade_names_the_old_workers_that_do_not_tick(config, tmp_path):
    """Old workers (before 0038, no ticks) take mail on the migrated schema: the new `pbem
    status` must not say that nothing runs, and exits 1 until they are restarted."""
    from pbem.operator.status import print_status
    from test_counters_upgrade import an_old_workers_mail
    an_old_workers_mail("<m1@example.org>", "done: 1 line(s)")
    lines: list[str] = []
    assert print_status(config, out=lines.append, workdir=tmp_path) == 1
    text = "\n".join(lines)
    assert "NONE ticks" not in text
    assert "workers:      NONE of this version ticks, yet mail came in 0 s ago: workers " \
           "of an older pbem (which do not tick) still run;" in text
