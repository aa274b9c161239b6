"""What the loopback servers of the end-to-end tests share: the test domains, the
service user, waiting for a server, scratch directories and ending a process.

The servers themselves are beside it: Postfix (postfix_server.py), Dovecot
(dovecot_server.py), pbem as its systemd unit runs it (deployed_pbem.py), the sender
checks' DNS and OpenDMARC (sender_checks.py), and the players who write to Postfix and
read from Dovecot (mail_player.py). All run on loopback, in temporary directories.

Each server runs from its own directory and `stop()` ends it even after a failure; a
server that does not start raises `ServiceFailed` with its log. Postfix needs root (its
daemons switch users); pbem runs as `nobody`, standing in for the units' `pbem` user,
since Postfix's pipe refuses root.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEPLOY = REPO / "deploy"
PBEM_DOMAIN, PLAYERS_DOMAIN = "pbem.test", "players.test"
SERVICE_USER, SERVICE_GROUP = "nobody", "nogroup"  # the units' `pbem` user, here
TIMEOUT = 60  # seconds to wait for anything to arrive: generous, for a loaded machine


class ServiceFailed(AssertionError):
    """A server did not start or stop as it should; the message carries its log."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(check, what: str, timeout: float = TIMEOUT, log=lambda: ""):
    """Poll `check` until it returns something true; fail saying what never came."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}\n{log()}")
        time.sleep(0.1)


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def scratch_directory(prefix: str) -> Path:
    """A temporary directory the daemons' own users can reach (pytest's is root's only)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path


def give_to_service_user(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, SERVICE_USER, SERVICE_GROUP)


def tail(path: Path, lines: int = 40) -> str:
    try:
        return f"--- {path} ---\n" + "\n".join(path.read_text().splitlines()[-lines:])
    except OSError as error:
        return f"--- {path}: {error} ---"


def terminate(process: subprocess.Popen) -> None:
    """SIGTERM, and SIGKILL if it has not ended 20 s later."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

