"""Real mail servers for the end-to-end tests: a throwaway Postfix and Dovecot, and pbem
started as its systemd unit says, all on loopback, in temporary directories.

Postfix takes the players' mail (SMTP) and pbem's (its relay), hands mail for the pbem
domain to pbem and mail for the players' domain to Dovecot, and delivers nowhere else
(`default_transport = error`). Players read their mail from Dovecot over IMAP.

What an operator copies from `deploy/` is used as it is, with only the operator's own
values substituted (domain, paths, ports, the service user): the Postfix snippets, the
transport map, the pipe service, the environment file and the worker's unit. What is
here besides is what a test machine needs and a real one already has: a minimal
Postfix base configuration (own queue, loopback only) and a Dovecot for the players.

Each server runs from its own directory (`postfix -c DIR`, `dovecot -F -c FILE`) and
`stop()` ends it even after a failure; a server that does not start raises
`ServiceFailed` with its log. Postfix needs root (its daemons switch users); pbem runs
as `nobody`, standing in for the units' `pbem` user, since Postfix's pipe refuses root.
"""

from __future__ import annotations

import atexit
import email
import email.policy
import email.utils
import json
import os
import pwd
import re
import secrets
import shlex
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

from imapclient import IMAPClient

REPO = Path(__file__).resolve().parent.parent
DEPLOY = REPO / "deploy"
PBEM_DOMAIN, PLAYERS_DOMAIN = "pbem.test", "players.test"
SERVICE_USER, SERVICE_GROUP = "nobody", "nogroup"  # the units' `pbem` user, here
PASSWORD = "loopback-only"  # every player's IMAP password
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


# --- the operator's files from deploy/, with the operator's values replaced -------------

@dataclass
class Site:
    """The values an operator fills in, and what they are on this test machine."""
    root: Path  # the scratch directory everything lives in
    lmtp_port: int  # PBEM_LMTP_LISTEN of the worker
    relay_port: int  # Postfix's SMTP listener: players' mail and pbem's relay
    http_port: int = field(default_factory=free_port)
    settings: dict[str, str] = field(default_factory=dict)  # the environment file's

    @property
    def state(self) -> Path:
        return self.root / "state"  # /var/lib/pbem

    @property
    def env_file(self) -> Path:
        return self.root / "etc" / "pbem.env"  # /etc/pbem/pbem.env

    @property
    def postfix_config(self) -> Path:
        return self.root / "postfix"  # /etc/postfix

    @property
    def install(self) -> Path:
        return self.root / "opt-pbem"  # /opt/pbem: deploy/ and the .venv pbem is installed in

    def substitutions(self) -> list[tuple[str, str]]:
        # Longest first, so a path is replaced before a shorter one it contains.
        return [
            ("/etc/pbem/pbem.env", str(self.env_file)),
            ("/etc/pbem/pbem-worker-", str(self.env_file.parent / "pbem-worker-")),
            ("/etc/postfix", str(self.postfix_config)),
            ("/var/lib/pbem", str(self.state)),
            ("/opt/pbem", str(self.install)),
            ("pbem.example.org", PBEM_DOMAIN),
            ("127.0.0.1:8024", f"127.0.0.1:{self.lmtp_port}"),
            ("127.0.0.1:8000", f"127.0.0.1:{self.http_port}"),
            ("127.0.0.1:25", f"127.0.0.1:{self.relay_port}"),
            ("user=pbem", f"user={SERVICE_USER}"),
        ]

    def deployed(self, name: str) -> str:
        """deploy/NAME as this machine's operator would install it."""
        text = (DEPLOY / name).read_text()
        for operator_value, here in self.substitutions():
            text = re.sub(re.escape(operator_value) + r"(?![\w])", here, text)
        return text

    def write_env_file(self, settings: dict[str, str]) -> dict[str, str]:
        """deploy/pbem.env.example with some values set, as an operator edits it."""
        lines = self.deployed("pbem.env.example").splitlines()
        for key, value in settings.items():
            for number, line in enumerate(lines):
                if re.match(rf"#?\s*{key}=", line):
                    lines[number] = f"{key}={value}"
                    break
            else:
                raise AssertionError(f"deploy/pbem.env.example has no {key}")
        self.env_file.parent.mkdir(parents=True, exist_ok=True)
        self.env_file.write_text("\n".join(lines) + "\n")
        self.env_file.chmod(0o644)
        self.settings = read_env_file(self.env_file)
        return self.settings


def install_pbem(site: Site) -> None:
    """/opt/pbem as an operator installs it: a virtualenv with pbem pip-installed from a
    wheel built from this checkout's files (its dependencies from pip's usual sources, at
    the versions the tests run with), and deploy/ beside it.

    Nothing in it points back into the checkout, which the service user may not be able
    to read (a clone under /root, or in `mktemp -d`). It is built once per test run, in a
    scratch directory the service user can read, and each site's /opt/pbem links to it.
    """
    if "opt" not in _INSTALLED:
        _INSTALLED["opt"] = _build_install()
    site.install.symlink_to(_INSTALLED["opt"], target_is_directory=True)


_INSTALLED: dict[str, Path] = {}  # built once per test run (install_pbem)


def _build_install() -> Path:
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    interpreter = next((c for c in (sys._base_executable, f"/usr/bin/python{version}",
                                    f"/usr/local/bin/python{version}")
                        if _runs_as_service_user(c)), None)
    if interpreter is None:
        raise ServiceFailed(f"no Python {version} that {SERVICE_USER} may run")
    root = scratch_directory("pbem-opt-")
    atexit.register(shutil.rmtree, root, True)
    # The wheel is built from a copy of the files, so the checkout gets no build/ and
    # the build sees what is in the working tree, committed or not.
    sources = root / "source"
    shutil.copytree(REPO, sources, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache"))
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(root / "wheel"),
          str(sources)], "building pbem's wheel")
    shutil.rmtree(sources)
    (wheel,) = (root / "wheel").glob("pbem-*.whl")
    constraints = root / "constraints.txt"
    constraints.write_text(_run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
                                "listing the tests' packages"))
    _run([interpreter, "-m", "venv", str(root / ".venv")], "making /opt/pbem/.venv")
    _run([str(root / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q",
          "-c", str(constraints), str(wheel)], "pip install of pbem's wheel into /opt/pbem")
    shutil.copytree(DEPLOY, root / "deploy")  # a checkout has it beside the .venv
    return root


def _run(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd="/")
    if done.returncode != 0:
        raise ServiceFailed(f"{what} failed ({done.returncode}): {' '.join(command)}\n"
                            f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return done.stdout


def _runs_as_service_user(interpreter: str) -> bool:
    if not Path(interpreter).exists():
        return False
    user = {"user": SERVICE_USER, "group": SERVICE_GROUP} if os.geteuid() == 0 else {}
    try:
        return subprocess.run([interpreter, "-c", "pass"], cwd="/", capture_output=True,
                              timeout=60, **user).returncode == 0
    except OSError:
        return False


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=value lines as systemd's EnvironmentFile= reads them."""
    settings = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, value = line.split("=", 1)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        settings[key.strip()] = value
    return settings


def read_unit(text: str) -> dict[str, list[str]]:
    """The [Service] settings of a systemd unit, each key with all its values."""
    service, section = {}, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            service.setdefault(key, []).append(value)
    return service


# --- Dovecot: the players' mailboxes -----------------------------------------------------

class Dovecot:
    """Dovecot with LMTP (Postfix delivers here) and IMAP (players read here)."""

    def __init__(self, root: Path, users: list[str]):
        self.root = root
        self.lmtp_port, self.imap_port = free_port(), free_port()
        self.users = list(users)
        self.process: subprocess.Popen | None = None

    @property
    def log_path(self) -> Path:
        return self.root / "dovecot.log"

    def log(self) -> str:
        return tail(self.log_path)

    def start(self) -> "Dovecot":
        if not Path("/usr/sbin/dovecot").exists():
            raise ServiceFailed("Dovecot is not installed (.ci/run installs dovecot-imapd "
                                "and dovecot-lmtpd)")
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "run").mkdir(exist_ok=True)
        mail = self.root / "mail"
        mail.mkdir(exist_ok=True)
        give_to_service_user(mail)
        self.write_users()
        conf = self.root / "dovecot.conf"
        conf.write_text(self.config())
        self.errors = open(self.root / "dovecot.err", "wb")
        self.process = subprocess.Popen(["/usr/sbin/dovecot", "-F", "-c", str(conf)],
                                        stdout=subprocess.DEVNULL, stderr=self.errors)
        try:
            wait_for(lambda: self.process.poll() is not None
                     or (listening(self.lmtp_port) and listening(self.imap_port)),
                     "Dovecot to listen", log=self.full_log)
        except AssertionError as error:
            self.stop()
            raise ServiceFailed(str(error)) from None
        if self.process.poll() is not None:
            raise ServiceFailed(f"Dovecot exited with {self.process.returncode}\n"
                                f"{self.full_log()}")
        return self

    def full_log(self) -> str:
        return self.log() + "\n" + tail(self.root / "dovecot.err")

    def write_users(self) -> None:
        """passwd-file: user:{PLAIN}password:uid:gid::home (mail as the unprivileged user)."""
        user = pwd.getpwnam(SERVICE_USER) if os.geteuid() == 0 else pwd.getpwuid(os.geteuid())
        lines = [f"{name}:{{PLAIN}}{PASSWORD}:{user.pw_uid}:{user.pw_gid}::"
                 f"{self.root / 'mail' / name}" for name in self.users]
        (self.root / "users").write_text("\n".join(lines) + "\n")

    def add_user(self, name: str) -> None:
        """Dovecot rereads the passwd-file when it changes."""
        self.users.append(name)
        self.write_users()

    def config(self) -> str:
        root = self.root
        return f"""\
# A throwaway Dovecot for tests: loopback only, plaintext logins (never beyond loopback).
base_dir = {root}/run
state_dir = {root}/state
log_path = {self.log_path}
protocols = imap lmtp
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:~/Maildir
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/users
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {root}/users
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {self.lmtp_port}
  }}
}}
service anvil {{
  chroot =
}}
"""

    def imap(self, user: str) -> IMAPClient:
        client = IMAPClient("127.0.0.1", port=self.imap_port, ssl=False, timeout=30)
        client.login(user, PASSWORD)
        return client

    def stop(self) -> None:
        if self.process is not None:
            terminate(self.process)  # Dovecot's master stops its children, then itself
            self.process = None
            self.errors.close()


# --- Postfix: the MTA in front of pbem -----------------------------------------------------

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


# --- pbem, as its systemd unit runs it -------------------------------------------------

class PbemService:
    """A pbem unit from deploy/systemd: its ExecStart, user, working directory and
    environment (EnvironmentFile= and Environment=), run as a child process."""

    def __init__(self, site: Site, unit: str = "systemd/pbem-worker.service",
                 drop_in: dict[str, str] | None = None, name: str = "", instance: str = ""):
        self.site = site
        text = site.deployed(unit)
        if instance:  # a template's instance (pbem-worker@2): its specifiers filled in
            text = text.replace("%i", instance).replace("%H", socket.gethostname())
        self.unit = read_unit(text)
        self.drop_in = drop_in or {}  # Environment= of a drop-in, e.g. a second worker's port
        self.name = name or Path(unit).stem.replace("@", f"@{instance}")
        self.process: subprocess.Popen | None = None
        self.output: list[str] = []
        self.runs = 0

    def environment(self) -> dict[str, str]:
        """As systemd builds it (systemd.exec(5)): Environment= lines, a drop-in's after
        the unit's, then EnvironmentFile= files in their order, which override them."""
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
        for assignment in self.unit.get("Environment", []):
            for item in shlex.split(assignment):
                key, _, value = item.partition("=")
                env[key] = value
        env.update(self.drop_in)
        for path in self.unit.get("EnvironmentFile", []):
            if path.startswith("-") and not Path(path[1:]).exists():
                continue  # "-": a file that may be missing
            env.update(read_env_file(Path(path.lstrip("-"))))
        return env

    def command_line(self) -> list[str]:
        """ExecStart with ${VAR} and $VAR expanded from the environment, as systemd does."""
        env = self.environment()
        line = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: env.get(m[1] or m[2], ""),
                      self.unit["ExecStart"][0])
        return shlex.split(line)

    def as_service_user(self) -> dict:
        if os.geteuid() != 0:
            return {}
        return {"user": SERVICE_USER, "group": SERVICE_GROUP, "extra_groups": [],
                "umask": 0o022}

    def start(self, ready_port: int | None = None) -> "PbemService":
        """Start; ready when `ready_port` (the LMTP listener) takes connections."""
        self.runs += 1
        log = (self.site.root / f"{self.name}.{self.runs}.log").open("w")
        self.process = subprocess.Popen(self.command_line(), env=self.environment(),
                                        cwd=self.unit["WorkingDirectory"][0],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, **self.as_service_user())
        threading.Thread(target=self._collect, args=(self.process, log), daemon=True).start()
        listen = self.environment().get("PBEM_LMTP_LISTEN", "")
        port = ready_port or (int(listen.rsplit(":", 1)[1]) if listen else None)
        # Without a listener (the pipe alternative), ready once the store it makes answers
        ready, what = ((lambda: listening(port)), f"{self.name} to listen on {port}") \
            if port else (self._store_answers, f"{self.name} to make its store")
        try:
            wait_for(lambda: self.process.poll() is not None or ready(), what, log=self.log)
        except AssertionError as error:
            self.stop()
            raise ServiceFailed(str(error)) from None
        if self.process.poll() is not None:
            raise ServiceFailed(f"{self.name} exited with {self.process.returncode}\n"
                                f"{self.log()}")
        return self

    def _store_answers(self) -> bool:
        """`pbem status` exits 0: the store is there and reachable."""
        executable = Path(self.command_line()[0]).with_name("pbem")
        return subprocess.run([str(executable), "status"], env=self.environment(),
                              cwd=self.unit["WorkingDirectory"][0], capture_output=True,
                              timeout=120, **self.as_service_user()).returncode == 0

    def _collect(self, process: subprocess.Popen, log) -> None:
        with log:
            for line in process.stdout:
                self.output.append(line)
                log.write(line)
                log.flush()

    def log(self) -> str:
        return f"--- {self.name} ---\n" + "".join(self.output[-80:])

    def stop(self) -> int | None:
        """SIGTERM, as systemctl stop sends; returns the exit code."""
        if self.process is None:
            return None
        process, self.process = self.process, None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                raise ServiceFailed(f"{self.name} did not stop on SIGTERM\n{self.log()}")
        return process.returncode

    def pbem(self, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
        """Another `pbem` command as the operator runs it: same user, settings, directory."""
        executable = self.command_line()[0]
        pbem = str(Path(executable).with_name("pbem"))
        done = subprocess.run([pbem, *args], env=self.environment(), input=stdin,
                              cwd=self.unit["WorkingDirectory"][0], capture_output=True,
                              timeout=120, **self.as_service_user())
        if done.returncode != 0:
            raise AssertionError(f"pbem {' '.join(args)} failed ({done.returncode}):\n"
                                 f"{done.stdout.decode()}\n{done.stderr.decode()}")
        return done


# --- DNS and OpenDMARC: the sender checks of PBEM_AUTHSERV_ID ------------------------------

class LoopbackDNS:
    """An authoritative DNS server for the test domains on port 53 of a loopback address
    of its own: TXT records (SPF, DMARC) from `records`; a name it does not hold is
    NXDOMAIN. Just enough of RFC 1035 for OpenDMARC's lookups."""

    def __init__(self, records: dict[str, list[str]]):
        self.records = {name.lower().rstrip("."): texts for name, texts in records.items()}
        self.address = f"127.53.{secrets.randbelow(250) + 1}.{secrets.randbelow(250) + 1}"
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind((self.address, 53))
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.questions: list[tuple[str, int]] = []

    def start(self) -> "LoopbackDNS":
        self.thread.start()
        return self

    def _serve(self) -> None:
        while True:
            try:
                query, client = self.socket.recvfrom(4096)
            except OSError:  # closed by stop()
                return
            try:
                self.socket.sendto(self.answer(query), client)
            except (OSError, ValueError, IndexError):
                continue

    def answer(self, query: bytes) -> bytes:
        labels, offset = [], 12
        while query[offset]:
            length = query[offset]
            labels.append(query[offset + 1:offset + 1 + length].decode("ascii").lower())
            offset += 1 + length
        qtype = int.from_bytes(query[offset + 1:offset + 3], "big")
        question = query[12:offset + 5]
        name = ".".join(labels)
        self.questions.append((name, qtype))
        texts = self.records.get(name)
        answers = b""
        if texts is not None and qtype in (16, 255):  # TXT, ANY
            for text in texts:
                data = bytes([len(text)]) + text.encode("ascii")
                answers += (b"\xc0\x0c" + (16).to_bytes(2, "big") + (1).to_bytes(2, "big")
                            + (60).to_bytes(4, "big") + len(data).to_bytes(2, "big") + data)
        rcode = 3 if texts is None else 0  # NXDOMAIN, or NOERROR (perhaps no answer)
        flags = 0x8400 | (query[2] & 0x01) << 8 | rcode  # response, authoritative, RD copied
        count = answers.count(b"\xc0\x0c") if answers else 0
        header = (query[:2] + flags.to_bytes(2, "big") + (1).to_bytes(2, "big")
                  + count.to_bytes(2, "big") + bytes(4))
        return header + question + answers

    def stop(self) -> None:
        self.socket.close()


class OpenDMARC:
    """deploy/opendmarc/opendmarc.conf as installed, with the operator's values replaced,
    run in the foreground; its resolver is the LoopbackDNS (a mount namespace of its own
    with its own /etc/resolv.conf: nothing else on the machine is touched)."""

    def __init__(self, site: Site, authserv_id: str, dns: LoopbackDNS):
        self.site, self.dns = site, dns
        self.root = site.root / "opendmarc"
        self.port = free_port()
        self.authserv_id = authserv_id
        self.process: subprocess.Popen | None = None

    def start(self) -> "OpenDMARC":
        if shutil.which("opendmarc") is None:
            raise ServiceFailed("OpenDMARC is not installed (apt-get install opendmarc)")
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o777)  # it writes its pid file after switching to the user
        conf = self.site.deployed("opendmarc/opendmarc.conf")
        for operator_value, here in (("mx.example.org", self.authserv_id),
                                     ("inet:8893@127.0.0.1", f"inet:{self.port}@127.0.0.1"),
                                     ("/run/opendmarc/opendmarc.pid",
                                      str(self.root / "opendmarc.pid")),
                                     ("UserID opendmarc", f"UserID {SERVICE_USER}"),
                                     ("Syslog true", "Syslog false")):
            if operator_value not in conf:
                raise AssertionError(f"deploy/opendmarc/opendmarc.conf has no {operator_value}")
            conf = conf.replace(operator_value, here)
        (self.root / "opendmarc.conf").write_text(conf)
        (self.root / "resolv.conf").write_text(f"nameserver {self.dns.address}\n")
        self.errors = open(self.root / "opendmarc.err", "wb")
        script = (f"mount --bind {self.root / 'resolv.conf'} /etc/resolv.conf && "
                  f"exec opendmarc -f -c {self.root / 'opendmarc.conf'}")
        self.process = subprocess.Popen(["unshare", "--mount", "sh", "-c", script],
                                        stdout=self.errors, stderr=subprocess.STDOUT)
        try:
            wait_for(lambda: self.process.poll() is not None or listening(self.port),
                     "OpenDMARC to listen", log=self.log)
        except AssertionError as error:
            self.stop()
            raise ServiceFailed(str(error)) from None
        if self.process.poll() is not None:
            raise ServiceFailed(f"OpenDMARC exited with {self.process.returncode}\n{self.log()}")
        return self

    def log(self) -> str:
        return tail(self.root / "opendmarc.err")

    def stop(self) -> None:
        if self.process is not None:
            terminate(self.process)
            self.process = None
            self.errors.close()


# --- players: write to Postfix, read from Dovecot ------------------------------------------

@dataclass
class MailPlayer:
    """Someone at players.test: sends through Postfix, reads over IMAP."""
    address: str
    postfix: Postfix
    dovecot: Dovecot
    sent: int = 0
    source: str = "127.0.0.1"  # the address the player's mail server sends from

    def mailbox(self) -> list[EmailMessage]:
        """Every message in the INBOX, oldest first (read without marking it seen)."""
        with self.dovecot.imap(self.address) as client:
            client.select_folder("INBOX", readonly=True)
            uids = sorted(client.search(["ALL"]))
            fetched = client.fetch(uids, ["BODY.PEEK[]"]) if uids else {}
        return [email.message_from_bytes(fetched[uid][b"BODY[]"], policy=email.policy.default)
                for uid in uids]

    def wait_for(self, text: str, what: str = "") -> EmailMessage:
        """The newest mail whose text holds `text`, once it has arrived."""
        def find():
            found = [m for m in self.mailbox() if text in body(m)]
            return found[-1] if found else None
        return wait_for(find, what or f"mail to {self.address} saying {text!r}",
                        log=self.postfix.log)

    def reply(self, text: str, to: EmailMessage, headers: dict[str, str] | None = None,
              cc: str | None = None, sender: str | None = None,
              to_address: str | None = None, envelope_sender: str | None = None
              ) -> EmailMessage:
        """Answer `to` as a mail client does: to its Reply-To, the original quoted
        (`headers`: more, written first, as a forger would put them; `cc`: a Reply-All's
        other address; `sender`: a From other than the player's, as a forger writes it;
        `to_address`: instead of the Reply-To; `envelope_sender`: MAIL FROM, if not the
        From)."""
        self.sent += 1
        message = EmailMessage()
        for name, value in (headers or {}).items():
            message[name] = value
        message["From"] = sender or self.address
        message["To"] = to_address or to["Reply-To"]
        if cc:
            message["Cc"] = cc
        message["Subject"] = "Re: " + to["Subject"]
        message["Message-ID"] = f"<{self.sent}.{self.address}@{PLAYERS_DOMAIN}>"
        message["Date"] = email.utils.formatdate()
        message["In-Reply-To"] = to["Message-ID"]
        quoted = "\n".join("> " + line for line in body(to).splitlines()[:6])
        message.set_content(f"{text}\n\nOn Monday, pbem wrote:\n{quoted}\n")
        with smtplib.SMTP("127.0.0.1", self.postfix.port, timeout=30,
                          source_address=(self.source, 0)) as smtp:
            smtp.send_message(message, from_addr=envelope_sender)
        return message


def body(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    return part.get_content() if part is not None else ""


