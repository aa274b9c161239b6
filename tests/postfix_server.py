"""A throwaway Postfix for the end-to-end tests: the MTA in front of pbem, run from its own
directory (`postfix -c DIR`) on loopback.

Postfix takes the players' mail (SMTP) and pbem's (its relay), hands mail for the pbem
domain to pbem and mail for the players' domain to Dovecot, and delivers nowhere else
(`default_transport = error`). pbem's snippets and transport map come from deploy/ as
an operator installs them; the base configuration here is what a test machine needs
and a real one already has (own queue, loopback only).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

from deployed_pbem import Site
from dovecot_server import Dovecot
from loopback_services import (PBEM_DOMAIN, PLAYERS_DOMAIN, ServiceFailed, listening, tail,
                               wait_for)

# What a distribution's master.cf has, without chroot (the queue is in a scratch
# directory, not a prepared jail); the SMTP listener is on a free loopback port.
MASTER_CF = """\
127.0.0.1:{port} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
smtp      unix  -       -       n       -       -       smtp
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
"""

# A test machine's base: own queue, loopback only, nothing delivered beyond the two test
# domains. deploy/postfix/main.cf.snippet comes after it, as on an operator's machine.
MAIN_CF = """\
compatibility_level = 3.6
queue_directory = {root}/queue
data_directory = {root}/data
maillog_file = {root}/postfix.log
maillog_file_prefixes = {root}
myhostname = mx.{domain}
mydomain = {domain}
mydestination =
inet_interfaces = loopback-only
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtpd_peername_lookup = no
default_transport = error:this test server delivers nowhere else
alias_maps =
alias_database =
"""


class Postfix:
    """`postfix -c DIR start` with pbem's snippets from deploy/ and a transport map."""

    def __init__(self, site: Site, transport: str, master_extra: str = "",
                 main_extra: str = ""):
        self.site = site
        self.root = site.root / "postfix-run"
        self.config_dir = site.postfix_config
        self.port = site.relay_port
        self.transport, self.master_extra, self.main_extra = transport, master_extra, main_extra
        self.started = False

    @property
    def log_path(self) -> Path:
        return self.root / "postfix.log"

    def log(self) -> str:
        return tail(self.log_path)

    def start(self) -> "Postfix":
        if os.geteuid() != 0:
            raise ServiceFailed("Postfix must be started as root (its daemons switch to "
                                "the postfix user); run the tests as root, as CI does")
        if shutil.which("postfix") is None:
            raise ServiceFailed("Postfix is not installed (.ci/run installs it)")
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "queue").mkdir(exist_ok=True)
        data = self.root / "data"
        data.mkdir(exist_ok=True)
        shutil.chown(data, "postfix")
        self.config_dir.mkdir(parents=True, exist_ok=True)
        main = MAIN_CF.format(root=self.root, domain=PBEM_DOMAIN)
        main += "\n" + self.site.deployed("postfix/main.cf.snippet") + "\n" + self.main_extra
        (self.config_dir / "main.cf").write_text(main)
        master = MASTER_CF.format(port=self.port) + self.master_extra
        (self.config_dir / "master.cf").write_text(master)
        (self.config_dir / "transport").write_text(self.transport)
        self.run("postmap", "-c", str(self.config_dir), f"hash:{self.config_dir}/transport")
        self.run("postfix", "-c", str(self.config_dir), "start")
        self.started = True
        try:
            wait_for(lambda: listening(self.port), "Postfix to listen", log=self.log)
        except AssertionError as error:
            raise ServiceFailed(str(error)) from None
        return self

    def warnings(self) -> list[str]:
        """What `postconf` says of the configuration as written (an operator runs it after
        every change): unused or unknown parameters, say."""
        done = subprocess.run(["postconf", "-c", str(self.config_dir), "-n"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return [line for line in done.stderr.splitlines() if "warning" in line]

    def run(self, *command: str) -> str:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise ServiceFailed(f"{' '.join(command)} failed ({done.returncode}): "
                                f"{done.stderr}\n{self.log()}")
        return done.stdout

    def queue(self) -> list[dict]:
        """The mail Postfix holds (postqueue -j), e.g. deferred for a stopped worker."""
        out = self.run("postqueue", "-c", str(self.config_dir), "-j")
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def flush(self) -> None:
        """Retry deferred mail now (what an operator does after restarting the worker)."""
        self.run("postqueue", "-c", str(self.config_dir), "-f")

    def stop(self) -> None:
        if not self.started:
            return
        self.started = False
        subprocess.run(["postfix", "-c", str(self.config_dir), "stop"],
                       capture_output=True, timeout=60)
        pid_file = self.root / "queue" / "pid" / "master.pid"
        try:
            pid = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            return

        def gone():
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            return False
        try:
            wait_for(gone, "Postfix to stop", timeout=20)
        except AssertionError:
            subprocess.run(["postfix", "-c", str(self.config_dir), "abort"],
                           capture_output=True, timeout=60)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def players_transport(dovecot: Dovecot) -> str:
    return f"{PLAYERS_DOMAIN}    lmtp:inet:127.0.0.1:{dovecot.lmtp_port}\n"


def lmtp_transport(site: Site) -> str:
    """deploy/postfix/transport as installed: the pbem domain to the worker over LMTP."""
    return site.deployed("postfix/transport")


def pipe_main_cf(site: Site) -> str:
    """The lines of deploy/postfix/main.cf.snippet for the pipe alternative, uncommented
    as its comment says (they stay commented for the LMTP set-up)."""
    return "".join(line[1:] + "\n" for line in site.deployed("postfix/main.cf.snippet")
                   .splitlines() if line.startswith("#pbem-ingest_"))


def pipe_transport(site: Site) -> str:
    """deploy/postfix/transport switched to its alternative: the pipe to `pbem ingest`."""
    lines = []
    for line in site.deployed("postfix/transport").splitlines():
        if line.startswith(PBEM_DOMAIN):
            line = "#" + line
        elif line.startswith(f"#{PBEM_DOMAIN}"):
            line = line[1:]
        lines.append(line)
    return "\n".join(lines) + "\n"
