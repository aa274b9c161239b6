"""`pbem serve` as a user runs it: one process with the web page, the SMTP listener and
the scheduler, configured only by PBEM_* variables, stopped by a signal.

The game is started with `pbem new` (another process on the same database), its first
mails land in the maildir, a move goes in over SMTP, and the answer appears in the
maildir within seconds. Waiting is polling with a generous timeout, never a fixed sleep.
"""

import email
import email.policy
import json
import os
import signal
import smtplib
import subprocess
import sys
import urllib.request
from email.message import EmailMessage
from pathlib import Path

import pytest

from mailtest import free_port, poll

TIMEOUT = 30  # seconds: generous, for a loaded machine; a pass takes far less


def maildir_mail(maildir: Path) -> list:
    new = maildir / "new"
    paths = sorted(new.iterdir(), key=lambda p: p.stat().st_mtime_ns) if new.exists() else []
    return [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
            for p in paths]


def text_of(message) -> str:
    return message.get_body(("plain",)).get_content()


@pytest.fixture
def server_env(tmp_path):
    http, smtp = free_port(), free_port()
    env = {**os.environ, "PBEM_HTTP": f"127.0.0.1:{http}",
           "PBEM_SMTP_LISTEN": f"127.0.0.1:{smtp}",
           "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'pbem.db'}",
           "PBEM_MAILDIR": str(tmp_path / "mail"), "PBEM_DOMAIN": "pbem.test",
           "PBEM_SMTP_RELAY": "", "PYTHONUNBUFFERED": "1"}
    env.pop("PBEM_SECRET_KEY", None)  # a fresh machine: the key file in the work dir
    return env, http, smtp


def _as_a_background_job() -> None:
    """A script's `pbem serve &` (no job control) starts with SIGINT ignored, and so did
    these tests when the suite ran so: Ctrl-C and SIGINT must stop it all the same."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def start_server(env, cwd):
    server = subprocess.Popen([sys.executable, "-m", "pbem", "serve"], env=env, cwd=cwd,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              preexec_fn=_as_a_background_job)
    lines = []
    while not any("or run `pbem new" in line for line in lines):  # the banner, all of it
        line = server.stdout.readline()
        if not line:
            raise AssertionError(f"pbem serve ended: {server.wait()} {server.stderr.read()}")
        lines.append(line)
    return server, "".join(lines)


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT],
                         ids=["SIGTERM", "SIGINT"])
def test_pbem_serve_plays_mail_and_stops_cleanly(server_env, tmp_path, stop_signal):
    env, http, smtp = server_env
    server, banner = start_server(env, tmp_path)
    try:
        assert f"http://127.0.0.1:{http}/" in banner
        assert f"SMTP on 127.0.0.1:{smtp}" in banner
        assert "pbem is running for pbem@pbem.test" in banner

        page = poll(lambda: _get(f"http://127.0.0.1:{http}/"), "the web page")
        assert "pbem@pbem.test" in page

        new = subprocess.run([sys.executable, "-m", "pbem", "new", "onyx",
                              "--player", "alice@example.org", "--player", "bob@example.org"],
                             env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert new.returncode == 0, new.stderr
        game_id = int(new.stdout.strip().splitlines()[-1])
        first = poll(lambda: [m for m in maildir_mail(tmp_path / "mail")
                              if "alice@example.org" in m["To"]], "alice's first mail")[0]
        assert f"Onyx #{game_id}" in first["Subject"]
        assert "It is your turn (move #1)." in text_of(first)

        move = EmailMessage()
        move["From"] = "alice@example.org"
        move["To"] = first["Reply-To"]
        move["Subject"] = "Re: " + first["Subject"]
        move["Message-ID"] = "<serve-1@client.test>"
        move["In-Reply-To"] = first["Message-ID"]
        move.set_content("F6\n")
        with smtplib.SMTP("127.0.0.1", smtp, timeout=30) as client:
            client.send_message(move)

        news = poll(lambda: [m for m in maildir_mail(tmp_path / "mail")
                             if "#1 alice: F6" in text_of(m) and "bob@" in m["To"]],
                    "bob's news of F6")
        assert "It is your turn (move #2)." in text_of(news[0])
        assert json.loads(_get(f"http://127.0.0.1:{http}/health")) == {"ok": True, "games": 1}
    finally:
        server.send_signal(stop_signal)
        try:
            code = server.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
        errors = server.stderr.read()
        server.stdout.close()
        server.stderr.close()
    assert code == 0, errors
    assert "Traceback" not in errors
    with pytest.raises(OSError):  # the listener is gone
        smtplib.SMTP("127.0.0.1", smtp, timeout=5).quit()


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode()
    except OSError:
        return ""
